package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// binary is ptsrun built for the tests that need a process to kill.
var binary string

// tmpRoot is the tests' directory beside binary, removed after them: what
// lives longer than one test (sharedDemo's run).
var tmpRoot string

func TestMain(m *testing.M) {
	// The long device tests (t.Parallel) mostly wait on real I/O.
	enginetest.WaitBound(32)
	dir, err := os.MkdirTemp("", "ptsrun-test")
	if err != nil {
		panic(err)
	}
	tmpRoot = dir
	binary = filepath.Join(dir, "ptsrun")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building ptsrun: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func ptsrun(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(append([]string{"ptsrun"}, args...), &o, &e)
	return code, o.String(), e.String()
}

// sharedDemo is one `ptsrun demo` process with the fixed clock, run once
// for the tests that read a demo (TestDemo, on a copy of its directory,
// and TestDemoIsReproducibleWithAFixedClock, against a second one): its
// directory and its standard error.
func sharedDemo(t *testing.T) (dir, stderr string) {
	t.Helper()
	demoRun.once.Do(func() {
		demoRun.dir = filepath.Join(tmpRoot, "demo")
		cmd := exec.Command(binary, "demo", "--out", demoRun.dir)
		cmd.Env = append(os.Environ(), clockEnv+"="+demoClock)
		var e bytes.Buffer
		cmd.Stderr = &e
		demoRun.err = cmd.Run()
		demoRun.stderr = e.String()
	})
	require.NoError(t, demoRun.err, "ptsrun demo: %s", demoRun.stderr)
	return demoRun.dir, demoRun.stderr
}

// demoClock is sharedDemo's PTSRUN_CLOCK.
const demoClock = "2026-01-02T03:04:05Z"

var demoRun struct {
	once        sync.Once
	dir, stderr string
	err         error
}

func TestDemo(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	shared, stderr := sharedDemo(t)
	dir := filepath.Join(t.TempDir(), "demo")
	require.NoError(t, os.CopyFS(dir, os.DirFS(shared)))
	for _, f := range []string{"run.json", "journal.jsonl", "results.json", "tables/iops.csv", "tables/tp.csv",
		"tables/lat_mean_ms.csv", "tables/lat_p99_999_ms.csv", "tables/lat_max_ms.csv", "tables/lat_iops.csv",
		"tables/iops_tracking.csv", "report.pdf"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
	assert.Contains(t, stderr, "IOPS: steady state at round")
	assert.Contains(t, stderr, "simulated SSD")
	// Each round's tracking variables as the report writes them: digits
	// grouped, with their unit.
	assert.Regexp(t, `IOPS round 1: IOPS RND 4 KiB 0/100 [0-9,]+ IOPS; IOPS RND 64 KiB 65/35 [0-9,]+ IOPS; IOPS RND 1024 KiB 100/0 [0-9,]+ IOPS\n`, stderr)
	assert.Regexp(t, `Latency round 5: ART RND 4 KiB 0/100 0\.[0-9]+ ms, (STEADY|not steady)\n`, stderr)
	assert.NotContains(t, stderr, "e+0", "no exponents")
	res, _, err := matrix.Load(dir)
	require.NoError(t, err)
	assert.True(t, res.Complete)
	for _, tr := range res.Tests {
		for _, s := range tr.Stages {
			assert.True(t, s.Steady, s.Title)
		}
	}

	// The directory now holds a run: another run may not use it.
	code, _, stderr := ptsrun("run", "--target", "sim", "--out", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "already holds a run")
	assert.Contains(t, stderr, "ptsrun resume")

	// report rebuilds results.json and the tables from run.json and the journal alone.
	before, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	csvBefore, err := os.ReadFile(filepath.Join(dir, "tables", "iops.csv"))
	require.NoError(t, err)
	pdfBefore, err := os.ReadFile(filepath.Join(dir, "report.pdf"))
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, "report.pdf")))
	require.NoError(t, os.Remove(filepath.Join(dir, "results.json")))
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "tables")))
	code, _, stderr = ptsrun("report", dir)
	require.Equal(t, 0, code, stderr)
	after, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
	csvAfter, err := os.ReadFile(filepath.Join(dir, "tables", "iops.csv"))
	require.NoError(t, err)
	assert.Equal(t, string(csvBefore), string(csvAfter))
	pdfAfter, err := os.ReadFile(filepath.Join(dir, "report.pdf"))
	require.NoError(t, err)
	assert.Equal(t, pdfBefore, pdfAfter, "the same run gives the same PDF")

	// -o and --paper.
	letter := filepath.Join(t.TempDir(), "letter.pdf")
	code, _, stderr = ptsrun("report", dir, "-o", letter, "--paper", "letter")
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(letter)
	require.NoError(t, err)
	assert.Contains(t, string(b), "/MediaBox [0 0 612.00 792.00]")
	code, _, stderr = ptsrun("report", dir, "--paper", "a3")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `unknown paper size "a3"`)
	code, _, stderr = ptsrun("report", dir, "-o", filepath.Join(t.TempDir(), "missing", "r.pdf"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "r.pdf")

	// A complete run resumes to nothing new.
	code, _, stderr = ptsrun("resume", dir)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "already complete")
}

func TestSameSeedSameResults(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	var out []map[string]any
	for i := 0; i < 2; i++ {
		dir := filepath.Join(t.TempDir(), "r")
		code, _, stderr := ptsrun("run", "--target", "sim:client", "--profile", "client", "--tests", "lat",
			"--cell-time", "10s", "--out", dir)
		require.Equal(t, 0, code, stderr)
		res, _, err := matrix.Load(dir)
		require.NoError(t, err)
		b, _ := json.Marshal(res.Tests)
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(`{"t":`+string(b)+`}`), &m))
		out = append(out, m)
	}
	assert.Equal(t, out[0], out[1])
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown test", []string{"run", "--target", "sim", "--tests", "iops,wsat9"}, `unknown test "wsat9"`},
		{"unknown profile", []string{"run", "--target", "sim", "--profile", "gaming"}, `unknown profile "gaming"`},
		{"unknown model", []string{"run", "--target", "sim:nvme9"}, `unknown simulated drive model "nvme9"`},
		{"unknown flag", []string{"run", "--target", "sim", "--turbo"}, "unknown flag --turbo"},
		{"tc zero", []string{"run", "--target", "sim", "--tc", "0"}, "--tc 0: the IOPS test's thread count is 1…256; left out, --tc is the profile's: E 4, C 2"},
		{"tc high", []string{"run", "--target", "sim", "--tc", "1000"}, "--tc 1000: the IOPS test's thread count is 1…256"},
		{"qd high", []string{"run", "--target", "sim", "--qd", "5000"}, "--qd 5000: the IOPS test's queue depth per thread is 1…1024"},
		{"cell time", []string{"run", "--target", "sim", "--cell-time", "100ms"}, "--cell-time 100ms: a cell lasts 1s…1h0m0s"},
		{"rounds below window", []string{"run", "--target", "sim", "--max-rounds", "4"}, "--max-rounds 4: the round limit is 5…1000"},
		{"active range", []string{"run", "--target", "sim", "--active-range", "0"}, "--active-range 0%: an active range is a percentage above 0 and at most 100"},
		{"missing device", []string{"run", "--target", "/dev/nvme9n9"}, "target /dev/nvme9n9: no such device"},
		{"no target", []string{"run"}, "no target"},
		{"engine", []string{"run", "--target", "sim", "--engine", "spdk"}, `unknown engine "spdk"`},
		{"purge", []string{"run", "--target", "sim", "--purge", "trim"}, `unknown purge method "trim"`},
		{"purge for sim", []string{"run", "--target", "sim", "--purge", "nvme-format"}, "purge method nvme-format does not apply to a simulated drive"},
		{"no out", []string{"run", "--target", "sim"}, "no run directory"},
		{"extra arg", []string{"run", "--target", "sim", "extra"}, `unexpected argument "extra"`},
		{"poll", []string{"run", "--target", "sim", "--poll", "sometimes"}, `--poll "sometimes": want auto, off, or a duration`},
		{"poll workload", []string{"workload", "--target", "sim", "--poll", "-5us"}, `--poll "-5us"`},
		{"cpu-idle", []string{"run", "--target", "sim", "--cpu-idle", "deep"}, `--cpu-idle "deep": want shallow, host`},
		{"cpu-idle workload", []string{"workload", "--target", "sim", "--cpu-idle", "1h"}, `--cpu-idle "1h"`},
		{"cpu-idle replay", []string{"replay", "-", "--target", "file:/nonexistent/x:1M", "--cpu-idle", "1500ns"}, `--cpu-idle "1500ns"`},
		{"subset without tracking", []string{"run", "--target", "sim", "--block-sizes", "4k,128k", "--mixes", "100/0,0/100"},
			"--block-sizes/--mixes leave out the tracking variables IOPS RND 64 KiB 65/35 and IOPS RND 1024 KiB 100/0: " +
				"steady state is judged on them; add 1024k,64k to --block-sizes and 65/35 to --mixes"},
		{"subset size not in the matrix", []string{"run", "--target", "sim", "--tests", "lat", "--block-sizes", "4k,64k"},
			"--block-sizes 64k: not a block size of the Latency test; valid are 8k,4k,0.5k"},
		{"subset mix not in the matrix", []string{"run", "--target", "sim", "--tests", "tp", "--mixes", "0/100,65/35"},
			"--mixes 65/35: not an R/W mix of the Throughput test; valid are 100/0,0/100"},
		{"subset bad size", []string{"run", "--target", "sim", "--block-sizes", "4x"}, `--block-sizes: block size "4x" is not a number`},
		{"subset bad mix", []string{"run", "--target", "sim", "--mixes", "half"}, `--mixes: mix "half"`},
		{"dirth tc with 0", []string{"run", "--target", "sim", "--tests", "dirth", "--dirth-tc", "32,0,1"}, `--dirth-tc 32,0,1: "0" is not a whole number above zero`},
		{"ecw qd with 0", []string{"run", "--target", "sim", "--tests", "ecw", "--ecw-qd", "0"}, `--ecw-qd 0: "0" is not a whole number above zero`},
		{"dirth ceiling 0", []string{"run", "--target", "sim", "--tests", "dirth", "--dirth-art-ceiling", "0ms"}, `--dirth-art-ceiling 0ms: "0ms" is not a duration above zero`},
		{"ecw ceiling negative", []string{"run", "--target", "sim", "--tests", "ecw", "--ecw-art-ceiling", "-2ms"}, `--ecw-art-ceiling -2ms: "-2ms" is not a duration above zero`},
		{"dirth flag without dirth", []string{"run", "--target", "sim", "--tests", "ecw", "--dirth-tc", "4"}, "--dirth-tc: not a parameter of ecw"},
		{"subset on plan", []string{"plan", "--target", "sim", "--tests", "tp,lat", "--block-sizes", "4k"},
			"leave out the tracking variables throughput's MB/s SEQ 1024 KiB 0/100 (no throughput block size: 1024k,128k): " +
				"steady state is judged on them; add 1024k to --block-sizes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			args := tc.args
			if tc.name != "no out" && args[0] != "plan" {
				args = append(args, "--out", dir)
			}
			code, stdout, stderr := ptsrun(args...)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, tc.msg)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %q", stderr)
			assert.Empty(t, stdout)
			_, err := os.Stat(dir)
			assert.True(t, os.IsNotExist(err), "no run directory may be made")
		})
	}
	notEmpty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(notEmpty, "x"), nil, 0o644))
	code, _, stderr := ptsrun("run", "--target", "sim", "--out", notEmpty)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is not empty")
	code, _, stderr = ptsrun("resume", t.TempDir())
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not a ptsrun run directory")
	code, _, stderr = ptsrun("report", t.TempDir())
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not a ptsrun run directory")
}

func TestSS(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	// A worked example of the steady-state rule: rounds 6–10 of a series.
	worked := write("worked.txt", "# IOPS per round\n14000\n12500\n11000\n10600\n10400\n10100\n9800\n10300\n9900\n10200\n")
	code, stdout, stderr := ptsrun("ss", "--json", worked)
	require.Equal(t, 0, code, stderr)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &v))
	assert.Equal(t, true, v["steady"])
	assert.Equal(t, []any{6.0, 10.0}, v["window"])
	assert.InDelta(t, 10060, v["avg"], 1e-9)
	assert.InDelta(t, 500, v["range"], 1e-9)
	assert.InDelta(t, 2012, v["max_range"], 1e-9)
	assert.InDelta(t, 30, v["slope"], 1e-9)
	assert.InDelta(t, 120, v["slope_excursion"], 1e-9)
	assert.InDelta(t, 1006, v["max_slope_excursion"], 1e-9)
	assert.InDelta(t, 10060-8*30, v["intercept"], 1e-9)
	assert.NotNil(t, v["first_steady_round"])

	code, stdout, _ = ptsrun("ss", worked)
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "STEADY over rounds 6–10")
	assert.Contains(t, stdout, "y = 30·R")

	// Exact boundaries are inclusive; a hair beyond is not.
	code, _, _ = ptsrun("ss", write("edge.txt", "90\n110\n100\n100\n100\n"))
	assert.Equal(t, 0, code)
	code, _, _ = ptsrun("ss", write("slope.txt", "95\n97.5\n100\n102.5\n105\n"))
	assert.Equal(t, 0, code)
	code, stdout, _ = ptsrun("ss", "--json", write("over.txt", "94.999\n97.5\n100\n102.5\n105.001\n"))
	assert.Equal(t, 3, code)
	assert.Contains(t, stdout, `"first_steady_round": null`)

	// Slope excursion 120 on an average of 10060 is 1.193 %.
	code, _, _ = ptsrun("ss", "--max-slope", "0.012", worked)
	assert.Equal(t, 0, code)
	code, _, _ = ptsrun("ss", "--max-slope", "0.0119", worked)
	assert.Equal(t, 3, code)

	code, _, stderr = ptsrun("ss", write("bad.txt", "1\n2\nabc\n4\n5\n"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "line 3")
	code, _, stderr = ptsrun("ss", write("nan.txt", "1\n2\nNaN\n4\n5\n"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "line 3")
	code, _, _ = ptsrun("ss", write("short.txt", "1\n2\n"))
	assert.Equal(t, 3, code, "fewer values than the window is not steady")
	code, _, stderr = ptsrun("ss", filepath.Join(dir, "missing.txt"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "missing.txt")

	csvFile := write("rounds.csv", "round,iops,lat\n1,10100,0.2\n2,9800,0.2\n3,10300,0.2\n4,9900,0.2\n5,10200,0.2\n")
	code, stdout, _ = ptsrun("ss", "--column", "iops", "--json", csvFile)
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, `"avg": 10060`)
	code, _, stderr = ptsrun("ss", "--column", "bw", csvFile)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `no column "bw"`)
	code, _, stderr = ptsrun("ss", "--column", "iops", write("badcsv.csv", "round,iops\n1,5\n2,x\n"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "line 3")

	// Standard input.
	cmd := exec.Command(binary, "ss", "--json", "-")
	cmd.Stdin = strings.NewReader("10100\n9800\n10300\n9900\n10200\n")
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), `"steady": true`)
}

func TestPlan(t *testing.T) {
	code, stdout, stderr := ptsrun("plan", "--target", "sim:client", "--profile", "client")
	require.Equal(t, 0, code, stderr)
	for _, s := range []string{"1. IOPS", "2. Throughput 1024 KiB", "3. Throughput 128 KiB", "4. Latency", "purge: sim-format",
		"WIPC: SEQ 128 KiB 0/100 TC1/QD32", "56 cells", "rnd-0.5k-0/100", "ETA:", "PTS-C profile (WCE)",
		"Plan: iops, tp, lat on sim:client, PTS-C profile"} {
		assert.Contains(t, stdout, s)
	}
	assert.NotContains(t, strings.SplitN(stdout, "\n", 2)[0], "[", "lists in words, not Go's syntax")
	// Each test's rules, in its description's words, and the readings of
	// the PTS the run rests on: the client profile's among them.
	for _, td := range []*pts.TestDef{pts.IOPSTest, pts.TPTest, pts.LATTest} {
		for _, r := range td.RulesOf(pts.Config{}) {
			if r.Name == "tracking variable" || r.Name == "tracking variables" {
				assert.Contains(t, stdout, "    - "+r.Name+": "+r.Text+"\n", td.Name)
			}
		}
	}
	assert.Contains(t, stdout, "Readings of the PTS this run rests on")
	assert.Contains(t, stdout, "  - The client profile's active range: 75 % for the IOPS, throughput and latency tests")
	assert.NotContains(t, stdout, "WSAT's stop rule", "only the readings of the tests run")
	code, stdout, _ = ptsrun("plan", "--target", "sim", "--json")
	require.Equal(t, 0, code)
	var p map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &p))
	assert.Len(t, p["stages"], 4)
}

// Each test's active range comes from its own flag, else --active-range,
// else the profile's (client: 75 % for IOPS, throughput and latency, as
// both PTS 2.0 forks read the PTS).
func TestActiveRangeFlags(t *testing.T) {
	ranges := func(args ...string) map[string]float64 {
		t.Helper()
		code, stdout, stderr := ptsrun(append([]string{"plan", "--target", "sim:client", "--json"}, args...)...)
		require.Equal(t, 0, code, stderr)
		var p struct {
			Config pts.Config  `json:"config"`
			Stages []pts.Stage `json:"stages"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &p))
		out := map[string]float64{"pc": p.Stages[0].Precondition.ActiveRange}
		for _, s := range p.Stages {
			out[string(s.Test)] = s.Cells[0].Workload.ActiveRange
		}
		return out
	}
	assert.Equal(t, map[string]float64{"iops": 75, "tp": 75, "lat": 75, "pc": 100}, ranges("--profile", "client"))
	assert.Equal(t, map[string]float64{"iops": 50, "tp": 50, "lat": 50, "pc": 100}, ranges("--profile", "client", "--active-range", "50"))
	assert.Equal(t, map[string]float64{"iops": 50, "tp": 90, "lat": 60, "pc": 80},
		ranges("--active-range", "50", "--tp-active-range", "90", "--lat-active-range", "60", "--pc-active-range", "80"))
	code, _, stderr := ptsrun("plan", "--target", "sim", "--lat-active-range", "0")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--lat-active-range 0%: an active range is a percentage above 0 and at most 100")
}

// A quick look (--block-sizes, --mixes) measures only its cells, in the
// PTS's loop order whatever order they were typed in, keeps them through
// an interruption and resume (run.json holds them), says what it left out,
// and leaves the other cells of the tables empty.
func TestQuickLook(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"--target", "sim", "--engine", "sim", "--tests", "iops,tp,lat",
		"--block-sizes", "4KiB,1m,64k", "--mixes", "0/100,R65/W35,100/0", "--cell-time", "5s"}
	code, stdout, stderr := ptsrun(append([]string{"plan"}, args...)...)
	require.Equal(t, 0, code, stderr)
	for _, s := range []string{"Quick look, not the PTS", "IOPS: a quick look at 9 of the matrix's 56 cells",
		"Throughput: a quick look at 2 of the matrix's 4 cells (--block-sizes); left out: the stage of block size 128 KiB.",
		"1. IOPS", "each round, 9 cells of 5s", "2. Throughput 1024 KiB", "3. Latency", "each round, 3 cells of 5s", "ETA:"} {
		assert.Contains(t, stdout, s)
	}
	assert.NotContains(t, stdout, "Throughput 128 KiB")
	assert.NotContains(t, stdout, "rnd-128k")
	code, stdout, stderr = ptsrun(append([]string{"plan", "--json"}, args...)...)
	require.Equal(t, 0, code, stderr)
	var plan struct {
		Config pts.Config         `json:"config"`
		Subset []matrix.Deviation `json:"subset"`
		Stages []json.RawMessage  `json:"stages"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &plan))
	assert.Equal(t, []int{100, 65, 0}, plan.Config.Mixes)
	assert.Len(t, plan.Subset, 3)
	assert.Len(t, plan.Stages, 3)

	// Interrupted in its first round, then resumed: the subset comes from run.json.
	cmd := exec.Command(binary, append([]string{"run", "--out", dir}, args...)...)
	var serr bytes.Buffer
	cmd.Stderr = &serr
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(filepath.Join(dir, pts.JournalFile)); bytes.Contains(b, []byte(`"round_start"`)) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	_ = cmd.Wait()
	code, _, stderr = ptsrun("resume", dir)
	require.Equal(t, 0, code, "%s\n%s", serr.String(), stderr)

	ri, err := pts.LoadRunInfo(dir)
	require.NoError(t, err)
	assert.Equal(t, []int64{1 << 20, 64 << 10, 4 << 10}, ri.Config.BlockSizes, "stored in loop order")
	assert.Equal(t, []int{100, 65, 0}, ri.Config.Mixes)
	want := map[string][]string{
		"iops": {"rnd-1024k-100/0", "rnd-64k-100/0", "rnd-4k-100/0", "rnd-1024k-65/35", "rnd-64k-65/35", "rnd-4k-65/35",
			"rnd-1024k-0/100", "rnd-64k-0/100", "rnd-4k-0/100"},
		"tp-1024k": {"seq-1024k-100/0", "seq-1024k-0/100"},
		"lat":      {"rnd-4k-100/0", "rnd-4k-65/35", "rnd-4k-0/100"},
	}
	recs, _, err := pts.LoadJournal(dir)
	require.NoError(t, err)
	journaled := map[string][]string{}
	for _, r := range recs {
		if r.Type == pts.RecCell && !slices.Contains(journaled[r.Stage], r.Key.String()) {
			journaled[r.Stage] = append(journaled[r.Stage], r.Key.String())
		}
	}
	assert.Equal(t, want, journaled, "only the chosen cells were measured, in loop order")

	res, err := matrix.ReadResults(filepath.Join(dir, matrix.ResultsFile))
	require.NoError(t, err)
	got := map[string][]string{}
	for _, tr := range res.Tests {
		for _, s := range tr.Stages {
			assert.True(t, s.Steady, s.Title)
			for _, c := range s.Cells {
				assert.True(t, c.Present(), c.Key.String())
				got[s.ID] = append(got[s.ID], c.Key.String())
			}
		}
	}
	assert.Equal(t, want, got)
	codes := map[string][]string{}
	for _, d := range res.Deviations {
		codes[d.Code] = append(codes[d.Code], d.Text)
	}
	assert.Equal(t, []string{
		"IOPS: a quick look at 9 of the matrix's 56 cells (--block-sizes, --mixes); left out: block sizes 128, 32, 16, 8 and 0.5 KiB; " +
			"R/W mixes 95/5, 50/50, 35/65 and 5/95.",
		"Throughput: a quick look at 2 of the matrix's 4 cells (--block-sizes); left out: the stage of block size 128 KiB.",
		"Latency: a quick look at 3 of the matrix's 9 cells (--block-sizes); left out: block sizes 8 and 0.5 KiB.",
	}, codes["subset"])
	assert.Contains(t, codes, "resumed")
	assert.False(t, res.Conforming)

	csv, err := os.ReadFile(filepath.Join(dir, "tables", "iops.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	require.Len(t, lines, 9, "every block size keeps its row")
	assert.Equal(t, "bs,100/0,95/5,65/35,50/50,35/65,5/95,0/100", lines[0])
	assert.Equal(t, "128KiB,,,,,,,", lines[2], "a row left out is empty, not zero")
	assert.Regexp(t, `^4KiB,[0-9.e+]+,,[0-9.e+]+,,,,[0-9.e+]+$`, lines[7])
	csv, err = os.ReadFile(filepath.Join(dir, "tables", "tp.csv"))
	require.NoError(t, err)
	assert.Contains(t, string(csv), "\n128KiB,,\n")
	csv, err = os.ReadFile(filepath.Join(dir, "tables", "lat_mean_ms.csv"))
	require.NoError(t, err)
	assert.Contains(t, string(csv), "\n8KiB,,,\n")
	_, err = os.Stat(filepath.Join(dir, "report.pdf"))
	assert.NoError(t, err)
}

// A run killed at any moment leaves a journal that report and resume accept,
// and resume finishes it.
func TestInterruptExits130(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	enginetest.Long(t, "a simulated IOPS run, interrupted twice")
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(binary, "run", "--target", "sim:enterprise", "--tests", "iops", "--out", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	// Wait for the first round to be under way.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, _ := os.ReadFile(filepath.Join(dir, pts.JournalFile)); bytes.Contains(b, []byte(`"round_start"`)) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	assert.Equal(t, 130, ee.ExitCode())
	assert.Contains(t, stderr.String(), "ptsrun resume "+dir)
	recs, cut, err := pts.LoadJournal(dir)
	require.NoError(t, err)
	assert.False(t, cut)
	var types []string
	for _, r := range recs {
		types = append(types, r.Type)
	}
	assert.Contains(t, types, pts.RecInterrupted)
	code, _, serr := ptsrun("resume", dir)
	require.Equal(t, 0, code, serr)
	res, _, err := matrix.Load(dir)
	require.NoError(t, err)
	assert.True(t, res.Complete)
	found := false
	for _, d := range res.Deviations {
		found = found || d.Code == "resumed"
	}
	assert.True(t, found, "a resumed run is a deviation")
}

func TestFlagsFirst(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, c := range []struct{ in, want []string }{
		{[]string{"ptsrun", "report", "d", "-o", "x.pdf", "--paper", "letter"}, []string{"ptsrun", "report", "-o", "x.pdf", "--paper", "letter", "d"}},
		{[]string{"ptsrun", "report", "-o", "x.pdf", "d"}, []string{"ptsrun", "report", "-o", "x.pdf", "d"}},
		{[]string{"ptsrun", "report", "d", "--paper=letter"}, []string{"ptsrun", "report", "--paper=letter", "d"}},
		{[]string{"ptsrun", "resume", "d", "--json"}, []string{"ptsrun", "resume", "--json", "d"}},
		{[]string{"ptsrun", "report", "d", "--", "-o"}, []string{"ptsrun", "report", "d", "--", "-o"}},
		{[]string{"ptsrun", "nosuch", "d", "-o", "x"}, []string{"ptsrun", "nosuch", "d", "-o", "x"}},
		{[]string{"ptsrun"}, []string{"ptsrun"}},
	} {
		assert.Equal(t, c.want, flagsFirst(app, c.in), "%v", c.in)
	}
}

// check, compare and import from the command line: exit codes, files,
// and nothing left behind on bad input.
func TestGoldenCommands(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	tmp := t.TempDir()
	runDir := func(name, target, tests string) string {
		dir := filepath.Join(tmp, name)
		code, _, stderr := ptsrun("run", "--target", target, "--tests", tests, "--cell-time", "10s", "--out", dir)
		require.Contains(t, []int{0, 3}, code, stderr)
		return dir
	}
	ent := runDir("ent", "sim:enterprise", "lat")
	cli := runDir("cli", "sim:client", "lat")
	tp := runDir("tp", "sim:client", "tp")

	code, stdout, stderr := ptsrun("check", "--golden", ent, ent)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "PASS")
	code, stdout, _ = ptsrun("check", "--golden", filepath.Join(ent, "results.json"), ent, "--json")
	assert.Equal(t, 0, code)
	var res struct {
		Pass     bool `json:"pass"`
		Compared int  `json:"compared"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &res))
	assert.True(t, res.Pass)
	assert.Equal(t, 9*5, res.Compared)

	// The client drive writes far slower than the enterprise one.
	code, stdout, _ = ptsrun("check", "--golden", ent, cli)
	assert.Equal(t, 3, code)
	assert.Contains(t, stdout, "REGRESSIONS")
	code, _, _ = ptsrun("check", "--golden", ent, cli, "--tolerance", "99%", "--tolerance-lat", "99%")
	assert.Equal(t, 3, code, "beyond even 99 %: the client's write latency is many times the enterprise's")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--golden", ent, tp}, "no test in common"},
		{[]string{"check", "--golden", ent, cli, "--tolerance", "lots"}, `tolerance "lots"`},
		{[]string{"check", "--golden", filepath.Join(tmp, "nope"), cli}, "nope"},
		{[]string{"check", ent}, "golden"},
		{[]string{"compare", ent}, "at least two runs"},
		{[]string{"compare", ent, tp}, "no test in common"},
	} {
		code, _, stderr := ptsrun(c.args...)
		assert.Equal(t, 1, code, "%v", c.args)
		assert.Contains(t, stderr, c.want, "%v", c.args)
	}

	// import table, then compare all three.
	csv := filepath.Join(tmp, "review.csv")
	require.NoError(t, os.WriteFile(csv, []byte("bs,100/0,65/35,0/100\n8k,0.1,0.2,0.05\n4k,0.09,0.18,0.04\n0.5k,0.08,0.17,0.03\n"), 0o644))
	imp := filepath.Join(tmp, "review")
	code, _, stderr = ptsrun("import", "table", csv, "--out", imp, "--metric", "lat_ms", "--name", "Review drive")
	require.Equal(t, 0, code, stderr)
	for _, f := range []string{"run.json", "results.json", "report.pdf", "tables/lat_mean_ms.csv"} {
		assert.FileExists(t, filepath.Join(imp, f))
	}
	code, _, stderr = ptsrun("report", imp)
	assert.Equal(t, 0, code, "report rebuilds an imported table: %s", stderr)
	code, _, stderr = ptsrun("check", "--golden", imp, ent)
	assert.Equal(t, 0, code, "the enterprise drive is faster than the table everywhere: %s", stderr)
	code, stdout, _ = ptsrun("check", "--golden", ent, imp)
	assert.Equal(t, 3, code, "the table's 4 KiB write latency is 0.04 ms, the enterprise drive's 0.02")
	assert.Contains(t, stdout, "Not compared, a value on one side only")

	pdf := filepath.Join(tmp, "cmp.pdf")
	code, stdout, stderr = ptsrun("compare", ent, cli, imp, "-o", pdf)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "RND 4 KiB write average ms")
	assert.FileExists(t, pdf)
	assert.FileExists(t, filepath.Join(tmp, "cmp-tables", "compare_lat_mean_ms.csv"))

	// Bad input: a message naming the file and place, exit 1, nothing written.
	bad := filepath.Join(tmp, "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("bs,100/0\n4k,fast\n"), 0o644))
	out := filepath.Join(tmp, "never")
	code, _, stderr = ptsrun("import", "table", bad, "--out", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "bad.csv: line 2, column 2")
	assert.NoDirExists(t, out)
	code, _, stderr = ptsrun("import", "fio", "../../internal/engine/fio/testdata/error-3.33.json", "--out", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "ended with error 5")
	assert.NoDirExists(t, out)
	code, _, stderr = ptsrun("import", "table", csv, "--out", ent)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "already holds a run")

	// import fio of a real json+ output.
	fioOut := filepath.Join(tmp, "fio")
	code, _, stderr = ptsrun("import", "fio", "../../internal/engine/fio/testdata/local-3.33.json", "--out", fioOut)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "imported into")
	assert.FileExists(t, filepath.Join(fioOut, "report.pdf"))
}

// A run on several targets at once reports each: per-target CSVs with a
// column per target, and a per-target page in the report.
func TestPerTargetResults(t *testing.T) {
	t.Parallel() // two simulated drives at once, CPU-bound: beside the others
	enginetest.Long(t, "IOPS and latency on two simulated drives at once")
	dir := filepath.Join(t.TempDir(), "run")
	code, _, stderr := ptsrun("run", "--target", "sim:enterprise", "--target", "sim:client", "--tests", "iops,lat",
		"--cell-time", "5s", "--ss-window", "2", "--max-rounds", "2", "--out", dir)
	require.Contains(t, []int{0, 3}, code, stderr)
	for _, name := range []string{"targets_iops", "targets_mbps", "targets_lat_mean_ms", "targets_lat_max_ms"} {
		b, err := os.ReadFile(filepath.Join(dir, "tables", name+".csv"))
		require.NoError(t, err, name)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		assert.Equal(t, "cell,sim:enterprise#ESIM-0001,sim:client#CSIM-0002", lines[0], name)
		assert.Len(t, lines, 1+56+9, "%s: every cell of both tests", name)
		assert.True(t, strings.HasPrefix(lines[1], "iops:rnd-1024k-100/0,"), lines[1])
	}
	res, _, err := matrix.Load(dir)
	require.NoError(t, err)
	c := res.Tests[0].Stages[0].Cells[54] // RND 4 KiB 0/100
	require.Len(t, c.Targets, 2)
	assert.InEpsilon(t, c.IOPS, c.Targets[0].IOPS+c.Targets[1].IOPS, 1e-9, "the set's IOPS is the sum of its targets'")
	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", filepath.Join(dir, "report.pdf"), "-").Output()
		require.NoError(t, err)
		assert.Contains(t, string(out), "Per-target results (T1 = sim:enterprise#ESIM-0001; T2 = sim:client#CSIM-0002)")
		pages := strings.Count(string(out), "\f")
		assert.Equal(t, pages, strings.Count(string(out), "2, loaded at once"),
			"every page's header keeps every row, set smaller rather than cut")
	}

	// One target: no per-target tables.
	one := filepath.Join(t.TempDir(), "one")
	code, _, stderr = ptsrun("run", "--target", "sim", "--tests", "lat", "--cell-time", "5s", "--ss-window", "2", "--max-rounds", "2", "--out", one)
	require.Contains(t, []int{0, 3}, code, stderr)
	files, _ := filepath.Glob(filepath.Join(one, "tables", "targets_*.csv"))
	assert.Empty(t, files)
}

// `workload --out DIR` records a run directory that report, check and
// compare take like any run: a firmware team can gate CI on one workload.
func TestWorkloadRecordsARunDirectory(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	for _, dir := range []string{a, b} {
		code, _, stderr := ptsrun("workload", "--target", "sim", "--read", "70", "--bs", "4k", "--qd", "32", "--time", "10s", "--out", dir)
		require.Equal(t, 0, code, stderr)
		for _, f := range []string{"run.json", "journal.jsonl", "results.json", "report.pdf", "workload.json", "seconds.csv", "tables/custom.csv"} {
			_, err := os.Stat(filepath.Join(dir, f))
			assert.NoError(t, err, f)
		}
	}
	res, ri, err := matrix.Load(a)
	require.NoError(t, err)
	assert.True(t, ri.Workload)
	assert.False(t, ri.Imported)
	assert.Empty(t, ri.Profile.Short)
	require.Len(t, res.Tests, 1)
	c := res.Tests[0].Stages[0].Cells[0]
	assert.Equal(t, "rnd-4k-70/30", c.Key.String())
	assert.Positive(t, c.IOPS)
	var w workloadResult
	raw, err := os.ReadFile(filepath.Join(a, "workload.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &w))
	assert.InEpsilon(t, w.Total.IOPS, c.IOPS, 1e-9, "the run directory holds the same measurement")
	codes := []string{}
	for _, d := range res.Deviations {
		codes = append(codes, d.Code)
	}
	assert.Equal(t, []string{"simulated", "workload"}, codes, "nothing of the PTS was asked for: no purge or cell-time deviations")

	code, _, stderr := ptsrun("report", a)
	assert.Equal(t, 0, code, stderr)
	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", filepath.Join(a, "report.pdf"), "-").Output()
		require.NoError(t, err)
		assert.Contains(t, string(out), "IOPS in every second of the workload")
		assert.Contains(t, string(out), "Response-time histogram")
	}
	code, stdout, stderr := ptsrun("check", "--golden", a, b, "--tolerance", "50%")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "PASS")
	code, stdout, stderr = ptsrun("compare", a, b, "-o", filepath.Join(base, "cmp.pdf"))
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "rnd-4k-70/30 IOPS", "a workload is a headline of its comparison")

	// Without -o, a directory of its own, never the working directory's
	// root; none when the comparison cannot be made.
	t.Chdir(base)
	code, _, stderr = ptsrun("compare", a, filepath.Join(base, "missing"))
	assert.Equal(t, 1, code)
	made, err := filepath.Glob(filepath.Join(base, "ptsrun-compare-*"))
	require.NoError(t, err)
	assert.Empty(t, made, "nothing made for a comparison that failed: %s", stderr)
	code, _, stderr = ptsrun("compare", a, b)
	require.Equal(t, 0, code, stderr)
	made, err = filepath.Glob(filepath.Join(base, "ptsrun-compare-*", "compare.pdf"))
	require.NoError(t, err)
	require.Len(t, made, 1, stderr)
	tables, err := filepath.Glob(filepath.Join(filepath.Dir(made[0]), "tables", "*.csv"))
	require.NoError(t, err)
	assert.NotEmpty(t, tables)
	assert.Contains(t, stderr, "wrote "+made[0])
	_, err = os.Stat(filepath.Join(base, "compare.pdf"))
	assert.True(t, os.IsNotExist(err), "no compare.pdf in the working directory")

	// A workload that cannot run leaves no directory behind.
	bad := filepath.Join(base, "bad")
	code, _, _ = ptsrun("workload", "--target", "sim", "--bs", "4k", "--active-range", "0.0000001", "--time", "1s", "--out", bad)
	assert.Equal(t, 1, code)
	_, err = os.Stat(bad)
	assert.True(t, os.IsNotExist(err), "nothing made")
}

// No --help says "UNVERIFIED", which tells a user nothing: a flag whose
// default is a reading of the PTS names the reading's source (issue 20).
func TestHelpNamesReadingsBySource(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	var cmds [][]string
	for _, c := range app.Commands {
		cmds = append(cmds, []string{c.Name})
		for _, s := range c.Subcommands {
			cmds = append(cmds, []string{c.Name, s.Name})
		}
	}
	require.NotEmpty(t, cmds)
	help := map[string]string{}
	for _, c := range append(cmds, nil) {
		code, stdout, stderr := ptsrun(append(c, "--help")...)
		require.Equal(t, 0, code, "%v: %s", c, stderr)
		assert.NotContains(t, stdout+stderr, "UNVERIFIED", "%v --help", c)
		help[strings.Join(c, " ")] = stdout
	}
	for _, r := range pts.Readings {
		for _, f := range r.Flags {
			var line string
			for _, l := range strings.Split(help["run"], "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "--"+f+" ") {
					line = l
				}
			}
			require.NotEmpty(t, line, "run --help has --%s", f)
			assert.Contains(t, line, "(a reading of the PTS: "+r.Source+")", "--%s names its reading's source", f)
		}
	}
}

// The command line's manners: help as a command, and the nearest command
// or flag for a mistyped one (exit 1, bad input).
func TestHelpAndSuggestions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"help"}, 0, "ptsrun - SNIA SSS PTS 2.0.2 compliance tests"},
		{[]string{"help", "run"}, 0, "ptsrun run - purge, precondition and run the PTS tests on a target"},
		{[]string{"rn"}, 1, `ptsrun: unknown command "rn". Did you mean "run"?`},
		{[]string{"help", "zz"}, 1, `No help topic for 'zz'`},
		{[]string{"run", "--tagret", "sim"}, 1, `unknown flag --tagret. Did you mean "--target"?`},
		{[]string{"run", "--tets", "iops"}, 1, `unknown flag --tets. Did you mean "--tests"?`},
	} {
		code, stdout, stderr := ptsrun(tc.args...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		assert.Contains(t, stdout+stderr, tc.want, tc.args)
	}
}

// plan runs nothing, but a target run would refuse is said, and plan
// exits as run would: 4, in text and JSON alike.
func TestPlanExitsFourOnARefusedTarget(t *testing.T) {
	need(t, "losetup", "mkfs.ext4", "mount", "umount")
	dev := enginetest.LoopDevice(t, 32<<20, "")
	sh(t, "mkfs.ext4", "-q", dev)
	mnt := t.TempDir()
	sh(t, "mount", dev, mnt)
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	code, stdout, stderr := ptsrun("plan", "--target", dev, "--tests", "lat")
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stdout, dev+": REFUSED: it is mounted at "+mnt)
	code, stdout, stderr = ptsrun("plan", "--target", dev, "--tests", "lat", "--json")
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stdout, `"refused": [`)
}

// A lab's standing answers come from the environment: PTSRUN_LAB,
// PTSRUN_TESTED_BY, and PTSRUN_DUT_NOTE's notes before the command line's.
func TestOperatorDefaultsFromTheEnvironment(t *testing.T) {
	t.Setenv("PTSRUN_LAB", "Lab X")
	t.Setenv("PTSRUN_DUT_NOTE", "NAND=TLC; Form factor=U.2")
	dir := filepath.Join(t.TempDir(), "run")
	code, _, stderr := ptsrun("run", "--target", "sim", "--tests", "lat", "--out", dir, "--dut-note", "Cooling=fan")
	require.Equal(t, 0, code, stderr)
	var rec struct {
		Lab   string `json:"lab"`
		Notes []struct {
			Key, Value string
		} `json:"dut_notes"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rec))
	assert.Equal(t, "Lab X", rec.Lab)
	require.Len(t, rec.Notes, 3)
	assert.Equal(t, []string{"TLC", "U.2", "fan"}, []string{rec.Notes[0].Value, rec.Notes[1].Value, rec.Notes[2].Value})
	assert.Equal(t, "Cooling", rec.Notes[2].Key)
}

// --version names the version and the Go release (and the commit, in a
// binary go build stamped).
func TestVersion(t *testing.T) {
	code, stdout, _ := ptsrun("--version")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "ptsrun version "+version+" (")
	assert.Contains(t, stdout, runtime.Version())
}
