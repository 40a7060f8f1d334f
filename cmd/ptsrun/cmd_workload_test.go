package main

import (
	"encoding/json"
	"github.com/ptsrun/ptsrun/internal/rundir"
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
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The PTS-E composite workload (ECW, PTS 2.0.2 §13) as --bs and --zones take it.
const (
	ecwBS    = "0.5k:4,1k:1,1.5k:1,2k:1,2.5k:1,3k:1,3.5k:1,4k:67,8k:10,16k:7,32k:3,64k:3"
	ecwZones = "50/5:30/15:20/80"
)

func ecwWorkload() engine.Workload {
	return engine.Workload{Access: engine.Random, ReadPct: 40, TC: 1, QD: 32, ActiveRange: 100,
		BlockSplit: []engine.BlockShare{{Bytes: 512, Percent: 4}, {Bytes: 1024, Percent: 1}, {Bytes: 1536, Percent: 1},
			{Bytes: 2048, Percent: 1}, {Bytes: 2560, Percent: 1}, {Bytes: 3072, Percent: 1}, {Bytes: 3584, Percent: 1},
			{Bytes: 4096, Percent: 67}, {Bytes: 8192, Percent: 10}, {Bytes: 16384, Percent: 7}, {Bytes: 32768, Percent: 3},
			{Bytes: 65536, Percent: 3}},
		Zones: []engine.Zone{{IOPercent: 50, RangePercent: 5}, {IOPercent: 30, RangePercent: 15}, {IOPercent: 20, RangePercent: 80}}}
}

// --bs takes a split and --zones zones; both reach workload.json, run.json,
// results.json (in the cell's name: its fields are the matrices') and the
// report, which names them in full.
func TestWorkloadSplitAndZones(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ecw")
	code, stdout, stderr := ptsrun("workload", "--target", "sim", "--read", "40", "--bs", ecwBS, "--zones", ecwZones,
		"--qd", "32", "--time", "10s", "--out", dir)
	require.Equal(t, 0, code, stderr)
	want := ecwWorkload()
	full := "RND composite 40/60 TC1/QD32 — block sizes 0.5 KiB 4 %, 1 KiB 1 %, 1.5 KiB 1 %, 2 KiB 1 %, 2.5 KiB 1 %, 3 KiB 1 %, " +
		"3.5 KiB 1 %, 4 KiB 67 %, 8 KiB 10 %, 16 KiB 7 %, 32 KiB 3 %, 64 KiB 3 %; zones: 50 % of I/O → first 5 %, 30 % → next 15 %, 20 % → last 80 %"
	assert.Contains(t, stderr, "ptsrun workload: "+full+" on sim")
	assert.True(t, strings.HasPrefix(stdout, full+", sim"), stdout)
	// The simulated drive's I/O takes no host CPU time to measure: said,
	// not printed as 0 %.
	assert.Contains(t, stdout, "host CPU: not measured (the simulated drive runs on a virtual clock)")
	assert.NotContains(t, stdout, "user 0.0 %")
	// The recording held the run lock, as run does: its file names the command.
	lock, err := os.ReadFile(filepath.Join(dir, rundir.LockFile))
	require.NoError(t, err)
	assert.Contains(t, string(lock), `"command": "workload"`)

	var wj workloadResult
	raw, err := os.ReadFile(filepath.Join(dir, "workload.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &wj))
	assert.Equal(t, want.BlockSplit, wj.Workload.BlockSplit)
	assert.Equal(t, want.Zones, wj.Workload.Zones)
	assert.Contains(t, string(raw), `"bs_split": [`)
	assert.Contains(t, string(raw), `"zones": [`)

	res, ri, err := matrix.Load(dir)
	require.NoError(t, err)
	cell := ri.Stages[0].Cells[0]
	assert.Equal(t, want.BlockSplit, cell.Workload.BlockSplit, "run.json")
	assert.Equal(t, want.Zones, cell.Workload.Zones, "run.json")
	key := "rnd-" + ecwBS + "-40/60-zoned:" + ecwZones
	assert.Equal(t, key, cell.Key.String())
	c := res.Tests[0].Stages[0].Cells[0]
	assert.Equal(t, pts.Named(key), c.Key, "the name survives results.json as a name, not a matrix cell")
	results, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	assert.Contains(t, string(results), `"key": "`+key+`"`)
	csv, err := os.ReadFile(filepath.Join(dir, "tables", "custom.csv"))
	require.NoError(t, err)
	assert.Contains(t, string(csv), `"`+key+`"`)
	assert.InEpsilon(t, wj.Total.MBps/wj.Total.IOPS*1e6, want.MeanBlockSize(), 0.01, "bytes per I/O: the split's mean")

	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", filepath.Join(dir, "report.pdf"), "-").Output()
		require.NoError(t, err)
		text := strings.Join(strings.Fields(string(out)), " ")
		assert.Contains(t, text, "ptsrun workload ran "+full+" for 10s")
		assert.Contains(t, text, "The block-size split: each size's share of the I/Os (on average 7.63 KiB per I/O)")
		assert.Contains(t, text, "The zones: where the random I/Os go, in per cent of the active range")
		assert.Contains(t, text, "Zone Share of I/Os Share of the active range From – to")
	}

	// A split of one size is that size; zones alone keep the size in the name.
	code, stdout, stderr = ptsrun("workload", "--target", "sim", "--bs", "8k:100", "--zones", "90/10:10/90", "--time", "2s", "--json")
	require.Equal(t, 0, code, stderr)
	var one workloadResult
	require.NoError(t, json.Unmarshal([]byte(stdout), &one))
	assert.Equal(t, int64(8192), one.Workload.BlockSize)
	assert.Empty(t, one.Workload.BlockSplit)
	assert.Equal(t, "rnd-8k-100/0-zoned:90/10:10/90", workloadKey(one.Workload).String())
	assert.Equal(t, "rnd-4k-70/30", workloadKey(engine.Workload{Access: engine.Random, BlockSize: 4096, ReadPct: 70}).String())
}

// Bad --bs and --zones: one line naming the flag, exit 1, and nothing made.
func TestWorkloadSplitBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"shares short of 100", []string{"--bs", "4k:60,8k:30"}, `--bs: block-size split "4k:60,8k:30": the shares add up to 90 %, not 100 %`},
		{"shares over 100", []string{"--bs", "4k:67,8k:10,16k:30"}, "the shares add up to 107 %, not 100 %"},
		{"zero share", []string{"--bs", "4k:100,8k:0"}, "--bs: block-size split \"4k:100,8k:0\": the share of 8 KiB: 0 % is not positive"},
		{"negative share", []string{"--bs", "4k:110,8k:-10"}, "the share of 4 KiB: 110 % is more than 100 %"},
		{"no share", []string{"--bs", "4k:50,8k"}, `--bs: block-size split "4k:50,8k": entry "8k" is not SIZE:PERCENT (4k:67)`},
		{"bad size", []string{"--bs", "4q:50,8k:50"}, `--bs: block-size split "4q:50,8k:50": size "4q" is not a number`},
		{"bad share", []string{"--bs", "4k:most,8k:50"}, `the share of 4 KiB: "most" is not a percentage`},
		{"size twice", []string{"--bs", "4k:50,4096:50"}, "4 KiB appears twice"},
		{"size off the sector", []string{"--bs", "4k:50,3000:50"}, "--bs: block size 3000 B is not a multiple of 512 bytes, the smallest logical block size"},
		{"plain size off the sector", []string{"--bs", "1000"}, "--bs: block size 1000 B is not a multiple of 512 bytes"},
		{"zones short of the range", []string{"--zones", "50/5:30/15:20/70"}, `--zones: zones "50/5:30/15:20/70": the zones cover 90 % of the range, not 100 %`},
		{"zones short of the I/O", []string{"--zones", "50/5:30/15:10/80"}, "--zones: zones \"50/5:30/15:10/80\": the zones take 90 % of the I/O, not 100 %"},
		{"zone of no range", []string{"--zones", "50/100:50/0"}, `--zones: zones "50/100:50/0": the range share of "50/0": 0 % is not positive`},
		{"zone of no I/O", []string{"--zones", "100/50:0/50"}, `the I/O share of "0/50": 0 % is not positive`},
		{"negative zone", []string{"--zones", "120/50:-20/50"}, "120 % is more than 100 %"},
		{"zones with commas", []string{"--zones", "50/5,50/95"}, `--zones: zones "50/5,50/95": separate the zones with ':', as fio does (50/5:30/15:20/80)`},
		{"zone without a range", []string{"--zones", "50:50/100"}, `entry "50" is not IO%/RANGE% (50/5)`},
		{"zones on sequential I/O", []string{"--access", "seq", "--zones", ecwZones}, "--zones: zones spread random I/O over the active range; --access seq writes streams"},
		{"empty zones", []string{"--zones", ""}, `--zones: zones "": entry "" is not IO%/RANGE%`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			args := append([]string{"workload", "--target", "sim", "--read", "40", "--time", "1s"}, tc.args...)
			code, stdout, stderr := ptsrun(append(args, "--out", dir)...)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, tc.msg)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %q", stderr)
			assert.Empty(t, stdout)
			_, err := os.Stat(dir)
			assert.True(t, os.IsNotExist(err), "no run directory may be made")
		})
	}
}

// fio takes whole percentages: a fractional share is refused before the
// file target is made or fio runs; the native engine runs it as it is.
func TestWorkloadFractionalShares(t *testing.T) {
	t.Parallel() // waits on its own files and devices: beside the others
	enginetest.NeedFio(t)
	base := t.TempDir()
	img := filepath.Join(base, "target.img")
	dir := filepath.Join(base, "out")
	code, _, stderr := ptsrun("workload", "--target", "file:"+img+":16m", "--engine", "fio", "--read", "100",
		"--bs", "4k:98.5,8k:1.5", "--time", "1s", "--out", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--bs/--zones: invalid workload: the share 98.5 % of 4 KiB is not a whole percentage: "+
		"fio reads shares as whole percentages (it would run 1.5 % as 1 %); use the native engine or whole percentages")
	for _, p := range []string{img, dir} {
		_, err := os.Stat(p)
		assert.True(t, os.IsNotExist(err), "%s was made", p)
	}
	code, _, stderr = ptsrun("workload", "--target", "file:"+img+":16m", "--engine", "fio", "--read", "100",
		"--bs", "4k", "--zones", "50/2.5:50/97.5", "--time", "1s")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "the zone 50/2.5 is not in whole percentages: fio reads shares as whole percentages")

	code, stdout, stderr := ptsrun("workload", "--target", "file:"+img+":16m", "--engine", "native", "--read", "100",
		"--bs", "4k:98.5,8k:1.5", "--zones", "50/2.5:50/97.5", "--time", "1s", "--json")
	require.Equal(t, 0, code, stderr)
	var r workloadResult
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	assert.Equal(t, []engine.BlockShare{{Bytes: 4096, Percent: 98.5}, {Bytes: 8192, Percent: 1.5}}, r.Workload.BlockSplit)
	assert.Positive(t, r.Total.IOPS)
}

// On real targets: a split size that is not a multiple of a 4Kn device's
// logical block is refused, naming the size and the device's block size;
// the ECW runs with fio and native on a 512-byte device, and fio's job
// file carries the split and zones as the PTS writes them.
func TestWorkloadSplitOnLoopDevices(t *testing.T) {
	t.Parallel() // real I/O of fixed times on devices of its own: beside the other device tests
	dev4k := enginetest.LoopDeviceSector(t, 64<<20, "", 4096)
	dir := filepath.Join(t.TempDir(), "out")
	code, _, stderr := ptsrun("workload", "--target", dev4k, "--read", "100", "--bs", "0.5k:4,4k:96", "--time", "1s", "--out", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--bs: block size 0.5 KiB is not a multiple of "+dev4k+"'s logical block size 4096")
	_, err := os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "nothing made")

	dev := enginetest.LoopDevice(t, 256<<20, "")
	for _, eng := range []string{"native", "fio"} {
		t.Run(eng, func(t *testing.T) {
			if eng == "fio" {
				enginetest.NeedFio(t)
			}
			out := filepath.Join(t.TempDir(), "w")
			code, _, stderr := ptsrun("workload", "--target", dev, "--engine", eng, "--read", "40", "--bs", ecwBS, "--zones", ecwZones,
				"--tc", "2", "--qd", "8", "--time", "2s", "--destroy-data", dev, "--out", out)
			require.Equal(t, 0, code, stderr)
			var r workloadResult
			raw, err := os.ReadFile(filepath.Join(out, "workload.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &r))
			assert.Equal(t, ecwWorkload().BlockSplit, r.Workload.BlockSplit)
			// Bytes per I/O is the split's mean, within five standard
			// deviations of the mean of this run's draws.
			split := ecwWorkload()
			mu, n := split.MeanBlockSize(), float64(r.Total.IOs)
			var sq float64
			for _, b := range split.BlockSplit {
				sq += b.Percent / 100 * float64(b.Bytes) * float64(b.Bytes)
			}
			bound := 5 * math.Sqrt((sq-mu*mu)/n)
			assert.InDelta(t, mu, float64(r.Total.Bytes)/n, bound, "bytes per I/O of %.0f I/Os", n)
			if eng == "fio" {
				jobs, _ := filepath.Glob(filepath.Join(out, "fio", "*.fio"))
				require.NotEmpty(t, jobs)
				job, err := os.ReadFile(jobs[0])
				require.NoError(t, err)
				assert.Contains(t, string(job), "\nbssplit=512/4:1024/1:1536/1:2048/1:2560/1:3072/1:3584/1:4096/67:8192/10:16384/7:32768/3:65536/3\n")
				assert.Contains(t, string(job), "\nrandom_distribution=zoned:50/5:30/15:20/80\n")
				assert.Contains(t, string(job), "; ptsrun cell ", "the job file names the workload in full")
				assert.Contains(t, string(job), "zones: 50 % of I/O → first 5 %")
			}
		})
	}
}

// A workload's time series on a real target (a file, the native engine):
// intervals of --interval with each direction's latency, adding up to the
// results, in seconds.csv and results.json; the run's finish is its end.
func TestWorkloadSeriesOnFile(t *testing.T) {
	t.Parallel() // waits on its own files and devices: beside the others
	base := t.TempDir()
	img := filepath.Join(base, "target.img")
	dir := filepath.Join(base, "out")
	code, _, stderr := ptsrun("workload", "--target", "file:"+img+":64m", "--read", "70", "--tc", "2", "--qd", "4",
		"--time", "2s", "--ramp", "500ms", "--interval", "250ms", "--out", dir)
	require.Equal(t, 0, code, stderr)
	// Off a terminal, one interval's line in ten seconds: the first, whose
	// figures a loaded host may leave empty.
	assert.Regexp(t, `RND 4 KiB 70/30 TC2/QD4 0\.[0-9]+s/2\.0s ramp \| (read [0-9.k]+ IOPS|no I/O completed)`, stderr, "an interval's figures as it comes")

	var r workloadResult
	raw, err := os.ReadFile(filepath.Join(dir, "workload.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &r))
	rows := readCSV(t, filepath.Join(dir, "seconds.csv"))
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	num := func(row []string, name string) float64 {
		v, err := strconv.ParseFloat(row[col[name]], 64)
		require.NoError(t, err, "%s in %v", name, row)
		return v
	}
	require.Len(t, rows, 1+8, "2 s in intervals of 250 ms")
	var reads, writes float64
	for k, row := range rows[1:] {
		assert.Equal(t, "all", row[col["target"]])
		assert.InDelta(t, 0.25*float64(k), num(row, "start_s"), 1e-9)
		assert.Equal(t, map[bool]string{true: "1", false: "0"}[k < 2], row[col["ramp"]], "the ramp's two intervals are marked")
		for _, d := range []string{"read", "write"} {
			if num(row, d+"_iops") == 0 {
				// A loaded host may let a 250 ms interval pass with none
				// completing: its latency is unknown, empty, never 0.
				for _, c := range []string{"_mean_ms", "_p99_ms", "_p99_9_ms", "_max_ms"} {
					assert.Empty(t, row[col[d+c]], "interval %d %s%s without I/O", k+1, d, c)
				}
				continue
			}
			p99, p999, mx := num(row, d+"_p99_ms"), num(row, d+"_p99_9_ms"), num(row, d+"_max_ms")
			assert.True(t, 0 < p99 && p99 <= p999 && p999 <= mx, "interval %d %s: %v ≤ %v ≤ %v", k+1, d, p99, p999, mx)
			assert.LessOrEqual(t, num(row, d+"_mean_ms"), mx)
		}
		if k >= 2 {
			reads += num(row, "read_iops") * num(row, "seconds")
			writes += num(row, "write_iops") * num(row, "seconds")
		}
	}
	assert.InDelta(t, float64(r.Read.IOs), reads, 0.5, "the intervals after the ramp add up to the results")
	assert.InDelta(t, float64(r.Write.IOs), writes, 0.5)

	res, _, err := matrix.Load(dir)
	require.NoError(t, err)
	series := res.Tests[0].Stages[0].Cells[0].PerRound[0].Series
	require.Len(t, series, 8)
	if series[7].Read != nil && series[7].Read.IOs > 0 {
		assert.NotNil(t, series[7].Read.P999Ms)
	}
	assert.GreaterOrEqual(t, res.Finish.Sub(res.Start), 2*time.Second, "the report's finish is the workload's end")
}
