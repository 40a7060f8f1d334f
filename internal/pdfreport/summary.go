package pdfreport

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/units"
)

// summary is the report's first page: the compliance verdict with every
// deviation, the device and platform, and every headline cell.
func (b *builder) summary() {
	res := b.res
	p := &Page{Title: "Summary: compliance, device and headline results", Landmark: "summary",
		// All eight tests have more headline rows than one sheet holds.
		Flow: true}
	p.Blocks = append(p.Blocks, Paragraph{Lines: []string{"Compliance verdict: " + res.Verdict}, Strong: true, Size: 11})
	if res.Scope != "" {
		p.Blocks = append(p.Blocks, Paragraph{Lines: []string{"Scope: " + res.Scope}, Size: 8.5})
	}
	if len(res.Deviations) > 0 {
		var lines []string
		for i, d := range res.Deviations {
			lines = append(lines, fmt.Sprintf("%d. %s", i+1, d.Text))
		}
		p.Blocks = append(p.Blocks, Paragraph{Lines: lines, Size: 8.5})
	}
	var dev []string
	for _, t := range b.ri.Targets {
		line := fmt.Sprintf("Device: %s (%s), serial %s, firmware %s, %s, %s.", orDash(strings.TrimSpace(t.Vendor+" "+t.Model)),
			targetPath(t), orDash(t.Serial), orDash(t.Firmware), decimal(t.CapacityBytes), orDash(t.Interface))
		if p := t.HBA; p != nil {
			// The header has room for the adapter's name only.
			what := "Attached through"
			if p.OnDrive {
				what = "Its NVMe controller is"
			}
			line += fmt.Sprintf(" %s %s at PCI %s, driver %s", what, p.Label(), p.Address, orDash(p.Driver))
			if p.Link != "" {
				line += ", link " + p.Link
			}
			line += "."
		}
		dev = append(dev, line)
	}
	h := b.ri.Host
	if h.Hostname == "" && h.CPUs == 0 {
		dev = append(dev, fmt.Sprintf("Platform: not known (imported results); %s.", orDash(b.ri.Engine)))
	} else {
		dev = append(dev, fmt.Sprintf("Platform: %s, motherboard %s, %s × %d, %.1f GiB, %s, kernel %s; %s; engine %s.", orDash(h.Hostname),
			orNotKnown(h.DMI.Motherboard()), orDash(h.CPUModel), h.CPUs, float64(h.MemoryBytes)/(1<<30), orDash(h.OS), orDash(h.Kernel),
			b.ptsrun(), b.ri.Engine))
	}
	p.Blocks = append(p.Blocks, Paragraph{Lines: dev, Size: 8.5})
	rows := [][]string{}
	for _, t := range res.Tests {
		for _, s := range t.Stages {
			state := b.view(s).Brief
			if b.empty(s) {
				why := "interrupted before round 1"
				switch {
				case !s.Started:
					why = "not run"
				case s.Error != "":
					why = "stopped by an error"
				}
				rows = append(rows, []string{s.Title, "–", "no result", why})
				continue
			}
			heads := matrix.StageHeadlines(pts.Def(t.Test), &s)
			for _, h := range heads {
				label, value := headline(h)
				if h.Key.Name != "" && t.Test != pts.Custom { // a sweep's cell: its workload and load
					label = fmt.Sprintf("%s TC%d/QD%d", b.cellLabel(s, *h.Cell), h.Cell.TC, h.Cell.QD)
				}
				rows = append(rows, []string{s.Title, label, value, state})
			}
			// What the test's page file says of the stage besides its
			// headline cells.
			if more := pagesOf[t.Test].summary; more != nil {
				rows = append(rows, more(b, t, s, state)...)
			}
		}
	}
	p.Blocks = append(p.Blocks, Table{Caption: "Headline results: window averages; operating points as chosen and in their histogram runs; figures of the tests over time",
		Head: []string{"Test", "Workload", "Result", "Steady state"}, Rows: rows, Widths: []float64{1.15, 1.55, 2.3, 1.85}, Align: "LLRL"})
	b.add(p)
}

// summaryRows are the rows of each of rows, in order.
func summaryRows(rows ...func(*builder, matrix.TestResult, matrix.StageResult, string) [][]string) func(*builder, matrix.TestResult, matrix.StageResult, string) [][]string {
	return func(b *builder, t matrix.TestResult, s matrix.StageResult, state string) [][]string {
		var out [][]string
		for _, r := range rows {
			out = append(out, r(b, t, s, state)...)
		}
		return out
	}
}

// headline writes a headline cell for the first page: the cell, and its
// metrics with their units. Latency figures name the load they were
// measured at, and come as avg / 99.999 % / max.
func headline(h matrix.HeadlineCell) (label, value string) {
	c := h.Cell
	label = h.Key.Label()
	if h.Test == pts.Custom {
		label = h.Key.String()
	}
	var vals, names []string
	allMs := true
	for _, m := range h.Metrics {
		v, _ := c.Value(m)
		vals = append(vals, m.Format(v))
		names = append(names, m.Short())
		allMs = allMs && m.Unit() == "ms"
	}
	switch {
	case allMs:
		return fmt.Sprintf("%s TC%d/QD%d", label, c.TC, c.QD), strings.Join(vals, " / ") + " ms (" + strings.Join(names, " / ") + ")"
	case len(h.Metrics) == 1:
		return label, vals[0] + " " + h.Metrics[0].Unit()
	}
	var parts []string
	for i, m := range h.Metrics {
		part := vals[i] + " " + m.Unit()
		if m.Unit() == "ms" {
			part += " " + names[i]
		}
		parts = append(parts, part)
	}
	return label, strings.Join(parts, ", ")
}

// The first page's rows of a stage besides its headline cells, as a test's
// page file registers them (testPages.summary).

// steadyLevels are the rows of rounds with no headline cell of their own
// (the preconditioning of HIR and of the demand-intensity tests, the
// demand sweep): their tracking variables' steady level.
func steadyLevels(b *builder, _ matrix.TestResult, s matrix.StageResult, state string) [][]string {
	var rows [][]string
	for _, tr := range s.Tracking {
		if tr.Cell < len(s.Cells) && len(tr.Verdict.Values) >= b.ri.Config.SS.Window {
			c := s.Cells[tr.Cell]
			rows = append(rows, []string{s.Title, fmt.Sprintf("%s TC%d/QD%d", b.cellLabel(s, c), c.TC, c.QD),
				"window average: " + fmtValue(tr.Unit, tr.Verdict.Average), state})
		}
	}
	return rows
}

// figureRows are the rows of a time series: the figures its test derives
// from it.
func figureRows(b *builder, _ matrix.TestResult, s matrix.StageResult, state string) [][]string {
	if s.Summary == nil {
		return nil
	}
	var rows [][]string
	workload := b.timelineWorkloads(s)
	for _, f := range s.Summary.Figures {
		rows = append(rows, []string{s.Title, workload, f.Name + ": " + f.String(), state})
	}
	return rows
}

// timelineLoad is a timeline's first segment's thread count and queue
// depth: "TC4/QD32".
func (b *builder) timelineLoad(s matrix.StageResult) string {
	if st := b.stageDef(s); len(st.Timeline) > 0 {
		w := st.Timeline[0].Workload
		return fmt.Sprintf("TC%d/QD%d", w.TC, w.QD)
	}
	return "–"
}

// timelineWorkloads names the workloads of a timeline stage: "RND 4 KiB
// 0/100 TC4/QD32", or each in turn.
func (b *builder) timelineWorkloads(s matrix.StageResult) string {
	var names []string
	st := b.stageDef(s)
	for _, g := range st.Timeline {
		w := g.Workload
		n := shortStimulus(w)
		if len(st.Timeline) > 1 && w.ReadPct == 0 {
			size := units.FormatSize(w.BlockSize)
			if len(w.BlockSplit) > 0 {
				size = "composite"
			}
			n = fmt.Sprintf("%s %s W", pts.AccessLabel(w.Access), size)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 1 {
		w := st.Timeline[0].Workload
		return fmt.Sprintf("%s TC%d/QD%d", names[0], w.TC, w.QD)
	}
	if len(names) == 0 {
		return "–"
	}
	return strings.Join(names, " / ")
}

// cellLabel names a cell by its workload: a named key ("rnd-8k-65/35-
// tc32-qd32") is the run's, not a reader's.
func (b *builder) cellLabel(s matrix.StageResult, c matrix.CellResult) string {
	if c.Key.Name == "" {
		return c.Key.Label()
	}
	for _, x := range b.stageDef(s).Cells {
		if x.Index == c.Index {
			return shortStimulus(x.Workload)
		}
	}
	return c.Key.Label()
}

// pointWorkload names an operating point stage's test stimulus at the
// point: "RND 8 KiB 65/35 TC32/QD4".
func (b *builder) pointWorkload(s matrix.StageResult) string {
	for _, g := range b.stageDef(s).Timeline {
		if g.Histogram {
			return fmt.Sprintf("%s TC%d/QD%d", shortStimulus(g.Workload), s.Point.TC, s.Point.QD)
		}
	}
	return fmt.Sprintf("TC%d/QD%d", s.Point.TC, s.Point.QD)
}
