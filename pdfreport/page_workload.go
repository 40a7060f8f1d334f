package pdfreport

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/matrix"
)

// workload is the page of a run of `ptsrun workload`: one measurement,
// per direction, with its response-time histogram.
func (b *builder) workload(s matrix.StageResult) {
	var c *matrix.CellResult
	for i := range s.Cells {
		if s.Cells[i].Present() {
			c = &s.Cells[i]
		}
	}
	if c == nil {
		return
	}
	w := b.ri.Stages[0].Cells[0].Workload
	blocks := []Block{
		Paragraph{Lines: []string{fmt.Sprintf("ptsrun workload ran %s for %v, once, outside the PTS methodology: "+
			"no purge, no preconditioning, no rounds to steady state. The numbers are that one measurement.", w.Description(), w.Duration)}},
	}
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
	if ss := perSecond(c, math.Ceil(w.Duration.Seconds())); len(ss) > 0 {
		blocks = append(blocks, Chart{Caption: "IOPS in every second of the workload (from seconds.csv)",
			Plot: secondsPlot(w.String()+": IOPS per second", "IOPS", ss), Summary: summarize(ss, fmtIOPS)})
	}
	if c.Hist != nil && c.Hist.Count() > 0 {
		hist, clp, sum := histogramPlots(w.String(), c.Hist)
		blocks = append(blocks,
			Chart{Caption: "Response-time histogram (I/Os per latency bin, log scales)", Plot: hist, Summary: sum},
			Chart{Caption: "Confidence level: share of I/Os at or under each response time", Plot: clp, Summary: sum})
	}
	b.add(&Page{Test: "Workload", Title: w.String(), Landmark: "workload", Flow: true, Blocks: blocks})
}

// splitAndZones are the tables of a workload's block-size split and zones,
// none without them.
func splitAndZones(w engine.Workload) []Block {
	var out []Block
	pct := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + " %" }
	if len(w.BlockSplit) > 0 {
		head, row := []string{"Block size"}, []string{"Share of I/Os"}
		for _, s := range w.BlockSplit {
			head = append(head, engine.FormatSize(s.Bytes))
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

// perSecond is a recorded workload's read and write IOPS in every second
// up to last, the directions that did any I/O: the series of its one
// round, as the journal holds it (and seconds.csv). The seconds after the
// workload's time hold only the I/Os that were still in flight.
func perSecond(c *matrix.CellResult, last float64) []series {
	if len(c.PerRound) == 0 {
		return nil
	}
	read, write := series{name: "read"}, series{name: "write"}
	var anyRead, anyWrite bool
	for i, s := range c.PerRound[len(c.PerRound)-1].Seconds {
		sec := float64(i + 1)
		if sec > last {
			break
		}
		rd, wr := float64(s.ReadIOs), float64(s.WriteIOs)
		read.xs, read.ys = append(read.xs, sec), append(read.ys, rd)
		write.xs, write.ys = append(write.xs, sec), append(write.ys, wr)
		anyRead, anyWrite = anyRead || rd > 0, anyWrite || wr > 0
	}
	var out []series
	if anyRead {
		out = append(out, read)
	}
	if anyWrite {
		out = append(out, write)
	}
	return out
}
