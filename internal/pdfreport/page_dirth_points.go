package pdfreport

import (
	"fmt"
	"math"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The operating points' pages of the demand-intensity tests: how the
// points were chosen, with their figures as chosen and in their histogram
// runs, and each point's pre-write and response-time histogram.

// demandPoints is the operating points page: how they were chosen, their
// figures as chosen and in their histogram runs, and what became of a
// point whose stage has no results.
func (b *builder) demandPoints(d *demandTest, dv matrix.StageResult) {
	b.stage(dv)
	setup := b.demandSetup(dv, "the drive as "+d.td.Name+" preconditioning left it")
	params := b.demandParams(d, KV{"Points read from", pickWords(d.pick)})
	// The test's own words for its rules, as it applies them (pts).
	var lines []string
	for _, r := range d.td.RulesOf(b.ri.Config) {
		switch r.Name {
		case pts.PointLabel(pts.PointMax), pts.PointLabel(pts.PointMid), pts.PointLabel(pts.PointMin), "ties", "histogram run":
			lines = append(lines, fmt.Sprintf("%s: %s.", upperFirst(r.Name), r.Text))
		}
	}
	if len(d.points) == 0 {
		why := "the demand variation did not end"
		if dv.Error != "" {
			why += " (stopped by an error: " + strings.TrimSuffix(dv.Error, ".") + ")"
		} else if !dv.Started {
			why += " (it was not run)"
		}
		lines = append(lines, "Not chosen: "+why+", so there are no operating points and no histograms.")
	}
	for _, p := range d.points {
		lines = append(lines, fmt.Sprintf("%s, %s: %s.", pts.PointLabel(p.Point), tcqd(p.TC, p.QD), p.Rule))
	}
	var rows [][]string
	var tb matrix.Table
	for _, def := range d.td.Tables {
		if def.Shape == pts.ShapePoints {
			tb = b.namedTable(def.Name)
		}
	}
	for i, r := range tb.Rows {
		v := tb.Values[i]
		rows = append(rows, []string{r, tcqd(int(v[0]), int(v[1])), fmt.Sprint(int(v[0]) * int(v[1])), fmtIOPS(v[2]), fmtMs(v[3]),
			fmtIOPS(v[4]), fmtMs(v[5]), fmtMs(v[6]), fmtMs(v[7])})
	}
	// The point stages without results, and why.
	for _, s := range d.stages {
		def := b.stageDef(s)
		if pts.PartOf(def) != pts.PartPoint || !b.empty(s) {
			continue
		}
		why := "not run, the run stopped before it"
		switch {
		case s.Error != "":
			why = "stopped by an error before its first sample: " + strings.TrimSuffix(s.Error, ".")
		case s.Started:
			why = "interrupted before its first sample; `ptsrun resume` continues it"
		}
		lines = append(lines, fmt.Sprintf("%s pre-write and histogram run: %s.", pts.PointLabel(def.Point.Point), why))
	}
	blocks := []Block{Paragraph{Lines: lines}}
	if len(rows) > 0 {
		blocks = append(blocks, Table{Caption: tb.Title + " (times in ms)",
			Head:   []string{"Point", "TC/QD", "TOIO", "As chosen IOPS", "As chosen ART", "Run IOPS", "Run ART", "Run 99.999 %", "Run MRT"},
			Widths: []float64{0.95, 1, 0.6, 1.35, 1.25, 1, 0.9, 1.15, 0.9}, Rows: rows},
			Paragraph{Lines: []string{"As chosen: the demand variation's figures the point was chosen by, of the rounds its rule names. " +
				"Run: the point's histogram run after its pre-write; its 99.999 % is of the run's merged histogram, its MRT the run's " +
				"maximum response time."}})
	}
	b.add(&Page{Test: d.td.Name, Title: "Operating Points: MaxIOPS, MidIOPS and MinIOPS", Setup: setup, Params: params,
		Landmark: d.landmark("points"), Blocks: blocks})
}

func pickWords(pick string) string {
	if pick == pts.PickLast {
		return "measurement window's last round"
	}
	return "measurement window, each load's average over its rounds"
}

func durOrDash(d time.Duration) string {
	if d <= 0 {
		return "–"
	}
	return pts.ShortDuration(d)
}

// namedTable is the results' table of that name, empty when they have
// none.
func (b *builder) namedTable(name string) matrix.Table {
	if b.tables == nil {
		b.tables = b.res.Tables()
	}
	for _, t := range b.tables {
		if t.Name == name {
			return t
		}
	}
	return matrix.Table{}
}

// demandPoint draws an operating point's pre-write and its response-time
// histogram.
func (b *builder) demandPoint(d *demandTest, s matrix.StageResult) {
	b.stage(s)
	def := b.stageDef(s)
	label := pts.PointLabel(def.Point.Point)
	at := "TC/QD not known"
	rule := label + " " + at + ": not chosen."
	var tc, qd int
	if p := s.Point; p != nil {
		tc, qd = p.TC, p.QD
		at = tcqd(tc, qd)
		rule = fmt.Sprintf("%s %s: %s.", label, at, p.Rule)
	}
	pre, test := d.prewrite, d.stimulus
	pre.TC, pre.QD, test.TC, test.QD = tc, qd, tc, qd
	ran := 0.0
	for _, x := range s.Samples {
		ran += x.Seconds
	}
	duration := durationLabel(ran)
	if nominal := def.TimelineTime(); time.Duration(ran*float64(time.Second)) < nominal-time.Second {
		duration += fmt.Sprintf(" (of %s)", durationLabel(nominal.Seconds()))
	}
	setup := b.setup(s)
	params := b.demandParams(d,
		KV{"This point", fmt.Sprintf("%s: %s (TOIO %d)", label, at, tc*qd)},
		KV{"Segments", fmt.Sprintf("%s pre-write (%s), then %s histogram run, a sample every %s", durOrDash(d.pointPre), stimulusLabel(pre),
			durOrDash(d.pointHist), durOrDash(d.interval))},
		KV{"Duration", duration})
	var figs []string
	mrt := math.NaN()
	if s.Summary != nil {
		for _, f := range s.Summary.Figures {
			figs = append(figs, f.Name+": "+f.String())
			if f.Name == pts.FigHistMRT {
				mrt = f.Value
			}
		}
	}
	names := map[int]string{1: "pre-write: " + stimulusLabel(pre), 2: "histogram run: " + stimulusLabel(test)}
	iops := groupSeries(s, names, func(x pts.Sample) float64 { return x.IOPS })
	art := groupSeries(s, names, func(x pts.Sample) float64 { return x.LatMeanMs })
	lines := []string{rule}
	if len(figs) > 0 {
		f := strings.Join(figs, "; ") + "."
		lines = append(lines, strings.ToUpper(f[:1])+f[1:])
	}
	b.add(&Page{Test: d.td.Name, Title: fmt.Sprintf("%s (%s) Pre-Writes", label, at), Setup: setup, Params: params,
		Landmark: d.landmark("point-prewrite"), Blocks: []Block{
			Paragraph{Lines: lines},
			Chart{Caption: fmt.Sprintf("IOPS per %s at %s: the pre-write, then the histogram run", durOrDash(d.interval), at),
				Plot: withHeadroom(timePlot(label+" "+at+": IOPS vs time", "IOPS", iops, false), iops, false), Summary: summarize(iops, fmtIOPS)},
			Chart{Caption: fmt.Sprintf("Average response time per %s at %s", durOrDash(d.interval), at),
				Plot: withHeadroom(timePlot(label+" "+at+": ART vs time", "ART (ms)", art, spansDecade(art)), art, spansDecade(art)), Summary: summarize(art, fmtMs)},
		}})
	title := fmt.Sprintf("%s (%s) Response Time Histogram, MRT = %s ms", label, at, fmtMs(mrt))
	if math.IsNaN(mrt) {
		title = fmt.Sprintf("%s (%s) Response Time Histogram", label, at)
	}
	h := s.TailHist
	if h == nil || h.Count() == 0 {
		b.add(&Page{Test: d.td.Name, Title: title, Setup: setup, Params: params, Landmark: d.landmark("point-histogram"),
			Blocks: []Block{Paragraph{Lines: []string{rule, "No histogram: the histogram run has no sample (the stage ended before it)."}}}})
		return
	}
	what := fmt.Sprintf("%s %s, %s", label, at, stimulusLabel(test))
	hist, clp, sum := histogramPlots(what, h)
	b.add(&Page{Test: d.td.Name, Title: title, Setup: setup, Params: params, Landmark: d.landmark("point-histogram"),
		Blocks: []Block{
			Paragraph{Lines: []string{fmt.Sprintf("The response time of every I/O of the %s histogram run of %s at %s, from minute %.0f: %s I/Os.",
				durOrDash(d.pointHist), stimulusLabel(test), at, s.TailFrom, fmtIOPS(float64(h.Count()))), rule}},
			Chart{Caption: "Response-time histogram (I/Os per latency bin, log scales)", Plot: hist, Summary: sum},
			Chart{Caption: "Confidence level: share of I/Os at or under each response time", Plot: clp, Summary: sum},
		}})
}

// pointRows are the first page's rows of an operating point: its two
// measurements, each under its name, as every page and the run summary
// print them (a point not chosen: its figures, if any).
func pointRows(b *builder, t matrix.TestResult, s matrix.StageResult, state string) [][]string {
	p := s.Point
	if p == nil {
		return figureRows(b, t, s, state)
	}
	name := t.Name + " " + pts.PointLabel(p.Point)
	rows := [][]string{{name, b.pointWorkload(s), "as chosen: " + p.ChosenFigures(), "chosen from " + p.ChosenFrom()}}
	if r := p.Run; r != nil {
		rows = append(rows, []string{name, b.pointWorkload(s), "histogram run: " + r.Figures(), state})
	}
	return rows
}

// withHeadroom gives a time plot room above its highest value, when
// linear, and starts it at minute 0, so that no sample sits on an edge.
func withHeadroom(p *plot.Plot, ss []series, logY bool) *plot.Plot {
	if !logY {
		headroom(p, ss)
	}
	if _, hi := seriesRangeX(ss); hi > 0 {
		p.X.Min, p.X.Max = 0, hi*1.05
	}
	return p
}
