package pdfreport

import (
	"fmt"
	"strconv"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/presets"
	"github.com/ptsrun/ptsrun/internal/units"
)

// workload is the pages of a run of `ptsrun workload`: a page per
// workload it ran (one, or a preset each), each with its measurement, its
// per-second series (the ramp shaded) and its response-time histogram;
// with several workloads a table of them all comes first.
func (b *builder) workload(s matrix.StageResult) {
	var present []*matrix.CellResult
	for i := range s.Cells {
		if s.Cells[i].Present() {
			present = append(present, &s.Cells[i])
		}
	}
	if len(present) > 1 {
		b.workloadTable(present)
	}
	for _, c := range present {
		b.workloadPage(c, len(present) > 1)
	}
}

// workloadOf is the workload a recorded cell ran, as run.json has it.
func (b *builder) workloadOf(c *matrix.CellResult) engine.Workload {
	cells := b.ri.Stages[0].Cells
	if c.Index >= 0 && c.Index < len(cells) {
		return cells[c.Index].Workload
	}
	return engine.Workload{}
}

// workloadTable lists the workloads of a run of several, one row each,
// in the order they ran.
func (b *builder) workloadTable(cells []*matrix.CellResult) {
	var rows [][]string
	var cs []matrix.CellResult
	for _, c := range cells {
		w := b.workloadOf(c)
		rows = append(rows, []string{c.Key.String(), w.String(), durationLabel(w.Measured().Seconds()), fmtIOPS(c.IOPS), fmtMBps(c.MBps),
			fmtMs(c.LatMeanMs), fmtMs(c.LatP99999Ms), fmtMs(c.LatMaxMs)})
		cs = append(cs, *c)
	}
	b.add(&Page{Test: "Workload", Title: fmt.Sprintf("%d workloads, one after the other", len(cells)), Landmark: "workloads", Flow: true, Blocks: []Block{
		Paragraph{Lines: []string{fmt.Sprintf("ptsrun workload ran these %d workloads one after the other on the same targets, each once, outside "+
			"the PTS methodology: no purge, no preconditioning, no rounds to steady state. Each has a page of its own after this one. "+
			"Results leave out each workload's ramp.", len(cells))}},
		Table{Caption: "The workloads and their results (99.999 %: " + pctLabel(cs) + ")",
			Head:   []string{"Workload", "Runs", "Measured", "IOPS", "MB/s", "Average ms", "99.999 % ms", "Maximum ms"},
			Widths: []float64{2.2, 2.9, 1.1, 1.1, 1, 1, 1, 1}, Align: "LLRRRRRR", Rows: rows, Small: true},
	}})
}

// workloadPage is one recorded workload's page.
func (b *builder) workloadPage(c *matrix.CellResult, several bool) {
	w := b.workloadOf(c)
	title, what := w.String(), w.Description()
	preset, err := presets.Lookup(c.Key.Name, 0)
	isPreset := c.Key.Name != "" && err == nil
	if several || isPreset {
		title = c.Key.String() + ": " + w.String()
		what = c.Key.String() + ", " + what
		if isPreset {
			what = "the preset " + preset.Name + " (" + preset.About + "): " + w.Description()
		}
	}
	lines := []string{fmt.Sprintf("ptsrun workload ran %s for %v, once, outside the PTS methodology: "+
		"no purge, no preconditioning, no rounds to steady state. The numbers are that one measurement.", what, w.Duration)}
	if w.Ramp > 0 {
		lines = append(lines, fmt.Sprintf("The first %v were a ramp: run, and shown shaded in the time series, but left out of "+
			"every result on this page, which cover the %v after it.", w.Ramp, w.Measured()))
	}
	blocks := []Block{Paragraph{Lines: lines}}
	blocks = append(blocks, splitAndZones(w)...)
	rows := [][]string{}
	if c.ReadIOPS > 0 {
		rows = append(rows, []string{"read", fmtIOPS(c.ReadIOPS), fmtMBps(c.ReadMBps), fmtMs(c.ReadLatMeanMs)})
	}
	if c.WriteIOPS > 0 {
		rows = append(rows, []string{"write", fmtIOPS(c.WriteIOPS), fmtMBps(c.WriteMBps), fmtMs(c.WriteLatMean)})
	}
	rows = append(rows, []string{"total", fmtIOPS(c.IOPS), fmtMBps(c.MBps), fmtMs(c.LatMeanMs)})
	blocks = append(blocks,
		Table{Caption: "The workload's measurement, per direction", Head: []string{"Direction", "IOPS", "MB/s", "Average ms"}, Rows: rows},
		Table{Caption: "Response times of every I/O (ms; percentiles: " + pctLabel([]matrix.CellResult{*c}) + ")", Head: []string{"99 %", "99.99 %", "99.999 %", "Maximum"},
			Rows: [][]string{{fmtMs(c.LatP99Ms), fmtMs(c.LatP9999Ms), fmtMs(c.LatP99999Ms), fmtMs(c.LatMaxMs)}}})
	blocks = append(blocks, seriesCharts(w.String(), "the workload", "seconds.csv", w, lastSeries(c))...)
	if c.Hist != nil && c.Hist.Count() > 0 {
		hist, clp, sum := histogramPlots(w.String(), c.Hist)
		blocks = append(blocks,
			Chart{Caption: "Response-time histogram (I/Os per latency bin, log scales)", Plot: hist, Summary: sum},
			Chart{Caption: "Confidence level: share of I/Os at or under each response time", Plot: clp, Summary: sum})
	}
	b.add(&Page{Test: "Workload", Title: title, Landmark: "workload-" + c.Key.String(), Flow: true, Blocks: blocks})
}

// splitAndZones are the tables of a workload's block-size split and zones,
// none without them.
func splitAndZones(w engine.Workload) []Block {
	var out []Block
	pct := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + " %" }
	if len(w.BlockSplit) > 0 {
		head, row := []string{"Block size"}, []string{"Share of I/Os"}
		for _, s := range w.BlockSplit {
			head = append(head, units.FormatSize(s.Bytes))
			row = append(row, pct(s.Percent))
		}
		out = append(out, Table{Caption: fmt.Sprintf("The block-size split: each size's share of the I/Os (on average %.2f KiB per I/O)",
			w.MeanBlockSize()/1024),
			Head: head, Rows: [][]string{row}, Widths: append([]float64{2.2}, ones(len(w.BlockSplit))...), Small: true})
	}
	if len(w.Zones) > 0 {
		var rows [][]string
		var at float64
		for i, z := range w.Zones {
			rows = append(rows, []string{fmt.Sprint(i + 1), pct(z.IOPercent), pct(z.RangePercent),
				fmt.Sprintf("%s – %s", pct(at), pct(at+z.RangePercent))})
			at += z.RangePercent
		}
		out = append(out, Table{Caption: "The zones: where the random I/Os go, in per cent of the active range",
			Head: []string{"Zone", "Share of I/Os", "Share of the active range", "From – to"}, Rows: rows, Align: "CRRR"})
	}
	return out
}

func ones(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}
