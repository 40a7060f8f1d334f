package pdfreport

import (
	"math"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/units"
)

// The IOPS test's pages (PTS 2.0.2 §7): convergence of
// every block size's writes and of the tracking variables, a window page
// per tracking variable, the table with its shaded matrix, the 2D plot.
func init() {
	registerPages(pts.IOPSTest, testPages{report: withResults((*builder).iops), compare: compareByBlockSize})
}

// iops draws the first stage with results: the test has one.
func (b *builder) iops(td *pts.TestDef, stages []matrix.StageResult) {
	s := stages[0]
	b.stage(s)
	setup := b.setup(s)
	all, allMixes := td.Matrix(b.ri.Profile)
	sizes, mixes := ranSizes(s, all), ranMixes(s, allMixes)
	params := b.params(s, "IOPS loop: RND, "+loopCount(len(mixes), len(sizes)), mixList(mixes), sizeList(sizes))
	// Convergence: IOPS per round for every block size at 0/100 (the
	// tracking variables' full history comes from the tracking table; the
	// other cells' from the journal-derived per-round values).
	var writes []series
	for _, bs := range all {
		c := cellAt(s, pts.Key(engine.Random, bs, 0))
		if c == nil {
			continue
		}
		writes = append(writes, roundSeries(units.FormatSize(bs)+" 0/100", c))
	}
	// Results without rounds (a published table) have no convergence.
	if s.Rounds > 0 && len(writes) > 0 {
		b.add(&Page{Test: td.Name, Title: "Steady State Convergence Plot: write IOPS, all block sizes", Setup: setup, Params: params, Landmark: "iops-convergence",
			Blocks: []Block{Chart{Caption: "IOPS steady-state convergence: RND 0/100, every block size",
				Plot: convergencePlot("IOPS per round, RND 0/100", "IOPS", writes, s.Window, true), Summary: summarize(writes, fmtIOPS)}}})
	}
	b.iopsTracking(td, s, setup, params, convergence{title: "Steady State Convergence Plot: the tracking variables", landmark: "iops-tracking",
		caption: "IOPS steady-state convergence: the three PTS 2.0.2 tracking variables", plot: "Tracking variables per round", logY: true})
	tb := b.tableOf(td, pts.MetricIOPS)
	rows := [][]string{}
	for i, r := range tb.Rows {
		row := []string{strings.Replace(r, "KiB", " KiB", 1)}
		for _, v := range tb.Values[i] {
			row = append(row, fmtIOPS(v))
		}
		rows = append(rows, row)
	}
	head := append([]string{"Block size"}, tb.Cols...)
	b.add(&Page{Test: td.Name, Title: "Tabular Data and 3D Plot equivalent: IOPS by block size × R/W mix", Setup: setup, Params: params,
		Landmark: "iops-table", Blocks: []Block{
			Table{Caption: "IOPS (read + write), average of the measurement window (" + b.doc.Header.Spec + ", " + cacheShort(b.res.WriteCache) + ")",
				Head: head, Rows: rows},
			Matrix{Caption: "IOPS by block size × R/W mix (shaded matrix: the PTS 3D column plot, printable in black and white)",
				RowHead: "Block size", Rows: rowsLabels(tb), Cols: tb.Cols, Values: tb.Values, Unit: "IOPS", Format: fmtIOPS},
		}})
	var byMix []series
	var plotted []int64 // the block sizes with a value: the axis's ticks and range
	for i, bs := range tb.RowBytes {
		if slices.ContainsFunc(tb.Values[i], func(v float64) bool { return !math.IsNaN(v) }) {
			plotted = append(plotted, bs)
		}
	}
	for j, mix := range tb.Cols {
		sr := series{name: mix}
		for i, bs := range tb.RowBytes {
			// A cell not run (a quick look's, a 4Kn target's 0.5 KiB) has
			// no point: the line joins the cells that were, rather than
			// breaking at each gap and leaving marks without a line.
			if v := tb.Values[i][j]; !math.IsNaN(v) {
				sr.xs, sr.ys = append(sr.xs, float64(bs)/1024), append(sr.ys, v)
			}
		}
		if len(sr.xs) > 0 { // a mix left out has no line
			byMix = append(byMix, sr)
		}
	}
	b.add(&Page{Test: td.Name, Title: "2D Plot: IOPS vs block size", Setup: setup, Params: params, Landmark: "iops-2d",
		Blocks: []Block{Chart{Caption: "IOPS against block size, one line per R/W mix (log–log)",
			Plot: logLogPlot("IOPS by block size and R/W mix", "IOPS", plotted, byMix), Summary: summarize(byMix, fmtIOPS)}}})
}
