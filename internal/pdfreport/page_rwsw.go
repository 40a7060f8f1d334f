package pdfreport

import (
	"encoding/json"
	"fmt"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/streams"
)

// The rwsw test's pages, after the SNIA RWSW method: the applied
// workload (each stream's share of the capture and of the workload, the
// sequential rule, the demand intensity and the TC/QD it runs at), the
// capture's stream map, demand intensity and cumulative table (the
// streams pages), the steady state's convergence and window with the
// workload's IOPS and response times at steady state, then DIRTH's pages
// of the sweep and its operating points.
func init() {
	registerPages(pts.RWSWTest, testPages{report: (*builder).rwsw, summary: summaryRows(steadyLevels, pointRows)})
}

func (b *builder) rwsw(td *pts.TestDef, stages []matrix.StageResult) {
	a := b.ri.Config.RWSW
	if a != nil {
		b.appliedWorkload(td, a)
		var rep streams.Report
		if err := json.Unmarshal(a.Characterisation, &rep); err == nil && len(rep.Streams) > 0 && rep.Top > 0 {
			for _, p := range streamPages(td.Name, a.Capture, &rep, nil, nil) {
				b.add(p)
			}
		}
	}
	b.demandPages(td, stages, (*builder).rwswSteady)
}

// appliedWorkload is the page of the workload the test applies.
func (b *builder) appliedWorkload(td *pts.TestDef, a *pts.Applied) {
	rows := [][]string{}
	var capture, applied float64
	for i, s := range a.Streams {
		rows = append(rows, []string{fmt.Sprint(i + 1), s.Label(), fmtShare(a.CaptureShares[i]), fmtShare(s.Percent)})
		capture += a.CaptureShares[i]
		applied += s.Percent
	}
	rows = append(rows, []string{"", "the applied workload", fmtShare(capture), fmtShare(applied)})
	w := a.Workload()
	params := []KV{{"Method", td.Reference()}, {"Streams", fmt.Sprint(len(a.Streams))}, {"R/W mix", pts.MixLabel(w.ReadPct)},
		{"Demand intensity", fmt.Sprintf("%d OIO – TC %d/QD %d", a.OIO, a.TC, a.QD)}}
	setup := []KV{{"Capture", a.Capture}, {"sha256", a.SHA256}, {"Format", a.Format}, {"Device", a.Device}}
	b.add(&Page{Test: td.Name, Title: "The Applied Test Workload", Setup: setup, Params: params, Landmark: "rwsw-workload",
		Blocks: []Block{
			Table{Caption: "The applied test workload: the capture's top streams, their share of the capture's I/Os and of the workload, renormalised",
				Head: []string{"#", "Stream", "capture %", "applied %"}, Widths: []float64{0.5, 2.6, 1.2, 1.2}, Align: "RLRR", Rows: rows},
			Paragraph{Lines: []string{
				fmt.Sprintf("The test applies the top %d streams of the capture, %s %% of its I/Os, renormalised to 100 %%: each I/O's stream is drawn "+
					"by share from one queue, each sequential stream continuing where its own previous I/O ended, in a region of the active range of its own.",
					len(a.Streams), fmtShare(a.Covered)),
				"Sequential rule: " + a.SequentialRule + ".",
				fmt.Sprintf("Demand intensity: %d I/Os outstanding, %s; run as TC%d/QD%d (the fewest threads of at most %d I/Os each).",
					a.OIO, a.OIOSource, a.TC, a.QD, pts.MaxQDPerThread),
				"This is a PTS-style test " + td.Reference() + ": the RWSW text's test chapters could not be verified, and no conformance to it is claimed.",
			}},
		}})
}

// rwswSteady draws the rounds of the applied workload at the capture's
// demand intensity: convergence, window, and the workload's figures at
// steady state.
func (b *builder) rwswSteady(d *demandTest, s matrix.StageResult) {
	b.stage(s)
	st := b.stageDef(s)
	if len(st.Cells) == 0 || len(s.Cells) == 0 {
		return
	}
	w := st.Cells[0].Workload
	setup := b.setup(s)
	params := b.demandParams(d, KV{"TOIO – TC/QD", fmt.Sprintf("%d – TC %d/QD %d", w.OIO(), w.TC, w.QD)}, KV{"SS rounds", ssRounds(s)})
	b.iopsTracking(d.td, s, setup, params, convergence{title: "Steady State Convergence: the applied workload", landmark: d.landmark("ss"),
		caption: "IOPS of each round of the applied workload at " + tcqd(w.TC, w.QD), plot: "Applied workload IOPS per round"})
	c := s.Cells[0]
	row := func(name string, all, read, write string) []string { return []string{name, all, read, write} }
	b.add(&Page{Test: d.td.Name, Title: "IOPS and Response Time at Steady State", Setup: setup, Params: params, Landmark: d.landmark("ss-figures"),
		Blocks: []Block{Table{Caption: fmt.Sprintf("The applied workload at %s: the average of the measurement window (rounds %d–%d)",
			tcqd(w.TC, w.QD), s.Window[0], s.Window[1]),
			Head: []string{"", "all I/O", "reads", "writes"}, Widths: []float64{2.2, 1.3, 1.3, 1.3}, Align: "LRRR",
			Rows: [][]string{
				row("IOPS", fmtIOPS(c.IOPS), fmtIOPS(c.ReadIOPS), fmtIOPS(c.WriteIOPS)),
				row("Throughput MB/s", fmtMBps(c.MBps), fmtMBps(c.ReadMBps), fmtMBps(c.WriteMBps)),
				row("Average response time ms", fmtMs(c.LatMeanMs), fmtMs(c.ReadLatMeanMs), fmtMs(c.WriteLatMean)),
				row("99 % response time ms", fmtMs(c.LatP99Ms), "", ""),
				row("99.99 % response time ms", fmtMs(c.LatP9999Ms), "", ""),
				row("99.999 % response time ms", fmtMs(c.LatP99999Ms), "", ""),
				row("Maximum response time ms", fmtMs(c.LatMaxMs), "", ""),
			}}}})
}
