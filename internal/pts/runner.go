package pts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/precondition"
	"github.com/ptsrun/ptsrun/internal/telemetry"
)

// ErrInterrupted is returned when a signal stopped the run at a cell boundary.
var ErrInterrupted = errors.New("interrupted")

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
	// RunLeftMin and RunLeftMax are what is left of the run: the stage's
	// time left and the estimates of the stages after it (as `ptsrun
	// plan` makes them), at the pace of the cells so far. Every position
	// has them; one of a record that estimates nothing itself has the
	// stage's time left as last estimated.
	RunLeftMin, RunLeftMax time.Duration
	// A timeline's bytes written since its stage began (TGBW) and the
	// targets' capacity, for its drive fills; its steps, the step just
	// measured, and whether what is left is at most the time given (its
	// fills or steady state may end it first).
	Written, Capacity int64
	Steps             int
	Step              Step
	AtMost            bool

	estimated bool // the stage's time left is estimated here
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
	// Costs are what the estimate of the run's time left rests on (zero:
	// CostsOf the run's record).
	Costs Costs
	// Telemetry reads the drives' temperature and health between cells
	// (telemetry.go); nil or without sources, NoTelemetry says why.
	Telemetry   *telemetry.Sampler
	NoTelemetry string

	stageIdx int
	// The run's estimate; ahead[i] the estimates of stages i on that
	// the journal has not ended, summed; the time left of the stage
	// running, as last estimated; the index of the first stage not begun.
	est      RunEstimate
	ahead    [][2]time.Duration
	left     [2]time.Duration
	next     int
	cellWall time.Duration // running mean
	cellsRun int
	// Wall time against nominal time of the cells run so far, for
	// estimates of cells of different lengths.
	wallSum, nominalSum time.Duration
	// I/O ran since the last telemetry reading.
	ioSinceTelemetry bool
	ctx              context.Context
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) emit(rec Record, pos Position) error {
	if r.ctx != nil {
		if err := r.sampleTelemetry(r.ctx, rec, pos); err != nil {
			return err
		}
	}
	if rec.Time.IsZero() {
		rec.Time = r.now()
	}
	if err := r.Journal.Append(rec); err != nil {
		return err
	}
	if r.Observer != nil {
		r.place(rec, &pos)
		r.Observer.Observe(rec, pos)
	}
	return nil
}

// place completes pos, the position of record rec, with the stage's place
// in the run and the run's time left, as an observer is given it.
func (r *Runner) place(rec Record, pos *Position) {
	pos.StageIndex, pos.Stages = r.stageIdx, len(r.Info.Stages)
	pos.CellWall = r.cellWall
	r.runLeft(rec, pos)
}

// estimate makes the estimates of the stages prior has not ended, as
// plan does, for the run's time left.
func (r *Runner) estimate(prior *State) {
	c := r.Costs
	if c.Window == 0 {
		c = CostsOf(r.Info)
	}
	e := EstimateRun(r.Info.Stages, c)
	r.est = e
	r.ahead = make([][2]time.Duration, len(r.Info.Stages)+1)
	for i := len(r.Info.Stages) - 1; i >= 0; i-- {
		r.ahead[i] = r.ahead[i+1]
		if ss := prior.Stages[r.Info.Stages[i].ID]; ss == nil || !ss.Ended {
			r.ahead[i][0] += e.Stages[i].Min
			r.ahead[i][1] += e.Stages[i].Max
		}
	}
}

// beginStage counts stage i's time left from its estimate.
func (r *Runner) beginStage(i int) {
	r.next = i + 1
	if i < len(r.ahead)-1 {
		r.left = [2]time.Duration{r.scale(r.ahead[i][0] - r.ahead[i+1][0]), r.scale(r.ahead[i][1] - r.ahead[i+1][1])}
	}
}

// runLeft gives pos the run's time left: the stage's, as pos estimates it
// or as last estimated, and the estimates of the stages not begun.
func (r *Runner) runLeft(rec Record, pos *Position) {
	switch {
	case rec.Type == RecStageEnd:
		r.left = [2]time.Duration{}
	case pos.estimated:
		r.left = [2]time.Duration{pos.StageLeftMin, pos.StageLeftMax}
	}
	if r.ahead == nil {
		return
	}
	if pos.Stage != nil && !pos.estimated {
		pos.StageLeftMin, pos.StageLeftMax = r.left[0], r.left[1]
	}
	later := r.ahead[min(r.next, len(r.ahead)-1)]
	pos.RunLeftMin, pos.RunLeftMax = r.left[0]+r.scale(later[0]), r.left[1]+r.scale(later[1])
}

// scale is device time d at the pace of the cells so far, their wall
// time against their nominal time: rounds of cells of different lengths
// (a demand-intensity round's 5 min pre-write and 1 min cells) are
// estimated cell by cell, and the stages to come at the same pace.
func (r *Runner) scale(d time.Duration) time.Duration {
	if r.nominalSum <= 0 {
		return d
	}
	return time.Duration(float64(d) * float64(r.wallSum) / float64(r.nominalSum))
}

// Run executes every stage not yet complete in prior (nil for a new run).
// It returns ErrInterrupted when ctx is cancelled, after journaling it.
func (r *Runner) Run(ctx context.Context, prior *State) error {
	// Each stage is of its procedure, checked by it, before anything is
	// written.
	for _, s := range r.Info.Stages {
		if err := checkStage(s); err != nil {
			return err
		}
	}
	if prior == nil {
		prior = Replay(r.Info.Stages, nil)
	}
	r.estimate(prior)
	if err := r.emit(Record{Type: RecStart, Schema: Schema, Message: r.Engine.Describe()}, Position{}); err != nil {
		return err
	}
	if err := r.telemetryStart(); err != nil {
		return err
	}
	r.ctx = ctx
	defer func() { r.ctx = nil }()
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
		r.beginStage(i)
		proc := s.Procedure()
		// The stage as it runs: an operating point's TC/QD come from the
		// rounds before it, as the journal (and this process) measured them.
		run, point, err := proc.begin(s, r.Info.Stages, prior, r.Info.Config.SS.Window)
		if err != nil {
			_ = r.emit(Record{Type: RecError, Stage: s.ID, Error: err.Error()}, Position{Stage: s})
			return err
		}
		if err := r.runStage(ctx, proc, run, ss, prior, point); err != nil {
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
			Message: fmt.Sprintf("%d/%d", k+1, n), WallNs: int64(wall)}, r.wipcPosition(s, k+1, n, time.Since(start)))
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

// wipcPosition estimates the preconditioning's remaining time from its
// pace: done of its n pieces to write written in took.
func (r *Runner) wipcPosition(s *Stage, done, n int, took time.Duration) Position {
	p := Position{Stage: s, Cell: done, estimated: true}
	if done > 0 {
		per := took / time.Duration(done)
		p.RoundLeft = per * time.Duration(n-done)
	}
	// The stage's time left: the preconditioning's, then its own.
	if r.stageIdx < len(r.est.Stages) {
		e := r.est.Stages[r.stageIdx]
		p.StageLeftMin, p.StageLeftMax = p.RoundLeft+r.scale(e.Min-e.WIPCTime), p.RoundLeft+r.scale(e.Max-e.WIPCTime)
	}
	return p
}

// runStage starts the stage (or says where it goes on), purges and
// preconditions it as it asks, then has its procedure measure it.
func (r *Runner) runStage(ctx context.Context, proc Procedure, s *Stage, ss *StageState, prior *State, point *OperatingPoint) error {
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	pos := Position{Stage: s}
	// A stage without preconditioning is ready once purged (or when it
	// purges nothing).
	ready := ss != nil && (ss.Preconditioned || s.Precondition == nil && (ss.Purged || !s.Purge))
	switch {
	case ss == nil || !ss.Started:
		ss = &StageState{Started: true, Point: point}
		prior.Stages[s.ID] = ss
		if err := r.emit(Record{Type: RecStageStart, Stage: s.ID, Message: s.Title, Point: point}, pos); err != nil {
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
	default:
		// Ready: its procedure says where it goes on, or that it starts
		// again from a state of its own.
		rec, again := proc.resume(s, ss)
		if again != ss {
			ss = again
			prior.Stages[s.ID] = ss
		}
		if err := r.emit(rec, pos); err != nil {
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
	return proc.measure(ctx, r, s, ss)
}

func (r *Runner) interrupted(s *Stage, round, cell int) error {
	c := cell
	_ = r.emit(Record{Type: RecInterrupted, Stage: s.ID, Round: round, Cell: &c,
		Message: "stopped at a cell boundary; `ptsrun resume` continues"}, Position{Stage: s, Round: round, Cell: cell})
	return ErrInterrupted
}
