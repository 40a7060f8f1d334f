package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
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
	"github.com/ptsrun/ptsrun/internal/presets"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/targets"
)

// Bad ramps, rates, sizes, random shares and presets: one line naming the
// flag, exit 1, before any I/O and before the run directory is made.
func TestWorkloadOptionsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"ramp as long as the run", []string{"--time", "10s", "--ramp", "10s"}, "--ramp 10s: the ramp must be shorter than the run (--time 10s), which it is part of"},
		{"ramp longer than the run", []string{"--time", "10s", "--ramp", "1m"}, "--ramp 1m0s: the ramp must be shorter than the run (--time 10s)"},
		{"negative ramp", []string{"--ramp", "-1s"}, "--ramp -1s: a ramp is a duration of zero or more"},
		{"rate of 0 IOPS", []string{"--rate-iops", "0"}, "--rate-iops 0: a rate cap is a number above zero (leave --rate-iops out for none)"},
		{"negative rate", []string{"--rate-iops", "-5"}, "--rate-iops -5: a rate cap is a number above zero"},
		{"rate of 0 MB/s", []string{"--rate-mbps", "0"}, "--rate-mbps 0: a rate cap is a number above zero (leave --rate-mbps out for none)"},
		{"size over 100 %", []string{"--size", "120%"}, "--size 120%: a size is a share of each target above 0 and at most 100 %"},
		{"size of 0", []string{"--size", "0"}, "--size 0%: a size is a share of each target above 0 and at most 100 %"},
		{"negative size", []string{"--size", "-3"}, "--size -3%: a size is a share"},
		{"size not a number", []string{"--size", "most"}, `--size "most": not a percentage of each target (80, or 80%)`},
		{"size and active range", []string{"--size", "80", "--active-range", "50"}, "--size 80% and --active-range 50%: both set the active range; give one"},
		{"random share over 100", []string{"--random-pct", "120"}, "--random-pct 120: outside 0…100 (the share of I/Os at random offsets)"},
		{"negative random share", []string{"--random-pct", "-1"}, "--random-pct -1: outside 0…100"},
		{"random share of 0", []string{"--random-pct", "0"}, "--random-pct 0: all sequential is --access seq (fio's percentage_random=0)"},
		{"random share of a stream", []string{"--access", "seq", "--random-pct", "80"}, "--random-pct: a sequential workload (--access seq) has no random share"},
		{"unknown preset", []string{"--preset", "oltp,dbms2"}, `--preset: unknown preset "dbms2": known are write-intensive, oltp, vod, metadata, composite, dbms, ` +
			`seq128k-read, seq128k-write, streaming, hci-4k-read, hci-4k-70/30, hci-4k-50/50-rnd80, hci-64k-75/25-rnd80, hci-8k-75/25-rnd80 (--preset list shows them)`},
		{"preset and a block size", []string{"--preset", "oltp", "--bs", "8k"}, "--bs: a preset sets its own workload; leave --bs out, or run without --preset"},
		{"preset and a mix", []string{"--preset", "oltp", "--read", "50"}, "--read: a preset sets its own workload"},
		{"preset ramp longer than --time", []string{"--preset", "oltp,dbms", "--time", "20s"}, "--time 20s: preset dbms ramps for 15m0s; give a shorter --ramp too"},
		{"preset and a ramp too long", []string{"--preset", "hci-4k-read", "--time", "20s", "--ramp", "30s"},
			"--ramp 30s: the ramp must be shorter than preset hci-4k-read's time of 20s (--time)"},
		{"preset and a rate of 0", []string{"--preset", "oltp", "--rate-iops", "0"}, "--rate-iops 0: a rate cap is a number above zero"},
		{"interval under 100 ms", []string{"--interval", "50ms"}, "--interval 50ms: whole milliseconds from 100ms"},
		{"ramp not whole intervals", []string{"--time", "10s", "--ramp", "1500ms"}, "--ramp 1.5s: not a whole number of intervals (--interval 1s)"},
		{"preset ramp not whole intervals", []string{"--preset", "dbms", "--time", "20m", "--interval", "7s"},
			"--interval 7s: preset dbms's ramp of 15m0s is not a whole number of intervals"},
		{"interval not whole ms", []string{"--interval", "150.5ms"}, "--interval 150.5ms: whole milliseconds from 100ms"},
		{"interval longer than the run", []string{"--time", "10s", "--interval", "20s"}, "--interval 20s: longer than the run (--time 10s)"},
		{"preset and an interval longer than its time", []string{"--preset", "hci-4k-read", "--time", "5s", "--interval", "6s"},
			"--interval 6s: longer than preset hci-4k-read's time of 5s (--time)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			args := append([]string{"workload", "--target", "sim", "--time", "1s"}, tc.args...)
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

func TestWorkloadPresetList(t *testing.T) {
	code, stdout, stderr := ptsrun("workload", "--preset", "list")
	require.Equal(t, 0, code, stderr)
	for _, name := range presets.Names() {
		assert.Contains(t, stdout, "\n  "+name+" ", name)
	}
	assert.Contains(t, stdout, "dbms                 RND 4 KiB 70/30 TC16/QD32")
	assert.Contains(t, stdout, "1h15m, ramp 15m")
	assert.Contains(t, stdout, "hci-64k-75/25-rnd80  RND80% 64 KiB 75/25 TC4/QD1")
	assert.Contains(t, stdout, "block sizes 0.5 KiB 4 %, 1 KiB 1 %", "the composite one in full")
	assert.Contains(t, stdout, "override a preset's")

	code, stdout, stderr = ptsrun("workload", "--preset", "list", "--json")
	require.Equal(t, 0, code, stderr)
	var list []struct {
		Name     string          `json:"name"`
		About    string          `json:"about"`
		Workload engine.Workload `json:"workload"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &list))
	require.Len(t, list, len(presets.Names()))
	assert.Equal(t, "dbms", list[5].Name)
	assert.Equal(t, 15*time.Minute, list[5].Workload.Ramp)
}

// Presets run one after the other into one run directory, a cell each
// keyed by the preset's name; flags given override the presets' settings.
func TestWorkloadPresets(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	dir := filepath.Join(t.TempDir(), "p")
	code, stdout, stderr := ptsrun("workload", "--target", "sim:enterprise", "--preset", "dbms,hci-4k-50/50-rnd80,composite",
		"--time", "12s", "--ramp", "2s", "--qd", "8", "--out", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "ptsrun workload: 3 preset(s), dbms, hci-4k-50/50-rnd80, composite, on sim:enterprise")
	assert.Contains(t, stdout, "preset dbms (1 of 3):\nRND 4 KiB 70/30 TC16/QD8, the first 2s a ramp, sim")
	assert.Contains(t, stdout, "preset hci-4k-50/50-rnd80 (2 of 3):\nRND80% 4 KiB 50/50 TC4/QD8")
	assert.Contains(t, stdout, "10.0 s after the ramp")

	var set workloadSet
	raw, err := os.ReadFile(filepath.Join(dir, "workload.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &set))
	require.Len(t, set.Workloads, 3)
	for i, name := range []string{"dbms", "hci-4k-50/50-rnd80", "composite"} {
		r := set.Workloads[i]
		assert.Equal(t, name, r.Preset)
		assert.Equal(t, 12*time.Second, r.Workload.Duration, name)
		assert.Equal(t, 2*time.Second, r.Workload.Ramp, name)
		assert.Equal(t, 8, r.Workload.QD, "--qd overrides %s's", name)
		assert.InDelta(t, 10, r.Elapsed, 1e-9, "%s: the results leave the ramp out", name)
		require.Len(t, r.Seconds, 12, name)
		assert.True(t, r.Seconds[1].Ramp)
		assert.False(t, r.Seconds[2].Ramp)
	}
	assert.Equal(t, 16, set.Workloads[0].Workload.TC, "dbms keeps its TC")
	assert.Equal(t, 80.0, set.Workloads[1].Workload.RandomPct)

	rows := readCSV(t, filepath.Join(dir, "seconds.csv"))
	assert.Equal(t, []string{"workload", "target", "interval", "start_s", "seconds", "ramp", "read_iops", "read_mbps", "read_mean_ms",
		"read_p99_ms", "read_p99_9_ms", "read_max_ms", "write_iops", "write_mbps", "write_mean_ms", "write_p99_ms", "write_p99_9_ms",
		"write_max_ms", "lat_of"}, rows[0])
	assert.Len(t, rows, 1+36)
	assert.Equal(t, []string{"dbms", "all", "2", "1", "1", "1"}, rows[2][:6])
	assert.Equal(t, "0", rows[3][5])
	for _, r := range rows[1:] {
		p99, err1 := strconv.ParseFloat(r[9], 64)
		p999, err2 := strconv.ParseFloat(r[10], 64)
		mx, err3 := strconv.ParseFloat(r[11], 64)
		require.NoError(t, errors.Join(err1, err2, err3), "every interval has its read latency: %v", r)
		assert.True(t, 0 < p99 && p99 <= p999 && p999 <= mx, "p99 ≤ p99.9 ≤ max: %v", r)
		assert.Equal(t, "lat", r[18])
	}
	assert.Equal(t, "composite", rows[36][0])

	res, ri, err := matrix.Load(dir)
	require.NoError(t, err)
	assert.True(t, ri.Workload)
	require.Len(t, ri.Stages[0].Cells, 3)
	var keys []string
	for _, c := range res.Tests[0].Stages[0].Cells {
		keys = append(keys, c.Key.String())
		assert.Positive(t, c.IOPS)
	}
	assert.Equal(t, []string{"dbms", "hci-4k-50/50-rnd80", "composite"}, keys)
	assert.InEpsilon(t, set.Workloads[0].Total.IOPS, res.Tests[0].Stages[0].Cells[0].IOPS, 1e-9)

	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", filepath.Join(dir, "report.pdf"), "-").Output()
		require.NoError(t, err)
		text := strings.Join(strings.Fields(string(out)), " ")
		assert.Contains(t, text, "3 workloads, one after the other")
		assert.Contains(t, text, "ptsrun workload ran the preset dbms (array acceptance: a database's RND 4 KiB 70/30 at 16 threads × QD32")
		assert.Contains(t, text, "The first 2s were a ramp: run, and shown shaded in the time series, but left out of every result on this page, which cover the 10s after it.")
		assert.Contains(t, text, "ramp, the first 2s: not in the results")
		assert.Contains(t, text, "hci-4k-50/50-rnd80: RND80% 4 KiB 50/50 TC4/QD8")
		assert.Equal(t, 3, strings.Count(text, "Read response times in every second of the workload: average, 99 %, 99.9 % and maximum"))
		assert.Equal(t, 3, strings.Count(text, "MB/s in every second of the workload; the ramp shaded"))
	}

	// --json: the set, without the seconds.
	code, stdout, stderr = ptsrun("workload", "--target", "sim", "--preset", "oltp,vod", "--time", "3s", "--json")
	require.Equal(t, 0, code, stderr)
	var js workloadSet
	require.NoError(t, json.Unmarshal([]byte(stdout), &js))
	require.Len(t, js.Workloads, 2)
	assert.Equal(t, "vod", js.Workloads[1].Preset)
	assert.Empty(t, js.Workloads[1].Seconds)
}

// A plain workload takes the options too; --size is the active range.
func TestWorkloadRampRateRandomSize(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "w")
	code, _, stderr := ptsrun("workload", "--target", "sim", "--read", "70", "--time", "10s", "--ramp", "3s", "--rate-iops", "5000",
		"--random-pct", "80", "--size", "50%", "--out", dir)
	require.Equal(t, 0, code, stderr)
	var r workloadResult
	raw, err := os.ReadFile(filepath.Join(dir, "workload.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &r))
	assert.Equal(t, 50.0, r.Workload.ActiveRange)
	assert.Equal(t, 80.0, r.Workload.RandomPct)
	assert.Equal(t, 3*time.Second, r.Workload.Ramp)
	assert.InDelta(t, 7, r.Elapsed, 1e-9)
	assert.InEpsilon(t, 5000, r.Total.IOPS, 1e-3)
	assert.Contains(t, string(raw), `"ramp": true`)
	rows := readCSV(t, filepath.Join(dir, "seconds.csv"))
	assert.Equal(t, "ramp", rows[0][4])
	assert.Equal(t, "1", rows[3][4])
	assert.Equal(t, "0", rows[4][4])
	// --size and --active-range may agree; --random-pct 100 is all random.
	code, _, stderr = ptsrun("workload", "--target", "sim", "--time", "2s", "--size", "80", "--active-range", "80", "--random-pct", "100", "--json")
	require.Equal(t, 0, code, stderr)
}

// Stopped during its second preset, a run keeps the first: it is in the
// run directory, complete with its report, before the second starts.
func TestWorkloadPresetsStoppedKeepTheFinished(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	base := t.TempDir()
	dir := filepath.Join(base, "p")
	opts := workloadOptions{Targets: targets.Options{Specs: []string{"file:" + filepath.Join(base, "t.img") + ":16m"}, Engine: "native"},
		Workload: engine.Workload{Seed: 1}, Presets: []string{"hci-4k-read", "seq128k-read"},
		Set: map[string]bool{"time": true, "ramp": true}, Dir: dir}
	opts.Workload.Duration, opts.Workload.Ramp = 2*time.Second, 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(filepath.Join(dir, "report.pdf")); err == nil {
				time.Sleep(300 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	err := runWorkload(ctx, opts, io.Discard, io.Discard)
	require.ErrorIs(t, err, pts.ErrInterrupted)
	assert.Contains(t, err.Error(), "stopped during preset seq128k-read; the 1 workload(s) before it are recorded in "+dir)
	res, ri, err := matrix.Load(dir)
	require.NoError(t, err)
	require.Len(t, ri.Stages[0].Cells, 1)
	assert.Equal(t, "hci-4k-read", res.Tests[0].Stages[0].Cells[0].Key.String())
	assert.FileExists(t, filepath.Join(dir, "report.pdf"))
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return rows
}

// On a loop device both real engines keep the cap, leave the ramp out of
// the results and keep its second; fio's job file says how.
func TestWorkloadOptionsOnLoopDevices(t *testing.T) {
	t.Parallel() // devices and directories of its own: beside the other device tests
	dev := enginetest.LoopDevice(t, 256<<20, "")
	for _, eng := range []string{"native", "fio"} {
		t.Run(eng, func(t *testing.T) {
			if eng == "fio" {
				enginetest.NeedFio(t)
			}
			out := filepath.Join(t.TempDir(), "w")
			code, _, stderr := ptsrun("workload", "--target", dev, "--engine", eng, "--read", "70", "--tc", "2", "--qd", "4",
				"--time", "4s", "--ramp", "1s", "--rate-iops", "2000", "--random-pct", "80", "--destroy-data", dev, "--out", out)
			require.Equal(t, 0, code, stderr)
			var r workloadResult
			raw, err := os.ReadFile(filepath.Join(out, "workload.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &r))
			// Counted, not timed: the cap from above over the whole run on the
			// engine's own clock (the first I/O of each of the 8 queues is due
			// at once), and the ramp's I/Os in its second of the series only.
			require.NotEmpty(t, r.Seconds)
			assert.True(t, r.Seconds[0].Ramp)
			ramp := r.Seconds[0].ReadIOs + r.Seconds[0].WriteIOs
			assert.Positive(t, ramp, "the ramp's second")
			assert.LessOrEqual(t, float64(r.Total.IOs+ramp), 2000*(r.Elapsed+1)+8, "at most 2000 IOPS, ramp and all")
			assert.GreaterOrEqual(t, r.Elapsed, 2.95, "the results' time runs from the ramp's end")
			var after int64
			for _, s := range r.Seconds[1:] {
				assert.False(t, s.Ramp)
				after += s.ReadIOs + s.WriteIOs
			}
			if eng == "native" {
				assert.Equal(t, r.Total.IOs, after, "the results are the seconds after the ramp's")
			} else {
				assert.InDelta(t, r.Total.IOs, after, 0.02*float64(r.Total.IOs), "the results are the seconds after the ramp's (fio's logs)")
			}
			if eng == "fio" {
				jobs, _ := filepath.Glob(filepath.Join(out, "fio", "*.fio"))
				require.Len(t, jobs, 1)
				job, err := os.ReadFile(jobs[0])
				require.NoError(t, err)
				assert.Contains(t, string(job), "\npercentage_random=80\n")
				assert.Equal(t, 4, strings.Count(string(job), "\nrate_iops=700,300\n"), "two threads, ramp and results")
				assert.Contains(t, string(job), "\n; the ramp: in the per-second series only")
			}
		})
	}
}

// Two preset runs (two drives here; two transports or firmware versions
// in a lab) compare into a ratio heat-map, a PDF page and a CSV.
func TestWorkloadPresetsCompareHeatMap(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	for dir, model := range map[string]string{a: "sim:enterprise", b: "sim:client"} {
		code, _, stderr := ptsrun("workload", "--target", model, "--preset", "hci-4k-read,hci-64k-75/25-rnd80", "--time", "6s", "--ramp", "1s", "--out", dir)
		require.Equal(t, 0, code, stderr)
	}
	pdf := filepath.Join(base, "cmp.pdf")
	code, stdout, stderr := ptsrun("compare", a, b, "-o", pdf, "--json")
	require.Equal(t, 0, code, stderr)
	var out struct {
		Files struct {
			CSV []string `json:"csv"`
		} `json:"files"`
		HeatMap struct {
			Workloads []string       `json:"workloads"`
			Ratios    [][][]*float64 `json:"ratios"`
		} `json:"heatmap"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	assert.Equal(t, []string{"hci-4k-read", "hci-64k-75/25-rnd80"}, out.HeatMap.Workloads)
	require.NotNil(t, out.HeatMap.Ratios[0][0][0])
	assert.Less(t, *out.HeatMap.Ratios[0][0][0], 1.0, "the client drive reads fewer IOPS")
	assert.Contains(t, out.Files.CSV, filepath.Join(base, "cmp-tables", "compare_heatmap.csv"))
	rows := readCSV(t, filepath.Join(base, "cmp-tables", "compare_heatmap.csv"))
	assert.Equal(t, []string{"hci-4k-read", "hci-64k-75/25-rnd80", "geometric mean"}, []string{rows[1][0], rows[2][0], rows[3][0]})
	if _, err := exec.LookPath("pdftotext"); err == nil {
		txt, err := exec.Command("pdftotext", pdf, "-").Output()
		require.NoError(t, err)
		assert.Contains(t, string(txt), "ratio heat-map of the workloads")
	}
}
