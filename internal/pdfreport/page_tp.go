package pdfreport

import (
	"fmt"
	"math"
	"slices"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/units"
)

// The throughput test's pages (PTS 2.0.2 §8): per block
// size its convergence and window pages, then one table and bar plot of
// every block size.
func init() {
	registerPages(pts.TPTest, testPages{report: withResults((*builder).throughput), compare: compareBars})
}

func (b *builder) throughput(td *pts.TestDef, stages []matrix.StageResult) {
	_, allMixes := td.Matrix(b.ri.Profile)
	var groups []string
	read := series{name: "100/0 (SEQ read)"}
	write := series{name: "0/100 (SEQ write)"}
	rows := [][]string{}
	var lastSetup, lastParams []KV
	for _, s := range stages {
		if len(s.Cells) == 0 {
			continue
		}
		bs := s.Cells[0].BlockSize
		b.stage(s)
		setup := b.setup(s)
		mixes, order := ranMixes(s, allMixes), "read then write"
		switch {
		case len(mixes) == 1 && mixes[0] == 0:
			order = "write only"
		case len(mixes) == 1 && mixes[0] == 100:
			order = "read only"
		}
		stimulus := "Throughput loop: SEQ " + units.FormatSize(bs) + ", " + order
		tpSizes, _ := b.ri.Config.Subset(td.ID, b.ri.Profile)
		params := b.params(s, stimulus, mixList(mixes), fmt.Sprintf("%s (this stage of %s)", units.FormatSize(bs), sizeList(tpSizes)))
		lastSetup, lastParams = setup, params
		var ss []series
		for _, c := range s.Cells {
			c := c
			ss = append(ss, roundSeriesOf(fmt.Sprintf("SEQ %s %s MB/s", units.FormatSize(bs), matrix.MixLabel(c.ReadPct)), &c,
				func(r matrix.RoundValue) float64 { return r.MBps }))
		}
		if s.Rounds > 0 {
			b.add(&Page{Test: td.Name, Title: "Steady State Convergence Plot: " + units.FormatSize(bs), Setup: setup, Params: params, Landmark: "tp-convergence",
				Blocks: []Block{Chart{Caption: "Throughput steady-state convergence, SEQ " + units.FormatSize(bs) + ": read and write MB/s per round",
					Plot: convergencePlot("MB/s per round, SEQ "+units.FormatSize(bs), "MB/s", ss, s.Window, false), Summary: summarize(ss, fmtMBps)}}})
		}
		for _, t := range s.Tracking {
			b.add(b.windowPage(td.Name, s, t, setup, params))
		}
		groups = append(groups, units.FormatSize(bs))
		r, w := math.NaN(), math.NaN()
		for _, c := range s.Cells {
			if c.ReadPct == 100 && c.Present() {
				r = c.MBps
			}
			if c.ReadPct == 0 && c.Present() {
				w = c.MBps
			}
		}
		read.xs, read.ys = append(read.xs, float64(len(groups))), append(read.ys, r)
		write.xs, write.ys = append(write.xs, float64(len(groups))), append(write.ys, w)
	}
	if len(groups) == 0 {
		return
	}
	// The table has a row per block size of the profile: a stage a quick
	// look left out shows empty.
	tb := b.tableOf(td, pts.MetricMBps)
	for i, bs := range tb.RowBytes {
		rows = append(rows, []string{units.FormatSize(bs), fmtMBps(tb.Values[i][0]), fmtMBps(tb.Values[i][1])})
	}
	// A mix left out has no bars, rather than bars of zero.
	var ss []series
	for _, sr := range []series{read, write} {
		if slices.ContainsFunc(sr.ys, func(v float64) bool { return !math.IsNaN(v) }) {
			ss = append(ss, sr)
		}
	}
	b.add(&Page{Test: td.Name, Title: "Tabular Data and Plot: MB/s by block size", Setup: lastSetup, Params: lastParams, Landmark: "tp-table",
		Blocks: []Block{
			Table{Caption: "Throughput in MB/s (10^6 bytes/s), average of each block size's measurement window",
				Head: []string{"Block size", "100/0 (read) MB/s", "0/100 (write) MB/s"}, Rows: rows},
			Chart{Caption: "Throughput by block size: sequential read and write", Plot: barPlot("Throughput", "MB/s", groups, ss),
				Summary: summarize(ss, fmtMBps)},
		}})
}
