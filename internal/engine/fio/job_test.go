package fio

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

func lines(s string) []string { return strings.Split(s, "\n") }

func optionLines(job, option string) []string {
	var out []string
	for _, l := range lines(job) {
		if strings.HasPrefix(l, option+"=") {
			out = append(out, l)
		}
	}
	return out
}

// fio splits filename= at every ':' that has no backslash before it and
// drops that backslash (options.c get_next_str): "\:" is a ':' in the name.
func TestJobFileEscapesColonsInFilename(t *testing.T) {
	for _, tc := range []struct {
		name, path, want string
	}{
		{"plain", "/dev/nvme1n1", `filename=/dev/nvme1n1`},
		{"file with a colon", "/data/a:b.img", `filename=/data/a\:b.img`},
		{"by-path name", "/dev/disk/by-path/pci-0000:00:1f.2-ata-1", `filename=/dev/disk/by-path/pci-0000\:00\:1f.2-ata-1`},
		{"colon at the end", "/data/a:", `filename=/data/a\:`},
		// fio looks only at the character before a ':', and drops one
		// backslash there: "c\\:d" reaches it as "c\:d".
		{"backslash before a colon", `/data/c\:d.img`, `filename=/data/c\\:d.img`},
		{"backslash elsewhere", `/data/x\y.img`, `filename=/data/x\y.img`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := engine.Workload{Access: engine.Random, ReadPct: 0, BlockSize: 4096, TC: 2, QD: 4, ActiveRange: 100, Duration: time.Second}
			ts := []Target{{Name: "t", Path: tc.path, Size: 1 << 20, LogicalBlock: 512}}
			job := JobFile(w, ts, jobSpec{IOEngine: "libaio"})
			assert.Equal(t, []string{tc.want, tc.want}, optionLines(job, "filename"), "one per thread:\n%s", job)
			round := RoundJobFile([]engine.Workload{w, w}, ts, []jobSpec{{IOEngine: "libaio"}, {IOEngine: "libaio"}}, "")
			assert.Equal(t, []string{tc.want, tc.want, tc.want, tc.want}, optionLines(round, "filename"), round)
			for _, plan := range JobFilesFor(w, ts) {
				assert.Equal(t, []string{tc.want, tc.want}, optionLines(plan, "filename"), plan)
			}
		})
	}
}

// The log options take their value as it is (fio 3.x stores it raw): a ':'
// in the run directory stays a ':', an escape would end up in the name.
func TestJobFileLogPathsAsTheyAre(t *testing.T) {
	w := engine.Workload{Access: engine.Random, ReadPct: 50, BlockSize: 4096, TC: 1, QD: 4, ActiveRange: 100, Duration: time.Second}
	ts := []Target{{Name: "t", Path: "/data/a:b.img", Size: 1 << 20, LogicalBlock: 512}}
	job := JobFile(w, ts, jobSpec{IOEngine: "libaio", LogPrefix: "/runs/r:1/fio/c.logs/h0t", IOLog: "/runs/r:1/fio/c.logs/iolog.h0"})
	assert.Equal(t, []string{"write_iops_log=/runs/r:1/fio/c.logs/h0t"}, optionLines(job, "write_iops_log"))
	assert.Equal(t, []string{"write_bw_log=/runs/r:1/fio/c.logs/h0t"}, optionLines(job, "write_bw_log"))
	assert.Equal(t, []string{"write_iolog=/runs/r:1/fio/c.logs/iolog.h0.t0.0"}, optionLines(job, "write_iolog"))
}

// The hold lock's path goes to sh through exec_prerun.
func TestShellQuote(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, s := range []string{"/runs/r 1/fio/c.lock", `/runs/it's "x"/c.lock`, "/runs/`touch pwned`/a b", `/r\n/x`} {
		out, err := exec.Command("sh", "-c", "printf %s "+shellQuote(s)).Output()
		require.NoError(t, err, s)
		assert.Equal(t, s, string(out))
	}
}

func TestCheckPath(t *testing.T) {
	for _, p := range []string{"/dev/nvme0n1", "/data/a:b.img", `/data/x\y.img`, "/data/a b.img", "/runs/r[1]=x,y%d'\"/fio"} {
		assert.NoError(t, CheckPath(p), p)
	}
	for _, tc := range []struct{ path, msg string }{
		{"", "empty path"},
		{"/tmp/xx\nexec_prerun=touch pwned", `control character '\n' at byte 7`},
		{"/tmp/a\tb", `control character '\t'`},
		{"/tmp/a\rb", `control character '\r'`},
		{"/tmp/a\x7fb", `control character '\x7f'`},
		{"/tmp/a\x00b", `control character '\x00'`},
		{"/data/s;x.img", "comment"},
		{"/data/h#x.img", "comment"},
		{"/data/${HOME}.img", "${VAR}"},
		{"/data/$ncpus.img", "keywords"},
		{"/data/a.img ", "blank at the start or end"},
		{" /data/a.img", "blank at the start or end"},
	} {
		err := CheckPath(tc.path)
		if assert.Error(t, err, "%q", tc.path) {
			assert.Contains(t, err.Error(), tc.msg)
		}
	}
}

// With the real fio: the engine's probe and its job files load the named
// file and nothing else, wherever fio and ptsrun run from, and the logs land
// in a run directory whose name holds a ':'.
func TestFioOpensTheNamedFile(t *testing.T) {
	enginetest.NeedFio(t)
	for _, name := range []string{"a:b.img", `c\:d.img`, `x\y.img`, "pci-0000:00:1f.2-ata-1", "e:"} {
		t.Run(name, func(t *testing.T) {
			dir, cwd, run := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "run:1")
			t.Chdir(cwd)
			path := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(path, make([]byte, 1<<20), 0o600))
			e, err := Open([]Target{{Name: "file:" + path, Path: path, Size: 1 << 20, LogicalBlock: 512}},
				Options{WorkDir: filepath.Join(run, "fio"), Trace: 10})
			require.NoError(t, err)
			defer e.Close()
			m, err := engine.RunCell(context.Background(), e, engine.Cell{Workload: engine.Workload{Access: engine.Random, ReadPct: 0,
				BlockSize: 4096, TC: 1, QD: 2, ActiveRange: 100, Duration: 1100 * time.Millisecond, Seed: 1}})
			require.NoError(t, err)
			assert.Positive(t, m.Write.IOs)
			assert.NotEmpty(t, m.Seconds, "the per-second logs are read back from %s", run)
			assert.NotEmpty(t, m.Trace, "the I/O log is read back from %s", run)
			assert.Equal(t, []string{name}, entries(t, dir), "only the named file")
			assert.Empty(t, entries(t, cwd), "nothing in the working directory")
		})
	}
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func ecwSplit() []engine.BlockShare {
	return []engine.BlockShare{{Bytes: 512, Percent: 4}, {Bytes: 1024, Percent: 1}, {Bytes: 1536, Percent: 1}, {Bytes: 2048, Percent: 1},
		{Bytes: 2560, Percent: 1}, {Bytes: 3072, Percent: 1}, {Bytes: 3584, Percent: 1}, {Bytes: 4096, Percent: 67},
		{Bytes: 8192, Percent: 10}, {Bytes: 16384, Percent: 7}, {Bytes: 32768, Percent: 3}, {Bytes: 65536, Percent: 3}}
}

// A split and zones reach fio as fio reads them (see bssplitValue): whole
// percentages, no size without a share, bs_unaligned where fio would round
// a size down to a multiple of the smallest one.
func TestJobFileSplitAndZones(t *testing.T) {
	base := engine.Workload{Access: engine.Random, ReadPct: 40, TC: 1, QD: 32, ActiveRange: 100, Duration: time.Second}
	for _, tc := range []struct {
		name   string
		split  []engine.BlockShare
		zones  []engine.Zone
		want   []string // option lines, in order, among bs*, bssplit, random_distribution
		refuse string
	}{
		{"PTS ECW (§13)", ecwSplit(), []engine.Zone{{IOPercent: 50, RangePercent: 5}, {IOPercent: 30, RangePercent: 15}, {IOPercent: 20, RangePercent: 80}},
			[]string{"bssplit=512/4:1024/1:1536/1:2048/1:2560/1:3072/1:3584/1:4096/67:8192/10:16384/7:32768/3:65536/3",
				"random_distribution=zoned:50/5:30/15:20/80"}, ""},
		{"no split, no zones", nil, nil, []string{"bs=4096"}, ""},
		{"a size with no share is left out (fio: 0 = a part of the rest)",
			[]engine.BlockShare{{Bytes: 4096, Percent: 100}, {Bytes: 8192, Percent: 0}}, nil, []string{"bssplit=4096/100"}, ""},
		{"a size not a multiple of the smallest", []engine.BlockShare{{Bytes: 8192, Percent: 50}, {Bytes: 12288, Percent: 50}}, nil,
			[]string{"bssplit=8192/50:12288/50", "bs_unaligned=1"}, ""},
		{"the smallest with a share counts", []engine.BlockShare{{Bytes: 4096, Percent: 0}, {Bytes: 8192, Percent: 50}, {Bytes: 16384, Percent: 50}}, nil,
			[]string{"bssplit=8192/50:16384/50"}, ""},
		{"fractional share", []engine.BlockShare{{Bytes: 4096, Percent: 98.5}, {Bytes: 8192, Percent: 1.5}}, nil, nil,
			"the share 98.5 % of 4 KiB is not a whole percentage: fio reads shares as whole percentages (it would run 1.5 % as 1 %)"},
		{"fractional zone", nil, []engine.Zone{{IOPercent: 50, RangePercent: 2.5}, {IOPercent: 50, RangePercent: 97.5}}, nil,
			"the zone 50/2.5 is not in whole percentages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := base
			w.BlockSize = 4096
			if tc.split != nil {
				w.BlockSize = 0
			}
			w.BlockSplit, w.Zones = tc.split, tc.zones
			require.NoError(t, w.Validate(512))
			err := checkWorkload(w)
			if tc.refuse != "" {
				assert.ErrorIs(t, err, engine.ErrBadWorkload)
				assert.ErrorContains(t, err, tc.refuse)
				e := &Engine{targets: []Target{{Name: "t", Path: "/dev/null", Size: 1 << 30, LogicalBlock: 512}}}
				assert.ErrorContains(t, e.validate(w), tc.refuse, "the engine refuses it before fio runs")
				return
			}
			require.NoError(t, err)
			job := JobFile(w, []Target{{Name: "t", Path: "/dev/x", Size: 1 << 30, LogicalBlock: 512}}, jobSpec{IOEngine: "libaio"})
			var got []string
			for _, l := range lines(job) {
				for _, o := range []string{"bs=", "bssplit=", "bs_unaligned=", "random_distribution="} {
					if strings.HasPrefix(l, o) {
						got = append(got, l)
					}
				}
			}
			assert.Equal(t, tc.want, got, job)
		})
	}
	many := base
	for i := 1; i <= 65; i++ {
		many.BlockSplit = append(many.BlockSplit, engine.BlockShare{Bytes: int64(i) * 512, Percent: 1})
	}
	assert.ErrorContains(t, checkWorkload(many), "a block-size split of 65 sizes; fio takes at most 64")
}

// With the real fio: 12 KiB I/Os of an 8 KiB/12 KiB split stay 12 KiB
// (without bs_unaligned fio would round them down to 8 KiB), in the shares
// asked for.
func TestFioRunsASplitAsWritten(t *testing.T) {
	enginetest.NeedFio(t)
	path := enginetest.TempFile(t, 16<<20)
	e, err := Open([]Target{{Name: path, Path: path, Size: 16 << 20, LogicalBlock: 512}}, Options{WorkDir: t.TempDir(), Trace: 4000})
	require.NoError(t, err)
	defer e.Close()
	w := engine.Workload{Access: engine.Random, ReadPct: 0, TC: 1, QD: 4, ActiveRange: 100, Duration: time.Second, Seed: 3,
		BlockSplit: []engine.BlockShare{{Bytes: 8192, Percent: 50}, {Bytes: 12288, Percent: 50}}}
	m, err := engine.RunCell(context.Background(), e, engine.Cell{Workload: w})
	require.NoError(t, err)
	n := map[int64]int{}
	for _, io := range m.Trace {
		n[io.Size]++
		require.Zero(t, io.Offset%8192, "fio aligns offsets to the smallest size of the split (blockalign's default)")
	}
	require.Len(t, n, 2, "both sizes: %v", n)
	total := float64(len(m.Trace))
	sigma := math.Sqrt(total * 0.25)
	assert.InDelta(t, total/2, float64(n[12288]), 5*sigma+1, "12 KiB I/Os: %v", n)
}

// A rate cap is each thread's share, per direction by the mix (fio caps
// each direction by itself), in bytes for a split (fio would turn
// rate_iops into bytes at the split's smallest size) and when a MB/s cap
// binds; shares add up to the cap exactly.
func TestJobFileRates(t *testing.T) {
	ts := []Target{{Name: "t", Path: "/dev/x", Size: 1 << 30, LogicalBlock: 512}}
	base := engine.Workload{Access: engine.Random, ReadPct: 70, BlockSize: 4096, TC: 3, QD: 4, ActiveRange: 100, Duration: time.Second}
	for _, tc := range []struct {
		name string
		w    func(*engine.Workload)
		want []string
	}{
		{"IOPS over a mix", func(w *engine.Workload) { w.RateIOPS = 1000 },
			[]string{"rate_iops=234,100", "rate_iops=233,100", "rate_iops=233,100"}},
		{"reads only", func(w *engine.Workload) { w.ReadPct, w.RateIOPS = 100, 1000 },
			[]string{"rate_iops=334", "rate_iops=333", "rate_iops=333"}},
		{"writes only", func(w *engine.Workload) { w.ReadPct, w.RateIOPS = 0, 900 },
			[]string{"rate_iops=300", "rate_iops=300", "rate_iops=300"}},
		{"MB/s", func(w *engine.Workload) { w.ReadPct, w.RateMBps = 100, 3 },
			[]string{"rate=1000000", "rate=1000000", "rate=1000000"}},
		{"MB/s binds before IOPS", func(w *engine.Workload) { w.ReadPct, w.RateMBps, w.RateIOPS = 100, 3, 5000 },
			[]string{"rate=1000000", "rate=1000000", "rate=1000000"}},
		{"IOPS binds before MB/s", func(w *engine.Workload) { w.ReadPct, w.RateMBps, w.RateIOPS = 100, 300, 3000 },
			[]string{"rate_iops=1000", "rate_iops=1000", "rate_iops=1000"}},
		{"IOPS of a split, in bytes", func(w *engine.Workload) {
			w.ReadPct, w.RateIOPS, w.TC = 100, 100, 1
			w.BlockSplit = []engine.BlockShare{{Bytes: 4096, Percent: 50}, {Bytes: 65536, Percent: 50}}
		}, []string{"rate=3481600"}},
	} {
		w := base
		tc.w(&w)
		require.NoError(t, checkWorkload(w), tc.name)
		job := JobFile(w, ts, jobSpec{IOEngine: "io_uring"})
		got := append(optionLines(job, "rate_iops"), optionLines(job, "rate")...)
		assert.Equal(t, tc.want, got, "%s:\n%s", tc.name, job)
	}
	none := JobFile(base, ts, jobSpec{IOEngine: "io_uring"})
	assert.Empty(t, append(optionLines(none, "rate_iops"), optionLines(none, "rate")...))

	// A share that rounds to 0 would be no cap at all to fio.
	w := base
	w.RateIOPS = 5 // 70/30 over three threads: 1.2 writes a second a thread
	assert.ErrorContains(t, checkWorkload(w), "at most 5 IOPS per target spread over 3 threads leaves a thread's writes less than one I/O a second, and fio reads rate_iops=0 as no cap")
	w.ReadPct = 100
	assert.NoError(t, checkWorkload(w))
}

// A random share is percentage_random; fio's 0 is all sequential, so
// ptsrun's 0 (all random) writes nothing; fio takes whole percentages.
func TestJobFileRandomShare(t *testing.T) {
	ts := []Target{{Name: "t", Path: "/dev/x", Size: 1 << 30, LogicalBlock: 512}}
	w := engine.Workload{Access: engine.Random, ReadPct: 70, BlockSize: 4096, TC: 1, QD: 4, ActiveRange: 100, Duration: time.Second, RandomPct: 80}
	assert.Equal(t, []string{"percentage_random=80"}, optionLines(JobFile(w, ts, jobSpec{IOEngine: "io_uring"}), "percentage_random"))
	for _, pct := range []float64{0, 100} {
		w.RandomPct = pct
		assert.Empty(t, optionLines(JobFile(w, ts, jobSpec{IOEngine: "io_uring"}), "percentage_random"), "%v", pct)
	}
	w.RandomPct = 80.5
	assert.ErrorContains(t, checkWorkload(w), "a random share of 80.5 %: fio's percentage_random takes a whole percentage")
}

// A ramp is a group of its own before the results' jobs, logging into
// files of its own; the results' jobs run for the rest of the duration.
func TestJobFileRamp(t *testing.T) {
	ts := []Target{{Name: "t", Path: "/dev/x", Size: 1 << 30, LogicalBlock: 512}}
	w := engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: 2, QD: 4, ActiveRange: 100, Duration: 10 * time.Second, Ramp: 4 * time.Second}
	job := JobFile(w, ts, jobSpec{IOEngine: "io_uring", LogPrefix: "/r/c.logs/h0t", IOLog: "/r/c.logs/iolog.h0"})
	assert.NotContains(t, job, "ramp_time=")
	assert.Equal(t, []string{"runtime=4000ms", "runtime=4000ms", "runtime=6000ms", "runtime=6000ms"}, optionLines(job, "runtime"), job)
	assert.Equal(t, []string{"write_iops_log=/r/c.logs/h0t", "write_iops_log=/r/c.logs/ramp.h0t", "write_iops_log=/r/c.logs/ramp.h0t"},
		optionLines(job, "write_iops_log"))
	assert.Equal(t, []string{"write_hist_log=/r/c.logs/h0t", "write_hist_log=/r/c.logs/ramp.h0t", "write_hist_log=/r/c.logs/ramp.h0t"},
		optionLines(job, "write_hist_log"), "the ramp's latency logs are its own too")
	assert.Len(t, optionLines(job, "write_lat_log"), 3)
	w.Interval = 500 * time.Millisecond
	iv := JobFile(w, ts, jobSpec{IOEngine: "io_uring", LogPrefix: "/r/c.logs/h0t"})
	assert.Equal(t, []string{"log_avg_msec=500"}, optionLines(iv, "log_avg_msec"), "the logs' windows are the series' intervals")
	assert.Equal(t, []string{"log_hist_msec=500"}, optionLines(iv, "log_hist_msec"))
	w.Interval = 0
	assert.Equal(t, []string{"write_iolog=/r/c.logs/iolog.h0.t0.0", "write_iolog=/r/c.logs/iolog.h0.t0.1"}, optionLines(job, "write_iolog"),
		"the trace is of the results' I/Os")
	assert.Contains(t, job, "\n[r0]\nnew_group\n")
	assert.Contains(t, job, "\n; after the ramp: the results\n[t0]\nstonewall\nnew_group\n")
	round := RoundJobFile([]engine.Workload{w, w}, ts, []jobSpec{{IOEngine: "io_uring"}, {IOEngine: "io_uring"}}, "")
	assert.Contains(t, round, "\n[c0r0]\n")
	assert.Equal(t, 3, strings.Count(round, "\nstonewall\n"), "before c0's results, c1's ramp and c1's results:\n%s", round)
	assert.Len(t, optionLines(round, "runtime"), 8)

	for name, want := range map[string]bool{"r0": true, "r12": true, "c3r1": true, "t0": false, "c3t1": false, "probe": false, "rr": false} {
		assert.Equal(t, want, isRampJob(name), name)
	}
	out := &Output{Jobs: []Job{{Name: "r0"}, {Name: "t0"}}}
	out.Jobs[0].Read.Runtime, out.Jobs[1].Read.Runtime = 4*time.Second, 6*time.Second
	assert.Equal(t, 10*time.Second, out.runTime())
}

// The series from the logs of two targets' threads (series.go): counts
// from the iops and bw logs, the unlogged last interval made of the
// targets' totals less the others, each direction's mean from the clat
// log (the whole's of both from the lat log) weighted by I/Os (its end's
// in-flight line left out), percentiles and maximum of
// the targets' histograms added up, bounded by fio's maximum.
func TestPartSeries(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	hist := func(ms int64, idx int, n int64) string {
		b := make([]string, 1856)
		for i := range b {
			b[i] = "0"
		}
		b[idx] = strconv.FormatInt(n, 10)
		return fmt.Sprintf("%d, 0, 4096, %s\n", ms, strings.Join(b, ", "))
	}
	// Threads 3 and 4 (a ramp's were 1 and 2): targets 0 and 1.
	write("h0t_iops.3.log", "1000, 100, 0, 0, 0\n")
	write("h0t_bw.3.log", "1000, 400, 0, 0, 0\n")
	write("h0t_clat.3.log", "1000, 2000, 0, 0, 0\n2000, 3000, 0, 0, 0\n2000, 9000, 0, 0, 0\n")
	write("h0t_lat.3.log", "1000, 2500, 0, 0, 0\n2000, 3500, 0, 0, 0\n2000, 9500, 0, 0, 0\n")
	write("h0t_clat_hist.3.log", hist(1002, 200, 100))
	write("h0t_iops.4.log.x", "") // another host's name: not this prefix's
	write("h0t_iops.4.log", "999, 300, 0, 0, 0\n")
	write("h0t_bw.4.log", "999, 1200, 0, 0, 0\n")
	write("h0t_clat.4.log", "1000, 1000, 0, 0, 0\n2000, 1000, 0, 0, 0\n")
	write("h0t_lat.4.log", "1000, 1500, 0, 0, 0\n2000, 1500, 0, 0, 0\n")
	write("h0t_clat_hist.4.log", hist(1001, 300, 300))
	e := &Engine{version: Version{Major: 3, Minor: 33}, hosts: []string{""},
		targets: []Target{{Name: "a", Path: "/a"}, {Name: "b", Path: "/b"}}}
	w := engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: 1, QD: 1, ActiveRange: 100, Duration: 2 * time.Second}
	job := func(ios int64, bin int64, maxNs float64) Job {
		var j Job
		j.Read.IOs, j.Read.Bytes = ios, ios*4096
		j.Read.Clat = Latency{Max: maxNs, Bins: map[int64]int64{bin: ios}}
		return j
	}
	jobs := []Job{job(150, platIdxToVal(200), 250), job(310, platIdxToVal(300), 1e9)}
	whole, per := e.partSeries(dir, "", jobs, w, 2)
	require.Len(t, whole, 2)
	require.Len(t, per, 2)
	assert.Equal(t, []int64{100, 50}, []int64{per[0][0].ReadIOs, per[0][1].ReadIOs}, "the last interval: 150 less the 100 logged")
	assert.Equal(t, []int64{300, 10}, []int64{per[1][0].ReadIOs, per[1][1].ReadIOs})
	assert.Equal(t, int64(400), whole[0].ReadIOs)
	assert.Equal(t, int64(400*4096), whole[0].ReadBytes)
	assert.Equal(t, int64(60), whole[1].ReadIOs)
	assert.Nil(t, whole[0].Write)
	r := whole[0].Read
	require.NotNil(t, r)
	assert.Equal(t, engine.LatCompletion, r.Of)
	assert.InDelta(t, (2000*100+1000*300)/400.0, r.MeanNs, 1e-9, "the clat log's, as the percentiles, weighted by the targets' I/Os")
	assert.InDelta(t, (2500*100+1500*300)/400.0, whole[0].LatMeanNs, 1e-9, "the lat log's: total latency")
	assert.Equal(t, platIdxToVal(300), r.MaxNs)
	assert.Equal(t, platIdxToVal(300), r.P99Ns)
	assert.Equal(t, int64(250), per[0][0].Read.MaxNs, "never above fio's maximum, %d here", platIdxToVal(200))
	assert.Equal(t, int64(250), per[0][0].Read.P999Ns)
	assert.InDelta(t, 3000, per[0][1].Read.MeanNs, 1e-9, "the first line of a window: the second is the end's in-flight I/Os")
	assert.Equal(t, int64(250), per[0][1].Read.P999Ns, "the last interval's histogram: the totals' less the logged")
	assert.Equal(t, platIdxToVal(300), per[1][1].Read.P999Ns)
	assert.InDelta(t, (3500*50+1500*10)/60.0, whole[1].LatMeanNs, 1e-9)

	// A ramp's series comes first, marked, from its own logs.
	write("ramp.h0t_iops.1.log", "")
	write("ramp.h0t_iops.2.log", "")
	w.Ramp = time.Second
	w.Duration = 3 * time.Second
	var r0, r1 Job
	r0.Name, r1.Name = "r0", "r1"
	r0.Read.IOs, r1.Read.IOs = 7, 8
	jobs[0].Name, jobs[1].Name = "t0", "t1"
	all, perAll := e.cellSeries(dir, "", append(jobs, r0, r1), w)
	require.Len(t, all, 3)
	assert.True(t, all[0].Ramp)
	assert.Equal(t, int64(15), all[0].ReadIOs, "a ramp of one second logs nothing: its totals")
	assert.Nil(t, all[0].Read, "nothing of its latency was logged")
	assert.False(t, all[1].Ramp)
	assert.Equal(t, int64(7), perAll[0][0].ReadIOs)
}
