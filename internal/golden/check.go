package golden

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// Finding is one metric of one cell compared.
type Finding struct {
	Test     pts.TestID  `json:"test"`
	Stage    string      `json:"stage"`
	Cell     pts.CellKey `json:"cell"`     // e.g. rnd-4k-65/35
	Workload string      `json:"workload"` // e.g. RND 4 KiB 65/35 TC4/QD32
	Metric   pts.Metric  `json:"metric"`
	Unit     string      `json:"unit"`
	Baseline float64     `json:"baseline"`
	Run      float64     `json:"run"`
	Change   float64     `json:"change"`  // (run − baseline) / baseline
	Verdict  string      `json:"verdict"` // regression, improvement or within
	// Allowed is the move allowed the wrong way, as a fraction; Basis why:
	// "tolerance" (the least allowance), "spread" (the baseline window's
	// scatter), "state of STAGE" (where the steady state of STAGE, which
	// the cell's stage runs on, left the drive: stateFloors) or "tail
	// cell" (a tail metric's cell alone).
	Allowed float64 `json:"allowed"`
	Basis   string  `json:"basis"`
}

// TailFinding is a tail metric of one test compared: the geometric mean
// over the test's cells of run ÷ baseline.
type TailFinding struct {
	Test   pts.TestID `json:"test"`
	Metric pts.Metric `json:"metric"`
	Cells  int        `json:"cells"`
	Ratio  float64    `json:"ratio"` // the geometric mean
	// Scatter is three standard errors of the mean log-ratio, as a factor
	// less 1: a rise within it is the cells' scatter.
	Scatter float64 `json:"scatter"`
	Allowed float64 `json:"allowed"` // the rise allowed: the tail tolerance or the scatter, whichever is more
	Verdict string  `json:"verdict"`
}

// StageChange is a stage whose steady-state verdict differs.
type StageChange struct {
	Test         pts.TestID `json:"test"`
	Stage        string     `json:"stage"`
	Title        string     `json:"title"`
	BaseSteady   bool       `json:"baseline_steady"`
	RunSteady    bool       `json:"run_steady"`
	BaseSSRound  int        `json:"baseline_ss_round,omitempty"`
	RunSSRound   int        `json:"run_ss_round,omitempty"`
	IsRegression bool       `json:"regression"`
}

// CheckResult is a run held against a baseline.
type CheckResult struct {
	Baseline  string       `json:"baseline"`
	Run       string       `json:"run"`
	Tolerance Tolerance    `json:"tolerance"`
	Rule      string       `json:"rule"`  // the tolerance in words
	Tests     []pts.TestID `json:"tests"` // compared: in both
	// Tests in one result set only are not compared; they are named.
	TestsOnlyBaseline []pts.TestID `json:"tests_only_in_baseline"`
	TestsOnlyRun      []pts.TestID `json:"tests_only_in_run"`
	Compared          int          `json:"compared"`
	Regressions       []Finding    `json:"regressions"`
	Improvements      []Finding    `json:"improvements"`
	// Tail are the tail metrics judged test by test, every one, within or not.
	Tail   []TailFinding `json:"tail"`
	Steady []StageChange `json:"steady_state_changes"`
	// Cells in one result set only. A cell the baseline has and the run
	// lacks fails the check: the run did not show it still performs.
	OnlyBaseline []string `json:"only_in_baseline"`
	OnlyRun      []string `json:"only_in_run"`
	// NotCompared are metrics one side has no value for (imported tables,
	// fio output without histograms).
	NotCompared []string `json:"not_compared"`
	// WorkloadDiffers are cells compared although their workloads differ
	// (another TC/QD, as between the enterprise and client profiles).
	WorkloadDiffers []string `json:"workload_differs"`
	// Health are the run's health deviations (a drive throttling, warning
	// or counting media errors in a measurement window); with
	// StrictHealth they fail the check.
	Health       []matrix.HealthDeviation `json:"health_deviations"`
	StrictHealth bool                     `json:"strict_health"`
	Pass         bool                     `json:"pass"`
}

// Check compares run with baseline for every test both hold, by the rule
// tol states (Tolerance.Rule).
func Check(baseline, run *Run, tol Tolerance) (*CheckResult, error) {
	out := &CheckResult{Baseline: baseline.Path, Run: run.Path, Tolerance: tol, Rule: tol.Rule(),
		Regressions: []Finding{}, Improvements: []Finding{}, Tail: []TailFinding{}, Steady: []StageChange{},
		OnlyBaseline: []string{}, OnlyRun: []string{}, NotCompared: []string{}, WorkloadDiffers: []string{}}
	out.TestsOnlyBaseline, out.TestsOnlyRun = []pts.TestID{}, []pts.TestID{}
	for _, t := range baseline.Results.Tests {
		if run.Results.Find(t.Test) != nil {
			out.Tests = append(out.Tests, t.Test)
		} else {
			out.TestsOnlyBaseline = append(out.TestsOnlyBaseline, t.Test)
		}
	}
	for _, t := range run.Results.Tests {
		if baseline.Results.Find(t.Test) == nil {
			out.TestsOnlyRun = append(out.TestsOnlyRun, t.Test)
		}
	}
	if len(out.Tests) == 0 {
		return nil, fmt.Errorf("%s and %s: %w (baseline: %s; run: %s)", baseline.Path, run.Path, ErrNothingInCommon,
			testNames(baseline.Results), testNames(run.Results))
	}
	common := map[pts.TestID]bool{}
	for _, t := range out.Tests {
		common[t] = true
	}
	// logRatios[test][metric] are the tail metric's ln(run ÷ baseline), a cell each.
	logRatios := map[pts.TestID]map[pts.Metric][]float64{}
	floors := map[pts.TestID]map[string]stateFloor{}
	for i := range baseline.Results.Tests {
		t := &baseline.Results.Tests[i]
		floors[t.Test] = tol.stateFloors(t)
	}
	bc, border := cells(baseline.Results)
	rc, rorder := cells(run.Results)
	for _, k := range border {
		if !common[k.Test] {
			continue
		}
		b := bc[k]
		r, ok := rc[k]
		if !ok {
			out.OnlyBaseline = append(out.OnlyBaseline, k.String())
			continue
		}
		if bl, rl := workloadLabel(k.Test, b.cell), workloadLabel(k.Test, r.cell); bl != rl {
			out.WorkloadDiffers = append(out.WorkloadDiffers, fmt.Sprintf("%s (baseline %s, run %s)", k, bl, rl))
		}
		for _, metric := range matrix.CompareMetrics {
			bv, bok := b.cell.Value(metric)
			rv, rok := r.cell.Value(metric)
			if !bok || !rok {
				if bok != rok {
					out.NotCompared = append(out.NotCompared, k.String()+" "+string(metric))
				}
				continue
			}
			if bk, rk := b.cell.LatPctLatency, r.cell.LatPctLatency; metric == pts.MetricLatP99999 && bk != "" && rk != "" && bk != rk {
				// fio's completion latency against total latency: not the same quantity.
				out.NotCompared = append(out.NotCompared, fmt.Sprintf("%s %s (baseline of %s, run of %s latency)", k, metric, bk, rk))
				continue
			}
			f := Finding{Test: k.Test, Stage: k.Stage, Cell: k.Key, Workload: workloadLabel(k.Test, b.cell),
				Metric: metric, Unit: metric.Unit(), Baseline: bv, Run: rv}
			if tailMetric(metric) {
				f.Allowed, f.Basis = tol.TailCell, "tail cell"
				f.Verdict, f.Change = judge(metric, bv, rv, 0)
				if bv > 0 && rv > 0 {
					f.Verdict = judgeRatio(rv/bv, tol.TailCell)
					if logRatios[k.Test] == nil {
						logRatios[k.Test] = map[pts.Metric][]float64{}
					}
					logRatios[k.Test][metric] = append(logRatios[k.Test][metric], math.Log(rv/bv))
				}
			} else {
				f.Allowed, f.Basis = tol.allowance(metric, b.cell, floors[k.Test][k.Stage])
				f.Verdict, f.Change = judge(metric, bv, rv, f.Allowed)
			}
			out.Compared++
			switch f.Verdict {
			case "regression":
				out.Regressions = append(out.Regressions, f)
			case "improvement":
				out.Improvements = append(out.Improvements, f)
			}
		}
	}
	for _, k := range rorder {
		if _, ok := bc[k]; !ok && common[k.Test] {
			out.OnlyRun = append(out.OnlyRun, k.String())
		}
	}
	for _, t := range out.Tests {
		for _, metric := range matrix.CompareMetrics {
			if lr := logRatios[t][metric]; len(lr) >= minTailCells {
				out.Tail = append(out.Tail, tailFinding(t, metric, lr, tol.Tail))
			}
		}
	}
	for _, t := range baseline.Results.Tests {
		rt := run.Results.Find(t.Test)
		if rt == nil {
			continue
		}
		for _, bs := range t.Stages {
			for _, rs := range rt.Stages {
				if rs.ID != bs.ID || bs.Steady == rs.Steady {
					continue
				}
				out.Steady = append(out.Steady, StageChange{Test: t.Test, Stage: bs.ID, Title: bs.Title,
					BaseSteady: bs.Steady, RunSteady: rs.Steady, BaseSSRound: bs.SSRound, RunSSRound: rs.SSRound,
					IsRegression: bs.Steady && !rs.Steady})
			}
		}
	}
	out.Pass = len(out.Regressions) == 0 && len(out.OnlyBaseline) == 0
	for _, s := range out.Steady {
		out.Pass = out.Pass && !s.IsRegression
	}
	for _, f := range out.Tail {
		out.Pass = out.Pass && f.Verdict != "regression"
	}
	out.Health = run.Results.HealthDeviations
	if out.Health == nil {
		out.Health = []matrix.HealthDeviation{}
	}
	if tol.StrictHealth {
		out.Strict()
	}
	return out, nil
}

// Strict makes the run's health deviations failures of the check
// (--strict-health).
func (c *CheckResult) Strict() {
	c.StrictHealth = true
	c.Pass = c.Pass && len(c.Health) == 0
}

// minTailCells is the fewest cells whose tail a test is judged by: fewer
// have no scatter to tell a rise from; the cell rule judges them.
const minTailCells = 3

// tailFinding judges a test's tail metric by the mean of its cells'
// log-ratios: a move beyond ln(1+tol) and beyond three standard errors.
func tailFinding(test pts.TestID, metric pts.Metric, lr []float64, tol float64) TailFinding {
	var sum, sq float64
	for _, x := range lr {
		sum += x
	}
	n := float64(len(lr))
	mean := sum / n
	for _, x := range lr {
		sq += (x - mean) * (x - mean)
	}
	se := math.Sqrt(sq/(n-1)) / math.Sqrt(n)
	f := TailFinding{Test: test, Metric: metric, Cells: len(lr), Ratio: math.Exp(mean), Scatter: math.Exp(3*se) - 1}
	f.Allowed = max(tol, f.Scatter)
	f.Verdict = judgeRatio(f.Ratio, f.Allowed)
	return f
}

// judge compares a metric direction-aware: change is (run − base)/base; a
// move the wrong way beyond tol is a regression, the right way an
// improvement. Values are compared unrounded.
func judge(metric pts.Metric, base, run, tol float64) (string, float64) {
	if base == 0 {
		if run == 0 {
			return "within", 0
		}
		change := math.Inf(1)
		if metric.LowerIsBetter() {
			return "regression", change
		}
		return "improvement", change
	}
	change := (run - base) / base
	worse := change < -tol
	better := change > tol
	if metric.LowerIsBetter() {
		worse, better = change > tol, change < -tol
	}
	switch {
	case worse:
		return "regression", change
	case better:
		return "improvement", change
	}
	return "within", change
}

func testNames(r *matrix.Results) string {
	var s []string
	for _, t := range r.Tests {
		s = append(s, string(t.Test))
	}
	return strings.Join(s, ", ")
}

// workloadLabel describes a cell: "RND 4 KiB 65/35 TC4/QD32".
func workloadLabel(test pts.TestID, c *matrix.CellResult) string {
	if test == pts.Custom {
		return c.Key.String()
	}
	s := c.Key.Label()
	if c.TC > 0 && c.QD > 0 {
		s += fmt.Sprintf(" TC%d/QD%d", c.TC, c.QD)
	}
	return s
}

// FormatValue writes a metric value for people, unrounded enough to show
// the change.
func FormatValue(metric pts.Metric, v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case metric.Unit() == "IOPS":
		return strconv.FormatFloat(v, 'f', 0, 64)
	case metric.Unit() == "MB/s":
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func formatChange(c float64) string {
	if math.IsInf(c, 0) {
		return "from 0"
	}
	return fmt.Sprintf("%+.1f %%", 100*c)
}

// Print writes the result for people: the rule, what failed, what
// improved, what was only on one side.
func (c *CheckResult) Print(w io.Writer) {
	fmt.Fprintf(w, "Baseline %s\nRun      %s\n", c.Baseline, c.Run)
	fmt.Fprintf(w, "Tests compared: %s; %d cell metrics\n", pts.JoinTests(c.Tests, ", "), c.Compared)
	fmt.Fprintf(w, "Rule: %s\n", wrap(c.Rule, 100, "      "))
	table := func(title string, fs []Finding) {
		if len(fs) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s (%d):\n", title, len(fs))
		fmt.Fprintf(w, "  %-14s %-30s %-24s %14s %14s %9s %17s\n", "stage", "workload", "metric", "baseline", "run", "change", "allowed")
		for _, f := range fs {
			label := f.Metric.Label()
			if label != f.Unit {
				label += " (" + f.Unit + ")"
			}
			fmt.Fprintf(w, "  %-14s %-30s %-24s %14s %14s %9s %17s\n", f.Stage, f.Workload, label,
				FormatValue(f.Metric, f.Baseline), FormatValue(f.Metric, f.Run), formatChange(f.Change), allowedLabel(f))
		}
	}
	if len(c.TestsOnlyBaseline)+len(c.TestsOnlyRun) > 0 {
		fmt.Fprintf(w, "Not compared: tests only in the baseline: %s; only in the run: %s\n",
			orNone(idStrings(c.TestsOnlyBaseline)), orNone(idStrings(c.TestsOnlyRun)))
	}
	if len(c.Tail) > 0 {
		fmt.Fprintf(w, "\nResponse-time tail, test by test (geometric mean of run ÷ baseline over the cells):\n")
		fmt.Fprintf(w, "  %-8s %-30s %6s %9s %9s %12s\n", "test", "metric", "cells", "change", "allowed", "")
		for _, f := range c.Tail {
			verdict := ""
			if f.Verdict != "within" {
				verdict = strings.ToUpper(f.Verdict)
			}
			fmt.Fprintf(w, "  %-8s %-30s %6d %9s %9s %12s\n", f.Test, f.Metric.Label()+" ("+f.Metric.Unit()+")", f.Cells,
				formatChange(f.Ratio-1), "+"+strconv.FormatFloat(100*f.Allowed, 'f', 1, 64)+" %", verdict)
		}
	}
	table("REGRESSIONS", c.Regressions)
	for _, s := range c.Steady {
		if s.IsRegression {
			fmt.Fprintf(w, "\nREGRESSION: %s reached steady state in the baseline (round %d) but not in the run\n", s.Title, s.BaseSSRound)
		} else if s.RunSteady {
			fmt.Fprintf(w, "\nImprovement: %s reached steady state in the run (round %d) but not in the baseline\n", s.Title, s.RunSSRound)
		}
	}
	if len(c.OnlyBaseline) > 0 {
		fmt.Fprintf(w, "\nMISSING from the run (%d cells the baseline has): %s\n", len(c.OnlyBaseline), strings.Join(c.OnlyBaseline, ", "))
	}
	table("Improvements", c.Improvements)
	if len(c.OnlyRun) > 0 {
		fmt.Fprintf(w, "\nOnly in the run (%d cells, not checked): %s\n", len(c.OnlyRun), strings.Join(c.OnlyRun, ", "))
	}
	if len(c.WorkloadDiffers) > 0 {
		fmt.Fprintf(w, "\nNote: %d cells ran a different workload in the run than in the baseline, e.g. %s\n",
			len(c.WorkloadDiffers), c.WorkloadDiffers[0])
	}
	if len(c.NotCompared) > 0 {
		fmt.Fprintf(w, "\nNot compared, a value on one side only (%d): %s\n", len(c.NotCompared), strings.Join(c.NotCompared, ", "))
	}
	if len(c.Health) > 0 {
		head := "Health (failures with --strict-health)"
		if c.StrictHealth {
			head = "HEALTH DEVIATIONS (--strict-health)"
		}
		fmt.Fprintf(w, "\n%s:\n", head)
		for _, h := range c.Health {
			fmt.Fprintf(w, "  %s\n", h.Text)
		}
	}
	if c.Pass {
		fmt.Fprintf(w, "\nPASS: no regression beyond the allowances\n")
	} else {
		fmt.Fprintf(w, "\nFAIL: %d regression(s)\n", c.Failures())
	}
}

// Failures counts what failed the check: cell metrics, tests' tails,
// missing cells, stages no longer steady, and with StrictHealth the
// health deviations.
func (c *CheckResult) Failures() int {
	n := len(c.Regressions) + len(c.OnlyBaseline)
	if c.StrictHealth {
		n += len(c.Health)
	}
	for _, s := range c.Steady {
		if s.IsRegression {
			n++
		}
	}
	for _, f := range c.Tail {
		if f.Verdict == "regression" {
			n++
		}
	}
	return n
}

// allowedLabel says how far a finding's metric was allowed to move, and why.
func allowedLabel(f Finding) string {
	sign := "−"
	if f.Metric.LowerIsBetter() {
		sign = "+"
	}
	v := sign + strconv.FormatFloat(100*f.Allowed, 'f', 1, 64) + " %"
	if f.Basis == "tolerance" {
		return v
	}
	return v + " " + f.Basis
}

// wrap breaks s into lines of at most width runes, the later ones indented.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		n := len([]rune(word))
		if i > 0 && line+1+n > width {
			b.WriteString("\n" + indent)
			line = len(indent)
		} else if i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += n
	}
	return b.String()
}

func orNone(v []string) string {
	if len(v) == 0 {
		return "none"
	}
	return strings.Join(v, ", ")
}

func idStrings(ids []pts.TestID) []string {
	var s []string
	for _, id := range ids {
		s = append(s, string(id))
	}
	return s
}
