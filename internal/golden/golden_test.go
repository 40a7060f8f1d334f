package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/golden/goldentest"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pdfreport"
	"github.com/ptsrun/ptsrun/internal/pts"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestResultsGolden freezes a deterministic simulated run's results.json
// and tables: any change to the methodology, the simulated drive or the
// aggregation shows up here as a diff to review. The goldens hold numbers
// at goldentest.Digits significant digits and histograms as summaries, so
// that the last bit of a float does not break them and a diff can be read.
func TestResultsGolden(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	_, res, dir := goldentest.SimRun(t, "enterprise", nil)
	require.NoError(t, res.Save(dir))
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	goldentest.JSON(t, filepath.Join("testdata", "enterprise-results.json"), b, *update)
	for _, name := range []string{"iops.csv", "tp.csv", "lat_mean_ms.csv", "lat_p99_999_ms.csv"} {
		csv, err := os.ReadFile(filepath.Join(dir, "tables", name))
		require.NoError(t, err)
		goldentest.CSV(t, filepath.Join("testdata", "enterprise-"+name), csv, *update)
	}
}

func TestParseTolerance(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		bad  bool
	}{
		{"5%", 0.05, false}, {"5 %", 0.05, false}, {"0.05", 0.05, false}, {"5", 0.05, false},
		{"0.5%", 0.005, false}, {"0", 0, false}, {"12.5%", 0.125, false},
		{"-5%", 0, true}, {"abc", 0, true}, {"100%", 0, true}, {"", 0, true}, {"NaN", 0, true},
	} {
		got, err := ParseTolerance(c.in)
		if c.bad {
			assert.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.InDelta(t, c.want, got, 1e-12, c.in)
	}
}

// results makes a result set with the given cells (all present).
func results(tests ...matrix.TestResult) *matrix.Results {
	return &matrix.Results{Schema: matrix.Schema, Tool: "ptsrun", Tests: tests}
}

func cell(key string, bs int64, read int, iops, latMs float64) matrix.CellResult {
	k, err := pts.ParseCellKey(key)
	if err != nil {
		k = pts.Named(key)
	}
	return matrix.CellResult{Key: k, Access: "random", BlockSize: bs, ReadPct: read, TC: 4, QD: 32,
		IOPS: iops, MBps: iops * float64(bs) / 1e6, LatMeanMs: latMs, LatMaxMs: 10 * latMs, LatP99999Ms: 5 * latMs,
		PerRound: []matrix.RoundValue{{Round: 1}}}
}

func iopsTest(steady bool, cells ...matrix.CellResult) matrix.TestResult {
	return matrix.TestResult{Test: "iops", Name: "IOPS", Stages: []matrix.StageResult{{ID: "iops", Title: "IOPS",
		Steady: steady, SSRound: 5, Cells: cells}}}
}

func TestCheck(t *testing.T) {
	base := &Run{Path: "base", Results: results(iopsTest(true,
		cell("rnd-4k-100/0", 4096, 100, 100000, 0.3),
		cell("rnd-4k-0/100", 4096, 0, 50000, 0.6),
		cell("rnd-64k-65/35", 65536, 65, 20000, 1.5),
		cell("rnd-8k-100/0", 8192, 100, 80000, 0.4),
	))}
	// Within 5 %: 4 % fewer IOPS, 4 % slower.
	within := &Run{Path: "within", Results: results(iopsTest(true,
		cell("rnd-4k-100/0", 4096, 100, 96000, 0.312),
		cell("rnd-4k-0/100", 4096, 0, 50000, 0.6),
		cell("rnd-64k-65/35", 65536, 65, 20000, 1.5),
		cell("rnd-8k-100/0", 8192, 100, 80000, 0.4),
	))}
	res, err := Check(base, within, DefaultTolerance)
	require.NoError(t, err)
	assert.True(t, res.Pass)
	assert.Empty(t, res.Regressions)
	assert.Equal(t, 4*5, res.Compared)

	// IOPS down 10 % is a regression; latency down 20 % an improvement;
	// an extra cell is reported; a missing cell fails.
	worse := &Run{Path: "worse", Results: results(iopsTest(true,
		cell("rnd-4k-100/0", 4096, 100, 90000, 0.3),
		cell("rnd-4k-0/100", 4096, 0, 50000, 0.48),
		cell("rnd-64k-65/35", 65536, 65, 20000, 1.5),
		cell("rnd-16k-100/0", 16384, 100, 70000, 0.5),
	))}
	res, err = Check(base, worse, DefaultTolerance)
	require.NoError(t, err)
	assert.False(t, res.Pass)
	var regressed, improved []string
	for _, f := range res.Regressions {
		regressed = append(regressed, f.Cell.String()+" "+string(f.Metric))
	}
	for _, f := range res.Improvements {
		improved = append(improved, f.Cell.String()+" "+string(f.Metric))
	}
	assert.ElementsMatch(t, []string{"rnd-4k-100/0 iops", "rnd-4k-100/0 mbps"}, regressed)
	// The tail 20 % lower is within its scatter: the average is not.
	assert.ElementsMatch(t, []string{"rnd-4k-0/100 lat_mean_ms"}, improved)
	assert.InDelta(t, -0.10, res.Regressions[0].Change, 1e-12)
	assert.Equal(t, []string{"iops rnd-8k-100/0"}, res.OnlyBaseline)
	assert.Equal(t, []string{"iops rnd-16k-100/0"}, res.OnlyRun)

	// A looser IOPS tolerance lets the 10 % through, but the missing cell
	// still fails.
	res, err = Check(base, worse, Tolerance{IOPS: 0.15, MBps: 0.15, Lat: 0.05, Tail: 0.1, TailCell: 1})
	require.NoError(t, err)
	assert.Empty(t, res.Regressions)
	assert.False(t, res.Pass)

	// Latency up is a regression (lower is better).
	slow := &Run{Path: "slow", Results: results(iopsTest(true,
		cell("rnd-4k-100/0", 4096, 100, 100000, 0.33),
		cell("rnd-4k-0/100", 4096, 0, 50000, 0.6),
		cell("rnd-64k-65/35", 65536, 65, 20000, 1.5),
		cell("rnd-8k-100/0", 8192, 100, 80000, 0.4),
	))}
	res, err = Check(base, slow, DefaultTolerance)
	require.NoError(t, err)
	require.Len(t, res.Regressions, 1, "one cell's tail 10 %% up is scatter: %+v", res.Regressions)
	assert.Equal(t, "regression", res.Regressions[0].Verdict)
	assert.Equal(t, pts.MetricLatMean, res.Regressions[0].Metric)

	// Losing steady state fails even when every number is the same.
	unsteady := &Run{Path: "unsteady", Results: results(iopsTest(false, base.Results.Tests[0].Stages[0].Cells...))}
	res, err = Check(base, unsteady, DefaultTolerance)
	require.NoError(t, err)
	assert.False(t, res.Pass)
	require.Len(t, res.Steady, 1)
	assert.True(t, res.Steady[0].IsRegression)

	// Text and JSON both say it.
	var out bytes.Buffer
	res.Print(&out)
	assert.Contains(t, out.String(), "REGRESSION: IOPS reached steady state in the baseline")
	assert.Contains(t, out.String(), "FAIL: 1 regression(s)")
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"pass":false`)

	// No test in common is bad input.
	other := &Run{Path: "other", Results: results(matrix.TestResult{Test: "lat"})}
	_, err = Check(base, other, DefaultTolerance)
	assert.ErrorIs(t, err, ErrNothingInCommon)
}

// An absent value (a published table has no response times) is not
// compared, and not a regression.
func TestCheckAbsentValues(t *testing.T) {
	tb, err := ParseTable(strings.NewReader("bs,100/0,0/100\n4k,100000,50000\n"), "t.csv", TableIOPS)
	require.NoError(t, err)
	base := &Run{Path: "table", Results: tb.Results("t.csv", "test")}
	run := &Run{Path: "run", Results: results(iopsTest(true, cell("rnd-4k-100/0", 4096, 100, 99000, 0.3),
		cell("rnd-4k-0/100", 4096, 0, 52000, 0.6)))}
	res, err := Check(base, run, DefaultTolerance)
	require.NoError(t, err)
	assert.True(t, res.Pass, "%+v", res.Regressions)
	assert.Equal(t, 4, res.Compared) // IOPS and MB/s of two cells
	assert.Len(t, res.NotCompared, 6)
}

// 99.999 % of fio's completion latency is not held against total latency;
// a result set written before the label existed still compares.
func TestCheckPercentileLatency(t *testing.T) {
	labelled := func(c matrix.CellResult, latency string) matrix.CellResult {
		c.LatPctLatency = latency
		return c
	}
	base := &Run{Path: "base", Results: results(iopsTest(true, labelled(cell("rnd-4k-100/0", 4096, 100, 100000, 0.3), "clat")))}
	run := &Run{Path: "run", Results: results(iopsTest(true, labelled(cell("rnd-4k-100/0", 4096, 100, 100000, 0.7), "lat")))}
	res, err := Check(base, run, DefaultTolerance)
	require.NoError(t, err)
	assert.Equal(t, []string{"iops rnd-4k-100/0 lat_p99_999_ms (baseline of clat, run of lat latency)"}, res.NotCompared)
	assert.Len(t, res.Regressions, 2, "mean and maximum still are")
	old := &Run{Path: "old", Results: results(iopsTest(true, cell("rnd-4k-100/0", 4096, 100, 100000, 0.6)))}
	res, err = Check(old, run, DefaultTolerance)
	require.NoError(t, err)
	assert.Empty(t, res.NotCompared)
	assert.Equal(t, 5, res.Compared)
}

func TestParseTable(t *testing.T) {
	in := "# a review's table\nbs,R100/W0,65:35,0/100\n512,733000,332000,157000\n4KiB,\"711,276\",375881,\n1m,5767,–,740\n"
	tb, err := ParseTable(strings.NewReader(in), "review.csv", TableIOPS)
	require.NoError(t, err)
	assert.Equal(t, []int{100, 65, 0}, tb.Mixes)
	assert.Equal(t, []int64{512, 4096, 1 << 20}, tb.Sizes)
	assert.Equal(t, 711276.0, tb.Values[1][0])
	assert.True(t, math.IsNaN(tb.Values[1][2]), "an empty cell is absent")
	assert.True(t, math.IsNaN(tb.Values[2][1]), "a dash is absent")

	res := tb.Results("review.csv", "test")
	cells := res.Tests[0].Stages[0].Cells
	assert.Len(t, cells, 7, "absent cells are left out, never zero")
	for _, c := range cells {
		assert.True(t, c.Present())
		assert.InDelta(t, c.IOPS*float64(c.BlockSize)/1e6, c.MBps, 1e-9)
		_, ok := c.Value(pts.MetricLatMean)
		assert.False(t, ok)
	}
	iops := res.Tables()[0]
	require.Equal(t, "iops", iops.Name)
	// The PTS rows and columns, absent where the table has nothing.
	assert.Len(t, iops.Rows, 8, "the PTS's 8 block sizes (1m is 1024 KiB)")
	odd, err := ParseTable(strings.NewReader("bs,70/30\n3k,100\n"), "odd.csv", TableIOPS)
	require.NoError(t, err)
	ot := odd.Results("odd.csv", "test").Tables()[0]
	assert.Len(t, ot.Rows, 9, "a block size the PTS does not use gets its own row")
	assert.Len(t, ot.Cols, 8, "and a mix its own column")

	lat, err := ParseTable(strings.NewReader("bs,100/0,0/100\n4k,0.09,0.02\n"), "lat.csv", TableLatMs)
	require.NoError(t, err)
	lr := lat.Results("lat.csv", "test")
	assert.Equal(t, pts.LAT, lr.Tests[0].Test)
	v, ok := lr.Tests[0].Stages[0].Cells[0].Value(pts.MetricLatMean)
	assert.True(t, ok)
	assert.Equal(t, 0.09, v)
}

func TestParseTableErrors(t *testing.T) {
	for _, c := range []struct{ name, in, metric, want string }{
		{"non-numeric", "bs,100/0\n4k,fast\n", TableIOPS, `line 2, column 2 (4 KiB, 100/0): "fast" is not a number`},
		{"unknown mix", "bs,100/0,read-heavy\n4k,1,2\n", TableIOPS, `line 1, column 3: mix "read-heavy"`},
		{"mix not 100", "bs,60/30\n4k,1\n", TableIOPS, `read and write must be whole percentages adding up to 100`},
		{"no bs header", "size,100/0\n4k,1\n", TableIOPS, `first column must be headed bs`},
		{"bad size", "bs,100/0\nfour,1\n", TableIOPS, `line 2, column 1: block size "four"`},
		{"duplicate size", "bs,100/0\n4k,1\n4096,2\n", TableIOPS, `line 3: block size 4 KiB is already on line 2`},
		{"duplicate mix", "bs,65/35,R65/W35\n4k,1,2\n", TableIOPS, `mix 65/35 appears in columns 2 and 3`},
		{"too many values", "bs,100/0\n4k,1,2\n", TableIOPS, `line 2: 2 values for 1 mix columns`},
		{"negative", "bs,100/0\n4k,-1\n", TableIOPS, `is negative`},
		{"empty", "", TableIOPS, `empty`},
		{"header only", "bs,100/0\n", TableIOPS, `no block size rows`},
		{"bad metric", "bs,100/0\n4k,1\n", "latency", `metric "latency"`},
		{"bad quoting", "bs,100/0\n4k,\"1\n", TableIOPS, `t.csv: line`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseTable(strings.NewReader(c.in), "t.csv", c.metric)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			if c.metric != "latency" {
				assert.Contains(t, err.Error(), "t.csv")
			}
		})
	}
}

func FuzzParseTable(f *testing.F) {
	f.Add("bs,100/0,65/35\n4k,1,2\n0.5k,3,\n")
	f.Add("bs,R70/W30\n1MiB,1e3\n")
	f.Add("bs\n")
	f.Fuzz(func(t *testing.T, in string) {
		tb, err := ParseTable(strings.NewReader(in), "fuzz.csv", TableIOPS)
		if err != nil {
			return
		}
		res := tb.Results("fuzz.csv", "fuzz")
		b, err := json.Marshal(res)
		require.NoError(t, err, "results of a parsed table must encode")
		var back matrix.Results
		require.NoError(t, json.Unmarshal(b, &back))
		_ = res.Tables()
	})
}

// Importing fio output: 3.x and 2.x (io_bytes in KiB, latencies in µs)
// give the same cell; client/server output adds the hosts up; a job that
// failed is refused.
func TestImportFioVersions(t *testing.T) {
	fixtures := filepath.Join("..", "engine", "fio", "testdata")
	var got []*matrix.CellResult
	for _, f := range []string{"local-3.33.json", "old-2.20.json"} {
		ri, rounds, warnings, err := ImportFio([]string{filepath.Join(fixtures, f)}, FioOptions{Version: "test"})
		require.NoError(t, err, f)
		// The tracking cells are not there: said, not hidden.
		require.Len(t, warnings, 3)
		assert.Contains(t, warnings[0], "steady state cannot be judged")
		require.Len(t, ri.Stages, 1)
		assert.Equal(t, "iops", ri.Stages[0].ID)
		assert.Equal(t, "rnd-4k-65/35", ri.Stages[0].Cells[0].Key.String())
		assert.Equal(t, 2, ri.Stages[0].Cells[0].Workload.TC)
		assert.Equal(t, 4, ri.Stages[0].Cells[0].Workload.QD)
		dir := t.TempDir()
		require.NoError(t, pts.WriteImported(dir, ri, rounds))
		res, _, err := matrix.Load(dir)
		require.NoError(t, err)
		c := &res.Tests[0].Stages[0].Cells[0]
		got = append(got, c)
		assert.InDelta(t, 80603.4+43530.5, c.IOPS, 5, f)
		assert.False(t, res.Tests[0].Stages[0].Steady, "one round cannot be steady")
		assert.Contains(t, res.Deviations[0].Text, "imported")
	}
	assert.InEpsilon(t, got[0].IOPS, got[1].IOPS, 1e-9)
	assert.InEpsilon(t, got[0].MBps, got[1].MBps, 1e-3, "io_bytes in KiB before fio 2.21")
	assert.InEpsilon(t, got[0].LatMeanMs, got[1].LatMeanMs, 1e-3, "microseconds before fio 3.0")

	ri, rounds, _, err := ImportFio([]string{filepath.Join(fixtures, "clients-3.33.json")}, FioOptions{})
	require.NoError(t, err)
	require.Len(t, rounds["iops"][0], 1, "two hosts' jobs of one workload are one cell")
	m := rounds["iops"][0][0].Measurement
	assert.Len(t, m.Targets, 2)
	assert.InDelta(t, 58011+68774, m.IOPS(), 150)
	assert.Equal(t, []string{"/dev/loop1", "/dev/loop0"}, ri.Config.Targets)

	_, _, _, err = ImportFio([]string{filepath.Join(fixtures, "error-3.33.json")}, FioOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "error-3.33.json: job cell ended with error 5")
}

func TestImportFioBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	for _, c := range []struct{ name, in, want string }{
		{"truncated", `{"fio version": "fio-3.33", "jobs": [{"jobname": "a"`, "truncated.json"},
		{"not json", "fio: engine libaio not loadable\n", "truncated"},
		{"no jobs", `{"fio version": "fio-3.33", "jobs": []}`, "no jobs"},
		{"bad bs", `{"fio version": "fio-3.33", "jobs": [{"jobname": "a", "job options": {"rw": "randread", "bs": "huge"}, "read": {"io_bytes": 4096, "iops": 1, "runtime": 1000, "total_ios": 1}}]}`, `bs="huge"`},
		{"bad mix", `{"fio version": "fio-3.33", "jobs": [{"jobname": "a", "job options": {"rw": "randrw", "rwmixread": "150"}, "read": {"io_bytes": 4096, "iops": 1, "runtime": 1000, "total_ios": 1}}]}`, `rwmixread="150"`},
		{"no io", `{"fio version": "fio-3.33", "jobs": [{"jobname": "a", "job options": {"rw": "randread"}, "read": {"io_bytes": 0, "iops": 0, "runtime": 1000, "total_ios": 0}}]}`, "did no I/O"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(c.name+".json", c.in)
			_, _, _, err := ImportFio([]string{p}, FioOptions{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.name+".json")
			if c.name != "not json" {
				assert.Contains(t, err.Error(), c.want)
			}
		})
	}
	_, _, _, err := ImportFio([]string{filepath.Join(dir, "missing.json")}, FioOptions{})
	assert.ErrorContains(t, err, "missing.json")
}

func TestCompare(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	_, a, dirA := goldentest.SimRun(t, "enterprise", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.IOPS, pts.TP}
		c.CellTime = pts.Duration(10 * time.Second)
	})
	_, _, dirB := goldentest.SimRun(t, "client", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.IOPS, pts.TP}
		c.CellTime = pts.Duration(10 * time.Second)
	})
	tb, err := ParseTable(strings.NewReader("bs,100/0,65/35,0/100\n4k,800000,400000,200000\n"), "review.csv", TableIOPS)
	require.NoError(t, err)
	tableFile := filepath.Join(t.TempDir(), "review.json")
	b, err := json.Marshal(tb.Results("review.csv", "test"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(tableFile, b, 0o644))

	runs, err := LoadAll([]string{dirA, dirB, tableFile})
	require.NoError(t, err)
	cmp, err := Compare(runs)
	require.NoError(t, err)
	var iops *struct{}
	_ = iops
	found := false
	for _, tbl := range cmp.Tables {
		if tbl.Name != "iops" {
			continue
		}
		found = true
		require.Len(t, tbl.Values, 3)
		// The reference's own numbers, and NaN where the table has none.
		for ri, bs := range tbl.RowBytes {
			for ci, col := range tbl.Cols {
				if bs == 4096 && col == "100/0" {
					assert.Equal(t, 800000.0, tbl.Values[2][ri][ci])
				}
				if bs == 65536 {
					assert.True(t, math.IsNaN(tbl.Values[2][ri][ci]))
				}
			}
		}
	}
	assert.True(t, found)
	require.NotEmpty(t, cmp.Headlines)
	assert.Equal(t, "RND 4 KiB read IOPS", cmp.Headlines[0].Label)
	c4k := a.Cell(pts.IOPS, pts.Key(engine.Random, 4096, 100))
	require.NotNil(t, c4k)
	assert.Equal(t, c4k.IOPS, cmp.Headlines[0].Values[0])

	out := t.TempDir()
	require.NoError(t, cmp.WriteCSV(out, false))
	csv, err := os.ReadFile(filepath.Join(out, "compare_headlines.csv"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(csv), "headline,"+runs[0].Name+","+runs[1].Name+",review,"))
	var pdf bytes.Buffer
	require.NoError(t, cmp.PDF("a4").Render(&pdf))
	assert.True(t, bytes.HasPrefix(pdf.Bytes(), []byte("%PDF-")))
	var sum bytes.Buffer
	cmp.PrintSummary(&sum)
	assert.Contains(t, sum.String(), "RND 4 KiB read IOPS")

	// A run with nothing in common with the reference is refused.
	lat := &Run{Path: "lat", Results: results(matrix.TestResult{Test: "lat"})}
	_, err = Compare([]*Run{runs[0], lat})
	assert.ErrorIs(t, err, ErrNothingInCommon)
}

func TestLoadBadInput(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "results.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"schema": 1, "tool": "ptsrun", "tests": [`), 0o644))
	_, err := Load(p)
	assert.ErrorContains(t, err, p)
	require.NoError(t, os.WriteFile(p, []byte(`{"schema": 1, "tool": "ptsrun", "tests": "iops"}`), 0o644))
	_, err = Load(p)
	assert.ErrorContains(t, err, "field tests")
	require.NoError(t, os.WriteFile(p, []byte(`{"schema": 7, "tool": "other"}`), 0o644))
	_, err = Load(p)
	assert.ErrorContains(t, err, "not a ptsrun results file")
	_, err = Load(filepath.Join(dir, "nope"))
	assert.ErrorContains(t, err, "nope")
	_, err = Load(t.TempDir())
	assert.ErrorContains(t, err, "not a ptsrun run directory")
}

// TestImportRealFio runs fio (when installed) for two PTS latency cells in
// five rounds, json+ like a user's own script would, and imports the five
// files: the cells, their rounds and fio's own numbers come through.
func TestImportRealFio(t *testing.T) {
	enginetest.NeedFio(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	job := "[global]\nfilename=" + data + "\nsize=32m\nruntime=1\ntime_based=1\nbs=4k\niodepth=1\n" +
		"percentile_list=99:99.999\n[read]\nrw=randread\n[write]\nstonewall\nrw=randwrite\n"
	jobFile := filepath.Join(dir, "lat.fio")
	require.NoError(t, os.WriteFile(jobFile, []byte(job), 0o644))
	var files []string
	for r := 1; r <= 5; r++ {
		out := filepath.Join(dir, fmt.Sprintf("round%d.json", r))
		cmd := exec.Command("fio", "--output-format=json+", "--output="+out, jobFile)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		files = append(files, out)
	}
	ri, rounds, warnings, err := ImportFio(files, FioOptions{Name: "scratch file", Version: "test"})
	require.NoError(t, err)
	require.Len(t, ri.Stages, 1)
	s := ri.Stages[0]
	assert.Equal(t, "lat", s.ID)
	require.Len(t, s.Cells, 2)
	assert.Equal(t, "rnd-4k-100/0", s.Cells[0].Key.String())
	assert.Equal(t, "rnd-4k-0/100", s.Cells[1].Key.String())
	require.Len(t, s.Tracking, 1, "ART of RND 4 KiB 0/100 is the latency test's tracking variable")
	assert.Empty(t, warnings)
	require.Len(t, rounds["lat"], 5)

	run := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.MkdirAll(run, 0o755))
	require.NoError(t, pts.WriteImported(run, ri, rounds))
	res, _, err := matrix.Load(run)
	require.NoError(t, err)
	st := res.Tests[0].Stages[0]
	assert.Equal(t, 5, st.Rounds)
	require.Len(t, st.Tracking[0].Values, 5)
	// Round 3's tracking value is fio's own mean write latency of file 3.
	o := readFioMeanWriteLat(t, files[2])
	assert.InEpsilon(t, o, st.Tracking[0].Values[2], 1e-6)
	c := st.Cells[1]
	_, ok := c.Value(pts.MetricLatP99999)
	assert.True(t, ok, "json+ bins give the 99.999 %% percentile")
}

func readFioMeanWriteLat(t *testing.T, path string) float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Jobs []struct {
			Write struct {
				LatNs struct {
					Mean float64 `json:"mean"`
				} `json:"lat_ns"`
			} `json:"write"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(b[bytes.IndexByte(b, '{'):], &doc))
	for _, j := range doc.Jobs {
		if j.Write.LatNs.Mean > 0 {
			return j.Write.LatNs.Mean / 1e6
		}
	}
	t.Fatal("no write job in " + path)
	return 0
}

// fioPrinted reads a percentile straight from a fio JSON fixture: job j,
// direction dir, latency object lat (clat_ns or lat_ns), in ms.
func fioPrinted(t *testing.T, path string, j int, dir, lat, pct string) float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Jobs []map[string]json.RawMessage `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	var d map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(doc.Jobs[j][dir], &d))
	var l struct {
		Percentile map[string]float64 `json:"percentile"`
	}
	require.NoError(t, json.Unmarshal(d[lat], &l))
	v, ok := l.Percentile[pct]
	require.True(t, ok, "%s: no %s %s %s in job %d", path, dir, lat, pct, j)
	return v / 1e6
}

// TestImportFioPrintedPercentiles imports real fio JSON without json+ bins
// (fio 3.33, libaio, direct I/O on a 16 MiB file; the command is each
// file's "job options"): a cell's percentiles are the ones fio printed, of
// the latency it printed them for, labelled in results.json, and the
// percentiles it did not print stay absent.
func TestImportFioPrintedPercentiles(t *testing.T) {
	type pct struct {
		metric pts.Metric
		want   func(t *testing.T, f string) float64 // NaN: absent
	}
	absent := func(*testing.T, string) float64 { return math.NaN() }
	printed := func(j int, dir, lat, p string) func(*testing.T, string) float64 {
		return func(t *testing.T, f string) float64 { return fioPrinted(t, f, j, dir, lat, p) }
	}
	for _, c := range []struct {
		name, file, stage, cell string
		latency                 string
		bound                   bool
		pcts                    []pct
		label                   string // on the report's latency or IOPS table
	}{
		{name: "percentile_list=99:99.999: completion latency as printed", file: "fio-clat-3.33.json",
			stage: "lat", cell: "rnd-4k-100/0", latency: "clat", pcts: []pct{
				{"lat_p99_999_ms", printed(0, "read", "clat_ns", "99.999000")},
				{"lat_p99_ms", printed(0, "read", "clat_ns", "99.000000")},
				{"lat_p99_99_ms", absent}, // not in the list
			}, label: "99.999 % response time (ms): fio clat as fio printed it, rounds 1–1 (PTS-E 2.0.2"},
		{name: "lat_percentiles=1: total latency, not completion", file: "fio-lat-3.33.json",
			stage: "lat", cell: "rnd-4k-100/0", latency: "lat", pcts: []pct{
				{"lat_p99_999_ms", printed(0, "read", "lat_ns", "99.999000")},
				{"lat_p99_ms", printed(0, "read", "lat_ns", "99.000000")},
			}, label: "99.999 % response time (ms): total latency as fio printed it, rounds 1–1 (PTS-E 2.0.2"},
		{name: "fio's default list lacks 99.999: absent, not interpolated", file: "fio-default-3.33.json",
			stage: "lat", cell: "rnd-4k-0/100", latency: "clat", pcts: []pct{
				{"lat_p99_999_ms", absent},
				{"lat_p99_99_ms", printed(0, "write", "clat_ns", "99.990000")},
			}, label: "A percentile fio did not print (see its percentile_list) is left empty, not interpolated."},
		{name: "two jobs, read and write: the maximum, an upper bound", file: "fio-jobs-3.33.json",
			stage: "iops", cell: "rnd-4k-65/35", latency: "clat", bound: true, pcts: []pct{
				{"lat_p99_999_ms", func(t *testing.T, f string) float64 {
					var m float64
					for j := range 2 {
						for _, d := range []string{"read", "write"} {
							m = max(m, fioPrinted(t, f, j, d, "clat_ns", "99.999000"))
						}
					}
					return m
				}},
			}},
		// The IOPS pages show no percentiles; results.json has the label.
	} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join("testdata", c.file)
			ri, rounds, _, err := ImportFio([]string{f}, FioOptions{Version: "test"})
			require.NoError(t, err)
			dir := t.TempDir()
			require.NoError(t, pts.WriteImported(dir, ri, rounds))
			built, ri, err := matrix.Load(dir)
			require.NoError(t, err)
			require.NoError(t, built.Save(dir))
			if c.label != "" {
				assert.Contains(t, pdfreport.Build(ri, built, pdfreport.Options{}).Text(), c.label)
			}
			// What results.json says, as a reader of it sees it.
			res, err := matrix.ReadResults(filepath.Join(dir, "results.json"))
			require.NoError(t, err)
			key, err := pts.ParseCellKey(c.cell)
			require.NoError(t, err)
			cell := res.Cell(pts.TestID(c.stage), key)
			require.NotNil(t, cell, c.cell)
			assert.Equal(t, c.latency, cell.LatPctLatency)
			assert.Equal(t, matrix.PctPrinted, cell.LatPctSource)
			assert.Equal(t, c.bound, cell.LatPctUpperBound)
			for _, p := range c.pcts {
				got, ok := cell.Value(p.metric)
				want := p.want(t, f)
				if math.IsNaN(want) {
					assert.False(t, ok, "%s: %v where fio printed nothing", p.metric, got)
					assert.Contains(t, cell.Absent(), p.metric)
					continue
				}
				require.True(t, ok, "%s absent", p.metric)
				assert.InDelta(t, want, got, 1e-12, p.metric)
			}
		})
	}
}
