package pdfreport

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

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
	if ss := b.perSecond(math.Ceil(w.Duration.Seconds())); len(ss) > 0 {
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

// perSecond reads a recorded workload's seconds.csv: read and write IOPS in
// every second up to last, the directions that did any I/O. The seconds
// after the workload's time hold only the I/Os that were still in flight.
func (b *builder) perSecond(last float64) []series {
	if b.opt.Dir == "" {
		return nil
	}
	f, err := os.Open(filepath.Join(b.opt.Dir, "seconds.csv"))
	if err != nil {
		return nil
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 || len(recs[0]) < 3 || recs[0][1] != "read_iops" || recs[0][2] != "write_iops" {
		return nil
	}
	read, write := series{name: "read"}, series{name: "write"}
	var anyRead, anyWrite bool
	for _, r := range recs[1:] {
		sec, e1 := strconv.ParseFloat(r[0], 64)
		rd, e2 := strconv.ParseFloat(r[1], 64)
		wr, e3 := strconv.ParseFloat(r[2], 64)
		if e1 != nil || e2 != nil || e3 != nil {
			return nil
		}
		if sec > last {
			break
		}
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
