package pts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Rounds is the procedure of a matrix of cells run round after round until
// the tracking variables are steady, or the round limit (PTS 2.0.2 §7–9):
// the stage's Cells in order each round, its Tracking judged after each
// from the window's fifth round, at most MaxRounds rounds. Each cell is
// journaled as it is measured, each round's tracking values and verdict
// when it ends; the measurement window is the first steady one, else the
// last rounds.
type Rounds struct{}

func (Rounds) Kind() Kind { return KindRounds }

func (Rounds) Tables() []TableShape { return []TableShape{ShapeMatrix, ShapeCells} }

func (Rounds) check(s Stage) error {
	for i, c := range s.Cells {
		if c.Index != i {
			return fmt.Errorf("%s: cell %d has the index %d", s.Title, i+1, c.Index+1)
		}
	}
	for _, t := range s.Tracking {
		if t.Cell < 0 || t.Cell >= len(s.Cells) {
			return fmt.Errorf("%s: %s tracks cell %d of %d", s.Title, t.Name, t.Cell+1, len(s.Cells))
		}
	}
	return nil
}

func (Rounds) begin(s *Stage, _ []Stage, _ *State, _ int) (*Stage, *OperatingPoint, error) {
	return s, nil, nil
}

func (Rounds) resume(s *Stage, ss *StageState) (Record, *StageState) {
	next := ss.Rounds() + 1
	return Record{Type: RecResume, Stage: s.ID, Round: next, Message: fmt.Sprintf("continues with round %d from its first cell", next)}, ss
}

func (Rounds) measure(ctx context.Context, r *Runner, s *Stage, ss *StageState) error {
	return r.runRounds(ctx, s, ss)
}

func (Rounds) AsRan(s Stage, _ *OperatingPoint) Stage { return s }

// Outcome reads the stage's complete rounds: the measurement window the
// stage_end names (the last rounds while it has none), and each tracking
// variable's values and the verdict journaled on that window.
func (Rounds) Outcome(in OutcomeInput) Outcome {
	s, ss, crit := in.Stage, in.State.Stages[in.Stage.ID], in.Config.SS
	n := ss.Rounds()
	last := n
	if ss.Ended && len(ss.Window) == 2 {
		last = min(ss.Window[1], n)
	}
	// An unfinished stage shows how its last window looks, never steady.
	o := Outcome{Title: s.Title, Rounds: n, Window: [2]int{max(1, last-crit.Window+1), last}, Steady: ss.Ended && ss.Steady,
		SSRound: ss.SSRound}
	values := make([][]float64, len(s.Tracking))
	for v := range s.Tracking {
		if v < len(ss.Tracking) {
			values[v] = ss.Tracking[v][:n]
		}
	}
	o.Judged = judged(crit, s.Tracking, values, n, ss.Judged)
	o.Tracking = tracked(crit, s.Tracking, values, last, o.Judged)
	return o
}

// Estimate is the preconditioning, then the window's rounds at the
// soonest and the round limit's at the latest.
func (Rounds) Estimate(s Stage, c Costs) Estimate {
	e := wipcEstimate(s, c)
	e.RoundTime = s.RoundTime() + c.PerRound + time.Duration(len(s.Cells))*c.PerCell
	e.MinRounds = min(c.Window, s.MaxRounds) // no stage runs past its limit
	e.Min = e.WIPCTime + time.Duration(e.MinRounds)*e.RoundTime
	e.Max = e.WIPCTime + time.Duration(s.MaxRounds)*e.RoundTime
	return e
}

// Plan lists a round's cells, the tracking variables and the time.
func (Rounds) Plan(s Stage, e Estimate, _ PlanInput) []string {
	var out []string
	same := len(s.Cells) > 0
	for _, c := range s.Cells {
		same = same && c.Workload.Duration == s.Cells[0].Workload.Duration
	}
	if same {
		out = append(out, fmt.Sprintf("each round, %d cells of %v (%s):", len(s.Cells), s.Cells[0].Workload.Duration, FormatETA(e.RoundTime)))
	} else {
		out = append(out, fmt.Sprintf("each round, %d cells (%s):", len(s.Cells), FormatETA(e.RoundTime))) // of their own durations
	}
	keyWidth := 16
	for _, c := range s.Cells {
		keyWidth = max(keyWidth, len(c.Key.String()))
	}
	for _, c := range s.Cells {
		line := c.Workload.String()
		if !same {
			line += fmt.Sprintf(" for %v", c.Workload.Duration)
		}
		out = append(out, fmt.Sprintf("  %2d  %-*s %s", c.Index+1, keyWidth, c.Key, line))
	}
	return append(out, trackingLine(s.Tracking),
		fmt.Sprintf("time: %s (steady at round %d) to %s (round limit %d)", FormatETA(e.Min), e.MinRounds, FormatETA(e.Max), s.MaxRounds))
}

func trimStop(s string) string { return strings.TrimSuffix(s, ".") }

func trackingLine(ts []Tracking) string {
	line := "tracking:"
	for _, t := range ts {
		line += fmt.Sprintf(" [%s]", t.Name)
	}
	return line
}

func (Rounds) About(Stage) string { return "" }

// Progress: the cell of the round, its IOPS (and in a log its MB/s and
// mean response time), and the time left of the round, the stage and the
// run.
func (Rounds) Progress(r Record, p Position) Progress {
	m, n := r.Measurement, len(p.Stage.Cells)
	left := fmt.Sprintf("round %s, stage %s, %s", FormatLeft(p.RoundLeft, p.RoundLeft, false),
		FormatLeft(p.StageLeftMin, p.StageLeftMax, false), p.RunLeftWords())
	return Progress{Done: p.Cell, Of: n,
		Status: fmt.Sprintf("r%d %d/%d %s %.0f IOPS | %s", r.Round, p.Cell, n, r.Key, m.IOPS(), left),
		Line: fmt.Sprintf("round %d cell %d/%d %s: %.0f IOPS %.1f MB/s %.3f ms | %s", r.Round, p.Cell, n, r.Key,
			m.IOPS(), m.MBps(), m.Counts().MeanLatNs()/1e6, left)}
}

// View words a stage of rounds.
func (Rounds) View(st StageStatus) StageView {
	v := StageView{Empty: st.Rounds == 0 && !st.Published, OwnRounds: true,
		NoResults: [2]string{st.Title + ": no complete round, so there is nothing to report for this stage.",
			"It was interrupted before its first round ended; `ptsrun resume` continues it."}}
	if st.Error != "" {
		v.NoResults[1] = "It was stopped by an error: " + st.Error + "."
	}
	if !st.Started {
		v.NoResults[1] = "The run ended before it started."
	}
	switch {
	case st.Published:
		v.State = "published values, one per cell: no rounds, no steady-state verdict"
	case !st.Started:
		v.State = "not run"
	case st.Rounds == 0 && st.Error != "":
		v.State = "stopped by an error before its first round"
	case st.Rounds == 0:
		v.State = "no complete round"
	case !st.Complete && st.Error != "":
		v.State = fmt.Sprintf("stopped by an error after %d round(s), not steady", st.Rounds)
	case !st.Complete:
		v.State = fmt.Sprintf("unfinished after %d round(s), not steady yet (ptsrun resume continues it)", st.Rounds)
	case st.Custom:
		v.State = fmt.Sprintf("%d round(s) of workloads outside the PTS: no steady-state verdict", st.Rounds)
	case !st.Steady:
		v.State = fmt.Sprintf("steady state NOT reached in %d rounds, window %d–%d", st.Rounds, st.Window[0], st.Window[1])
	default:
		v.State = fmt.Sprintf("steady state at round %d, window %d–%d", st.SSRound, st.Window[0], st.Window[1])
	}
	switch {
	case st.Custom:
		v.Brief = "outside the PTS: no verdict"
	case st.Published:
		v.Brief = "published value, no rounds"
	case !st.Complete:
		v.Brief = fmt.Sprintf("incomplete (%d rounds)", st.Rounds)
	case !st.Steady:
		v.Brief = fmt.Sprintf("NOT steady in %d rounds (window %d–%d)", st.Rounds, st.Window[0], st.Window[1])
	default:
		v.Brief = fmt.Sprintf("steady at round %d (window %d–%d)", st.SSRound, st.Window[0], st.Window[1])
	}
	switch {
	case !st.Complete:
		v.Note = "stage incomplete"
	case !st.Steady:
		v.Note = "SS NOT ACHIEVED"
	default:
		v.Note = "SS achieved"
	}
	switch {
	case st.Custom: // outside the PTS: no steady-state verdict to miss
	case st.Complete && !st.Steady:
		v.Code, v.Deviation = "not_steady", fmt.Sprintf("%s: steady state was not reached in %d rounds; results are from the last %d rounds (%d–%d).",
			st.Title, st.Rounds, st.Window[1]-st.Window[0]+1, st.Window[0], st.Window[1])
	case !st.Started && !st.Published:
		v.Code, v.Deviation = "not_run", st.Title+": not run; the run stopped before it."
	case !st.Complete && st.Error != "":
		v.Code, v.Deviation = "error", fmt.Sprintf("%s: stopped by an error after %s: %s.", st.Title, plural(st.Rounds, "complete round"),
			trimStop(st.Error))
	case !st.Complete:
		v.Code, v.Deviation = "incomplete", fmt.Sprintf("%s: the stage did not finish (%s).", st.Title, plural(st.Rounds, "complete round"))
	}
	return v
}

// Resumed: a round re-run from its first cell, or the stage from its purge.
func (Rounds) Resumed(s Stage, rec Record, _ string) string {
	if rec.Round > 0 {
		return fmt.Sprintf("%s round %d was re-run from its first cell.", s.Title, rec.Round)
	}
	return s.Title + " was restarted from its purge."
}

// runRounds runs rounds of the stage's cells from the first its journal
// lacks until steady state or the round limit, then journals its end.
func (r *Runner) runRounds(ctx context.Context, s *Stage, ss *StageState) error {
	judge := newJudge(s, r.Info.Config.SS, ss.Rounds(), ss.Tracking)
	for !judge.steady() && judge.rounds < s.MaxRounds {
		round := judge.rounds + 1
		if err := r.emit(Record{Type: RecRoundStart, Stage: s.ID, Round: round}, r.position(s, round, 0)); err != nil {
			return err
		}
		row, err := r.runRound(ctx, s, round)
		if err != nil {
			return err
		}
		if err := r.emit(judge.round(row), r.position(s, round, len(s.Cells))); err != nil {
			return err
		}
		// Kept, as the journal has them, for a later stage that reads
		// this one's window (a demand-intensity operating point).
		kept := make([]*engine.Measurement, len(row))
		for i := range row {
			kept[i] = &row[i]
		}
		ss.Cells = append(ss.Cells, kept)
	}
	end := judge.end(fmt.Sprintf("steady state not reached in %d rounds: the window is the last %d rounds", judge.rounds, r.Info.Config.SS.Window))
	if err := r.emit(end, Position{Stage: s, Round: judge.rounds}); err != nil {
		return err
	}
	ss.Ended, ss.Steady, ss.SSRound, ss.Window = true, *end.Steady, end.SSRound, end.Window
	return nil
}

// cellNames makes a cell's name a file name (the fio engine's job files).
var cellNames = strings.NewReplacer("/", "_", " ", "_")

func cellName(s *Stage, round int, c *Cell) string {
	return cellNames.Replace(fmt.Sprintf("%s-r%02d-c%02d-%s", s.ID, round, c.Index+1, c.Key))
}

// runRound runs a round's cells and journals each as the engine reports
// it, before the next one starts. An engine that runs the round in one go
// reports every cell when the round has ended; a round it cuts short
// journals nothing, and resume re-runs it from its first cell, as it does
// any interrupted round.
func (r *Runner) runRound(ctx context.Context, s *Stage, round int) ([]engine.Measurement, error) {
	if ctx.Err() != nil {
		return nil, r.interrupted(s, round, 0)
	}
	cells := make([]engine.Cell, len(s.Cells))
	for i := range s.Cells {
		c := &s.Cells[i]
		cells[i] = engine.Cell{Name: cellName(s, round, c), Workload: c.Workload}
		cells[i].Workload.Seed = CellSeed(r.Info.Config.Seed, s.ID, round, c.Index)
	}
	row := make([]engine.Measurement, len(s.Cells))
	measured := 0
	var journalErr error
	err := r.Engine.RunCells(ctx, fmt.Sprintf("%s-r%02d", s.ID, round), cells, func(i int, m engine.Measurement, wall time.Duration) error {
		if i != measured {
			return fmt.Errorf("the engine reported cell %d of %d after %d cells", i+1, len(cells), measured)
		}
		if m.Engine == "" {
			m.Engine = r.Engine.Describe()
		}
		r.cellsRun++
		r.cellWall += (wall - r.cellWall) / time.Duration(r.cellsRun)
		r.wallSum += wall
		r.nominalSum += cells[i].Workload.Duration
		row[i] = m
		c := &s.Cells[i]
		idx := c.Index
		if err := r.emit(Record{Type: RecCell, Stage: s.ID, Round: round, Cell: &idx, Key: c.Key,
			Workload: &cells[i].Workload, Measurement: &m, WallNs: int64(wall)}, r.position(s, round, i+1)); err != nil {
			journalErr = err
			return err
		}
		// Journaled; a long stage keeps every round, so keep the bins
		// compact (35 KB each decoded, a few hundred bytes encoded), and
		// not the series, which nothing of the run reads again (the
		// journal has it).
		m.Compact()
		row[i].Seconds = nil
		row[i].Targets = slices.Clone(row[i].Targets) // the engine's own stays as it was
		for k := range row[i].Targets {
			row[i].Targets[k].Seconds = nil
		}
		measured++
		return nil
	})
	var batch *engine.BatchError
	switch {
	case journalErr != nil:
		return nil, journalErr
	case err != nil && ctx.Err() != nil:
		return nil, r.interrupted(s, round, measured)
	case errors.As(err, &batch):
		return nil, fmt.Errorf("%s round %d: %w", s.Title, round, err)
	case err != nil && measured < len(s.Cells):
		return nil, fmt.Errorf("%s round %d cell %s: %w", s.Title, round, s.Cells[measured].Key, err)
	case err != nil:
		return nil, fmt.Errorf("%s round %d: %w", s.Title, round, err)
	case measured != len(s.Cells):
		return nil, fmt.Errorf("%s round %d: the engine returned %d cells of %d", s.Title, round, measured, len(s.Cells))
	}
	return row, nil
}

// position estimates what is left of the round and of the stage.
func (r *Runner) position(s *Stage, round, next int) Position {
	p := Position{Stage: s, Round: round, Cell: next, estimated: true}
	for _, c := range s.Cells[min(next, len(s.Cells)):] {
		p.RoundLeft += r.scale(c.Workload.Duration)
	}
	per := r.scale(s.RoundTime())
	window := r.Info.Config.SS.Window
	minRounds := min(max(window, round), s.MaxRounds) - round
	maxRounds := s.MaxRounds - round
	p.StageLeftMin = p.RoundLeft + time.Duration(minRounds)*per
	p.StageLeftMax = p.RoundLeft + time.Duration(maxRounds)*per
	return p
}
