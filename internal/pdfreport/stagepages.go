package pdfreport

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/steadystate"
	"github.com/ptsrun/ptsrun/internal/units"
)

func trackingSeries(t matrix.TrackingResult) series {
	s := series{name: t.Name}
	for i, v := range t.Values {
		s.xs = append(s.xs, float64(i+1))
		s.ys = append(s.ys, v)
	}
	return s
}

func summarize(ss []series, f func(float64) string) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, s.summary(f))
	}
	return strings.Join(parts, "\n")
}

// convergence is how a convergence page of tracking variables is titled.
type convergence struct {
	title, landmark, caption, plot string
	logY                           bool
}

// iopsTracking adds a stage's IOPS tracking variables round by round
// (when it has rounds) and the measurement-window page of each: the IOPS
// test's, HIR's preconditioning's and WSAT's steady-state method's.
func (b *builder) iopsTracking(td *pts.TestDef, s matrix.StageResult, setup, params []KV, c convergence) {
	var tracked []series
	for _, t := range s.Tracking {
		tracked = append(tracked, trackingSeries(t))
	}
	if s.Rounds > 0 && len(tracked) > 0 {
		b.add(&Page{Test: td.Name, Title: c.title, Setup: setup, Params: params, Landmark: c.landmark,
			Blocks: []Block{Chart{Caption: c.caption, Plot: convergencePlot(c.plot, "IOPS", tracked, s.Window, c.logY), Summary: summarize(tracked, fmtIOPS)}}})
	}
	for _, t := range s.Tracking {
		b.add(b.windowPage(td.Name, s, t, setup, params))
	}
}

func (b *builder) windowPage(test string, s matrix.StageResult, tr matrix.TrackingResult, setup, params []KV) *Page {
	v := tr.Verdict
	p := &Page{Test: test, Title: "Steady State Measurement Window: " + tr.Name, Setup: setup, Params: params, Landmark: "window"}
	if len(v.Values) < b.ri.Config.SS.Window {
		// No window to judge: its average, range and slope would be zeros.
		p.Blocks = append(p.Blocks, Paragraph{Lines: []string{fmt.Sprintf("No measurement window: %d of the %d rounds a window needs.",
			len(v.Values), b.ri.Config.SS.Window)}})
		return p
	}
	p.Blocks = append(p.Blocks, Chart{Caption: tr.Name + ": steady-state measurement window, rounds " + fmt.Sprintf("%d–%d", v.FirstRound, v.LastRound),
		Plot: windowPlot(tr.Name, tr.Unit, v, b.ri.Config.SS), Height: 105,
		Summary: fmt.Sprintf("window %d–%d: %s", v.FirstRound, v.LastRound, joinF(v.Values, func(x float64) string { return fmtValue(tr.Unit, x) }))})
	crit := b.ri.Config.SS
	verdict, why := "PASS: steady state", "range and slope within the allowed"
	if !v.Steady {
		// The verdict as judged; alone, the variable is the joint's one.
		one := &steadystate.Joint{Round: v.LastRound, Verdicts: []steadystate.Verdict{v}, Reason: tr.Name + ": " + v.Reason}
		verdict, why = "FAIL: not steady", windowCheck(crit, 1, one, nil, v.LastRound)
	}
	p.Blocks = append(p.Blocks, Table{Caption: "Steady-state determination: " + tr.Name,
		Head: []string{"Quantity", "Value", "Criterion"}, Widths: []float64{2.2, 1.6, 2}, Align: "LRL",
		Rows: [][]string{
			{"Measurement window (rounds)", fmt.Sprintf("%d – %d", v.FirstRound, v.LastRound), ""},
			{"Average of the window", fmtValue(tr.Unit, v.Average), ""},
			{fmt.Sprintf("Allowed maximum data excursion (%g %% of average)", 100*crit.MaxRange), fmtValue(tr.Unit, v.MaxRange), ""},
			{"Measured data excursion (max − min)", fmtValue(tr.Unit, v.Range), passFail(v.RangeOK, "≤ allowed")},
			{fmt.Sprintf("Allowed maximum slope excursion (%g %% of average)", 100*crit.MaxSlope), fmtValue(tr.Unit, v.MaxSlopeExcursion), ""},
			{"Measured slope excursion (|m| × (window − 1))", fmtValue(tr.Unit, v.SlopeExcursion), passFail(v.SlopeOK, "≤ allowed")},
			{"Least-squares linear fit", fmtFit(v.Slope, v.Intercept), ""},
			{"Verdict", verdict, why},
		}},
		Paragraph{Lines: []string{"Steady state: " + pts.SteadyStateRule.Text(b.ri.Config) + "."}, Size: 7.5})
	return p
}

func passFail(ok bool, what string) string {
	if ok {
		return "pass (" + what + ")"
	}
	return "FAIL (not " + what + ")"
}

func joinF(v []float64, f func(float64) string) string {
	var s []string
	for _, x := range v {
		s = append(s, f(x))
	}
	return strings.Join(s, ", ")
}

func rowsLabels(t matrix.Table) []string {
	var out []string
	for _, r := range t.Rows {
		out = append(out, strings.Replace(r, "KiB", " KiB", 1))
	}
	return out
}

// loopCount says how many mixes and block sizes a loop runs: "7 R/W mixes
// × 8 block sizes", "3 R/W mixes × 1 block size".
func loopCount(mixes, sizes int) string {
	s := fmt.Sprintf("%d R/W mix", mixes)
	if mixes != 1 {
		s += "es"
	}
	s += fmt.Sprintf(" × %d block size", sizes)
	if sizes != 1 {
		s += "s"
	}
	return s
}

// ranSizes is the PTS's block sizes the stage has cells of (a 4Kn target
// has no 0.5 KiB cells, a quick look only those it chose), or all of them
// when it has none.
func ranSizes(s matrix.StageResult, sizes []int64) []int64 {
	return ranOf(s, sizes, func(c matrix.CellResult) int64 { return c.BlockSize })
}

// ranMixes is ranSizes for the R/W mixes.
func ranMixes(s matrix.StageResult, mixes []int) []int {
	return ranOf(s, mixes, func(c matrix.CellResult) int { return c.ReadPct })
}

func ranOf[T comparable](s matrix.StageResult, all []T, of func(matrix.CellResult) T) []T {
	var out []T
	for _, v := range all {
		if slices.ContainsFunc(s.Cells, func(c matrix.CellResult) bool { return of(c) == v }) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// cellAt is the stage's cell of that key, measured or not; nil when the
// stage has none.
func cellAt(s matrix.StageResult, key pts.CellKey) *matrix.CellResult {
	for i := range s.Cells {
		if s.Cells[i].Key == key {
			return &s.Cells[i]
		}
	}
	return nil
}

// roundSeries is a cell's IOPS in every round the results hold for it.
func roundSeries(name string, c *matrix.CellResult) series {
	s := series{name: name}
	rounds := c.AllRounds
	if len(rounds) == 0 {
		rounds = c.PerRound
	}
	for _, r := range rounds {
		s.xs = append(s.xs, float64(r.Round))
		s.ys = append(s.ys, r.IOPS)
	}
	return s
}

func roundSeriesOf(name string, c *matrix.CellResult, v func(matrix.RoundValue) float64) series {
	s := series{name: name}
	rounds := c.AllRounds
	if len(rounds) == 0 {
		rounds = c.PerRound
	}
	for _, r := range rounds {
		s.xs = append(s.xs, float64(r.Round))
		s.ys = append(s.ys, v(r))
	}
	return s
}

// windowCheck words the verdict j on the window that ends at round, as
// the runner judged it, of vars tracking variables; with several, each is
// named by its cell (cells, as trackedCell names them).
func windowCheck(c steadystate.Criteria, vars int, j *steadystate.Joint, cells []string, round int) string {
	if vars == 0 {
		return "–"
	}
	if round < c.Window || j == nil {
		return fmt.Sprintf("(%d of %d rounds)", round, c.Window)
	}
	if j.Steady {
		return "steady"
	}
	var why []string
	for i, v := range j.Verdicts {
		if v.Steady || v.Average == 0 {
			continue
		}
		name := ""
		if vars > 1 && i < len(cells) {
			name = cells[i] + ": "
		}
		var parts []string
		if !v.RangeOK {
			parts = append(parts, fmt.Sprintf("range %.1f %% > %g %%", 100*v.Range/v.Average, 100*c.MaxRange))
		}
		if !v.SlopeOK {
			parts = append(parts, fmt.Sprintf("slope %.1f %% > %g %%", 100*v.SlopeExcursion/v.Average, 100*c.MaxSlope))
		}
		why = append(why, name+strings.Join(parts, ", "))
	}
	if len(why) == 0 {
		return "not steady: " + j.Reason
	}
	return strings.Join(why, "; ")
}

// trackedCell names a tracking variable's cell short, by block size and
// mix: "4 KiB 0/100"; its access is the test's.
func trackedCell(s matrix.StageResult, tr matrix.TrackingResult) string {
	for _, c := range s.Cells {
		if c.Index == tr.Cell && c.Key.Name == "" {
			return units.FormatSize(c.Key.BlockSize) + " " + pts.MixLabel(c.Key.ReadPct)
		}
	}
	return tr.Name
}
