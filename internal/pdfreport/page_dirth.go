package pdfreport

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The pages of the demand-intensity tests, DIRTH and ECW (PTS 2.0.2
// §13–14), one procedure with their own stimulus: the
// preconditioning's convergence and window; the between-round
// pre-writes; the demand variation's convergence at the highest TC and
// its window; IOPS against QD; ART against IOPS with the operating points
// and the ceiling; IOPS and ART against the outstanding I/O; host CPU;
// the TC × QD tables; the operating points and how they were chosen; and
// for each point its pre-write and its response-time histogram.
func init() {
	pages := testPages{report: (*builder).demand, summary: summaryRows(steadyLevels, pointRows)}
	registerPages(pts.DIRTHTest, pages)
	registerPages(pts.ECWTest, pages)
}

// demandTest is what a demand-intensity test's pages share: its loops,
// stimulus, ceiling and points, from the stages as the run planned them
// and the results.
type demandTest struct {
	td       *pts.TestDef
	stages   []matrix.StageResult
	stimulus engine.Workload // the test stimulus, without TC/QD
	prewrite engine.Workload // the between-round pre-write, at the highest TC/QD
	tcs, qds []int           // the loops, in the order they ran
	topTC    int
	topQD    int
	// ceilingMs is the ART ceiling (NaN when the run has no point stage);
	// pick says where the points are read (pts.PickWindow or PickLast).
	ceilingMs float64
	pick      string
	// pointPre and pointHist are the pre-write and histogram run at each
	// point; interval their sampling.
	pointPre, pointHist, interval time.Duration
	points                        []pts.OperatingPoint
}

// demand draws a demand-intensity test's stages in order. A point stage
// without results has no pages of its own: the operating points page
// says what became of it.
func (b *builder) demand(td *pts.TestDef, stages []matrix.StageResult) {
	b.demandPages(td, stages, (*builder).demandPC)
}

// demandPages draws a demand sweep's stages in order, its stages of
// rounds before the sweep by pc.
func (b *builder) demandPages(td *pts.TestDef, stages []matrix.StageResult, pc func(*builder, *demandTest, matrix.StageResult)) {
	d := b.demandTestOf(td, stages)
	for _, s := range stages {
		switch part := pts.PartOf(b.stageDef(s)); {
		case part == pts.PartPoint:
			if !b.empty(s) {
				b.demandPoint(d, s)
			}
		case part == pts.PartSweep:
			if b.empty(s) {
				b.noResults(td.Name, s)
			} else {
				b.demandVariation(d, s)
			}
			b.demandPoints(d, s)
		case b.empty(s):
			b.noResults(td.Name, s)
		default:
			pc(b, d, s)
		}
	}
}

func (b *builder) demandTestOf(td *pts.TestDef, stages []matrix.StageResult) *demandTest {
	d := &demandTest{td: td, stages: stages, ceilingMs: math.NaN(), pick: pts.PickWindow}
	if t := b.res.Find(td.ID); t != nil {
		d.points = t.OperatingPoints
	}
	for _, st := range b.ri.Stages {
		if st.Test != td.ID {
			continue
		}
		part := pts.PartOf(st)
		if part == pts.PartPoint {
			d.ceilingMs, d.pick = st.Point.CeilingMs, st.Point.Pick
			for _, g := range st.Timeline {
				if g.Histogram {
					d.pointHist = g.Workload.Duration
				} else {
					d.pointPre = g.Workload.Duration
				}
				d.interval = time.Duration(g.Interval)
			}
		}
		for _, c := range st.Cells {
			w := c.Workload
			switch {
			case c.PreWrite:
				d.prewrite = w
			case part == pts.PartSweep:
				d.stimulus = w
				if !slices.Contains(d.tcs, w.TC) {
					d.tcs = append(d.tcs, w.TC)
				}
				if !slices.Contains(d.qds, w.QD) {
					d.qds = append(d.qds, w.QD)
				}
			}
		}
	}
	if len(d.tcs) > 0 {
		d.topTC, d.topQD = slices.Max(d.tcs), slices.Max(d.qds)
	}
	return d
}

// tcqd writes a load: "TC4/QD32".
func tcqd(tc, qd int) string { return fmt.Sprintf("TC%d/QD%d", tc, qd) }

// point is the operating point of that name, if chosen.
func (d *demandTest) point(name string) (pts.OperatingPoint, bool) {
	for _, p := range d.points {
		if p.Point == name {
			return p, true
		}
	}
	return pts.OperatingPoint{}, false
}

// pointsLabel lists the operating points with their loads, or says they
// are not chosen.
func (d *demandTest) pointsLabel() string {
	if len(d.points) == 0 {
		return "not chosen (the demand variation did not end)"
	}
	var parts []string
	for _, p := range d.points {
		parts = append(parts, tcqd(p.TC, p.QD))
	}
	return strings.Join(parts, ", ")
}

func (d *demandTest) ceiling() string {
	if math.IsNaN(d.ceilingMs) {
		return "–"
	}
	return strconv.FormatFloat(d.ceilingMs, 'g', -1, 64) + " ms"
}

// landmark names a page of the test: "dirth-di".
func (d *demandTest) landmark(page string) string { return string(d.td.ID) + "-" + page }

// demandParams is the Test Parameters column of the test's pages: the
// stimulus, the loops, the ceiling and the points (the PTS's report format),
// then what is the stage's own.
func (b *builder) demandParams(d *demandTest, own ...KV) []KV {
	ar := d.stimulus.ActiveRange
	var capacity int64
	for _, t := range b.ri.Targets {
		capacity += t.CapacityBytes
	}
	pattern := "RND"
	if len(d.stimulus.Streams) > 0 {
		pattern = "the streams' own"
	}
	kv := []KV{
		{"Data pattern", pattern},
		{"AR & amount", fmt.Sprintf("%g %% (%s)", ar, device.FormatCapacity(int64(float64(capacity)*ar/100)))},
		{"Test stimulus", stimulusLabel(d.stimulus)},
		{"TC (outer)", joinInts(d.tcs)},
		{"QD (inner)", joinInts(d.qds)},
		{"ART ceiling", d.ceiling()},
		{"Max / Mid / Min", d.pointsLabel()},
	}
	return append(kv, own...)
}

func joinInts(v []int) string {
	var s []string
	for _, n := range v {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}

// demandSetup is the Set-Up Parameters column, saying what the stage's
// preconditioning is: its own rounds, or the stage before it.
func (b *builder) demandSetup(s matrix.StageResult, pc string) []KV {
	kv := b.setup(s)
	for i := range kv {
		if kv[i].K == "Pre-condition 2" {
			kv[i].V = pc
		}
	}
	return kv
}

// demandPC draws the preconditioning: IOPS of each round's tracked end,
// and its measurement window.
func (b *builder) demandPC(d *demandTest, s matrix.StageResult) {
	b.stage(s)
	st := b.stageDef(s)
	w := d.prewrite
	if len(st.Cells) > 0 {
		w = st.Cells[len(st.Cells)-1].Workload
	}
	load := stimulusLabel(w) + " " + tcqd(w.TC, w.QD)
	setup := b.demandSetup(s, load+" rounds to steady state (WDPC)")
	params := b.demandParams(d,
		KV{"TOIO – TC/QD", fmt.Sprintf("%d – TC %d/QD %d", w.TC*w.QD, w.TC, w.QD)},
		KV{"Round", roundWords(st)},
		KV{"SS rounds", ssRounds(s)})
	// The tracking variable's name says all of the round and its stimulus,
	// too long for a page title: the columns and captions say those.
	shown := s
	shown.Tracking = slices.Clone(s.Tracking)
	for i := range shown.Tracking {
		shown.Tracking[i].Name = "Preconditioning IOPS " + tcqd(w.TC, w.QD)
	}
	b.iopsTracking(d.td, shown, setup, params, convergence{title: "Preconditioning: Steady State Convergence", landmark: d.landmark("pc"),
		caption: "IOPS of each preconditioning round's tracked part (" + roundWords(st) + "), " + load, plot: "Preconditioning IOPS per round"})
}

// roundWords says how long a preconditioning round is and which of it is
// tracked: "30m, the last 1m tracked".
func roundWords(st pts.Stage) string {
	if len(st.Cells) == 0 || len(st.Tracking) == 0 {
		return "–"
	}
	var round time.Duration
	for _, c := range st.Cells {
		round += c.Workload.Duration
	}
	end := "last"
	if st.Tracking[0].Cell == 0 {
		end = "first"
	}
	return fmt.Sprintf("%s, the %s %s tracked", pts.ShortDuration(round), end, pts.ShortDuration(st.Cells[st.Tracking[0].Cell].Workload.Duration))
}

// dvCells are the demand-variation stage's TC × QD cells by load, and
// its between-round pre-write.
type dvCells struct {
	at  map[[2]int]*matrix.CellResult
	pre *matrix.CellResult
}

func dvCellsOf(s matrix.StageResult) dvCells {
	c := dvCells{at: map[[2]int]*matrix.CellResult{}}
	for i := range s.Cells {
		x := &s.Cells[i]
		if x.PreWrite {
			c.pre = x
		} else {
			c.at[[2]int{x.TC, x.QD}] = x
		}
	}
	return c
}

// get is the cell at a load with values, or nil.
func (c dvCells) get(tc, qd int) *matrix.CellResult {
	if x := c.at[[2]int{tc, qd}]; x != nil && x.Present() {
		return x
	}
	return nil
}

// perTC is one series per TC of a figure of every QD's cell, against x,
// each sorted by x.
func (d *demandTest) perTC(c dvCells, x, y func(*matrix.CellResult) float64) []series {
	var out []series
	for _, tc := range d.tcs {
		s := series{name: fmt.Sprintf("TC %d", tc)}
		var cells []*matrix.CellResult
		for _, qd := range d.qds {
			if x := c.get(tc, qd); x != nil {
				cells = append(cells, x)
			}
		}
		slices.SortStableFunc(cells, func(a, b *matrix.CellResult) int { return cmpFloat(x(a), x(b)) })
		for _, cell := range cells {
			s.xs, s.ys = append(s.xs, x(cell)), append(s.ys, y(cell))
		}
		if len(s.xs) > 0 {
			out = append(out, s)
		}
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// demandVariation draws the demand-variation stage's pages.
func (b *builder) demandVariation(d *demandTest, s matrix.StageResult) {
	b.stage(s)
	name := d.td.Name
	c := dvCellsOf(s)
	if len(d.tcs) == 0 {
		return // a run.json without the stage's cells: nothing to lay out
	}
	pre := stimulusLabel(d.prewrite) + " " + tcqd(d.prewrite.TC, d.prewrite.QD)
	setup := b.demandSetup(s, "the drive as "+name+" preconditioning left it, and a "+pts.ShortDuration(d.prewrite.Duration)+
		" pre-write ("+pre+") before each round")
	params := b.demandParams(d,
		KV{"TOIO – TC/QD", fmt.Sprintf("%d – %d: every TC × QD", d.topTC*d.topQD, slices.Min(d.tcs)*slices.Min(d.qds))},
		KV{"Cell time", pts.ShortDuration(d.stimulus.Duration) + " per cell; a " + pts.ShortDuration(d.prewrite.Duration) + " pre-write first"},
		KV{"SS rounds", ssRounds(s)})

	// The between-round pre-writes, round by round.
	if c.pre != nil && s.Rounds > 0 {
		ps := []series{roundSeries("pre-write "+pre, c.pre)}
		b.add(&Page{Test: name, Title: "Between-Round Pre-Writes: IOPS per round", Setup: setup, Params: params, Landmark: d.landmark("prewrites"),
			Blocks: []Block{
				Paragraph{Lines: []string{fmt.Sprintf("Before each round of the TC × QD loops, a pre-write of %s at the highest load, %s, "+
					"so that every round starts from the same written state. Each point is the IOPS of one round's pre-write, over all of it.",
					pts.ShortDuration(d.prewrite.Duration), pre)}},
				Chart{Caption: "IOPS of each round's between-round pre-write, " + pre,
					Plot: convergencePlot("Between-round pre-write IOPS per round", "IOPS", ps, s.Window, false), Summary: summarize(ps, fmtIOPS)},
			}})
	}

	// Convergence: every QD at the highest TC, round by round.
	var top []series
	for _, qd := range d.qds {
		if x := c.at[[2]int{d.topTC, qd}]; x != nil {
			top = append(top, roundSeries(tcqd(d.topTC, qd), x))
		}
	}
	if s.Rounds > 0 && len(top) > 0 {
		b.add(&Page{Test: name, Title: fmt.Sprintf("Demand Variation: Steady State Convergence, TC %d, every QD", d.topTC), Setup: setup, Params: params,
			Landmark: d.landmark("convergence"),
			Blocks: []Block{Chart{Caption: fmt.Sprintf("IOPS per round at TC %d, one line per QD, %s; the tracking variable is %s",
				d.topTC, stimulusLabel(d.stimulus), tcqd(d.topTC, d.topQD)),
				Plot:    convergencePlot(fmt.Sprintf("IOPS per round, TC %d", d.topTC), "IOPS", top, s.Window, spansDecade(top)),
				Summary: summarize(top, fmtIOPS)}}})
	}
	for _, t := range s.Tracking {
		b.add(b.windowPage(name, s, t, setup, params))
	}
	if len(c.at) == 0 || s.Rounds == 0 {
		return
	}
	window := fmt.Sprintf("the measurement window, rounds %d–%d", s.Window[0], s.Window[1])
	if s.Window[0] == s.Window[1] {
		window = fmt.Sprintf("round %d", s.Window[1])
	}

	// IOPS against QD, one line per TC.
	byQD := d.perTC(c, func(x *matrix.CellResult) float64 { return float64(x.QD) }, func(x *matrix.CellResult) float64 { return x.IOPS })
	qdTicks := make([]float64, len(d.qds))
	for i, q := range d.qds {
		qdTicks[i] = float64(q)
	}
	blocks := []Block{}
	if len(d.stimulus.BlockSplit) > 0 {
		blocks = append(blocks, Paragraph{Lines: []string{compositeWords(d.stimulus)}})
	}
	blocks = append(blocks, Chart{Caption: "IOPS against queue depth, one line per thread count, averages of " + window + scales(byQD),
		Plot:    logXPlot("Demand variation: IOPS by QD and TC, "+stimulusLabel(d.stimulus), "Queue depth per thread (QD)", "IOPS", byQD, qdTicks, spansDecade(byQD)),
		Summary: summarize(byQD, fmtIOPS)})
	b.add(&Page{Test: name, Title: "Demand Variation: IOPS vs QD, every TC", Setup: setup, Params: params, Landmark: d.landmark("dv"), Blocks: blocks})

	// ART against IOPS, one line per TC, the points and the ceiling.
	b.add(b.demandIntensityPage(d, c, setup, params, window))

	// IOPS and ART against the total outstanding I/O.
	toio := func(x *matrix.CellResult) float64 { return float64(x.TC * x.QD) }
	iops := d.perTC(c, toio, func(x *matrix.CellResult) float64 { return x.IOPS })
	art := d.perTC(c, toio, func(x *matrix.CellResult) float64 { return x.LatMeanMs })
	var pow2 []float64
	for v := 1.0; v <= float64(d.topTC*d.topQD)*2; v *= 2 {
		pow2 = append(pow2, v)
	}
	b.add(&Page{Test: name, Title: "IOPS and ART vs Total Outstanding I/O", Setup: setup, Params: params, Landmark: d.landmark("toio"),
		Blocks: []Block{
			Paragraph{Lines: []string{"Total outstanding I/O (TOIO) is TC × QD. Each line is one thread count, its queue depths in order " +
				"of TOIO; where lines meet the same TOIO, the gap between them is what the split into threads and queue depth changes."}},
			Chart{Caption: "IOPS against TOIO, one line per TC, averages of " + window + scales(iops),
				Plot: logXPlot("IOPS by total outstanding I/O", "TOIO (TC × QD)", "IOPS", iops, pow2, spansDecade(iops)), Summary: summarize(iops, fmtIOPS)},
			Chart{Caption: "Average response time (ART) against TOIO, one line per TC, " + window + scales(art),
				Plot: logXPlot("ART by total outstanding I/O", "TOIO (TC × QD)", "ART (ms)", art, pow2, spansDecade(art)), Summary: summarize(art, fmtMs)},
		}})

	// Host CPU has a page when it was measured; otherwise the tables'
	// page says so.
	cpu := b.demandCPU(d, c, window)
	if _, ok := cpu[len(cpu)-1].(Matrix); ok {
		b.add(&Page{Test: name, Title: "Host CPU Utilisation: TC × QD", Setup: setup, Params: params, Landmark: d.landmark("cpu"), Blocks: cpu})
		cpu = nil
	}
	tables := b.demandTablePage(d, s, setup, params)
	tables.Blocks = append(tables.Blocks, cpu...)
	b.add(tables)
}

// scales names the log scales of a plot whose x is on one: y too when
// its values span a decade (logXPlot's rule).
func scales(ss []series) string {
	if spansDecade(ss) {
		return " (log scales)"
	}
	return " (x on a log scale)"
}

// compositeWords writes the composite workload out: its block sizes and
// zones.
func compositeWords(w engine.Workload) string {
	s := fmt.Sprintf("The stimulus is the enterprise composite workload: %s, %s, block sizes by share of I/Os %s.",
		pts.AccessLabel(w.Access), pts.MixLabel(w.ReadPct), w.SplitLabel())
	if len(w.Zones) > 0 {
		s += " LBA zones: " + w.ZonesLabel() + " (of the active range)."
	}
	return s
}

// demandIntensityPage is ART against IOPS, one line per TC, with the
// operating points marked and the ceiling drawn.
func (b *builder) demandIntensityPage(d *demandTest, c dvCells, setup, params []KV, window string) *Page {
	lines := d.perTC(c, func(x *matrix.CellResult) float64 { return x.IOPS }, func(x *matrix.CellResult) float64 { return x.LatMeanMs })
	with := slices.Clone(lines)
	var marks []mark
	for _, name := range pts.DemandPoints {
		if p, ok := d.point(name); ok {
			label := pts.PointLabel(name)
			marks = append(marks, mark{x: p.IOPS, y: p.ARTMs,
				legend: fmt.Sprintf("%s %s: %s", label, tcqd(p.TC, p.QD), p.ChosenWords())})
			with = append(with, series{name: label, xs: []float64{p.IOPS}, ys: []float64{p.ARTMs}})
		}
	}
	if !math.IsNaN(d.ceilingMs) {
		with = append(with, series{name: "ceiling", ys: []float64{d.ceilingMs}})
	}
	logY := spansDecade(with)
	p := linePlot("Demand intensity: ART by IOPS and TC, "+stimulusLabel(d.stimulus), "IOPS", "Average response time (ms)", lines, logY)
	p.X.Min = 0
	_, hi := seriesRangeX(lines)
	for _, m := range marks {
		hi = math.Max(hi, m.x)
	}
	if !math.IsNaN(d.ceilingMs) && hi > 0 {
		hLine(p, "ART ceiling "+d.ceiling(), d.ceilingMs, 0, hi*1.05, seriesColors[2])
	}
	addMarks(p, marks)
	if lo, top := seriesRange(with); logY {
		p.Y.Min, p.Y.Max = lo/1.4, top*1.4
	} else {
		p.Y.Max = top * 1.08
	}
	var text []string
	switch {
	case len(d.points) > 0:
		for _, r := range d.td.RulesOf(b.ri.Config) {
			if r.Name == pts.PointLabel(pts.PointMax) || r.Name == pts.PointLabel(pts.PointMid) || r.Name == pts.PointLabel(pts.PointMin) {
				text = append(text, fmt.Sprintf("%s: %s.", r.Name, r.Text))
			}
		}
		text = append(text, "Each point is marked at the figures it was chosen by.")
	case !math.IsNaN(d.ceilingMs):
		text = append(text, "The operating points were not chosen: the demand variation did not end. The ceiling they are chosen under is drawn.")
	}
	summary := summarize(lines, func(v float64) string { return fmtMs(v) })
	for _, m := range marks {
		summary += "\n" + m.legend
	}
	if !math.IsNaN(d.ceilingMs) {
		summary += "\nART ceiling " + d.ceiling()
	}
	blocks := []Block{}
	if len(text) > 0 {
		blocks = append(blocks, Paragraph{Lines: text})
	}
	blocks = append(blocks, Chart{Caption: "ART against IOPS, one line per TC, averages of " + window + "; ceiling dashed",
		Plot: p, Summary: summary})
	return &Page{Test: d.td.Name, Title: "Demand Intensity: ART vs IOPS, every TC", Setup: setup, Params: params, Landmark: d.landmark("di"), Blocks: blocks}
}

// seriesRangeX is the smallest and largest x plotted.
func seriesRangeX(ss []series) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, x := range s.xs {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	if lo > hi {
		return 0, 0
	}
	return lo, hi
}

// demandCPU is the host CPU over TC × QD, a shaded matrix last, or says
// it was not measured.
func (b *builder) demandCPU(d *demandTest, c dvCells, window string) []Block {
	var rows, cols []string
	var vals [][]float64
	unit, measured := "", false
	for _, qd := range d.qds {
		cols = append(cols, strconv.Itoa(qd))
	}
	for _, tc := range d.tcs {
		rows = append(rows, strconv.Itoa(tc))
		row := make([]float64, len(d.qds))
		for j, qd := range d.qds {
			row[j] = math.NaN()
			if x := c.get(tc, qd); x != nil && x.CPU != nil {
				row[j], unit, measured = x.CPU.Pct(), x.CPU.Unit(), true
			}
		}
		vals = append(vals, row)
	}
	if !measured {
		why := "The " + orDash(b.ri.Engine) + " engine measured no host CPU time for these cells."
		if b.ri.Config.Engine == pts.EngineSim {
			why = "The simulated drive runs on a virtual clock: there is no host CPU time of its I/O to measure. The native and fio engines measure it."
		}
		return []Block{Paragraph{Lines: []string{"Host CPU utilisation over TC × QD (the PTS's 3D plot): not measured. " + why}}}
	}
	return []Block{
		Paragraph{Lines: []string{fmt.Sprintf("Host CPU time the cells took, user + system, %s, the mean of %s. "+
			"The PTS shows it as a 3D plot over TC × QD; this shaded matrix prints the same in black and white.", unit, window)}},
		Matrix{Caption: "Host CPU utilisation by TC (rows) × QD (columns), user + system, " + unit, RowHead: "TC", Corner: "TC \\ QD",
			Rows: rows, Cols: cols, Values: vals, Unit: unit, Format: fmtPct, LowIsGood: true},
	}
}

// demandTablePage is the whole TC × QD matrix: IOPS, ART and 99.999 %.
func (b *builder) demandTablePage(d *demandTest, s matrix.StageResult, setup, params []KV) *Page {
	var blocks []Block
	var cells []matrix.CellResult
	for _, c := range s.Cells {
		if !c.PreWrite {
			cells = append(cells, c)
		}
	}
	if note := pctNote(cells); note != "" {
		blocks = append(blocks, Paragraph{Lines: []string{note}})
	}
	for _, m := range []pts.Metric{pts.MetricIOPS, pts.MetricLatMean, pts.MetricLatP99999} {
		t := b.tableOf(d.td, m)
		if len(t.Rows) == 0 {
			continue
		}
		rows := [][]string{}
		for i, r := range t.Rows {
			row := []string{r}
			for _, v := range t.Values[i] {
				row = append(row, m.Format(v))
			}
			rows = append(rows, row)
		}
		how := t.Aggregate
		if m == pts.MetricLatP99999 { // a percentile of the window's I/Os: say of which latency, from what
			how = pctLabel(cells)
		}
		blocks = append(blocks, Table{Caption: fmt.Sprintf("%s (%s), rounds %d–%d: %s", t.Title, t.Unit, s.Window[0], s.Window[1], how),
			Head: append([]string{t.RowHead}, t.Cols...), Rows: rows})
	}
	return &Page{Test: d.td.Name, Title: "Tabular Data: IOPS, ART and 99.999 % RT by TC × QD", Setup: setup, Params: params,
		Landmark: d.landmark("table"), Blocks: blocks}
}
