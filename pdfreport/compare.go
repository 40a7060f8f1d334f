package pdfreport

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/pts"
)

// ComparedRun is one run of a comparison; Info is nil for a bare
// results.json.
type ComparedRun struct {
	Name    string
	Info    *pts.RunInfo
	Results *matrix.Results
}

// ComparedTable is one table across runs: Values[run][row][col], NaN where
// a run has no value.
type ComparedTable struct {
	Name, Title, Unit string
	Test              pts.TestID
	RowHead           string
	Rows              []string
	RowBytes          []int64
	Cols              []string
	ColMetric         []pts.Metric // the metric of each column (its direction)
	Values            [][][]float64
}

// ComparedHeadline is one headline cell across runs.
type ComparedHeadline struct {
	Label  string
	Metric pts.Metric
	Values []float64
}

// ComparedHeatMap is the ratio heat-map of workloads outside the PTS
// (presets, a vdbench or fio suite) across runs: for each run after the
// reference, each workload × metric as run ÷ reference, NaN where either
// has no value.
type ComparedHeatMap struct {
	Workloads []string
	Metrics   []pts.Metric
	Ratios    [][][]float64 // [run-1][workload][metric]
	// Mean is each metric's geometric mean ratio over the workloads both
	// runs have, per run after the reference: the one figure per metric
	// a suite's comparison comes down to.
	Mean [][]float64 // [run-1][metric]
}

// Comparison is what `ptsrun compare` lays out: the first run is the
// reference.
type Comparison struct {
	Paper     string
	Runs      []ComparedRun
	Tables    []ComparedTable
	Headlines []ComparedHeadline
	HeatMap   *ComparedHeatMap // nil unless the runs share workloads outside the PTS
}

func fmtRatio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return fmt.Sprintf("%.3f", v)
}

// Doc lays the comparison out in the report's page format.
func (c Comparison) Doc() *Doc {
	paper := "A4"
	if strings.EqualFold(c.Paper, "letter") {
		paper = "Letter"
	}
	d := &Doc{Paper: paper, Kind: "Comparison",
		Footer: "ptsrun — comparison of SNIA SSS PTS results; rebuild it with `ptsrun compare` from the same runs"}
	ref := c.Runs[0]
	h := &d.Header
	h.Start, h.Finish = stamp(ref.Results.Start), stamp(ref.Results.Finish)
	h.Spec = ref.Results.Spec
	if ref.Info != nil && ref.Info.Profile.Short != "" {
		h.Spec = ref.Info.Profile.Short + " " + pts.SpecRevision
	}
	var names []string
	for _, r := range c.Runs {
		names = append(names, r.Name)
	}
	h.Vendor = fmt.Sprintf("%d runs compared", len(c.Runs))
	h.Model = strings.Join(names, " · ")
	// Each run's operator and lab; a bare results.json does not say.
	var by, labs []string
	for _, r := range c.Runs {
		if r.Info != nil {
			by, labs = append(by, stated(r.Info.TestedBy)), append(labs, stated(r.Info.Lab))
		} else {
			by, labs = append(by, "not stated"), append(labs, "not stated")
		}
	}
	h.TestedBy, h.Lab = strings.Join(unique(by), ", "), strings.Join(unique(labs), ", ")
	if ref.Info != nil {
		host := ref.Info.Host
		h.Platform = []KV{{"Reference", ref.Name}, {"Host", orDash(host.Hostname)}, {"CPU", orDash(host.CPUModel)},
			{"OS", orDash(host.OS)}, {"Kernel", orDash(host.Kernel)}, {"Engine", orDash(ref.Info.Engine)}}
	} else {
		h.Platform = []KV{{"Reference", ref.Name}, {"Engine", orDash(ref.Results.Engine)}}
	}
	for i, r := range c.Runs {
		h.Device = append(h.Device, KV{runLetter(i), r.Name + ": " + runDevice(r)})
	}
	setup := []KV{}
	params := []KV{}
	for i, r := range c.Runs {
		conf := "conforms"
		if !r.Results.Conforming {
			conf = fmt.Sprintf("%d deviation(s)", len(r.Results.Deviations))
		}
		setup = append(setup, KV{runLetter(i), fmt.Sprintf("%s, %s, %s", orDash(r.Results.Profile), orDash(r.Results.Engine), conf)})
		var tests []string
		for _, t := range r.Results.Tests {
			tests = append(tests, string(t.Test))
		}
		params = append(params, KV{runLetter(i), strings.Join(tests, ", ") + "; " + steadySummary(r.Results)})
	}
	add := func(p *Page) {
		if p.Setup == nil {
			p.Setup, p.Params = setup, params
		}
		d.Pages = append(d.Pages, p)
	}

	// Summary: the runs and the headline cells.
	var runRows [][]string
	for i, r := range c.Runs {
		role := "run"
		if i == 0 {
			role = "reference"
		}
		runRows = append(runRows, []string{runLetter(i), r.Name, role, runDevice(r), orDash(r.Results.Engine),
			verdictShort(r.Results)})
	}
	sum := &Page{Title: "Comparison summary: runs and headline results", Landmark: "compare-summary", Flow: true}
	sum.Blocks = append(sum.Blocks,
		Paragraph{Lines: []string{fmt.Sprintf("Comparison of %d runs against the reference %s. Ratios are run ÷ reference; "+
			"green is better and brown worse, whichever way the metric improves (more IOPS and MB/s, less response time).",
			len(c.Runs), ref.Name)}},
		Table{Caption: "The runs compared", Head: []string{"", "Run", "Role", "Device", "Engine", "Compliance"},
			Widths: []float64{0.25, 1.1, 0.7, 2.9, 1.6, 1.7}, Align: "CLLLLL", Rows: runRows})
	if len(c.Headlines) > 0 {
		head := []string{"Headline cell"}
		for i, r := range c.Runs {
			head = append(head, runLetter(i)+": "+r.Name)
		}
		var rows [][]string
		ratioRows, ratioVals := []string{}, [][]float64{}
		var lowCols []bool
		for _, hl := range c.Headlines {
			row := []string{hl.Label}
			for _, v := range hl.Values {
				row = append(row, hl.Metric.Format(v)+" "+hl.Metric.Unit())
			}
			rows = append(rows, row)
			var rv []float64
			for _, v := range hl.Values[1:] {
				rv = append(rv, v/hl.Values[0])
			}
			ratioRows = append(ratioRows, hl.Label)
			ratioVals = append(ratioVals, rv)
			lowCols = append(lowCols, hl.Metric.LowerIsBetter())
		}
		sum.Blocks = append(sum.Blocks, Table{Caption: "Headline cells, measurement-window averages", Head: head, Rows: rows,
			Widths: append([]float64{2}, repeat(1.3, len(c.Runs))...)})
		if len(c.Runs) > 1 {
			sum.Blocks = append(sum.Blocks, rowShadedRatios("Headline cells: run ÷ reference", ratioRows,
				otherRuns(c.Runs), ratioVals, lowCols))
		}
	}
	add(sum)
	if hm := c.HeatMap; hm != nil && len(hm.Workloads) > 0 && len(c.Runs) > 1 {
		add(c.heatMapPage(*hm))
	}

	for _, t := range c.Tables {
		c.tablePages(t, add)
	}
	return d
}

// heatMapPage is the ratio heat-map: per run after the reference, a
// workload × metric matrix of run ÷ reference, each cell shaded the way
// its metric improves, the geometric mean of each metric last.
func (c Comparison) heatMapPage(hm ComparedHeatMap) *Page {
	p := &Page{Test: "Custom", Title: "Comparison: ratio heat-map of the workloads", Landmark: "compare-heatmap", Flow: true}
	p.Blocks = append(p.Blocks, Paragraph{Lines: []string{fmt.Sprintf("Each cell is one workload's figure in a run divided by the same "+
		"workload's in the reference %s: the same suite on two transports, firmware versions or drives, side by side. Green is better "+
		"and brown worse, whichever way the metric improves (more IOPS and MB/s, less response time); white is equal, a dash where "+
		"either run lacks the workload. The last row is the geometric mean of the column over the workloads both runs have.", c.Runs[0].Name)}})
	cols := make([]string, len(hm.Metrics))
	low := make([]bool, len(hm.Metrics))
	for j, m := range hm.Metrics {
		cols[j] = metricHead(m)
		low[j] = m.LowerIsBetter()
	}
	labelW := 30.0
	for _, w := range hm.Workloads {
		labelW = math.Max(labelW, 1.9*float64(len([]rune(w)))+4)
	}
	labelW = math.Min(labelW, 70)
	for i := range hm.Ratios {
		rows := append([]string(nil), hm.Workloads...)
		vals := append([][]float64(nil), hm.Ratios[i]...)
		if len(hm.Workloads) > 1 {
			rows = append(rows, "geometric mean")
			vals = append(vals, hm.Mean[i])
		}
		p.Blocks = append(p.Blocks, Matrix{Caption: fmt.Sprintf("%s: %s ÷ %s, per workload and metric", runLetter(i+1)+" ÷ A", c.Runs[i+1].Name, c.Runs[0].Name),
			Corner: "Workload", RowHead: "Workload", Rows: rows, Cols: cols, Values: vals, Ratio: true, Format: fmtRatio, Unit: "ratio",
			LowIsGoodCol: low, LabelWidth: labelW})
	}
	return p
}

// metricHead names a metric in a table's head: "IOPS", "Average ms".
func metricHead(m pts.Metric) string {
	switch m {
	case pts.MetricLatMean:
		return "Average ms"
	case pts.MetricLatP99999:
		return "99.999 % ms"
	case pts.MetricLatMax:
		return "Maximum ms"
	case pts.MetricLatP99:
		return "99 % ms"
	}
	return m.Label()
}

// rowShadedRatios shades each headline row the way its metric improves
// (the headline cells mix IOPS, MB/s and response times).
func rowShadedRatios(caption string, headlines, runs []string, vals [][]float64, lowIsGood []bool) Block {
	return Matrix{Caption: caption, RowHead: "Headline cell", Corner: "Headline cell", Rows: headlines, Cols: runs,
		Values: vals, Ratio: true, Format: fmtRatio, Unit: "ratio", LowIsGoodRow: lowIsGood, LabelWidth: 60}
}

func (c Comparison) tablePages(t ComparedTable, add func(*Page)) {
	p := &Page{Test: t.testName(), Title: "Comparison: " + t.Title, Landmark: "compare-" + t.Name, Flow: true}
	heads := t.Cols
	heatMap := t.Name == "custom" && c.HeatMap != nil
	if heatMap {
		// A column per metric: named as people read them; the ratios are
		// the heat-map's page.
		heads = nil
		for ci := range t.Cols {
			heads = append(heads, metricHead(t.metric(ci)))
		}
	}
	// Side by side: each run's table, then the ratio tables.
	for i, r := range c.Runs {
		rows := [][]string{}
		for ri, rl := range t.Rows {
			row := []string{rl}
			for ci := range t.Cols {
				row = append(row, t.metric(ci).Format(t.Values[i][ri][ci]))
			}
			rows = append(rows, row)
		}
		caption := runLetter(i) + ": " + r.Name + " — " + t.Title
		if t.Unit != "" && t.Unit != t.Title {
			caption += " (" + t.Unit + ")"
		}
		p.Blocks = append(p.Blocks, Table{Caption: caption,
			Head: append([]string{t.RowHead}, heads...), Rows: rows, Small: true,
			Widths: append([]float64{1.6}, repeat(1, len(t.Cols))...)})
	}
	if heatMap {
		add(p)
		return
	}
	low := make([]bool, len(t.Cols))
	for ci := range t.Cols {
		low[ci] = t.metric(ci).LowerIsBetter()
	}
	for i := 1; i < len(c.Runs); i++ {
		m := Matrix{Caption: fmt.Sprintf("%s ÷ %s: %s", c.Runs[i].Name, c.Runs[0].Name, t.Title), RowHead: t.RowHead,
			Rows: t.Rows, Cols: t.Cols, Ratio: true, Format: fmtRatio, Unit: "ratio", LowIsGoodCol: low}
		for ri := range t.Rows {
			row := make([]float64, len(t.Cols))
			for ci := range t.Cols {
				row[ci] = t.Values[i][ri][ci] / t.Values[0][ri][ci]
			}
			m.Values = append(m.Values, row)
		}
		p.Blocks = append(p.Blocks, m)
	}
	add(p)
	// The overlays its test's page file registered.
	if overlay := pagesOf[t.Test].compare; overlay != nil {
		if p := overlay(c, t); p != nil {
			add(p)
		}
	}
}

// testName names the table's test in the page header.
func (t ComparedTable) testName() string {
	if td := pts.Def(t.Test); td != nil && t.Test != pts.Custom {
		return td.Name
	}
	return "Custom"
}

// compareByBlockSize overlays the runs against block size, one log–log
// plot per R/W mix: the IOPS 2D plot of every run at once.
func compareByBlockSize(c Comparison, t ComparedTable) *Page {
	plots := &Page{Test: t.testName(), Title: "Comparison: IOPS against block size, every run, one plot per R/W mix", Landmark: "compare-iops-2d", Flow: true}
	for ci, mix := range t.Cols {
		var ss []series
		for i, r := range c.Runs {
			s := series{name: runLetter(i) + ": " + r.Name}
			for ri, bs := range t.RowBytes {
				s.xs = append(s.xs, float64(bs)/1024)
				s.ys = append(s.ys, t.Values[i][ri][ci])
			}
			ss = append(ss, s)
		}
		plots.Blocks = append(plots.Blocks, Chart{Caption: "IOPS against block size, R/W mix " + mix + ", every run (log–log)",
			Plot: logLogPlot("IOPS, R/W mix "+mix, "IOPS", t.RowBytes, ss), Height: 95, Summary: summarize(ss, fmtIOPS)})
	}
	return plots
}

// compareBars draws every cell of the table, a bar per run.
func compareBars(c Comparison, t ComparedTable) *Page {
	var groups []string
	for _, rl := range t.Rows {
		for _, cl := range t.Cols {
			groups = append(groups, strings.ReplaceAll(rl, " KiB", "K")+" "+cl)
		}
	}
	var ss []series
	for i, r := range c.Runs {
		s := series{name: runLetter(i) + ": " + r.Name}
		for ri := range t.Rows {
			for ci := range t.Cols {
				s.xs = append(s.xs, float64(len(s.xs)))
				s.ys = append(s.ys, t.Values[i][ri][ci])
			}
		}
		ss = append(ss, s)
	}
	return &Page{Test: t.testName(), Title: "Comparison: " + t.Title + ", every run", Landmark: "compare-" + t.Name + "-bars",
		Blocks: []Block{Chart{Caption: t.Title + " of every cell, every run", Plot: barPlotX(t.Title, "Cell (block size, R/W mix)", t.Unit, groups, ss),
			Summary: summarize(ss, t.metric(0).Format)}}}
}

func (t ComparedTable) metric(col int) pts.Metric {
	if col < len(t.ColMetric) {
		return t.ColMetric[col]
	}
	return pts.MetricIOPS
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func otherRuns(runs []ComparedRun) []string {
	var out []string
	for i, r := range runs[1:] {
		out = append(out, runLetter(i+1)+": "+r.Name)
	}
	return out
}

func runLetter(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprint(i + 1)
}

func runDevice(r ComparedRun) string {
	if r.Info == nil || len(r.Info.Targets) == 0 {
		return "–"
	}
	t := r.Info.Targets[0]
	s := orDash(strings.TrimSpace(t.Vendor + " " + t.Model))
	if t.Serial != "" {
		s += ", SN " + t.Serial
	}
	if t.Firmware != "" {
		s += ", FW " + t.Firmware
	}
	if len(r.Info.Targets) > 1 {
		s += fmt.Sprintf(" (+%d targets)", len(r.Info.Targets)-1)
	}
	return s
}

func verdictShort(r *matrix.Results) string {
	if r.Conforming {
		return "conforms to PTS 2.0.2"
	}
	return fmt.Sprintf("does not conform: %d deviation(s)", len(r.Deviations))
}

func steadySummary(r *matrix.Results) string {
	n, steady := 0, 0
	for _, t := range r.Tests {
		for _, s := range t.Stages {
			n++
			if s.Steady {
				steady++
			}
		}
	}
	return fmt.Sprintf("steady %d/%d stages", steady, n)
}

// RenderComparison is Render for a comparison: created is the reference
// run's start, the only date in the file.
func (c Comparison) Render(w io.Writer) error {
	created := c.Runs[0].Results.Start
	if created.IsZero() && c.Runs[0].Info != nil {
		created = c.Runs[0].Info.Created
	}
	if created.IsZero() {
		created = time.Unix(0, 0).UTC()
	}
	return c.Doc().Render(w, created)
}
