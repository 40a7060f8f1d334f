package pdfreport

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/comparison"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

func fmtRatio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return fmt.Sprintf("%.3f", v)
}

// ComparisonDoc lays the comparison out in the report's page format, on
// paperSize ("a4" or "letter").
func ComparisonDoc(c comparison.Comparison, paperSize string) *Doc {
	paper := "A4"
	if strings.EqualFold(paperSize, "letter") {
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
			Widths: []float64{0.25, 1.1, 0.7, 2.9, 1.6, 1.7}, Align: "CLLLLL", Rows: runRows},
		Paragraph{Lines: c.Scope})
	if len(c.Headlines) > 0 {
		head := []string{"Headline cell"}
		for i, r := range c.Runs {
			head = append(head, runLetter(i)+": "+r.Name)
		}
		var rows [][]string
		ratioRows, ratioVals := []string{}, [][]float64{}
		var lowCols []bool
		var differ []string
		for _, hl := range c.Headlines {
			row := []string{hl.Label}
			for i, v := range hl.Values {
				cell := hl.Metric.Format(v) + " " + hl.Metric.Unit()
				if i < len(hl.Loads) && hl.Loads[i] != "" {
					cell += " at " + hl.Loads[i]
				}
				row = append(row, cell)
			}
			rows = append(rows, row)
			var rv []float64
			for i := 1; i < len(hl.Values); i++ {
				rv = append(rv, hl.Ratio(i))
			}
			label := hl.Label
			if hl.Differ != "" {
				label += " (different loads)"
				if d := fmt.Sprintf("%s: chosen at different loads (%s).", hl.Point, hl.Differ); !slices.Contains(differ, d) {
					differ = append(differ, d)
				}
			}
			ratioRows = append(ratioRows, label)
			ratioVals = append(ratioVals, rv)
			lowCols = append(lowCols, hl.Metric.LowerIsBetter())
		}
		sum.Blocks = append(sum.Blocks, Table{Caption: "Headline cells, measurement-window averages", Head: head, Rows: rows,
			Widths: append([]float64{2}, repeat(1.3, len(c.Runs))...)})
		if len(c.Runs) > 1 {
			sum.Blocks = append(sum.Blocks, rowShadedRatios("Headline cells: run ÷ reference", ratioRows,
				otherRuns(c.Runs), ratioVals, lowCols))
		}
		if len(differ) > 0 {
			sum.Blocks = append(sum.Blocks, Paragraph{Lines: append([]string{"An operating point is chosen by each run at the load " +
				"its own rule picks; chosen at different loads, its figures are of different workloads: shown, not scored (–). " +
				"The TC × QD tables compare every load with itself."}, differ...)})
		}
	}
	add(sum)
	if hm := c.HeatMap; hm != nil && len(hm.Workloads) > 0 && len(c.Runs) > 1 {
		add(heatMapPage(c, *hm))
	}

	for _, t := range c.Tables {
		tablePages(c, t, add)
	}
	return d
}

// heatMapPage is the ratio heat-map: per run after the reference, a
// workload × metric matrix of run ÷ reference, each cell shaded the way
// its metric improves, the geometric mean of each metric last.
func heatMapPage(c comparison.Comparison, hm comparison.HeatMap) *Page {
	p := &Page{Test: "Custom", Title: "Comparison: ratio heat-map of the workloads", Landmark: "compare-heatmap", Flow: true}
	p.Blocks = append(p.Blocks, Paragraph{Lines: []string{fmt.Sprintf("Each cell is one workload's figure in a run divided by the same "+
		"workload's in the reference %s: the same suite on two transports, firmware versions or drives, side by side. Green is better "+
		"and brown worse, whichever way the metric improves (more IOPS and MB/s, less response time); white is equal, a dash where "+
		"either run lacks the workload. The last row is the geometric mean of the column over the workloads both runs have.", c.Runs[0].Name)}})
	cols := make([]string, len(hm.Metrics))
	low := make([]bool, len(hm.Metrics))
	for j, m := range hm.Metrics {
		cols[j] = m.Head()
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

// rowShadedRatios shades each headline row the way its metric improves
// (the headline cells mix IOPS, MB/s and response times).
func rowShadedRatios(caption string, headlines, runs []string, vals [][]float64, lowIsGood []bool) Block {
	return Matrix{Caption: caption, RowHead: "Headline cell", Corner: "Headline cell", Rows: headlines, Cols: runs,
		Values: vals, Ratio: true, Format: fmtRatio, Unit: "ratio", LowIsGoodRow: lowIsGood, LabelWidth: 60}
}

func tablePages(c comparison.Comparison, t comparison.Table, add func(*Page)) {
	if _, def, _ := pts.LookupTable(t.Name); def.Shape == pts.ShapeSamples {
		// A row per sample is for spreadsheets (--csv); people see the runs
		// overlaid.
		if p := timelineOverlay(c, t); p != nil {
			add(p)
		}
		return
	}
	p := &Page{Test: testName(t), Title: "Comparison: " + t.Title, Landmark: "compare-" + t.Name, Flow: true}
	heads := t.Cols
	if t.Points {
		heads = nil
		for _, col := range t.Cols {
			heads = append(heads, pointHead(col))
		}
	}
	heatMap := t.Name == pts.CustomTable && c.HeatMap != nil
	if heatMap {
		// A column per metric: named as people read them; the ratios are
		// the heat-map's page.
		heads = nil
		for ci := range t.Cols {
			heads = append(heads, t.Metric(ci).Head())
		}
	}
	// Side by side: each run's table, then the ratio tables.
	for i, r := range c.Runs {
		rows := [][]string{}
		for ri, rl := range t.Rows {
			row := []string{rl}
			for ci := range t.Cols {
				row = append(row, formatCell(t, ri, ci, t.Values[i][ri][ci]))
			}
			rows = append(rows, row)
		}
		caption := runLetter(i) + ": " + r.Name + " — " + t.Title
		switch {
		case t.Points:
			caption += " (response times in ms)"
		case t.Unit != "" && t.Unit != t.Title:
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
	// The ratios of the values that are metrics (an operating point's TC
	// and QD, a summary's minutes are not), shaded the way each improves.
	var cols []int
	var low, lowRow []bool
	var scored []string
	for ci := range t.Cols {
		for ri := range t.Rows {
			if t.MetricAt(ri, ci) != "" {
				cols, low, scored = append(cols, ci), append(low, t.Metric(ci).LowerIsBetter()), append(scored, heads[ci])
				break
			}
		}
	}
	if t.RowMetric != nil {
		low = nil
		for _, m := range t.RowMetric {
			lowRow = append(lowRow, m.LowerIsBetter())
		}
	}
	if len(cols) == 0 {
		add(p) // nothing to score: the tables are the comparison
		return
	}
	rows := append([]string(nil), t.Rows...)
	var differ []string
	for ri := range t.Rows {
		if ri < len(t.Differ) && t.Differ[ri] != "" {
			rows[ri] += " (different loads)"
			differ = append(differ, fmt.Sprintf("%s: chosen at different loads (%s).", t.Rows[ri], t.Differ[ri]))
		}
	}
	for i := 1; i < len(c.Runs); i++ {
		m := Matrix{Caption: fmt.Sprintf("%s ÷ %s: %s", c.Runs[i].Name, c.Runs[0].Name, t.Title), RowHead: t.RowHead,
			Rows: rows, Cols: scored, Ratio: true, Format: fmtRatio, Unit: "ratio", LowIsGoodCol: low, LowIsGoodRow: lowRow}
		if t.RowHead != "Block size" {
			m.Corner = t.RowHead // its columns are no R/W mixes
		}
		for _, r := range rows {
			// Room for the longest row label (a figure's name and unit),
			// never less than the matrix's own 24 mm.
			if w := min(70, 1.9*float64(len([]rune(r)))+4); w > 24 {
				m.LabelWidth = max(m.LabelWidth, w)
			}
		}
		for ri := range t.Rows {
			row := make([]float64, len(cols))
			for k, ci := range cols {
				row[k] = t.Ratio(i, ri, ci)
			}
			m.Values = append(m.Values, row)
		}
		p.Blocks = append(p.Blocks, m)
	}
	if len(differ) > 0 {
		p.Blocks = append(p.Blocks, Paragraph{Lines: append([]string{"Each run chooses its operating points by its own rule; a point " +
			"chosen at different loads is of different workloads: shown, not scored (–)."}, differ...)})
	}
	add(p)
	// The overlays its test's page file registered.
	if overlay := pagesOf[t.Test].compare; overlay != nil {
		if p := overlay(c, t); p != nil {
			add(p)
		}
	}
}

// timelineOverlay draws a test over time of every run in one figure per
// metric: its throughput and its average response time against the minute
// each sample ended, bursts apart where the test idles between them.
func timelineOverlay(c comparison.Comparison, t comparison.Table) *Page {
	col := func(name string) int { return slices.Index(t.Cols, name) }
	minute, idle := col(pts.ColMinute), col(pts.ColIdle)
	if minute < 0 {
		return nil
	}
	p := &Page{Test: testName(t), Title: "Comparison: " + t.Title + ", every run", Landmark: "compare-" + t.Name, Flow: true}
	for _, m := range []struct {
		col, label string
		format     func(float64) string
	}{{pts.ColIOPS, "IOPS", fmtIOPS}, {pts.ColMBps, "MB/s", fmtMBps}, {pts.ColLatMean, "Average response time (ms)", fmtMs}} {
		y := col(m.col)
		if y < 0 {
			continue
		}
		var ss []series
		for i, r := range c.Runs {
			s := series{name: runLetter(i) + ": " + r.Name, points: idle >= 0}
			for ri := range t.Rows {
				x, v := t.Values[i][ri][minute], t.Values[i][ri][y]
				if math.IsNaN(x) || idle >= 0 && t.Values[i][ri][idle] == 1 {
					continue
				}
				s.xs, s.ys = append(s.xs, x), append(s.ys, v)
			}
			if len(s.xs) > 0 {
				ss = append(ss, s)
			}
		}
		if len(ss) == 0 {
			continue
		}
		p.Blocks = append(p.Blocks, Chart{Caption: fmt.Sprintf("%s: %s of every sample, every run (every sample is in the CSV)", testName(t), m.label),
			Plot: timePlot(m.label+", every run", m.label, thinSeries(ss, maxSecondsBuckets), false), Height: 95,
			Summary: seriesRanges(ss, m.format)})
	}
	if len(p.Blocks) == 0 {
		return nil
	}
	return p
}

// seriesRanges sums long series up for the text of a figure: each one's
// samples and the range of its values.
func seriesRanges(ss []series, f func(float64) string) string {
	var lines []string
	for _, s := range ss {
		lines = append(lines, fmt.Sprintf("%s: %d samples, %s … %s", s.name, len(s.ys), f(minOf(s.ys)), f(maxOf(s.ys))))
	}
	return strings.Join(lines, "\n")
}

// testName names the table's test in the page header.
func testName(t comparison.Table) string {
	if td := pts.Def(t.Test); td != nil && t.Test != pts.Custom {
		return td.Name
	}
	return "Custom"
}

// compareByBlockSize overlays the runs against block size, one log–log
// plot per R/W mix: the IOPS 2D plot of every run at once.
func compareByBlockSize(c comparison.Comparison, t comparison.Table) *Page {
	plots := &Page{Test: testName(t), Title: "Comparison: IOPS against block size, every run, one plot per R/W mix", Landmark: "compare-iops-2d", Flow: true}
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
func compareBars(c comparison.Comparison, t comparison.Table) *Page {
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
	return &Page{Test: testName(t), Title: "Comparison: " + t.Title + ", every run", Landmark: "compare-" + t.Name + "-bars",
		Blocks: []Block{Chart{Caption: t.Title + " of every cell, every run", Plot: barPlotX(t.Title, "Cell (block size, R/W mix)", t.Unit, groups, ss),
			Summary: summarize(ss, t.Metric(0).Format)}}}
}

// formatCell writes a value of the table: by its metric, or as a plain number
// (an operating point's TC and QD, a summary's minutes).
func formatCell(t comparison.Table, row, col int, v float64) string {
	if _, def, _ := pts.LookupTable(t.Name); def.Shape == pts.ShapeSummary || def.Shape == pts.ShapeFigures {
		return fmtNum(v) // units of their own (× the baseline, min), which no metric formats
	}
	if m := t.MetricAt(row, col); m != "" {
		return m.Format(v)
	}
	return fmtNum(v)
}

// pointHead names a column of an operating-points table for people, in a
// narrow column: "histogram_p99_999_ms" is "Hist. 99.999 %" (the caption
// says response times are in ms).
func pointHead(col string) string {
	r := strings.NewReplacer("histogram", "hist.", "p99_999", "99.999 %", "art", "ART", "mrt", "MRT", "iops", "IOPS", "_ms", "", "_", " ")
	h := r.Replace(col)
	switch h {
	case "tc", "qd":
		return strings.ToUpper(h)
	}
	return strings.ToUpper(h[:1]) + h[1:]
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func otherRuns(runs []comparison.Run) []string {
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

func runDevice(r comparison.Run) string {
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

// RenderComparison draws the comparison as a PDF on paperSize: created is
// the reference run's start, the only date in the file.
func RenderComparison(w io.Writer, c comparison.Comparison, paperSize string) error {
	created := c.Runs[0].Results.Start
	if created.IsZero() && c.Runs[0].Info != nil {
		created = c.Runs[0].Info.Created
	}
	if created.IsZero() {
		created = time.Unix(0, 0).UTC()
	}
	return ComparisonDoc(c, paperSize).Render(w, created)
}
