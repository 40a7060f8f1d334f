package pdfreport

import (
	"fmt"
	"strings"

	"github.com/ptsrun/ptsrun/internal/comparison"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The latency test's pages (PTS 2.0.2 §9): convergence
// of the writes' average and maximum response times, the window page, the
// tables, the shaded matrices and the tracked cell's histogram.
func init() {
	registerPages(pts.LATTest, testPages{report: withResults((*builder).latency), compare: compareLatency})
}

// latency draws the first stage with results: the test has one.
func (b *builder) latency(td *pts.TestDef, stages []matrix.StageResult) {
	s := stages[0]
	b.stage(s)
	setup := b.setup(s)
	all, allMixes := td.Matrix(b.ri.Profile)
	sizes, mixes := ranSizes(s, all), ranMixes(s, allMixes)
	params := b.params(s, "Latency loop: RND, "+loopCount(len(mixes), len(sizes)), mixList(mixes), sizeList(sizes))
	var art, mrt []series
	for _, bs := range all {
		key := pts.Key(engine.Random, bs, 0)
		c := cellAt(s, key)
		if c == nil {
			continue
		}
		name := key.Label()
		art = append(art, roundSeriesOf(name, c, func(r matrix.RoundValue) float64 { return r.LatMeanMs }))
		mrt = append(mrt, roundSeriesOf(name, c, func(r matrix.RoundValue) float64 { return r.LatMaxMs }))
	}
	if s.Rounds > 0 && len(art) > 0 {
		b.add(&Page{Test: td.Name, Title: "Steady State Convergence Plots: average and maximum response time", Setup: setup, Params: params, Landmark: "lat-convergence",
			Blocks: []Block{
				Chart{Caption: "Average response time per round, RND 0/100, TC1/QD1", Plot: convergencePlot("Average response time (ART) per round", "ART (ms)", art, s.Window, false), Summary: summarize(art, fmtMs)},
				Chart{Caption: "Maximum response time per round, RND 0/100, TC1/QD1", Plot: convergencePlot("Maximum response time (MRT) per round", "MRT (ms)", mrt, s.Window, false), Summary: summarize(mrt, fmtMs)},
			}})
	}
	for _, t := range s.Tracking {
		b.add(b.windowPage(td.Name, s, t, setup, params))
	}
	var blocks []Block
	pct := pctLabel(s.Cells)
	if note := pctNote(s.Cells); note != "" {
		blocks = append(blocks, Paragraph{Lines: []string{note}})
	}
	for _, def := range td.Tables {
		t, f := b.tableOf(td, def.Metric), def.Metric.Format
		rows := [][]string{}
		for i, r := range t.Rows {
			row := []string{strings.Replace(r, "KiB", " KiB", 1)}
			for _, v := range t.Values[i] {
				row = append(row, f(v))
			}
			rows = append(rows, row)
		}
		how := t.Aggregate
		if def.Metric == pts.MetricLatP99999 { // a percentile of the window's I/Os: say of which latency, from what
			how = pct
		}
		caption := fmt.Sprintf("%s (%s): %s, rounds %d–%d (%s, %s)", t.Title, t.Unit, how, s.Window[0], s.Window[1],
			b.doc.Header.Spec, cacheShort(b.res.WriteCache))
		blocks = append(blocks, Table{Caption: caption, Head: append([]string{"Block size"}, t.Cols...), Rows: rows})
	}
	b.add(&Page{Test: td.Name, Title: "Tabular Data: ART, 99.999 % RT, MRT and IOPS", Setup: setup, Params: params, Landmark: "lat-table", Blocks: blocks})
	mean, maxT, p5 := b.tableOf(td, pts.MetricLatMean), b.tableOf(td, pts.MetricLatMax), b.tableOf(td, pts.MetricLatP99999)
	b.add(&Page{Test: td.Name, Title: "Block size × R/W mix: average and maximum response time", Setup: setup, Params: params, Landmark: "lat-3d",
		Blocks: []Block{
			Matrix{Caption: "Average response time by block size × R/W mix", RowHead: "Block size", Rows: rowsLabels(mean), Cols: mean.Cols,
				Values: mean.Values, Unit: "ms", Format: fmtMs, LowIsGood: true},
			Matrix{Caption: "99.999 % response time by block size × R/W mix (" + pct + ")", RowHead: "Block size", Rows: rowsLabels(p5), Cols: p5.Cols,
				Values: p5.Values, Unit: "ms", Format: fmtMs, LowIsGood: true},
			Matrix{Caption: "Maximum response time by block size × R/W mix", RowHead: "Block size", Rows: rowsLabels(maxT), Cols: maxT.Cols,
				Values: maxT.Values, Unit: "ms", Format: fmtMs, LowIsGood: true},
		}})
	// The histogram is of the cell the test tracks, RND 4 KiB writes.
	key := td.Tracking(0)[0].Key
	if c := cellAt(s, key); c != nil && c.Hist != nil && c.Hist.Count() > 0 {
		title := fmt.Sprintf("%s TC%d/QD%d", key.Label(), c.TC, c.QD)
		hist, clp, sum := histogramPlots(title, c.Hist)
		b.add(&Page{Test: td.Name, Title: "Response Time Histogram – Confidence Level Plot", Setup: setup, Params: params, Landmark: "lat-histogram",
			Blocks: []Block{
				Paragraph{Lines: []string{fmt.Sprintf("%s, measurement window rounds %d–%d: %s IOPS, %s MB/s, average %s ms, maximum %s ms.",
					title, s.Window[0], s.Window[1], fmtIOPS(c.IOPS), fmtMBps(c.MBps), fmtMs(c.LatMeanMs), fmtMs(c.LatMaxMs))}},
				Chart{Caption: "Response-time histogram (I/Os per latency bin, log scales)", Plot: hist, Summary: sum},
				Chart{Caption: "Confidence level: share of I/Os at or under each response time", Plot: clp, Summary: sum},
			}})
	}
}

// compareLatency overlays the runs in the average and 99.999 % response
// time tables; the others are compared in their ratio tables.
func compareLatency(c comparison.Comparison, t comparison.Table) *Page {
	if _, def, _ := pts.LookupTable(t.Name); def.Metric == pts.MetricLatMean || def.Metric == pts.MetricLatP99999 {
		return compareBars(c, t)
	}
	return nil
}
