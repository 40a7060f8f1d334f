package golden

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/comparison"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/units"
)

// Comparison is several runs lined up against the first.
type Comparison struct {
	Runs []*Run
	// Tests are the tests compared: those the reference and at least one
	// other run hold. NotCompared are the others, with the runs that hold
	// them.
	Tests       []pts.TestID
	NotCompared []HeldBy
	Tables      []comparison.Table // of the tests compared
	Headlines   []comparison.Headline
	// HeatMap is the runs' workloads outside the PTS (presets, vdbench
	// runs, fio job groups) as ratios to the reference; nil without any.
	HeatMap *comparison.HeatMap
}

// Compare lines the runs up: every table any run has, rows and columns the
// union of theirs, NaN where a run has no value; and the headline cells.
// Every run must share a test with the reference.
func Compare(runs []*Run) (*Comparison, error) {
	if len(runs) < 2 {
		return nil, fmt.Errorf("compare needs at least two runs")
	}
	ref := runs[0]
	for _, r := range runs[1:] {
		common := false
		for _, t := range r.Results.Tests {
			common = common || ref.Results.Find(t.Test) != nil
		}
		if !common {
			return nil, fmt.Errorf("%s and the reference %s: %w (reference: %s; run: %s)", r.Path, ref.Path, ErrNothingInCommon,
				testNames(ref.Results), testNames(r.Results))
		}
	}
	c := &Comparison{Runs: runs}
	c.Tests, c.NotCompared = comparedTests(runs)
	perRun := make([]map[string]matrix.Table, len(runs))
	var names []string
	for i, r := range runs {
		perRun[i] = map[string]matrix.Table{}
		for _, t := range r.Results.Tables() {
			td, _, _ := pts.LookupTable(t.Name)
			if strings.HasSuffix(t.Name, "_tracking") || td == nil || !slices.Contains(c.Tests, td.ID) {
				continue
			}
			perRun[i][t.Name] = t
			if !slices.Contains(names, t.Name) {
				names = append(names, t.Name)
			}
		}
	}
	for _, name := range names {
		c.Tables = append(c.Tables, unionTable(name, perRun))
	}
	c.HeatMap = heatMap(c.Tables)
	// The brief headlines of any run: the numbers reviews quote. Workloads
	// outside the PTS (imported, or recorded by `ptsrun workload`) are what
	// such runs are about: theirs are headline cells too, matched by
	// workload.
	// A headline the test chose as it ran (DIRTH's MaxIOPS) is matched by
	// its label: each run's own point, wherever its TC/QD.
	type quoted struct {
		test   pts.TestID
		key    pts.CellKey
		metric pts.Metric
		label  string
	}
	var heads []quoted
	for _, r := range runs {
		for _, h := range r.Results.Headlines() {
			if !h.Brief || !slices.Contains(c.Tests, h.Test) {
				continue
			}
			for _, m := range h.Metrics {
				q := quoted{h.Test, h.Key, m, h.Label}
				if h.Label != "" {
					q.key = pts.CellKey{}
				}
				if !slices.Contains(heads, q) {
					heads = append(heads, q)
				}
			}
		}
	}
	for _, h := range heads {
		label := h.key.Words()
		switch {
		case h.label != "":
			label = h.label
		case h.test == pts.Custom:
			label = h.key.String()
		}
		hl := comparison.Headline{Label: label + " " + h.metric.Quote(), Metric: h.metric}
		any := false
		for _, r := range runs {
			v, load := math.NaN(), ""
			cell := r.Results.Cell(h.test, h.key)
			if h.label != "" {
				cell = nil
				for _, rh := range r.Results.Headlines() {
					if rh.Test == h.test && rh.Label == h.label {
						cell = rh.Cell
					}
				}
				if cell != nil {
					load = fmt.Sprintf("TC%d/QD%d", cell.TC, cell.QD)
				}
			}
			if cell != nil {
				if x, ok := cell.Value(h.metric); ok {
					v, any = x, true
				}
			}
			hl.Values = append(hl.Values, v)
			hl.Loads = append(hl.Loads, load)
		}
		if h.label == "" {
			hl.Loads = nil
		}
		hl.Point = h.label
		hl.Differ = differentLoads(hl.Loads)
		if any {
			c.Headlines = append(c.Headlines, hl)
		}
	}
	return c, nil
}

// comparedTests are the tests the reference and at least one other run
// hold, in the reference's order; the others are named with the runs that
// hold them, in the order the runs first hold them.
func comparedTests(runs []*Run) ([]pts.TestID, []HeldBy) {
	var compared []pts.TestID
	var others []HeldBy
	for _, r := range runs {
		for _, t := range r.Results.Tests {
			if slices.Contains(compared, t.Test) || slices.ContainsFunc(others, func(h HeldBy) bool { return h.Test == t.Test }) {
				continue
			}
			var holders []int
			for i, x := range runs {
				if x.Results.Find(t.Test) != nil {
					holders = append(holders, i)
				}
			}
			if holders[0] == 0 && len(holders) > 1 {
				compared = append(compared, t.Test)
			} else {
				others = append(others, HeldBy{Test: t.Test, Name: t.Name, Runs: holders})
			}
		}
	}
	return compared, others
}

// HeldBy is a test some runs hold, with the runs (their index from 0, the
// reference) that hold it.
type HeldBy struct {
	Test pts.TestID
	Name string
	Runs []int
}

// letter names the i-th run of a comparison, as its pages do: A, the
// reference, B, …
func letter(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprint(i + 1)
}

// Scope says which tests are compared, and names each test the reference
// and another run do not both hold, one line per set of runs that hold
// them: the summary page's lines, and the terminal's.
func (c *Comparison) Scope() []string {
	var names []string
	for _, t := range c.Tests {
		if td := pts.Def(t); td != nil {
			names = append(names, td.Name)
		} else {
			names = append(names, pts.CustomTest.Name)
		}
	}
	compared := pts.JoinAnd(names)
	if compared == "" {
		compared = "–"
	}
	lines := []string{"Compared: " + compared + "."}
	var whys []string
	tests := map[string][]string{}
	for _, n := range c.NotCompared {
		var in []string
		for _, i := range n.Runs {
			in = append(in, letter(i)+" ("+c.Runs[i].Name+")")
		}
		why := "only in " + pts.JoinAnd(in)
		if len(n.Runs) > 1 {
			why = "in " + pts.JoinAnd(in) + ", not in the reference"
		}
		if tests[why] == nil {
			whys = append(whys, why)
		}
		tests[why] = append(tests[why], n.Name)
	}
	for _, why := range whys {
		lines = append(lines, fmt.Sprintf("Not compared, %s: %s.", why, pts.JoinAnd(tests[why])))
	}
	return lines
}

// differentLoads says which loads the runs chose an operating point at,
// when they differ ("A TC32/QD4, B TC32/QD8"); "" when every run that has
// the point chose it at one.
func differentLoads(loads []string) string {
	var seen, each []string
	for i, l := range loads {
		if l == "" {
			continue
		}
		if !slices.Contains(seen, l) {
			seen = append(seen, l)
		}
		each = append(each, letter(i)+" "+l)
	}
	if len(seen) < 2 {
		return ""
	}
	return strings.Join(each, ", ")
}

// pointColumnMetric is the metric of an operating-points table's column,
// by its name's unit ("chosen_iops", "histogram_art_ms"); "" for the
// point's TC and QD, which are not scored.
func pointColumnMetric(col string) pts.Metric {
	switch {
	case strings.HasSuffix(col, "_iops"):
		return pts.MetricIOPS
	case strings.HasSuffix(col, "_art_ms"), strings.HasSuffix(col, "_mean_ms"):
		return pts.MetricLatMean
	case strings.HasSuffix(col, "_p99_999_ms"):
		return pts.MetricLatP99999
	case strings.HasSuffix(col, "_mrt_ms"), strings.HasSuffix(col, "_max_ms"):
		return pts.MetricLatMax
	}
	return ""
}

// unitMetric is the metric a summary column's or a figure's unit makes it
// (the summaries and figures of the tests over time carry units, not
// metrics), for the way it improves: IOPS and MB/s up, response times
// (ms) and recovery times (min) down, a ratio to the baseline up. A
// quantity that is neither better nor worse (hours, minutes of a
// segment, GB written, bursts) is "", not scored.
func unitMetric(unit string) pts.Metric {
	switch {
	case strings.HasSuffix(unit, "IOPS"), unit == "× the baseline", unit == "ratio to the baseline":
		return pts.MetricIOPS
	case strings.HasPrefix(unit, "MB/s"), strings.HasSuffix(unit, "MB/s"):
		return pts.MetricMBps
	case strings.HasSuffix(unit, "ms"):
		return pts.MetricLatMean
	case unit == "min": // a figure's: XSR's recovery times
		return pts.MetricLatMax
	}
	return ""
}

// unionTable aligns one table of every run on the union of their rows and
// columns.
func unionTable(name string, perRun []map[string]matrix.Table) comparison.Table {
	td, def, _ := pts.LookupTable(name)
	out := comparison.Table{Name: name}
	if td != nil {
		out.Test = td.ID
	}
	type rowKey struct {
		label string
		bytes int64
	}
	var rows []rowKey
	var cols []string
	for _, m := range perRun {
		t, ok := m[name]
		if !ok {
			continue
		}
		if out.Title == "" {
			out.Title, out.Unit, out.RowHead = t.Title, t.Unit, t.RowHead
		}
		for i, r := range t.Rows {
			k := rowKey{r, t.RowBytes[i]}
			if !slices.Contains(rows, k) {
				rows = append(rows, k)
			}
		}
		for _, c := range t.Cols {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	if name != pts.CustomTable {
		// Block-size rows largest first, as the PTS tables.
		slices.SortStableFunc(rows, func(a, b rowKey) int { return int(b.bytes>>9) - int(a.bytes>>9) })
	}
	for _, r := range rows {
		label := r.label
		if r.bytes > 0 && name != pts.CustomTable {
			label = units.FormatSize(r.bytes)
		}
		out.Rows = append(out.Rows, label)
		out.RowBytes = append(out.RowBytes, r.bytes)
	}
	out.Cols = cols
	out.Points = def.Shape == pts.ShapePoints
	for _, c := range cols {
		m := def.Metric
		switch def.Shape {
		case pts.ShapeCells:
			m = pts.Metric(c) // a column per metric
		case pts.ShapePoints:
			m = pointColumnMetric(c)
		case pts.ShapeSummary:
			m = unitMetric(c)
		}
		out.ColMetric = append(out.ColMetric, m)
	}
	if def.Shape == pts.ShapeFigures {
		// A figure a row, its unit in its label: "recovery time (min)".
		for _, r := range rows {
			unit := ""
			if i := strings.LastIndex(r.label, " ("); i >= 0 {
				unit = strings.TrimSuffix(r.label[i+2:], ")")
			}
			out.RowMetric = append(out.RowMetric, unitMetric(unit))
		}
	}
	if out.RowHead == "bs" {
		out.RowHead = "Block size"
	}
	for _, m := range perRun {
		vals := make([][]float64, len(rows))
		t, ok := m[name]
		for ri, r := range rows {
			vals[ri] = make([]float64, len(cols))
			for ci, c := range cols {
				vals[ri][ci] = math.NaN()
				if !ok {
					continue
				}
				for tr, label := range t.Rows {
					if label != r.label || t.RowBytes[tr] != r.bytes {
						continue
					}
					for tc, col := range t.Cols {
						if col == c {
							vals[ri][ci] = t.Values[tr][tc]
						}
					}
				}
			}
		}
		out.Values = append(out.Values, vals)
	}
	if out.Points {
		// Each run's TC/QD of each point: chosen at other loads, it is
		// shown, never scored.
		tc, qd := slices.Index(cols, "tc"), slices.Index(cols, "qd")
		for ri := range rows {
			var loads []string
			for i := range out.Values {
				load := ""
				if tc >= 0 && qd >= 0 && !math.IsNaN(out.Values[i][ri][tc]) {
					load = fmt.Sprintf("TC%g/QD%g", out.Values[i][ri][tc], out.Values[i][ri][qd])
				}
				loads = append(loads, load)
			}
			out.Differ = append(out.Differ, differentLoads(loads))
		}
	}
	return out
}

// heatMap is the ratio heat-map of the custom workloads' table (a row per
// workload, a column per metric): run ÷ reference for every run after the
// reference, and each metric's geometric mean over the workloads both runs
// have. nil without custom workloads.
func heatMap(tables []comparison.Table) *comparison.HeatMap {
	var t *comparison.Table
	for i := range tables {
		if tables[i].Name == pts.CustomTable {
			t = &tables[i]
		}
	}
	if t == nil || len(t.Rows) == 0 || len(t.Values) < 2 {
		return nil
	}
	hm := &comparison.HeatMap{Workloads: t.Rows, Metrics: t.ColMetric}
	for i := 1; i < len(t.Values); i++ {
		ratios := make([][]float64, len(t.Rows))
		logSum := make([]float64, len(t.Cols))
		n := make([]int, len(t.Cols))
		for r := range t.Rows {
			ratios[r] = make([]float64, len(t.Cols))
			for c := range t.Cols {
				v := t.Values[i][r][c] / t.Values[0][r][c]
				if v > 0 && !math.IsInf(v, 0) {
					logSum[c] += math.Log(v)
					n[c]++
				} else {
					v = math.NaN()
				}
				ratios[r][c] = v
			}
		}
		mean := make([]float64, len(t.Cols))
		for c := range mean {
			mean[c] = math.NaN()
			if n[c] > 0 {
				mean[c] = math.Exp(logSum[c] / float64(n[c]))
			}
		}
		hm.Ratios = append(hm.Ratios, ratios)
		hm.Mean = append(hm.Mean, mean)
	}
	return hm
}

// Model is the comparison as pdfreport draws it.
func (c *Comparison) Model() comparison.Comparison {
	out := comparison.Comparison{Tables: c.Tables, Headlines: c.Headlines, HeatMap: c.HeatMap, Scope: c.Scope()}
	for _, r := range c.Runs {
		out.Runs = append(out.Runs, comparison.Run{Name: r.Name, Info: r.Info, Results: r.Results})
	}
	return out
}
