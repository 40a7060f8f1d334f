package pdfreport

import (
	"fmt"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// Workloads outside the PTS have one stage and no verdict: a stage without
// results is simply not shown.
func init() {
	registerPages(pts.CustomTest, testPages{report: func(b *builder, td *pts.TestDef, stages []matrix.StageResult) {
		if len(stages) > 0 {
			b.custom(td, stages[0])
		}
	}})
}

// custom lists imported workloads that are not PTS cells, with what they
// measured; a workload that `ptsrun workload` recorded has a page of its
// own.
func (b *builder) custom(td *pts.TestDef, s matrix.StageResult) {
	b.warning = ""
	rows := [][]string{}
	for _, c := range s.Cells {
		if !c.Present() {
			continue
		}
		row := []string{c.Key.String()}
		for _, m := range td.Tables[0].Columns {
			v, _ := c.Value(m)
			row = append(row, m.Format(v))
		}
		rows = append(rows, row)
	}
	if b.opt.Fio != nil {
		b.fioGroups(s)
		return
	}
	if b.ri.Workload {
		b.workload(s)
		return
	}
	lines := []string{"These imported results ran workloads outside the PTS matrices. They are shown as measured, " +
		fmt.Sprintf("averaged over rounds %d–%d, and take no part in any steady-state verdict.", s.Window[0], s.Window[1])}
	if note := pctNote(s.Cells); note != "" {
		lines = append(lines, note)
	}
	b.add(&Page{Test: "Custom", Title: "Workloads that are not PTS cells", Landmark: string(pts.Custom), Flow: true, Blocks: []Block{
		Paragraph{Lines: lines},
		Table{Caption: "Custom workloads (99.999 %: " + pctLabel(s.Cells) + ")", Head: []string{"Workload", "IOPS", "MB/s", "Average ms", "99.999 % ms", "Maximum ms"},
			Widths: []float64{4.2, 1, 1, 1, 1, 1}, Align: "LRRRRR", Rows: rows, Small: true},
	}})
}
