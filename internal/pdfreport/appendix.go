package pdfreport

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// appendix is the run's record in full: A every cell's workload (and the
// fio job files), B the purge and preconditioning with every command, C
// how the report reads PTS 2.0.2 (its rules and readings), D the tracking
// variables of every round.
func (b *builder) appendix() {
	b.warning = ""
	// A: the workload of every cell.
	rows := [][]string{}
	for _, st := range b.ri.Stages {
		for _, c := range st.Cells {
			w := c.Workload
			rows = append(rows, []string{st.Title, fmt.Sprint(c.Index + 1), c.Key.String(), w.String(),
				b.cellRange(st.ID, w), time.Duration(w.Duration).String()})
		}
		// A timeline's segments, each with its whole time: its runs and
		// their idle time (at most: fills or steady state may end it first).
		for i, g := range st.Timeline {
			w := g.Workload
			what := fmt.Sprintf("%s, a sample every %v", g.Name, time.Duration(g.Interval))
			switch runs := st.Runs(g); {
			case runs.Rounds:
				what += fmt.Sprintf("; up to %d rounds", runs.Times)
			case runs.Idle > 0:
				what += fmt.Sprintf("; %d× with %v idle after each", runs.Times, runs.Idle)
			case runs.Times > 1:
				what += fmt.Sprintf("; %d×", runs.Times)
			}
			whole := time.Duration(max(1, g.Repeat)) * (w.Duration + time.Duration(g.IdleAfter))
			rows = append(rows, []string{st.Title, fmt.Sprint(i + 1), fmt.Sprintf("segment %d", i+1), what,
				fmt.Sprintf("%g–%g %%", w.RangeStart, w.ActiveRange), whole.String()})
		}
	}
	data := "Written data is incompressible random data, new for every write."
	if b.ri.Config.Engine == pts.EngineSim {
		data = "The simulated drive models incompressible data."
	}
	intro := fmt.Sprintf("Every round runs these cells in this order, each for its time, over its active range of every target "+
		"(percent of capacity). %s Each cell's random address stream is seeded from the run seed (%d), the stage, the round "+
		"and the cell, so that a rerun repeats it exactly.", data, b.ri.Config.Seed)
	if b.ri.Import != nil {
		intro = b.importedCells()
	}
	if b.opt.Fio != nil {
		intro = "Each reporting group of the fio job files is a cell, in the order the groups ran. The workload is ptsrun's " +
			"reading of the group's first job (rw, bs, numjobs, iodepth) and its time the group's longest job's; what ran " +
			"is the job files, as they are shown at the end of this appendix, with their own data patterns and seeds."
	}
	for _, st := range b.ri.Stages {
		if about := st.Procedure().About(st); about != "" {
			intro += " " + about
			break
		}
	}
	b.add(&Page{Title: "Appendix A: the workload of every cell", Landmark: "appendix-cells", Flow: true, Blocks: []Block{
		Paragraph{Lines: []string{intro}},
		Table{Caption: "Cells of every round, in loop order, and segments of every test over time", Head: []string{"Stage", "Cell", "Key", "Workload", "Active range", "Time"},
			Widths: []float64{1.2, 0.45, 1.25, 2.2, 0.8, 0.5}, Align: "LRLLRR", Small: true, Rows: rows}}})
	b.fioJobs()
	b.fioAppendix()
	if b.ri.Workload {
		return // no purge, no preconditioning, no rounds: B and C would be empty
	}
	// B: purge and preconditioning.
	var lines []string
	for _, t := range b.res.Tests {
		for _, s := range t.Stages {
			if p := s.Purge; p != nil {
				lines = append(lines, fmt.Sprintf("%s — purge %s (%s), %s", s.Title, p.Method, compliance(p.Compliant, p.Skipped),
					p.Duration.Round(time.Millisecond)))
				if p.Note != "" {
					lines = append(lines, "    note: "+p.Note)
				}
				if len(p.Erased) > 0 {
					lines = append(lines, "    controller-wide: it erased every namespace of the controller: "+strings.Join(p.Erased, ", "))
				}
				if p.Verified != "" {
					lines = append(lines, "    check: "+p.Verified)
				}
				for _, c := range p.Commands {
					lines = append(lines, fmt.Sprintf("    $ %s   → exit %d in %s; %s", strings.Join(c.Args, " "), c.Exit,
						c.Duration.Round(time.Millisecond), oneLine(c.Output)))
				}
			}
			switch pc := s.Precondition; {
			case pc != nil:
				lines = append(lines, fmt.Sprintf("%s — preconditioning %s: %.1f GB written in %s (%s MB/s)", s.Title, pc.Workload.String(),
					float64(pc.Bytes)/1e9, durationLabel(pc.Seconds), fmtMBps(pc.MBps)))
			case !s.Started || s.Published() || t.Test == pts.Custom:
			case b.ri.NotRecorded(pts.UnrecordedPrecondition):
				lines = append(lines, s.Title+" — purge and preconditioning: "+notRecorded+" (the imported output does not say what ran before it)")
			case b.view(s).OwnRounds:
				lines = append(lines, s.Title+" — no workload-independent preconditioning: its rounds of the test's own workload precondition it")
			case s.Purge != nil:
				lines = append(lines, s.Title+" — no preconditioning: the stimulus starts from the purged drive")
			default:
				lines = append(lines, s.Title+" — no purge and no preconditioning: it starts from "+b.before(s))
			}
			if s.Error != "" {
				lines = append(lines, fmt.Sprintf("%s — stopped by an error: %s", s.Title, s.Error))
			}
		}
	}
	if len(lines) == 0 {
		lines = []string{"Nothing to report."}
	}
	b.add(&Page{Title: "Appendix B: purge and preconditioning, with every command", Landmark: "appendix-purge", Flow: true,
		Blocks: []Block{Paragraph{Lines: lines, Mono: true, Size: 6.5}}})
	// C: how the report reads the PTS.
	b.readings()
	// D: tracking variables per round.
	var blocks []Block
	for _, t := range b.res.Tests {
		for _, s := range t.Stages {
			if !s.SeeksSteady() {
				continue // a time series: its samples are in tables/, its pages show them
			}
			head := []string{"Round"}
			var cells []string
			for _, tr := range s.Tracking {
				head = append(head, tr.Name)
				cells = append(cells, trackedCell(s, tr))
			}
			head = append(head, "Window ending here")
			crit := b.ri.Config.SS
			rows := [][]string{}
			for r := 0; r < s.Rounds; r++ {
				row := []string{fmt.Sprint(r + 1)}
				for _, tr := range s.Tracking {
					v := math.NaN()
					if r < len(tr.Values) {
						v = tr.Values[r]
					}
					row = append(row, fmtValue(tr.Unit, v))
				}
				if r+1 >= s.Window[0] && r+1 <= s.Window[1] {
					row[0] += " (window)"
				}
				var judged *steadystate.Joint
				if r < len(s.Judged) {
					judged = s.Judged[r]
				}
				row = append(row, windowCheck(crit, len(s.Tracking), judged, cells, r+1))
				rows = append(rows, row)
			}
			widths := []float64{0.7}
			for range s.Tracking {
				widths = append(widths, 1.1)
			}
			widths = append(widths, 2)
			blocks = append(blocks, Table{Caption: s.Title + ": tracking variables in every round", Head: head, Rows: rows,
				Widths: widths, Small: true, Align: "L" + strings.Repeat("R", len(s.Tracking)) + "L"})
		}
	}
	if len(blocks) > 0 {
		b.add(&Page{Title: "Appendix D: tracking variables per round", Landmark: "appendix-tracking", Flow: true, Blocks: blocks})
	}
}

func compliance(ok, skipped bool) string {
	switch {
	case skipped:
		return "skipped: a deviation"
	case ok:
		return "a PTS purge"
	}
	return "a substitute, NOT a PTS purge"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 110 {
		s = string(r[:110]) + "…"
	}
	if s == "" {
		return "no output"
	}
	return "output: " + s
}

// fioJobs shows one fio job file per stage when fio ran: the one its
// caller handed in (every cell's is in the run directory's fio folder).
func (b *builder) fioJobs() {
	if b.ri.Config.Engine != pts.EngineFio {
		return
	}
	for _, st := range b.ri.Stages {
		jf, ok := b.opt.JobFiles[st.ID]
		if !ok {
			continue
		}
		lines := strings.Split(strings.TrimRight(jf.Text, "\n"), "\n")
		lines = append([]string{"# " + jf.Name + " — every cell's job file is in fio/ beside run.json"}, lines...)
		b.add(&Page{Title: "Appendix A: fio job file, " + st.Title + ", round 1, cell 1", Landmark: "appendix-fio", Flow: true,
			Blocks: []Block{Paragraph{Lines: lines, Mono: true, Size: 6.5}}})
	}
}
