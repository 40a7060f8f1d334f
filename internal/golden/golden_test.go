package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/golden/goldentest"
	"github.com/ptsrun/ptsrun/internal/importer"
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
	tb, err := importer.ParseTable(strings.NewReader("bs,100/0,0/100\n4k,100000,50000\n"), "t.csv", importer.TableIOPS)
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
	tb, err := importer.ParseTable(strings.NewReader("bs,100/0,65/35,0/100\n4k,800000,400000,200000\n"), "review.csv", importer.TableIOPS)
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
	require.NoError(t, pdfreport.RenderComparison(&pdf, cmp.Model(), "a4"))
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
