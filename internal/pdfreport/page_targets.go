package pdfreport

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// perTarget is the page of a run on several targets at once (the LUNs of
// an array, the hosts of a client/server run): the headline cells of every
// test on each target, and how far apart the targets are.
func (b *builder) perTarget() {
	tables := b.res.TargetTables()
	if len(tables) == 0 {
		return
	}
	names := tables[0].Cols
	type row struct {
		test, cell, unit string
		vals             []float64
		cpu              []float64 // host CPU per target, user + system %
		format           func(float64) string
	}
	cpuUnit := ""
	var rows []row
	for _, t := range b.res.Tests {
		for si := range t.Stages {
			s := &t.Stages[si]
			heads := matrix.StageHeadlines(pts.Def(t.Test), s)
			slices.SortFunc(heads, func(a, b matrix.HeadlineCell) int { return a.Cell.Index - b.Cell.Index })
			for _, h := range heads {
				c := h.Cell
				if len(c.Targets) == 0 {
					continue
				}
				r := row{test: s.Title, cell: c.Key.Label()}
				var v func(matrix.TargetCell) float64
				m := h.Metrics[0]
				switch r.unit = m.Unit(); m {
				case pts.MetricIOPS:
					r.format, v = fmtIOPS, func(x matrix.TargetCell) float64 { return x.IOPS }
				case pts.MetricMBps:
					r.format, v = fmtMBps, func(x matrix.TargetCell) float64 { return x.MBps }
				case pts.MetricLatMean:
					r.unit, r.format, v = m.Short()+" "+m.Unit(), fmtMs, func(x matrix.TargetCell) float64 { return x.LatMeanMs }
				default:
					continue
				}
				r.vals = make([]float64, len(names))
				r.cpu = make([]float64, len(names))
				for i := range r.vals {
					r.vals[i], r.cpu[i] = math.NaN(), math.NaN()
				}
				for _, tc := range c.Targets {
					if i := slices.Index(names, tc.TargetName()); i >= 0 {
						r.vals[i] = v(tc)
						if tc.CPU != nil {
							r.cpu[i], cpuUnit = tc.CPU.Pct(), tc.CPU.Unit()
						}
					}
				}
				rows = append(rows, r)
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	// Wide sets are split into tables of a few targets each.
	const per = 5
	var blocks []Block
	blocks = append(blocks, Paragraph{Lines: []string{fmt.Sprintf("%d targets were loaded at once; the tests' tables give their sum (IOPS, MB/s) "+
		"or their I/O-weighted mean (response time). Spread is the largest target's value over the smallest's. "+
		"Every cell of every target is in tables/targets_*.csv.", len(names))}})
	for from := 0; from < len(names); from += per {
		to := min(from+per, len(names))
		head := []string{"Test", "Cell", "Unit"}
		for i := from; i < to; i++ {
			head = append(head, fmt.Sprintf("T%d", i+1))
		}
		head = append(head, "Spread")
		var trows [][]string
		for _, r := range rows {
			tr := []string{r.test, r.cell, r.unit}
			for i := from; i < to; i++ {
				tr = append(tr, r.format(r.vals[i]))
			}
			tr = append(tr, spread(r.vals))
			trows = append(trows, tr)
		}
		widths := []float64{1.3, 1.6, 0.7}
		align := "LLL"
		for i := from; i < to; i++ {
			widths, align = append(widths, 1), align+"R"
		}
		widths, align = append(widths, 0.8), align+"R"
		var legend []string
		for i := from; i < to; i++ {
			legend = append(legend, fmt.Sprintf("T%d = %s", i+1, names[i]))
		}
		blocks = append(blocks, Table{Caption: "Per-target results (" + strings.Join(legend, "; ") + ")",
			Head: head, Rows: trows, Widths: widths, Align: align})
		if cpuUnit == "" {
			continue
		}
		trows = nil
		for _, r := range rows {
			tr := []string{r.test, r.cell, "CPU %"}
			for i := from; i < to; i++ {
				tr = append(tr, fmtPct(r.cpu[i]))
			}
			trows = append(trows, append(tr, spread(r.cpu)))
		}
		blocks = append(blocks, Table{Caption: "Host CPU per target, user + system, " + cpuUnit + " (" + strings.Join(legend, "; ") + ")",
			Head: head, Rows: trows, Widths: widths, Align: align})
	}
	if cpuUnit == (engine.CPU{Of: engine.CPUOfOne}).Unit() {
		blocks = append(blocks, Paragraph{Lines: []string{"Host CPU is fio's usr_cpu + sys_cpu of the threads that drove each target: " +
			"CPU time per second of the cell, where 100 % is one CPU busy; it is not a share of the host, whose CPU count " +
			"a fio server does not report. Every cell is in tables/targets_cpu_pct.csv."}})
	}
	b.add(&Page{Title: "Per-target results: every target of the set", Landmark: "targets", Flow: true, Blocks: blocks})
}

// spread is the largest value over the smallest, "–" without two values.
func spread(v []float64) string {
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, x := range v {
		if !math.IsNaN(x) && x > 0 {
			lo, hi, n = min(lo, x), max(hi, x), n+1
		}
	}
	if n < 2 {
		return "–"
	}
	return fmt.Sprintf("×%.2f", hi/lo)
}
