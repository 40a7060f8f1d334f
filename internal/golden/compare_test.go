package golden

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/golden/goldentest"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pdfreport"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// allTests is a full run of the eight PTS tests on the simulated drive,
// every one shortened (so that the test is quick; the pages a comparison
// makes do not grow with the samples).
func allTests(t *testing.T, seed uint64) *Run {
	t.Helper()
	_, res, dir := goldentest.SimRun(t, "enterprise", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.IOPS, pts.TP, pts.LAT, pts.WSAT, pts.HIR, pts.XSR, pts.ECW, pts.DIRTH}
		c.CellTime = pts.Duration(10 * time.Second)
		c.Seed = seed
		c.Params = map[string]string{"wsat-time": "1h", "hir-cycles": "20", "hir-baseline": "5m", "hir-wait-states": "1,5",
			"hir-pc-round": "5m", "xsr-groups": "20m,20m,20m"}
		for _, p := range []string{"ecw", "dirth"} {
			for k, v := range map[string]string{"-tc": "32,8,1", "-qd": "32,4,1", "-prewrite": "5m", "-histogram": "2m",
				"-round-prewrite": "1m", "-pc-round": "5m"} {
				c.Params[p+k] = v
			}
		}
	})
	require.NoError(t, res.Save(dir))
	return &Run{Path: dir, Name: filepath.Base(dir), Results: res}
}

var pdfPage = regexp.MustCompile(`/Type /Page\b[^s]`)

// TestCompareForPeople compares two runs of all eight tests: tables and
// figures of what both hold, the per-sample rows of the tests over time
// in the CSV only (a figure on the page), under 40 pages; a test one run
// lacks is named on the summary page and laid out nowhere.
func TestCompareForPeople(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	if testing.Short() {
		t.Skip("two runs of all eight tests on the simulated drive")
	}
	a, b := allTests(t, 1), allTests(t, 2)
	cmp, err := Compare([]*Run{a, b})
	require.NoError(t, err)
	assert.Len(t, cmp.Tests, 8)
	assert.Empty(t, cmp.NotCompared)
	var pdf bytes.Buffer
	require.NoError(t, pdfreport.RenderComparison(&pdf, cmp.Model(), "a4"))
	pages := len(pdfPage.FindAll(pdf.Bytes(), -1))
	assert.LessOrEqual(t, pages, 40)
	t.Logf("%d pages", pages)
	// The tests over time: a figure of their samples, no table of them.
	sections := strings.Split(pdfreport.ComparisonDoc(cmp.Model(), "a4").Text(), "\n=== section ")
	for _, title := range []string{"WSAT: every interval from fresh-out-of-box", "HIR: every burst and baseline interval",
		"XSR: throughput and response times per minute"} {
		found := false
		for _, sec := range sections {
			if !strings.Contains(strings.SplitN(sec, "\n", 2)[0], title) {
				continue
			}
			found = true
			assert.Regexp(t, `\nPlot \d+ – `, sec, title)
			assert.NotRegexp(t, `\nTable \d+ – `, sec, "%s: the samples are a figure, not rows", title)
		}
		assert.True(t, found, title)
	}
	// Every sample is in the CSV.
	dir := t.TempDir()
	require.NoError(t, cmp.WriteCSV(dir, false))
	f, err := os.Open(filepath.Join(dir, "compare_hir.csv"))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	steps := len(a.Results.Find(pts.HIR).Stages[1].Samples)
	assert.GreaterOrEqual(t, len(rows)-1, steps*len(pts.HIRTest.Tables[0].SampleColumns))

	// Against a run of two of the tests: only those, the others named.
	_, c, dirC := goldentest.SimRun(t, "enterprise", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.IOPS, pts.LAT}
		c.CellTime = pts.Duration(10 * time.Second)
	})
	cmp, err = Compare([]*Run{a, {Path: dirC, Name: "two", Results: c}})
	require.NoError(t, err)
	assert.Equal(t, []pts.TestID{pts.IOPS, pts.LAT}, cmp.Tests)
	text := pdfreport.ComparisonDoc(cmp.Model(), "a4").Text()
	assert.Contains(t, text, "Compared: IOPS and Latency.")
	assert.Contains(t, text, "Not compared, only in A ("+a.Name+"): Throughput, Write Saturation, Host Idle Recovery, "+
		"Cross Stimulus Recovery, ECW and DIRTH.")
	for _, tb := range cmp.Tables {
		td, _, _ := pts.LookupTable(tb.Name)
		assert.Contains(t, []pts.TestID{pts.IOPS, pts.LAT}, td.ID, tb.Name)
	}
	for _, h := range cmp.Headlines {
		assert.NotContains(t, h.Label, "MaxIOPS")
	}
	var sum bytes.Buffer
	cmp.PrintSummary(&sum)
	assert.Contains(t, sum.String(), "Not compared, only in A")
}

// TestCompareOperatingPoints: a point chosen at the same load is scored;
// chosen at different loads, it is shown with each run's TC/QD and not
// scored, in the summary, its table, the CSV and --json.
func TestCompareOperatingPoints(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	_, res, dir := goldentest.SimRun(t, "enterprise", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.DIRTH}
		c.CellTime = pts.Duration(10 * time.Second)
		c.Params = map[string]string{"dirth-tc": "8,1", "dirth-qd": "8,2,1", "dirth-prewrite": "2m", "dirth-histogram": "1m",
			"dirth-round-prewrite": "1m", "dirth-pc-round": "5m"}
	})
	require.NoError(t, res.Save(dir))
	a := &Run{Path: dir, Name: "a", Results: res}
	same, err := Compare([]*Run{a, {Path: dir, Name: "b", Results: res}})
	require.NoError(t, err)
	for _, h := range same.Headlines {
		assert.Empty(t, h.Differ)
		assert.Equal(t, 1.0, h.Ratio(1), h.Label)
	}

	// b chose its MaxIOPS at another of the loads it ran.
	other, err := matrix.ReadResults(filepath.Join(dir, matrix.ResultsFile))
	require.NoError(t, err)
	tr := other.Find(pts.DIRTH)
	maxAt := ""
	for i := range tr.OperatingPoints {
		p := &tr.OperatingPoints[i]
		if p.Point != pts.PointMax {
			continue
		}
		maxAt = fmt.Sprintf("TC%d/QD%d", p.TC, p.QD)
		p.QD = map[int]int{8: 2, 2: 8, 1: 8}[p.QD]
		for si := range tr.Stages {
			if sp := tr.Stages[si].Point; sp != nil && sp.Point == pts.PointMax {
				sp.QD = p.QD
			}
		}
	}
	b := &Run{Path: "b", Name: "b", Results: other}
	cmp, err := Compare([]*Run{a, b})
	require.NoError(t, err)
	var scored int
	for _, h := range cmp.Headlines {
		if !strings.HasPrefix(h.Label, "DIRTH MaxIOPS") {
			continue
		}
		scored++
		assert.Equal(t, "A "+maxAt+", B "+h.Loads[1], h.Differ)
		assert.NotEqual(t, h.Loads[0], h.Loads[1])
		assert.True(t, math.IsNaN(h.Ratio(1)), "not scored")
	}
	assert.Equal(t, 2, scored, "IOPS and average response time")
	for _, tb := range cmp.Tables {
		if !tb.Points {
			continue
		}
		for ri, row := range tb.Rows {
			if row == "MaxIOPS" {
				assert.Contains(t, tb.Differ[ri], "A "+maxAt)
				assert.True(t, math.IsNaN(tb.Ratio(1, ri, 2)))
			} else {
				assert.Empty(t, tb.Differ[ri], row)
			}
		}
	}
	text := pdfreport.ComparisonDoc(cmp.Model(), "a4").Text()
	assert.Contains(t, text, "DIRTH MaxIOPS: chosen at different loads (A "+maxAt)
	assert.Contains(t, text, "MaxIOPS (different loads)")
	assert.Contains(t, text, "at "+maxAt)

	s, err := json.Marshal(cmp.Summary())
	require.NoError(t, err)
	assert.Contains(t, string(s), `"different_loads":"A `+maxAt)
	out := t.TempDir()
	require.NoError(t, cmp.WriteCSV(out, false))
	hl, err := os.ReadFile(filepath.Join(out, "compare_headlines.csv"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(hl), "\n") {
		if strings.HasPrefix(line, "DIRTH MaxIOPS") {
			assert.True(t, strings.HasSuffix(line, ","), "no ratio: %s", line)
		}
	}
}

// The summaries and figures of the tests over time carry units: those
// that say which way is better are scored, the others shown only.
func TestUnitMetric(t *testing.T) {
	for unit, want := range map[string]pts.Metric{
		"mean IOPS": pts.MetricIOPS, "IOPS": pts.MetricIOPS, "× the baseline": pts.MetricIOPS, "ratio to the baseline": pts.MetricIOPS,
		"mean MB/s": pts.MetricMBps, "MB/s at the end": pts.MetricMBps,
		"mean ART ms": pts.MetricLatMean, "peak MRT ms": pts.MetricLatMean, "ms": pts.MetricLatMean,
		"min":  pts.MetricLatMax, // a recovery time: less is better
		"hour": "", "minutes": "", "TGBW GB": "", "GB written": "", "bursts": "", "idle s": "", "wait state": "",
	} {
		assert.Equal(t, want, unitMetric(unit), unit)
		assert.Equal(t, want != "" && want != pts.MetricIOPS && want != pts.MetricMBps, want.LowerIsBetter(), unit)
	}
}
