package pdfreport

import (
	"fmt"
	"math"

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
			"no purge, no preconditioning, no rounds to steady state. The numbers are that one measurement.", w, w.Duration)}},
	}
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
