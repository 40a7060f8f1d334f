package pdfreport

import (
	"fmt"
	"strings"

	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/pts"
)

func (b *builder) latency(s matrix.StageResult) {
	b.stage(s)
	setup := b.setup(s)
	sizes, mixes := ranSizes(s, pts.LATBlockSizes), ranMixes(s, pts.LATMixes)
	params := b.params(s, "Latency loop: RND, "+loopCount(len(mixes), len(sizes)), mixList(mixes), sizeList(sizes))
	var art, mrt []series
	for _, bs := range pts.LATBlockSizes {
		c := cellAt(s, bs, 0)
		if c == nil {
			continue
		}
		name := "RND " + engine.FormatSize(bs) + " 0/100"
		art = append(art, roundSeriesOf(name, c, func(r matrix.RoundValue) float64 { return r.LatMeanMs }))
		mrt = append(mrt, roundSeriesOf(name, c, func(r matrix.RoundValue) float64 { return r.LatMaxMs }))
	}
	if s.Rounds > 0 && len(art) > 0 {
		b.add(&Page{Test: "Latency", Title: "Steady State Convergence Plots: average and maximum response time", Setup: setup, Params: params, Landmark: "lat-convergence",
			Blocks: []Block{
				Chart{Caption: "Average response time per round, RND 0/100, TC1/QD1", Plot: convergencePlot("Average response time (ART) per round", "ART (ms)", art, s.Window, false), Summary: summarize(art, fmtMs)},
				Chart{Caption: "Maximum response time per round, RND 0/100, TC1/QD1", Plot: convergencePlot("Maximum response time (MRT) per round", "MRT (ms)", mrt, s.Window, false), Summary: summarize(mrt, fmtMs)},
			}})
	}
	for _, t := range s.Tracking {
		b.add(b.windowPage("Latency", s, t, setup, params))
	}
	tables := map[string]matrix.Table{}
	for _, t := range b.res.Tables() {
		tables[t.Name] = t
	}
	var blocks []Block
	pct := pctLabel(s.Cells)
	if note := pctNote(s.Cells); note != "" {
		blocks = append(blocks, Paragraph{Lines: []string{note}})
	}
	for _, name := range []string{"lat_mean_ms", "lat_p99_999_ms", "lat_max_ms", "lat_max_mean_ms", "lat_iops"} {
		t := tables[name]
		f := fmtMs
		if t.Unit == "IOPS" {
			f = fmtIOPS
		}
		rows := [][]string{}
		for i, r := range t.Rows {
			row := []string{strings.Replace(r, "KiB", " KiB", 1)}
			for _, v := range t.Values[i] {
				row = append(row, f(v))
			}
			rows = append(rows, row)
		}
		how := t.Aggregate
		if name == "lat_p99_999_ms" { // a percentile of the window's I/Os: say of which latency, from what
			how = pct
		}
		caption := fmt.Sprintf("%s (%s): %s, rounds %d–%d (%s, %s)", t.Title, t.Unit, how, s.Window[0], s.Window[1],
			b.doc.Header.Spec, cacheShort(b.res.WriteCache))
		blocks = append(blocks, Table{Caption: caption, Head: append([]string{"Block size"}, t.Cols...), Rows: rows})
	}
	b.add(&Page{Test: "Latency", Title: "Tabular Data: ART, 99.999 % RT, MRT and IOPS", Setup: setup, Params: params, Landmark: "lat-table", Blocks: blocks})
	mean, maxT, p5 := tables["lat_mean_ms"], tables["lat_max_ms"], tables["lat_p99_999_ms"]
	b.add(&Page{Test: "Latency", Title: "Block size × R/W mix: average and maximum response time", Setup: setup, Params: params, Landmark: "lat-3d",
		Blocks: []Block{
			Matrix{Caption: "Average response time by block size × R/W mix", RowHead: "Block size", Rows: rowsLabels(mean), Cols: mean.Cols,
				Values: mean.Values, Unit: "ms", Format: fmtMs, LowIsGood: true},
			Matrix{Caption: "99.999 % response time by block size × R/W mix (" + pct + ")", RowHead: "Block size", Rows: rowsLabels(p5), Cols: p5.Cols,
				Values: p5.Values, Unit: "ms", Format: fmtMs, LowIsGood: true},
			Matrix{Caption: "Maximum response time by block size × R/W mix", RowHead: "Block size", Rows: rowsLabels(maxT), Cols: maxT.Cols,
				Values: maxT.Values, Unit: "ms", Format: fmtMs, LowIsGood: true},
		}})
	if c := cellAt(s, 4096, 0); c != nil && c.Hist != nil && c.Hist.Count() > 0 {
		title := "RND 4 KiB 0/100 TC1/QD1"
		hist, clp, sum := histogramPlots(title, c.Hist)
		b.add(&Page{Test: "Latency", Title: "Response Time Histogram – Confidence Level Plot", Setup: setup, Params: params, Landmark: "lat-histogram",
			Blocks: []Block{
				Paragraph{Lines: []string{fmt.Sprintf("%s, measurement window rounds %d–%d: %s IOPS, %s MB/s, average %s ms, maximum %s ms.",
					title, s.Window[0], s.Window[1], fmtIOPS(c.IOPS), fmtMBps(c.MBps), fmtMs(c.LatMeanMs), fmtMs(c.LatMaxMs))}},
				Chart{Caption: "Response-time histogram (I/Os per latency bin, log scales)", Plot: hist, Summary: sum},
				Chart{Caption: "Confidence level: share of I/Os at or under each response time", Plot: clp, Summary: sum},
			}})
	}
}
