package golden

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// Tolerance is how far a metric may move the wrong way before it is a
// regression. The same drive measured twice moves too: by its
// round-to-round scatter for the window averages, and far more for the
// response-time tail, which a handful of I/Os set. So the averages (IOPS,
// MB/s, average response time) are judged cell by cell, each with an
// allowance from the baseline's own measurement window, at least the
// tolerance; and the tail (99.999 % and maximum response time) test by
// test, where the cells must rise together. Rule says it in words.
type Tolerance struct {
	// IOPS, MBps and Lat are the least allowance of a cell's IOPS drop,
	// MB/s drop and average response time rise, as a fraction (0.05: 5 %).
	IOPS float64 `json:"iops"`
	MBps float64 `json:"mbps"`
	Lat  float64 `json:"lat"`
	// Spread widens a cell's allowance to this many standard errors of the
	// difference between two window averages, as the baseline's window
	// rounds scatter: Spread × their relative standard deviation ×
	// √(2/n) for n rounds. 0 leaves the least allowances alone.
	Spread float64 `json:"spread"`
	// Tail is the allowed rise of a test's geometric mean, over its cells,
	// of run ÷ baseline of a tail metric (99.999 % and maximum response
	// time); the rise must also exceed three standard errors of the cells'
	// log-ratios. TailCell is the rise one cell's tail metric is allowed
	// alone (1: it may double).
	Tail     float64 `json:"tail"`
	TailCell float64 `json:"tail_cell"`
	// StrictHealth fails the check on the run's health deviations
	// (--strict-health; CheckResult.Health).
	StrictHealth bool `json:"strict_health,omitempty"`
}

// DefaultTolerance holds for two runs of the same simulated drive with
// different seeds (over six seeds of its IOPS and latency tests: at most
// 2 % apart in a cell's IOPS, 58 % in a cell's maximum response time, 4 %
// in a test's geometric mean of them), and fails every cell of a drive
// 10 % slower, and a drive with doubled maxima.
var DefaultTolerance = Tolerance{IOPS: 0.05, MBps: 0.05, Lat: 0.05, Spread: 3, Tail: 0.10, TailCell: 1}

// ToleranceFlags are check's flags of the tolerance, as given: Set names
// those given, the others keep their defaults.
type ToleranceFlags struct {
	Set    map[string]bool
	Values map[string]string // tolerance, tolerance-iops, -mbps, -lat, -tail, -tail-cell; strict-health "true" or "false"
	Spread float64
}

// ParseToleranceFlags reads check's tolerance flags, naming the one it
// refuses: --tolerance sets the least allowance of every average metric,
// --tolerance-iops, -mbps and -lat one each.
func ParseToleranceFlags(f ToleranceFlags) (Tolerance, error) {
	all, err := ParseTolerance(f.Values["tolerance"])
	if err != nil {
		return Tolerance{}, fmt.Errorf("--tolerance: %w", err)
	}
	tol := Tolerance{IOPS: all, MBps: all, Lat: all, Spread: f.Spread, StrictHealth: f.Set["strict-health"] && f.Values["strict-health"] != "false"}
	if s := tol.Spread; math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return Tolerance{}, fmt.Errorf("--spread %v: want a multiple of 0 or more", s)
	}
	for _, p := range []struct {
		flag  string
		dst   *float64
		parse func(string) (float64, error)
	}{{"tolerance-iops", &tol.IOPS, ParseTolerance}, {"tolerance-mbps", &tol.MBps, ParseTolerance},
		{"tolerance-lat", &tol.Lat, ParseTolerance}, {"tolerance-tail", &tol.Tail, ParseRise},
		{"tolerance-tail-cell", &tol.TailCell, ParseRise}} {
		if v := f.Values[p.flag]; f.Set[p.flag] || v != "" {
			if *p.dst, err = p.parse(v); err != nil {
				return Tolerance{}, fmt.Errorf("--%s: %w", p.flag, err)
			}
		}
	}
	return tol, nil
}

// tailMetric says a metric is of the response-time tail: set by the
// slowest few I/Os, judged per test.
func tailMetric(m pts.Metric) bool { return m == pts.MetricLatMax || m == pts.MetricLatP99999 }

// least gives the least allowance of an average metric.
func (t Tolerance) least(metric pts.Metric) float64 {
	switch metric.Unit() {
	case "IOPS":
		return t.IOPS
	case "MB/s":
		return t.MBps
	}
	return t.Lat
}

// Rule is the rule in words, with its values: what `ptsrun check --help`
// and every check's report say.
func (t Tolerance) Rule() string {
	spread := ""
	if t.Spread > 0 {
		spread = fmt.Sprintf(", or by more than %g standard errors of the difference between two window averages when that is more "+
			"(from the scatter of the baseline's measurement-window rounds: %g × their relative standard deviation × √(2/n), n rounds). "+
			"A stage that later stages of its test run on (the preconditioning of ECW, DIRTH and HIR, throughput's first block size) "+
			"leaves the drive where its steady state was declared, which moves from run to run as much as that stage's window does: "+
			"its cells and those of the stages after it are allowed at least %g standard errors of its tracking variables' window "+
			"average plus the window's least-squares excursion, as fractions of the average",
			t.Spread, t.Spread, t.Spread)
	}
	return fmt.Sprintf("IOPS, MB/s and average response time are judged cell by cell: a cell regresses when it moves the wrong way "+
		"by more than %s (IOPS), %s (MB/s) or %s (average response time)%s. "+
		"The 99.999 %% and maximum response times rest on a handful of I/Os and scatter far more from run to run, so they are judged "+
		"test by test: a test regresses when the geometric mean over its cells of run ÷ baseline rises by more than %s and by more "+
		"than three standard errors of the cells' log-ratios (its cells rose together, beyond their scatter; a test of fewer than %d "+
		"cells by the cell rule alone); one cell alone regresses when it rises by more than %s. Improvements are the same moves "+
		"the other way.",
		pct(t.IOPS), pct(t.MBps), pct(t.Lat), spread, pct(t.Tail), minTailCells, pct(t.TailCell))
}

func pct(v float64) string { return strconv.FormatFloat(100*v, 'f', -1, 64) + " %" }

// allowance is how far a cell's average metric may move: the least
// allowance, Spread standard errors of the difference of two window
// averages as the baseline's rounds scatter, or the floor the drive's
// state gives its stage (stateFloors), whichever is most. basis says which.
func (t Tolerance) allowance(metric pts.Metric, base *matrix.CellResult, floor stateFloor) (float64, string) {
	least := t.least(metric)
	if t.Spread <= 0 {
		return least, "tolerance"
	}
	var v []float64
	for _, r := range base.PerRound {
		switch metric {
		case pts.MetricIOPS:
			v = append(v, r.IOPS)
		case pts.MetricMBps:
			v = append(v, r.MBps)
		case pts.MetricLatMean:
			v = append(v, r.LatMeanMs)
		}
	}
	allowed, basis := least, "tolerance"
	if s := t.Spread * relStdDev(v) * math.Sqrt(2/float64(max(len(v), 1))); s > allowed {
		allowed, basis = s, "spread"
	}
	if floor.allowed > allowed {
		allowed, basis = floor.allowed, "state of "+floor.stage
	}
	return allowed, basis
}

// stateFloor is the least allowance of a stage's cells from the drive's
// state: the level the steady state of stage settled at is known within
// allowed, as a fraction.
type stateFloor struct {
	stage   string
	allowed float64
}

// stateFloors gives each stage of a baseline test the least allowance
// the drive's state gives it. A stage that later stages of its test run
// on (the preconditioning of ECW, DIRTH and HIR; the first of
// throughput's block sizes) leaves the drive where its steady state was
// declared; a drive still settling is declared steady a few rounds
// earlier or later from run to run, and everything measured on it moves
// together. How far is in that stage's own window: Spread standard errors
// of its tracking variables' average plus the window's least-squares
// excursion, both over the window's average. That stage's cells and those
// of every stage after it are allowed at least as much (the most of such
// stages before them). A test of one stage (IOPS, latency) has none: its
// cells' own windows say all.
func (t Tolerance) stateFloors(test *matrix.TestResult) map[string]stateFloor {
	out := map[string]stateFloor{}
	if t.Spread <= 0 {
		return out
	}
	var cur stateFloor
	for i, s := range test.Stages {
		if later := slices.ContainsFunc(test.Stages[i+1:], func(l matrix.StageResult) bool { return len(l.Cells) > 0 }); later {
			for _, tr := range s.Tracking {
				v := tr.Verdict.Values
				if len(v) < 2 || !(tr.Verdict.Average > 0) {
					continue
				}
				fit := steadystate.Criteria{Window: len(v), MaxRange: 1, MaxSlope: 1}.CheckWindow(1, v)
				if a := t.Spread*relStdDev(v)*math.Sqrt(2/float64(len(v))) + fit.SlopeExcursion/fit.Average; a > cur.allowed {
					cur = stateFloor{stage: s.ID, allowed: a}
				}
			}
		}
		out[s.ID] = cur
	}
	return out
}

// relStdDev is the sample standard deviation of v over its mean; 0 for
// fewer than two values or a mean that is not positive.
func relStdDev(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	var sum, sq float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	if !(mean > 0) {
		return 0
	}
	for _, x := range v {
		sq += (x - mean) * (x - mean)
	}
	return math.Sqrt(sq/float64(len(v)-1)) / mean
}

// judgeRatio judges a lower-is-better tail figure by its ratio run ÷
// baseline: above 1+tol a regression, below 1/(1+tol) an improvement.
func judgeRatio(ratio, tol float64) string {
	switch {
	case ratio > 1+tol:
		return "regression"
	case ratio < 1/(1+tol):
		return "improvement"
	}
	return "within"
}

// ParseTolerance reads "5%", "5 %" or "0.05" (a bare number of 1 or more
// is taken as a percentage: "5" is 5 %), below 100 %.
func ParseTolerance(s string) (float64, error) {
	v, err := parsePercent(s)
	if err == nil && v >= 1 {
		return 0, fmt.Errorf("tolerance %q: must be below 100%%", s)
	}
	return v, err
}

// ParseRise reads an allowed rise as ParseTolerance does, 100 % and more
// allowed ("100%": it may double).
func ParseRise(s string) (float64, error) { return parsePercent(s) }

func parsePercent(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	t = strings.TrimSpace(strings.TrimSuffix(t, "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("tolerance %q: want a percentage such as 5%%", s)
	}
	if pct || v >= 1 {
		v /= 100
	}
	return v, nil
}
