package pts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/precondition"
)

// ErrInterrupted is returned when a signal stopped the run at a cell boundary.
var ErrInterrupted = errors.New("interrupted")

func cellName(s *Stage, round int, c *Cell) string {
	return strings.NewReplacer("/", "_", " ", "_").Replace(fmt.Sprintf("%s-r%02d-c%02d-%s", s.ID, round, c.Index+1, c.Key))
}

// Position tells an observer where the run is and how long is left.
type Position struct {
	StageIndex, Stages int
	Stage              *Stage
	Round              int           // 0 before the rounds
	Cell               int           // index of the next cell, or of the one just measured
	CellWall           time.Duration // mean wall time of a cell so far
	RoundLeft          time.Duration // estimated wall time to the end of the round
	StageLeftMin       time.Duration // to the end of the stage if it becomes steady as early as it can
	StageLeftMax       time.Duration // to the end of the stage at the round limit
	// A timeline's bytes written since its stage began (TGBW) and the
	// targets' capacity, for its drive fills.
	Written, Capacity int64
}

// Observer is told about every journal record as it is written.
type Observer interface {
	Observe(r Record, p Position)
}

// Runner executes a run's stages.
type Runner struct {
	Info     RunInfo
	Engine   engine.Engine
	Purger   *precondition.Purger
	Cache    engine.WriteCacher // nil when the write cache cannot be controlled
	Journal  *Journal
	Observer Observer
	Now      func() time.Time

	stageIdx int
	cellWall time.Duration // running mean
	cellsRun int
	// Wall time against nominal time of the cells run so far, for
	// estimates of cells of different lengths.
	wallSum, nominalSum time.Duration
	point               *OperatingPoint // of the stage being started, if it has one
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) emit(rec Record, pos Position) error {
	if rec.Time.IsZero() {
		rec.Time = r.now()
	}
	if err := r.Journal.Append(rec); err != nil {
		return err
	}
	if r.Observer != nil {
		pos.StageIndex, pos.Stages = r.stageIdx, len(r.Info.Stages)
		pos.CellWall = r.cellWall
		r.Observer.Observe(rec, pos)
	}
	return nil
}

// Run executes every stage not yet complete in prior (nil for a new run).
// It returns ErrInterrupted when ctx is cancelled, after journaling it.
func (r *Runner) Run(ctx context.Context, prior *State) error {
	if prior == nil {
		prior = Replay(r.Info.Stages, nil)
	}
	if err := r.emit(Record{Type: RecStart, Schema: Schema, Message: r.Engine.Describe()}, Position{}); err != nil {
		return err
	}
	restore, err := r.setWriteCache(prior)
	if err != nil {
		return err
	}
	err = r.runStages(ctx, prior)
	// The write cache goes back to what the run found, after an interrupt or
	// an error too.
	if rerr := restore(); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		return err
	}
	return r.emit(Record{Type: RecEnd}, Position{})
}

func (r *Runner) runStages(ctx context.Context, prior *State) error {
	for i := range r.Info.Stages {
		r.stageIdx = i
		s := &r.Info.Stages[i]
		ss := prior.Stages[s.ID]
		if ss != nil && ss.Ended {
			continue
		}
		run := s
		if s.Point != nil {
			// An operating point's TC/QD come from the rounds before it,
			// as the journal (and this process) measured them.
			at, pt, err := ResolvePoint(*s, r.Info.Stages, prior.Stages, r.Info.Config.SS.Window)
			if err != nil {
				_ = r.emit(Record{Type: RecError, Stage: s.ID, Error: err.Error()}, Position{Stage: s})
				return err
			}
			at.Title = fmt.Sprintf("%s (TC%d/QD%d)", s.Title, pt.TC, pt.QD)
			if ss != nil && ss.Point != nil && (ss.Point.TC != pt.TC || ss.Point.QD != pt.QD) {
				// The journal says the stage began at another point: the
				// choice cannot have changed for the same rounds.
				err := fmt.Errorf("%s began at TC%d/QD%d, and the rounds before it now give TC%d/QD%d", s.Title, ss.Point.TC, ss.Point.QD, pt.TC, pt.QD)
				_ = r.emit(Record{Type: RecError, Stage: s.ID, Error: err.Error()}, Position{Stage: s})
				return err
			}
			run = &at
			r.point = &pt
		}
		if err := r.runStage(ctx, run, ss, prior); err != nil {
			if errors.Is(err, ErrInterrupted) || ctx.Err() != nil {
				return ErrInterrupted
			}
			_ = r.emit(Record{Type: RecError, Stage: s.ID, Error: err.Error()}, Position{Stage: s})
			return err
		}
	}
	return nil
}

// NoWriteCache is the write-cache state of a device without a volatile
// write cache.
const NoWriteCache = "none"

// Points at which a stage re-checks the write cache.
const (
	CheckAfterPurge   = "after purge"
	CheckBeforeRounds = "before rounds"
)

// checkWriteCache reads the write cache again at a point of a stage, puts it
// back to the profile's setting if it moved (a format or sanitize may reset
// it), and journals what it found.
func (r *Runner) checkWriteCache(s *Stage, when string) error {
	if r.Cache == nil {
		return nil // recorded as unknown at the start
	}
	want := r.Info.Profile.WriteCache
	res := &WriteCacheResult{Requested: want, Check: when, Before: "unknown", After: "unknown"}
	now, err := r.Cache.WriteCache()
	switch {
	case errors.Is(err, precondition.ErrNoVolatileCache):
		res.Before, res.After = NoWriteCache, NoWriteCache
	case err != nil:
		res.Error = err.Error()
	default:
		res.Before, res.After = label(now), label(now)
		if now != want {
			if err := r.Cache.SetWriteCache(want); err != nil {
				res.Error = err.Error()
			}
			res.After = "unknown"
			if again, err := r.Cache.WriteCache(); err == nil {
				res.After = label(again)
			}
		}
	}
	res.Commands = r.Cache.TakeCommands()
	return r.emit(Record{Type: RecWriteCache, Stage: s.ID, WriteCache: res}, Position{Stage: s})
}

func label(enabled bool) string {
	if enabled {
		return "enabled"
	}
	return "disabled"
}

// setWriteCache applies the profile's write-cache setting and returns the
// function that restores the state found before the run began.
func (r *Runner) setWriteCache(prior *State) (func() error, error) {
	want := r.Info.Profile.WriteCache
	noop := func() error { return nil }
	if r.Cache == nil {
		return noop, r.emit(Record{Type: RecWriteCache, WriteCache: &WriteCacheResult{Requested: want,
			Before: "unknown", After: "unknown", Error: "the target's write cache cannot be read or set"}}, Position{})
	}
	res := &WriteCacheResult{Requested: want, Before: "unknown", After: "unknown"}
	before, err := r.Cache.WriteCache()
	if errors.Is(err, precondition.ErrNoVolatileCache) {
		// Nothing to set, nothing to restore: writes are as durable as with WCD.
		res.Before, res.After = NoWriteCache, NoWriteCache
		res.Commands = r.Cache.TakeCommands()
		return noop, r.emit(Record{Type: RecWriteCache, WriteCache: res}, Position{})
	}
	if err == nil {
		res.Before = label(before)
	}
	if err != nil {
		// The set as a whole has no one state (or some device cannot be
		// read): keep each device's, to put each back.
		for path, on := range r.Cache.DeviceWriteCaches() {
			if res.Devices == nil {
				res.Devices = map[string]string{}
			}
			res.Devices[path] = label(on)
		}
	}
	original, originalDevices := res.Before, res.Devices
	// A resumed run restores what the first process found, not what it left.
	for _, wc := range prior.WriteCache {
		if wc.WriteCache != nil && !wc.WriteCache.Restore {
			original, originalDevices = wc.WriteCache.Before, wc.WriteCache.Devices
			break
		}
	}
	if err := r.Cache.SetWriteCache(want); err != nil {
		res.Error = err.Error()
	}
	if now, err := r.Cache.WriteCache(); err == nil {
		res.After = label(now)
	}
	res.Commands = r.Cache.TakeCommands()
	if err := r.emit(Record{Type: RecWriteCache, WriteCache: res}, Position{}); err != nil {
		return noop, err
	}
	return func() error {
		if original == "unknown" && len(originalDevices) > 0 {
			states := map[string]bool{}
			for path, st := range originalDevices {
				states[path] = st == "enabled"
			}
			back := &WriteCacheResult{Restore: true, Before: res.After, After: "unknown", Devices: originalDevices}
			if err := r.Cache.RestoreDeviceWriteCaches(states); err != nil {
				back.Error = err.Error()
			}
			back.Commands = r.Cache.TakeCommands()
			return r.Journal.Append(Record{Type: RecWriteCache, Time: r.now(), WriteCache: back})
		}
		if original == "unknown" || original == res.After {
			return nil
		}
		back := &WriteCacheResult{Requested: original == "enabled", Restore: true, Before: res.After, After: "unknown"}
		if err := r.Cache.SetWriteCache(back.Requested); err != nil {
			back.Error = err.Error()
		}
		if now, err := r.Cache.WriteCache(); err == nil {
			back.After = label(now)
		}
		back.Commands = r.Cache.TakeCommands()
		return r.Journal.Append(Record{Type: RecWriteCache, Time: r.now(), WriteCache: back})
	}, nil
}

// wipc is a stage's workload-independent preconditioning, in pieces for
// this run's targets: as many per pass as the smallest capacity run.json
// records gets.
func (r *Runner) wipc(s *Stage) *precondition.WIPC {
	var smallest int64
	for i, t := range r.Info.Targets {
		if i == 0 || t.CapacityBytes < smallest {
			smallest = t.CapacityBytes
		}
	}
	return &precondition.WIPC{Name: s.ID + "-precondition", Workload: *s.Precondition, PerPass: precondition.ChunksPerPass(smallest),
		Seed: func(k int) uint64 { return CellSeed(r.Info.Config.Seed, s.ID, 0, k) }}
}

// precondition runs the workload-independent preconditioning from the
// piece where the journal says it stopped, journaling each piece, then
// journals its total.
func (r *Runner) precondition(ctx context.Context, s *Stage, ss *StageState) error {
	wipc := r.wipc(s)
	n := wipc.Chunks()
	total := engine.Measurement{Engine: r.Engine.Describe()}
	total.Write.Bytes, total.Elapsed = ss.WIPCBytes, ss.WIPCElapsed
	start := time.Now()
	var journalErr error
	err := wipc.Run(ctx, r.Engine, ss.WIPCChunks, func(k int, c engine.Cell, m engine.Measurement, wall time.Duration) error {
		total.Write.Merge(m.Write)
		total.Elapsed += m.Elapsed
		total.DeviceTime = m.DeviceTime
		idx := k
		journalErr = r.emit(Record{Type: RecPrecondChunk, Stage: s.ID, Cell: &idx, Workload: &c.Workload, Measurement: &m,
			Message: fmt.Sprintf("%d/%d", k+1, n), WallNs: int64(wall)}, r.wipcPosition(s, k+1, n, start))
		return journalErr
	})
	switch {
	case journalErr != nil:
		return journalErr
	case err != nil && ctx.Err() != nil:
		return r.interrupted(s, 0, -1)
	case err != nil:
		return fmt.Errorf("preconditioning before %s: %w", s.Title, err)
	}
	return r.emit(Record{Type: RecPrecondition, Stage: s.ID, Workload: &wipc.Workload, Measurement: &total,
		WallNs: int64(time.Since(start))}, Position{Stage: s})
}

// wipcPosition estimates the preconditioning's remaining time from its pace.
func (r *Runner) wipcPosition(s *Stage, done, n int, start time.Time) Position {
	p := Position{Stage: s, Cell: done}
	if done > 0 {
		per := time.Since(start) / time.Duration(done)
		p.RoundLeft = per * time.Duration(n-done)
	}
	return p
}

func (r *Runner) runStage(ctx context.Context, s *Stage, ss *StageState, prior *State) error {
	defer func() { r.point = nil }()
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	pos := Position{Stage: s}
	// A stage without preconditioning is ready once purged (or when it
	// purges nothing).
	ready := ss != nil && (ss.Preconditioned || s.Precondition == nil && (ss.Purged || !s.Purge))
	switch {
	case ss == nil || !ss.Started:
		ss = &StageState{Started: true, Point: r.point}
		prior.Stages[s.ID] = ss
		if err := r.emit(Record{Type: RecStageStart, Stage: s.ID, Message: s.Title, Point: r.point}, pos); err != nil {
			return err
		}
	case s.Point != nil && len(ss.Samples) > 0:
		// An operating point's histogram run measures the drive its
		// pre-write leaves: after the rest a kill gave it, the pre-write
		// runs again and the samples before the kill are discarded.
		ss = &StageState{Started: true, Point: ss.Point}
		prior.Stages[s.ID] = ss
		if err := r.emit(Record{Type: RecResume, Stage: s.ID,
			Message: "restarts from its pre-write: the histogram run measures the drive the pre-write leaves, not one that rested"}, pos); err != nil {
			return err
		}
	case !ss.Preconditioned && ss.Purged && ss.WIPCChunks > 0:
		// Preconditioning was cut: it goes on from the last piece written.
		k := ss.WIPCChunks
		if err := r.emit(Record{Type: RecResume, Stage: s.ID, Cell: &k,
			Message: fmt.Sprintf("preconditioning continues at %d %%", 100*k/r.wipc(s).Chunks())}, pos); err != nil {
			return err
		}
	case !ready:
		// The purge was cut, or nothing was written after it: start the
		// stage again.
		ss = &StageState{}
		prior.Stages[s.ID] = ss
		if err := r.emit(Record{Type: RecResume, Stage: s.ID,
			Message: "interrupted before its preconditioning finished: the stage restarts from its purge"}, pos); err != nil {
			return err
		}
	case s.IsTimeline():
		k := len(ss.Samples)
		if err := r.emit(Record{Type: RecResume, Stage: s.ID, Cell: &k,
			Message: fmt.Sprintf("continues its time series at step %d of %d", k+1, len(s.Steps()))}, pos); err != nil {
			return err
		}
	default:
		next := ss.Rounds() + 1
		if err := r.emit(Record{Type: RecResume, Stage: s.ID, Round: next,
			Message: fmt.Sprintf("continues with round %d from its first cell", next)}, pos); err != nil {
			return err
		}
	}

	if !ss.Preconditioned {
		if s.Purge && !ss.Purged && !ready {
			res, err := r.Purger.Purge(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return r.interrupted(s, 0, -1)
				}
				return fmt.Errorf("purge before %s: %w", s.Title, err)
			}
			if err := r.emit(Record{Type: RecPurge, Stage: s.ID, Purge: &res}, pos); err != nil {
				return err
			}
			if err := r.checkWriteCache(s, CheckAfterPurge); err != nil {
				return err
			}
		}
		if s.Precondition != nil {
			if err := r.precondition(ctx, s, ss); err != nil {
				return err
			}
		}
	}

	if err := r.checkWriteCache(s, CheckBeforeRounds); err != nil {
		return err
	}
	if s.IsTimeline() {
		return r.runTimeline(ctx, s, ss)
	}
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
		// compact (35 KB each decoded, a few hundred bytes encoded).
		m.Compact()
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

func (r *Runner) interrupted(s *Stage, round, cell int) error {
	c := cell
	_ = r.emit(Record{Type: RecInterrupted, Stage: s.ID, Round: round, Cell: &c,
		Message: "stopped at a cell boundary; `ptsrun resume` continues"}, Position{Stage: s, Round: round, Cell: cell})
	return ErrInterrupted
}

func (r *Runner) position(s *Stage, round, next int) Position {
	p := Position{Stage: s, Round: round, Cell: next}
	// Each cell's nominal time, scaled by how long cells have taken
	// against theirs so far: rounds of cells of different lengths (a
	// demand-intensity round's 5 min pre-write and 1 min cells) are
	// estimated cell by cell.
	scale := func(d time.Duration) time.Duration {
		if r.nominalSum <= 0 {
			return d
		}
		return time.Duration(float64(d) * float64(r.wallSum) / float64(r.nominalSum))
	}
	for _, c := range s.Cells[min(next, len(s.Cells)):] {
		p.RoundLeft += scale(c.Workload.Duration)
	}
	per := scale(s.RoundTime())
	window := r.Info.Config.SS.Window
	minRounds := max(window, round) - round
	maxRounds := s.MaxRounds - round
	p.StageLeftMin = p.RoundLeft + time.Duration(minRounds)*per
	p.StageLeftMax = p.RoundLeft + time.Duration(maxRounds)*per
	return p
}

// runTimeline runs a timeline stage's steps from the first its journal
// lacks, journaling each before the next starts, until the steps end, the
// stage has written StopFills times the targets' capacity, or it has run
// for StopAfter. Neither stop is run past: the step that would pass it is
// cut at what is left of it (budget).
func (r *Runner) runTimeline(ctx context.Context, s *Stage, ss *StageState) error {
	steps := s.Steps()
	var written int64
	var ran time.Duration
	for _, m := range ss.Samples {
		written += m.Write.Bytes
		ran += m.Elapsed
	}
	var capacity int64
	for _, t := range r.Info.Targets {
		capacity += t.CapacityBytes
	}
	stopAt := int64(s.StopFills * float64(capacity))
	filled := func() bool { return stopAt > 0 && written >= stopAt-r.fillSlack(steps) }
	fillsWhy := func() string {
		return fmt.Sprintf("%g × the capacity was written (%s GB, %.3f fills)", s.StopFills, FormatNumber(float64(written)/1e9),
			float64(written)/float64(capacity))
	}
	timed := func() bool { return s.StopAfter > 0 && ran >= time.Duration(s.StopAfter) }
	timeWhy := func() string {
		return fmt.Sprintf("its time limit (%s) had passed", ShortDuration(time.Duration(s.StopAfter)))
	}
	why := "its segments have run"
	// A timeline in rounds is judged after each; on resume, from the
	// rounds its samples hold.
	var judge *roundJudge
	perRound := s.RoundSteps()
	if perRound > 0 {
		why = fmt.Sprintf("the round limit (%d) was reached", s.Timeline[0].Repeat)
		judge = newJudge(s, r.Info.Config.SS, len(ss.Samples)/perRound, s.TimelineTracking(ss.Samples))
	}
	for k := len(ss.Samples); k < len(steps); k++ {
		if filled() || timed() || judge != nil && judge.steady() {
			break
		}
		if ctx.Err() != nil {
			return r.interrupted(s, 0, k)
		}
		st := steps[k]
		w := st.Workload
		if !st.Idle {
			w.Seed = CellSeed(r.Info.Config.Seed, s.ID, st.Segment+1, k)
			if stopAt > 0 {
				w = r.budget(w, stopAt-written)
			}
		}
		if s.StopAfter > 0 {
			w.Duration = min(w.Duration, time.Duration(s.StopAfter)-ran)
		}
		cell := engine.Cell{Name: fmt.Sprintf("%s-s%05d", s.ID, k+1), Workload: w}
		var journalErr error
		err := r.Engine.RunCells(ctx, cell.Name, []engine.Cell{cell}, func(_ int, m engine.Measurement, wall time.Duration) error {
			if m.Engine == "" {
				m.Engine = r.Engine.Describe()
			}
			// A time series keeps its figures and histogram, not its seconds.
			m.Seconds = nil
			idx := k
			written += m.Write.Bytes
			ran += m.Elapsed
			pos := r.timelinePosition(s, steps, k+1)
			pos.Written, pos.Capacity = written, capacity
			journalErr = r.emit(Record{Type: RecSample, Stage: s.ID, Cell: &idx, Workload: &cell.Workload, Measurement: &m,
				WallNs: int64(wall)}, pos)
			ss.Samples = append(ss.Samples, &m)
			return journalErr
		})
		switch {
		case journalErr != nil:
			return journalErr
		case err != nil && ctx.Err() != nil:
			return r.interrupted(s, 0, k)
		case err != nil:
			return fmt.Errorf("%s step %d (%s): %w", s.Title, k+1, w, err)
		}
		if judge != nil && len(ss.Samples)%perRound == 0 {
			row := make([]engine.Measurement, perRound)
			for i, m := range ss.Samples[len(ss.Samples)-perRound:] {
				row[i] = *m
			}
			if err := r.emit(judge.round(row), r.timelinePosition(s, steps, k+1)); err != nil {
				return err
			}
		}
	}
	switch {
	case filled():
		why = fillsWhy()
	case timed():
		why = timeWhy()
	}
	if judge != nil {
		if judge.steady() {
			why = fmt.Sprintf("steady state at round %d", judge.ssRound)
		}
		rec := judge.end("")
		rec.Message = fmt.Sprintf("%d of %d steps: stopped when %s", len(ss.Samples), len(steps), why)
		return r.emit(rec, Position{Stage: s})
	}
	f := false
	return r.emit(Record{Type: RecStageEnd, Stage: s.ID, Steady: &f,
		Message: fmt.Sprintf("%d of %d steps: stopped when %s", len(ss.Samples), len(steps), why)}, Position{Stage: s})
}

// budget cuts a timeline step at what is left of its stage's byte budget
// (left bytes written, over the target set): a volume as well as its time,
// whichever comes first (engine.Workload.Passes), so that the fills rule
// ends the series at its budget, never an interval past it. Passes are of
// each target's active range and count reads too: left is spread over
// the set's ranges and scaled by the workload's write share.
func (r *Runner) budget(w engine.Workload, left int64) engine.Workload {
	share := float64(100-w.ReadPct) / 100
	var ranges int64
	for _, t := range r.Info.Targets {
		ranges += w.RangeBytes(t.CapacityBytes)
	}
	if share <= 0 || ranges <= 0 || left <= 0 {
		return w
	}
	w.Passes = float64(left) / share / float64(ranges)
	return w
}

// fillSlack is how short of a byte budget a cut step may end: each thread
// of each target rounds its share of the volume to whole blocks. Within
// it, the budget is met; another step would write blocks, not the budget.
func (r *Runner) fillSlack(steps []Step) int64 {
	var most int64
	for _, st := range steps {
		w := st.Workload
		most = max(most, int64(max(w.TC, 1))*int64(w.MeanBlockSize()+0.5))
	}
	return most * int64(max(len(r.Info.Targets), 1))
}

// timelinePosition estimates what is left of a timeline stage from its
// steps' nominal durations.
func (r *Runner) timelinePosition(s *Stage, steps []Step, next int) Position {
	p := Position{Stage: s, Cell: next}
	for _, st := range steps[min(next, len(steps)):] {
		p.RoundLeft += st.Workload.Duration
	}
	p.StageLeftMin, p.StageLeftMax = p.RoundLeft, p.RoundLeft
	return p
}
