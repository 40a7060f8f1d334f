package rundir

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/cpuidle"
	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/targets"
)

// Checked is a run's configuration resolved and checked against its
// targets: what run and demo start, resume continues and plan prints.
// Making one changes nothing.
type Checked struct {
	Config  pts.Config
	Profile pts.Profile
	Targets *targets.Plan
	Purge   string          // the purge method, chosen once for these targets
	Poll    engine.Poll     // Config.Poll, parsed once
	CPUIdle cpuidle.Setting // Config.CPUIdle, parsed once
}

// CheckRun resolves cfg and checks it against its targets; gate applies
// the safety check to them.
func CheckRun(ctx context.Context, cfg pts.Config, gate bool) (Checked, error) {
	p, err := cfg.Resolve()
	if err != nil {
		return Checked{}, err
	}
	poll, err := engine.ParsePoll(cfg.Poll) // Resolve accepted it: from here on it is typed
	if err != nil {
		return Checked{}, err
	}
	idle, err := cpuidle.Parse(cfg.CPUIdle)
	if err != nil {
		return Checked{}, err
	}
	tp, err := targets.Check(targets.Options{Specs: cfg.Targets, Engine: cfg.Engine, FioServers: cfg.FioServers,
		DestroyData: cfg.DestroyData, Gate: gate})
	if err != nil {
		return Checked{}, err
	}
	cfg.Engine = string(tp.Engine)
	cfg.Targets = tp.Specs // relative paths made absolute: run.json names what was checked
	// A workload the engine cannot run as asked (a stream mix on fio) is
	// refused before anything is purged or written.
	for _, st := range cfg.Stages(p) {
		for _, w := range st.Workloads() {
			if err := tp.CheckWorkload(w); err != nil {
				return Checked{}, fmt.Errorf("%s: %w", st.Title, err)
			}
		}
	}
	cfg.MinBlock = max(cfg.MinBlock, tp.MinBlock())
	method, err := tp.ChoosePurge(cfg.Purge)
	if err != nil {
		return Checked{}, err
	}
	if gate {
		// A purge of the whole NVMe controller is refused here, before the
		// run directory exists, unless every namespace it erases may go.
		if _, _, err := tp.WidePurge(ctx, method, cfg.DestroyData); err != nil {
			return Checked{}, err
		}
	}
	return Checked{Config: cfg, Profile: p, Targets: tp, Purge: method, Poll: poll, CPUIdle: idle}, nil
}

// Start makes dir the run directory of the checked run c and opens its
// targets: run.json first, so that from then on a kill leaves a run that
// resume accepts. now gives run.json's time; version is ptsrun's.
func Start(ctx context.Context, c Checked, dir string, op pts.Operator, version string, now func() time.Time) (*Execution, error) {
	tp := c.Targets
	if err := tp.CheckRunDir(dir); err != nil {
		return nil, err
	}
	stages := c.Config.Stages(c.Profile)
	if err := pts.CheckTargets(stages, tp.Identities); err != nil {
		return nil, err
	}
	undo, err := Make(dir)
	if err != nil {
		return nil, err
	}
	lock, err := TakeLock(dir, "run")
	if err != nil {
		undo()
		return nil, err
	}
	host := targets.ProbeHost(version)
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: version, Build: pts.ThisBuild(version), Spec: "PTS " + pts.SpecRevision,
		Created: now().UTC(), Config: c.Config, Profile: c.Profile, Stages: stages, Targets: tp.Identities,
		Host: host, Engine: tp.Describe(host), Operator: op}
	if err := pts.WriteRunInfo(dir, ri); err != nil {
		lock.Release()
		undo()
		return nil, err
	}
	set, err := tp.Open(dir, targets.OpenOptions{Poll: c.Poll.Duration(), CPUIdle: c.CPUIdle})
	if err != nil {
		lock.Release()
		undo()
		return nil, err
	}
	// What the host's idle CPUs were held to is known once the targets
	// are open; run.json was written before, so that a kill from then on
	// leaves a run resume accepts, and is written again with it.
	if set.CPUIdle != nil {
		ri.Host.CPUIdle = set.CPUIdle
		if err := pts.WriteRunInfo(dir, ri); err != nil {
			set.Close()
			lock.Release()
			undo()
			return nil, err
		}
	}
	return &Execution{Dir: dir, Info: ri, Set: set, Purge: c.Purge, Costs: c.Costs(ctx), lock: lock}, nil
}

// ErrComplete means a run asked to resume has ended: there is nothing to
// run, only its results to rebuild.
var ErrComplete = errors.New("the run is complete")

// Resume checks the run in dir to continue it on the targets it started
// on, and opens them. run.json is outside input: its configuration is
// checked as the command line's would be, its targets are gated again
// with the confirmations of whoever resumes (destroy), must be the devices
// it recorded, and the stages that run are the ones its configuration
// builds, equal to those recorded. A run that has ended is ErrComplete.
// The run's lock is taken before its journal is read: a run that another
// process is running is refused (ErrLocked).
func Resume(ctx context.Context, dir string, destroy []string) (x *Execution, err error) {
	// A copied run directory is outside input down to its entries: no
	// links, nothing another user could change (before it is read).
	if err := device.CheckRunTree(dir); err != nil {
		return nil, err
	}
	ri, err := pts.LoadRunInfo(dir)
	if err != nil {
		return nil, err
	}
	if ri.Workload || ri.Imported {
		return nil, fmt.Errorf("%s holds a workload or imported results, not a PTS run: there is nothing to resume", dir)
	}
	lock, err := TakeLock(dir, "resume")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			lock.Release()
		}
	}()
	// What the run has done, read as the journal streams by: the stages
	// that resume are of the PTS, whose series nothing reads again.
	prior, err := pts.ReplayDir(dir, ri.Stages, pts.ScanOptions{Series: pts.NoSeries})
	if err != nil {
		return nil, err
	}
	if prior.Ended {
		return nil, fmt.Errorf("%s: %w", dir, ErrComplete)
	}
	cfg := ri.Config
	cfg.DestroyData = destroy
	if cfg.CPUIdle == "" {
		// Begun by a ptsrun before --cpu-idle, whose run measured the
		// idle CPUs as the host had them: resumed alike.
		cfg.CPUIdle = "host"
	}
	run, err := CheckRun(ctx, cfg, true)
	if err != nil {
		if errors.Is(err, device.ErrUnsafe) {
			err = fmt.Errorf("%w (resume asks again for --destroy-data naming every target the run writes)", err)
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	tp := run.Targets
	if len(tp.Identities) != len(ri.Targets) {
		return nil, fmt.Errorf("%w: %s was run on %d targets, now %d", device.ErrUnsafe, dir, len(ri.Targets), len(tp.Identities))
	}
	for i, id := range tp.Identities {
		if d := ri.Targets[i].Differences(id); len(d) > 0 {
			return nil, fmt.Errorf("%w: target %d (%s) is not the device this run started on (%s): %s",
				device.ErrUnsafe, i+1, id.Spec, ri.Targets[i].Label(), strings.Join(d, "; "))
		}
	}
	stages := run.Config.Stages(run.Profile)
	// Equal to those recorded, so prior's state is of these stages too.
	if err := pts.CheckStages(ri.Stages, stages); err != nil {
		return nil, fmt.Errorf("%s: %w: not resumed", filepath.Join(dir, RunFile), err)
	}
	if err := tp.CheckRunDir(dir); err != nil {
		return nil, err
	}
	if err := pts.CheckTargets(stages, tp.Identities); err != nil {
		return nil, err
	}
	set, err := tp.Open(dir, targets.OpenOptions{Poll: run.Poll.Duration(), CPUIdle: run.CPUIdle})
	if err != nil {
		return nil, err
	}
	// What resume appends is of this schema (engine.Series by column since 2,
	// compact telemetry readings since 3): run.json says so before the first
	// record, so that an older ptsrun refuses the run by name instead of failing on a journal line.
	// Only once the targets are open: opening them is the last check that
	// can refuse (a block device another program holds), and a refused
	// resume changes nothing. It is written back as it was loaded (the
	// fields this ptsrun knows), its schema aside.
	// A resume on a host whose idle CPUs are held otherwise than when the
	// run began (run as another user, say) is stated: run.json keeps the
	// latest, with what it began with.
	st, changed := resumedHold(set.CPUIdle, ri.Host.CPUIdle)
	if changed {
		ri.Host.CPUIdle = st
	}
	if ri.Schema < pts.Schema || changed {
		up := ri
		up.Schema = pts.Schema
		if err := pts.WriteRunInfo(dir, up); err != nil {
			set.Close()
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, RunFile), err)
		}
		ri.Schema = pts.Schema
	}
	info := ri
	info.Config, info.Profile, info.Stages = run.Config, run.Profile, stages
	return &Execution{Dir: dir, Info: info, Set: set, Purge: run.Purge, Prior: prior, Costs: run.Costs(ctx), lock: lock}, nil
}

// sameHold says whether a and b held the host's idle CPUs alike.
func sameHold(a, b cpuidle.State) bool {
	return a.Asked == b.Asked && a.Held == b.Held && a.HeldUs == b.HeldUs
}

// resumedHold is what run.json records of the idle CPUs once a resume
// holds now where the run had was, and whether that differs from was. A
// run without a record of them (begun by an older ptsrun, or stopped
// before its run.json was rewritten) differs from any hold; Began keeps
// the run's first state through several resumes. A set that holds
// nothing (simulated, fio servers) changes nothing.
func resumedHold(now, was *cpuidle.State) (*cpuidle.State, bool) {
	if now == nil || was != nil && sameHold(*now, *was) {
		return was, false
	}
	st := *now
	switch {
	case was == nil:
		st.Began = "no record of its idle CPUs"
	case was.Began != "":
		st.Began = was.Began
	default:
		st.Began = was.Label()
	}
	return &st, true
}

// Execution is a run to execute (or resume) on its opened targets.
type Execution struct {
	Dir   string
	Info  pts.RunInfo
	Set   *targets.Set
	Purge string     // the purge method (targets.Plan.ChoosePurge)
	Prior *pts.State // what the journal holds of a resumed run; nil for a new one
	// Costs are what the estimate of its time left rests on, as plan's.
	Costs pts.Costs

	lock *Lock // the run lock, held until Run ends
}

// Observer shows a run as it goes: each record as it is journaled, and
// what the records do not say.
type Observer interface {
	pts.Observer
	Begin(ri pts.RunInfo, dir string) // the run begins: its journal is open, its purge ready
	Note(msg string)                  // a long step's progress (a purge)
	Finish()                          // the runner has stopped
}

// Run runs (or resumes) the run: every record into the journal, the
// records' times from now. It closes the targets, then writes the
// results, tables and report, also when the run was stopped or failed:
// run is the runner's error (pts.ErrInterrupted when stopped), err one of
// writing them.
func (x *Execution) Run(ctx context.Context, obs Observer, now func() time.Time) (b *Built, run, err error) {
	defer x.lock.Release() // once the derived files are written
	j, err := pts.OpenJournal(x.Dir)
	if err != nil {
		x.Set.Close()
		return nil, nil, err
	}
	purger, err := x.Set.Purger(x.Purge, x.Info.Config.DestroyData, obs.Note)
	if err != nil {
		x.Set.Close()
		j.Close()
		return nil, nil, err
	}
	r := &pts.Runner{Info: x.Info, Engine: x.Set.Engine, Journal: j, Observer: obs, Purger: purger,
		Cache: x.Set.WriteCache(), Now: now, Costs: x.Costs}
	r.Telemetry, r.NoTelemetry = x.Set.Telemetry()
	if x.Info.Config.NoTelemetry {
		r.Telemetry, r.NoTelemetry = nil, "not read: the run was started with --no-telemetry"
	}
	obs.Begin(x.Info, x.Dir)
	run = r.Run(ctx, x.Prior)
	obs.Finish()
	if err := x.Set.Close(); err != nil && run == nil {
		run = err
	}
	if err := j.Close(); err != nil && run == nil {
		run = err
	}
	b, err = Derive(x.Dir)
	return b, run, err
}

// ResumeCommand is the command that resumes the run in dir on plan's
// targets, with the confirmations it asks for.
func ResumeCommand(dir string, plan *targets.Plan) string {
	line := "ptsrun resume " + shellWord(dir)
	for _, c := range plan.Confirmations() {
		line += " --destroy-data " + shellWord(c)
	}
	return line
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Imported is results ptsrun did not run, to make a run directory of:
// rounds of cells (import fio), or a published table's results
// (Results, import table).
type Imported struct {
	Info    pts.RunInfo
	Rounds  map[string][][]pts.ImportedCell
	Results *matrix.Results
}

// Import makes dir a run directory of im, and derives its results,
// tables and report from it as Report would. On any failure it removes
// what it made: nothing half-written stays.
func Import(dir string, im Imported) (*Built, error) {
	undo, err := Make(dir)
	if err != nil {
		return nil, err
	}
	b, err := importInto(dir, im)
	if err != nil {
		undo()
		return nil, err
	}
	return b, nil
}

func importInto(dir string, im Imported) (*Built, error) {
	if im.Results == nil {
		if err := pts.WriteImported(dir, im.Info, im.Rounds); err != nil {
			return nil, err
		}
		return Derive(dir)
	}
	if err := pts.WriteRunInfo(dir, im.Info); err != nil {
		return nil, err
	}
	if err := im.Results.Save(dir); err != nil {
		return nil, err
	}
	return Derive(dir)
}
