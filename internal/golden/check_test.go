package golden

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/golden/goldentest"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// A cell's allowance is the tolerance, or Spread standard errors of a
// difference of window averages, from the scatter of its baseline's window
// rounds, when that is more.
func TestToleranceAllowance(t *testing.T) {
	rounds := func(iops ...float64) *matrix.CellResult {
		c := &matrix.CellResult{}
		for i, v := range iops {
			c.PerRound = append(c.PerRound, matrix.RoundValue{Round: i + 1, IOPS: v, MBps: v / 10, LatMeanMs: 1e3 / v})
		}
		return c
	}
	for _, c := range []struct {
		name   string
		tol    Tolerance
		cell   *matrix.CellResult
		metric pts.Metric
		want   float64
		basis  string
	}{
		{"steady rounds: the tolerance", DefaultTolerance, rounds(1000, 1001, 999, 1000, 1000), pts.MetricIOPS, 0.05, "tolerance"},
		// sd of 800, 1000, 1200, 1000, 1000 is 141.4, over the mean 1000:
		// 14.14 %; three standard errors of a difference of two means of
		// five: 3 × 14.14 % × √(2/5).
		{"scattered rounds: their spread", DefaultTolerance, rounds(800, 1000, 1200, 1000, 1000), pts.MetricIOPS, 3 * 0.1414214 * 0.6324555, "spread"},
		{"MB/s scatters as IOPS", DefaultTolerance, rounds(800, 1000, 1200, 1000, 1000), pts.MetricMBps, 3 * 0.1414214 * 0.6324555, "spread"},
		{"a little scatter: the tolerance", DefaultTolerance, rounds(980, 1000, 1020, 1000, 1000), pts.MetricIOPS, 0.05, "tolerance"},
		{"no spread asked for", Tolerance{IOPS: 0.05}, rounds(800, 1000, 1200, 1000, 1000), pts.MetricIOPS, 0.05, "tolerance"},
		{"one round has no spread", DefaultTolerance, rounds(1000), pts.MetricIOPS, 0.05, "tolerance"},
		{"a published value has no rounds", DefaultTolerance, &matrix.CellResult{Published: true}, pts.MetricLatMean, 0.05, "tolerance"},
		{"the latency tolerance for response times", Tolerance{IOPS: 0.05, Lat: 0.2, Spread: 3}, rounds(1000, 1001), pts.MetricLatMean, 0.2, "tolerance"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, basis := c.tol.allowance(c.metric, c.cell)
			assert.InDelta(t, c.want, got, 1e-6)
			assert.Equal(t, c.basis, basis)
		})
	}
}

// tailRun is an IOPS test of n cells with the given maximum response
// times (ms); everything else the same.
func tailRun(name string, maxMs ...float64) *Run {
	var cs []matrix.CellResult
	for i, m := range maxMs {
		c := cell(fmt.Sprintf("rnd-%dk-100/0", 4<<i), 4096<<i, 100, 1000, 0.1)
		c.LatMaxMs = m
		cs = append(cs, c)
	}
	return &Run{Path: name, Results: results(iopsTest(true, cs...))}
}

// The tail is judged test by test: maxima that scatter both ways pass,
// maxima that rose together fail, and one cell fails alone only when it
// more than doubles.
func TestCheckTail(t *testing.T) {
	base := tailRun("base", 10, 10, 10, 10, 10, 10)
	for _, c := range []struct {
		name      string
		run       *Run
		pass      bool
		tail      string // the verdict on the test's maxima; "" for none
		cellFails int
	}{
		{"scattered both ways", tailRun("run", 15.8, 6.3, 13, 8, 11, 9.5), true, "within", 0},
		{"all 15 % up", tailRun("run", 11.5, 11.5, 11.5, 11.5, 11.5, 11.5), false, "regression", 0},
		{"all doubled", tailRun("run", 20, 20, 20, 20, 20, 20), false, "regression", 0},
		{"one cell tripled", tailRun("run", 30, 10, 10, 10, 10, 10), false, "within", 1},
		{"all halved: better", tailRun("run", 5, 5, 5, 5, 5, 5), true, "improvement", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Check(base, c.run, DefaultTolerance)
			require.NoError(t, err)
			assert.Equal(t, c.pass, res.Pass, "%+v %+v", res.Tail, res.Regressions)
			var verdict string
			for _, f := range res.Tail {
				if f.Metric == pts.MetricLatMax {
					verdict = f.Verdict
					assert.Equal(t, 6, f.Cells)
				}
			}
			assert.Equal(t, c.tail, verdict)
			fails := 0
			for _, f := range res.Regressions {
				if f.Metric == pts.MetricLatMax {
					fails++
					assert.Equal(t, "tail cell", f.Basis)
				}
			}
			assert.Equal(t, c.cellFails, fails)
		})
	}
	// Two cells have no scatter to judge a test's tail by: the cell rule
	// alone.
	res, err := Check(tailRun("base", 10, 10), tailRun("run", 15, 15), DefaultTolerance)
	require.NoError(t, err)
	assert.True(t, res.Pass)
	assert.Empty(t, res.Tail)
}

// TestCheckSameDriveTwice is the check: the simulated drive run
// with the defaults of `run --tests iops,lat`, seeds 1 and 2, passes with
// the default rule; a baseline with every IOPS 10 % higher fails on every
// cell's IOPS, and one with every maximum response time halved fails on
// the tail of both tests. The rule is in the report.
func TestCheckSameDriveTwice(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	if testing.Short() {
		t.Skip("two runs of the IOPS and latency tests on the simulated drive")
	}
	seed := func(s uint64) *Run {
		_, res, dir := goldentest.SimRun(t, "enterprise", func(c *pts.Config) {
			c.Tests = []pts.TestID{pts.IOPS, pts.LAT}
			c.Seed = s
		})
		require.NoError(t, res.Save(dir))
		return &Run{Path: dir, Results: res}
	}
	base, run := seed(1), seed(2)
	res, err := Check(base, run, DefaultTolerance)
	require.NoError(t, err)
	assert.True(t, res.Pass, "%d regressions, tail %+v", len(res.Regressions), res.Tail)
	var out bytes.Buffer
	res.Print(&out)
	assert.Contains(t, out.String(), "Rule: IOPS, MB/s and average response time are judged cell by cell")
	assert.Contains(t, out.String(), "PASS")
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"rule":"IOPS, MB/s and average response time are judged cell by cell`)

	// A copy of the baseline, changed.
	changed := func(edit func(c *matrix.CellResult)) *Run {
		r, err := matrix.ReadResults(filepath.Join(base.Path, matrix.ResultsFile))
		require.NoError(t, err)
		for ti := range r.Tests {
			for si := range r.Tests[ti].Stages {
				for ci := range r.Tests[ti].Stages[si].Cells {
					edit(&r.Tests[ti].Stages[si].Cells[ci])
				}
			}
		}
		return &Run{Path: "changed", Results: r}
	}
	cells := 0
	for _, t := range base.Results.Tests {
		for _, s := range t.Stages {
			cells += len(s.Cells)
		}
	}
	faster := changed(func(c *matrix.CellResult) {
		c.IOPS, c.ReadIOPS, c.WriteIOPS = 1.1*c.IOPS, 1.1*c.ReadIOPS, 1.1*c.WriteIOPS
		for i := range c.PerRound {
			c.PerRound[i].IOPS *= 1.1
		}
	})
	res, err = Check(faster, run, DefaultTolerance)
	require.NoError(t, err)
	assert.False(t, res.Pass)
	n := 0
	for _, f := range res.Regressions {
		if f.Metric == pts.MetricIOPS {
			n++
		}
	}
	assert.Equal(t, cells, n, "every cell's IOPS 9 %% lower than its baseline's is a regression")

	halved := changed(func(c *matrix.CellResult) {
		c.LatMaxMs, c.LatMaxMeanMs = c.LatMaxMs/2, c.LatMaxMeanMs/2
		for i := range c.PerRound {
			c.PerRound[i].LatMaxMs /= 2
		}
	})
	res, err = Check(halved, run, DefaultTolerance)
	require.NoError(t, err)
	assert.False(t, res.Pass)
	var failed []pts.TestID
	for _, f := range res.Tail {
		if f.Metric == pts.MetricLatMax && f.Verdict == "regression" {
			failed = append(failed, f.Test)
			assert.InDelta(t, 2, f.Ratio, 0.2, "twice the baseline's maxima, give or take the seeds' scatter")
		}
	}
	assert.Equal(t, []pts.TestID{pts.IOPS, pts.LAT}, failed)
	out.Reset()
	res.Print(&out)
	assert.Contains(t, out.String(), "REGRESSION")
}

// The README quotes the rule check applies, with its defaults: the text
// Tolerance.Rule writes, so that the two cannot drift.
func TestRuleInREADME(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	var quoted []string
	for _, l := range strings.Split(string(b), "\n") {
		if q, ok := strings.CutPrefix(strings.TrimSpace(l), "> "); ok {
			quoted = append(quoted, q)
		}
	}
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	assert.Contains(t, words(strings.Join(quoted, " ")), words(DefaultTolerance.Rule()),
		"the README's check section quotes a rule check does not apply: paste Tolerance.Rule()")
}
