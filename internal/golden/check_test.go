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
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// A cell's allowance is the tolerance, Spread standard errors of a
// difference of window averages, from the scatter of its baseline's window
// rounds, or the floor its stage has from the drive's state, whichever is
// most.
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
		floor  stateFloor
		want   float64
		basis  string
	}{
		{"steady rounds: the tolerance", DefaultTolerance, rounds(1000, 1001, 999, 1000, 1000), pts.MetricIOPS, stateFloor{}, 0.05, "tolerance"},
		// sd of 800, 1000, 1200, 1000, 1000 is 141.4, over the mean 1000:
		// 14.14 %; three standard errors of a difference of two means of
		// five: 3 × 14.14 % × √(2/5).
		{"scattered rounds: their spread", DefaultTolerance, rounds(800, 1000, 1200, 1000, 1000), pts.MetricIOPS, stateFloor{}, 3 * 0.1414214 * 0.6324555, "spread"},
		{"MB/s scatters as IOPS", DefaultTolerance, rounds(800, 1000, 1200, 1000, 1000), pts.MetricMBps, stateFloor{}, 3 * 0.1414214 * 0.6324555, "spread"},
		{"a little scatter: the tolerance", DefaultTolerance, rounds(980, 1000, 1020, 1000, 1000), pts.MetricIOPS, stateFloor{}, 0.05, "tolerance"},
		{"no spread asked for", Tolerance{IOPS: 0.05}, rounds(800, 1000, 1200, 1000, 1000), pts.MetricIOPS, stateFloor{}, 0.05, "tolerance"},
		{"one round has no spread", DefaultTolerance, rounds(1000), pts.MetricIOPS, stateFloor{}, 0.05, "tolerance"},
		{"a published value has no rounds", DefaultTolerance, &matrix.CellResult{Published: true}, pts.MetricLatMean, stateFloor{}, 0.05, "tolerance"},
		{"the latency tolerance for response times", Tolerance{IOPS: 0.05, Lat: 0.2, Spread: 3}, rounds(1000, 1001), pts.MetricLatMean, stateFloor{}, 0.2, "tolerance"},
		{"the drive's state, when more", DefaultTolerance, rounds(800, 1000, 1200, 1000, 1000), pts.MetricIOPS, stateFloor{"ecw-pc", 0.3}, 0.3, "state of ecw-pc"},
		{"the window's spread, when more than the state", DefaultTolerance, rounds(800, 1000, 1200, 1000, 1000), pts.MetricIOPS, stateFloor{"ecw-pc", 0.1}, 3 * 0.1414214 * 0.6324555, "spread"},
		{"no state without spread", Tolerance{IOPS: 0.05}, rounds(1000), pts.MetricIOPS, stateFloor{"ecw-pc", 0.3}, 0.05, "tolerance"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, basis := c.tol.allowance(c.metric, c.cell, c.floor)
			assert.InDelta(t, c.want, got, 1e-6)
			assert.Equal(t, c.basis, basis)
		})
	}
}

// A stage that later stages run on gives them, and itself, the scatter
// and the trend of its tracking variables' window as a floor; a test of
// one stage gives none, and a stage with no later cells none.
func TestStateFloors(t *testing.T) {
	tracked := func(v ...float64) []matrix.TrackingResult {
		return []matrix.TrackingResult{{Verdict: steadystate.Default().CheckWindow(1, v)}}
	}
	stage := func(id string, tr []matrix.TrackingResult, cells int) matrix.StageResult {
		return matrix.StageResult{ID: id, Tracking: tr, Cells: make([]matrix.CellResult, cells)}
	}
	// 1100, 1050, 1000, 950, 900: slope −50 a round, excursion 200 over the
	// average 1000, 20 %; sd 79.06: 3 × 7.906 % × √(2/5) = 15.0 %. The
	// flat window: sd 0.707, slope −0.1, excursion 0.4, over 1000.
	declining := tracked(1100, 1050, 1000, 950, 900)
	const want = 0.2 + 3*0.0790569*0.6324555
	for _, c := range []struct {
		name   string
		tol    Tolerance
		stages []matrix.StageResult
		want   map[string]stateFloor
	}{
		{"a test of one stage", DefaultTolerance, []matrix.StageResult{stage("iops", declining, 3)}, map[string]stateFloor{"iops": {}}},
		{"preconditioning, then a sweep", DefaultTolerance,
			[]matrix.StageResult{stage("ecw-pc", declining, 2), stage("ecw", tracked(1000, 1001, 999, 1000, 1000), 50), stage("ecw-max", nil, 0)},
			map[string]stateFloor{"ecw-pc": {"ecw-pc", want}, "ecw": {"ecw-pc", want}, "ecw-max": {"ecw-pc", want}}},
		{"a later, wider steady state takes over", DefaultTolerance,
			[]matrix.StageResult{stage("a", tracked(1000, 1001, 999, 1000, 1000), 1), stage("b", declining, 1), stage("c", nil, 1)},
			map[string]stateFloor{"a": {"a", 3*0.000707107*0.6324555 + 0.0004}, "b": {"b", want}, "c": {"b", want}}},
		{"no spread asked for", Tolerance{IOPS: 0.05}, []matrix.StageResult{stage("ecw-pc", declining, 2), stage("ecw", nil, 5)}, map[string]stateFloor{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.tol.stateFloors(&matrix.TestResult{Stages: c.stages})
			require.Len(t, got, len(c.want))
			for id, w := range c.want {
				assert.Equal(t, w.stage, got[id].stage, id)
				assert.InDelta(t, w.allowed, got[id].allowed, 1e-6, id)
			}
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

// The same simulated drive, run twice with every test at its defaults
// (seeds 1 and 2), passes with the default rule, although its ECW
// preconditioning is declared steady at round 12 in one run and 16 in the
// other, on a drive still settling: its whole ECW sweep then moves by up to
// 15 %. A baseline with every IOPS 10 % higher fails: every cell whose
// allowance is below the 9.1 % drop that makes regresses (every cell of the
// tests of one stage among them). One with every maximum response time
// halved fails on the tail of every test judged by its tail. The rule is
// in the report.
func TestCheckSameDriveTwice(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	if testing.Short() {
		t.Skip("two runs of all eight tests on the simulated drive")
	}
	keep := t.TempDir() // the runs' directories, past their subtests
	seed := func(t *testing.T, s uint64) *Run {
		all, err := pts.ParseTests("all")
		require.NoError(t, err)
		_, res, dir := goldentest.SimRun(t, "enterprise", func(c *pts.Config) {
			c.Tests = all
			c.Seed = s
		})
		kept := filepath.Join(keep, fmt.Sprint(s))
		require.NoError(t, os.CopyFS(kept, os.DirFS(dir)))
		require.NoError(t, res.Save(kept))
		return &Run{Path: kept, Results: res}
	}
	// The two runs beside each other: the group returns when both have.
	var base, run *Run
	t.Run("runs", func(t *testing.T) {
		t.Run("seed 1", func(t *testing.T) { t.Parallel(); base = seed(t, 1) })
		t.Run("seed 2", func(t *testing.T) { t.Parallel(); run = seed(t, 2) })
	})
	require.NotNil(t, base, "seed 1's run")
	require.NotNil(t, run, "seed 2's run")
	require.Len(t, base.Results.Tests, 8)
	res, err := Check(base, run, DefaultTolerance)
	require.NoError(t, err)
	assert.True(t, res.Pass, "%d regressions (%+v), tail %+v", len(res.Regressions), res.Regressions, res.Tail)
	assert.Empty(t, res.Steady, "both runs reach steady state in the same stages")
	var out bytes.Buffer
	res.Print(&out)
	assert.Contains(t, out.String(), "Rule: IOPS, MB/s and average response time are judged cell by cell")
	assert.Contains(t, out.String(), "PASS")
	b, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"rule":"IOPS, MB/s and average response time are judged cell by cell`)
	reverse, err := Check(run, base, DefaultTolerance)
	require.NoError(t, err)
	assert.True(t, reverse.Pass, "seed 2 as the baseline of seed 1: %+v", reverse.Regressions)

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
	faster := changed(func(c *matrix.CellResult) {
		c.IOPS, c.ReadIOPS, c.WriteIOPS = 1.1*c.IOPS, 1.1*c.ReadIOPS, 1.1*c.WriteIOPS
		for i := range c.PerRound {
			c.PerRound[i].IOPS *= 1.1
		}
	})
	res, err = Check(faster, run, DefaultTolerance)
	require.NoError(t, err)
	assert.False(t, res.Pass)
	regressed := map[string]bool{}
	for _, f := range res.Regressions {
		if f.Metric == pts.MetricIOPS {
			regressed[string(f.Test)+" "+f.Stage+" "+f.Cell.String()] = true
		}
	}
	const drop = 1 - 1/1.1
	judged, oneStage, floored := 0, map[pts.TestID]int{}, map[pts.TestID]int{}
	for _, f := range allIOPSFindings(t, faster, run) {
		if f.Allowed >= drop-0.005 {
			continue // within its allowance, or too close to it to say
		}
		judged++
		if f.Basis == "tolerance" || f.Basis == "spread" {
			oneStage[f.Test]++
		} else if f.Test != pts.TP {
			floored[f.Test]++ // throughput's second block size may run on the first's state
		}
		assert.True(t, regressed[string(f.Test)+" "+f.Stage+" "+f.Cell.String()],
			"%s %s %s: IOPS 9.1 %% below its baseline, allowed %.1f %% (%s), is not a regression", f.Test, f.Stage, f.Cell, 100*f.Allowed, f.Basis)
	}
	for _, test := range []pts.TestID{pts.IOPS, pts.TP, pts.LAT} {
		n := 0
		for _, s := range base.Results.Find(test).Stages {
			for _, c := range s.Cells {
				if c.Present() && c.IOPS > 0 {
					n++
				}
			}
		}
		assert.GreaterOrEqual(t, oneStage[test], n*9/10, "%s: its cells judged by their own windows, nearly all below the drop", test)
		assert.Zero(t, floored[test], "%s: a test of one stage at a time has no floor from the drive's state", test)
	}
	assert.Greater(t, judged, 56+9)

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
		if f.Metric == pts.MetricLatMax {
			assert.Equal(t, "regression", f.Verdict, "%s: maxima twice the baseline's", f.Test)
			if f.Verdict == "regression" {
				failed = append(failed, f.Test)
				assert.InDelta(t, 2, f.Ratio, 0.3, "twice the baseline's maxima, give or take the seeds' scatter")
			}
		}
	}
	assert.Subset(t, failed, []pts.TestID{pts.IOPS, pts.LAT, pts.ECW, pts.DIRTH})
	out.Reset()
	res.Print(&out)
	assert.Contains(t, out.String(), "REGRESSION")
}

// allIOPSFindings are the IOPS of every cell the two runs share, within
// or not, with the allowance the default rule gives each.
func allIOPSFindings(t *testing.T, baseline, run *Run) []Finding {
	t.Helper()
	bc, order := cells(baseline.Results)
	rc, _ := cells(run.Results)
	floors := map[pts.TestID]map[string]stateFloor{}
	for i := range baseline.Results.Tests {
		floors[baseline.Results.Tests[i].Test] = DefaultTolerance.stateFloors(&baseline.Results.Tests[i])
	}
	var out []Finding
	for _, k := range order {
		if _, ok := rc[k]; !ok || bc[k].cell.IOPS == 0 {
			continue
		}
		f := Finding{Test: k.Test, Stage: k.Stage, Cell: k.Key, Metric: pts.MetricIOPS}
		f.Allowed, f.Basis = DefaultTolerance.allowance(pts.MetricIOPS, bc[k].cell, floors[k.Test][k.Stage])
		out = append(out, f)
	}
	require.NotEmpty(t, out)
	return out
}

// docs/ci.md quotes the rule check applies, with its defaults: the text
// Tolerance.Rule writes, so that the two cannot drift.
func TestRuleInDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "ci.md"))
	require.NoError(t, err)
	var quoted []string
	for _, l := range strings.Split(string(b), "\n") {
		if q, ok := strings.CutPrefix(strings.TrimSpace(l), "> "); ok {
			quoted = append(quoted, q)
		}
	}
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	assert.Contains(t, words(strings.Join(quoted, " ")), words(DefaultTolerance.Rule()),
		"docs/ci.md's check section quotes a rule check does not apply: paste Tolerance.Rule() there as a > quote")
}

// With --strict-health the run's health deviations fail the check;
// without, they are listed and it passes.
func TestStrictHealth(t *testing.T) {
	d := matrix.HealthDeviation{Code: matrix.HealthThermal, Stage: "wsat", Cells: []string{"sample 3"},
		Text: "Write Saturation: throttled by thermal management for 60 s on sim#ESIM-0001 in the measurement window: sample 3."}
	c := &CheckResult{Pass: true, Health: []matrix.HealthDeviation{d}}
	var out strings.Builder
	c.Print(&out)
	assert.Contains(t, out.String(), "Health (failures with --strict-health):\n  "+d.Text)
	assert.Contains(t, out.String(), "PASS")
	c.Strict()
	assert.False(t, c.Pass)
	assert.Equal(t, 1, c.Failures())
	out.Reset()
	c.Print(&out)
	assert.Contains(t, out.String(), "HEALTH DEVIATIONS (--strict-health)")
	assert.Contains(t, out.String(), "FAIL: 1 regression(s)")
}
