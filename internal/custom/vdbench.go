package custom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/cpuidle"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/rundir"
	"github.com/ptsrun/ptsrun/internal/targets"
	"github.com/ptsrun/ptsrun/internal/units"
	"github.com/ptsrun/ptsrun/internal/vdbench"
)

// VdbenchOptions are workload's options with --vdbench.
type VdbenchOptions struct {
	File        string
	Engine      string
	DestroyData []string
	Dir         string
	Seed        uint64
	Poll        string
	CPUIdle     string // --cpu-idle
	Operator    pts.Operator
	JSON        bool
	DryRun      bool
	Version     string // ptsrun's, for what it records
}

// RunVdbench translates a vdbench parameter file and runs it: every check
// (the file, the targets, the safety gate, the run directory) before any
// I/O, then each run in order, each a cell of one run directory.
func RunVdbench(ctx context.Context, opts VdbenchOptions, out Output) (err error) {
	stdout, stderr := out.Stdout, out.Stderr
	f, err := vdbench.ParseFile(opts.File, os.ReadFile)
	if err != nil {
		return err
	}
	plan, err := vdbench.Translate(f)
	if err != nil {
		return err
	}
	for i := range plan.Runs {
		plan.Runs[i].Workload.Seed = opts.Seed
	}
	if opts.DryRun {
		if opts.JSON {
			b, err := json.MarshalIndent(plan, "", "  ")
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, string(b))
			return nil
		}
		plan.Print(stdout)
		return nil
	}
	var (
		dir      = opts.Dir
		done     []rundir.Cell
		runs     []rundir.VdbenchRun
		desc     string // the first engine's description
		started  time.Time
		recorded bool
	)
	if dir != "" {
		if err := rundir.CheckNew(dir); err != nil {
			return err
		}
	}

	// Every run's targets are checked, and gated when it writes, before
	// the first I/O; the union is the run directory's target set.
	var all []string
	for _, t := range plan.Targets {
		all = append(all, t.Spec)
	}
	union, err := targets.Check(targets.Options{Specs: all, Engine: opts.Engine})
	if err != nil {
		return fmt.Errorf("%s: %w", opts.File, err)
	}
	for _, r := range plan.Runs {
		if union.Kind == targets.Simulated && !slices.Equal(r.Targets, plan.Runs[0].Targets) {
			return fmt.Errorf("%s: run %s: the simulated drives keep their state per target set: every run of a file loads the same ones (here %v, the first run %v)",
				r.Pos, r.Name, r.Targets, plan.Runs[0].Targets)
		}
		tp, err := targets.Check(targets.Options{Specs: r.Targets, Engine: opts.Engine, DestroyData: opts.DestroyData, Gate: r.Workload.ReadPct < 100})
		if err != nil {
			return fmt.Errorf("%s: run %s: %w", r.Pos, r.Name, err)
		}
		if err := checkVdbenchRun(r, tp); err != nil {
			return fmt.Errorf("%s: run %s: %w", r.Pos, r.Name, err)
		}
	}
	poll, err := engine.ParsePoll(opts.Poll)
	if err != nil {
		return err
	}
	idle, err := cpuidle.Parse(opts.CPUIdle)
	if err != nil {
		return err
	}
	var idleState *cpuidle.State // of the latest set opened: one host
	record := func() error {
		_, err := rundir.Record(rundir.Recording{Dir: dir, Targets: union, Engine: desc, Poll: poll, CPUIdle: idleState, Started: started,
			Operator: opts.Operator, Version: opts.Version, Cells: done, Vdbench: &rundir.VdbenchRecord{File: f, Plan: plan, Runs: runs}})
		return err
	}
	if dir != "" {
		if err := union.CheckRunDir(dir); err != nil {
			return err
		}
		undo, perr := rundir.Make(dir)
		if perr != nil {
			return perr
		}
		defer func() {
			if err != nil && !recorded {
				undo()
			}
		}()
		// Held while it records, as run and resume hold theirs: a second
		// command recording into the directory, or a run, is refused.
		lock, lerr := rundir.TakeLock(dir, "workload")
		if lerr != nil {
			undo = func() {} // the holder's directory: nothing of it is removed
			return lerr
		}
		defer lock.Release() // before the undo above
		// Recording what was done when stopped: the runs done are whole
		// measurements, and a long file should not be lost to its last run.
		defer func() {
			if errors.Is(err, pts.ErrInterrupted) && len(done) > 0 {
				if rerr := record(); rerr != nil {
					err = errors.Join(err, rerr)
					return
				}
				recorded = true
				err = fmt.Errorf("%w; the %d run(s) done are recorded in %s", err, len(done), dir)
			}
		}()
	}
	started = time.Now().UTC()
	if !opts.JSON {
		fmt.Fprintf(stderr, "ptsrun workload --vdbench %s: %d run(s) on %s\n", opts.File, len(plan.Runs), strings.Join(union.Names(), ", "))
		for _, n := range plan.Notes {
			fmt.Fprintf(stderr, "  %s: %s: accepted: %s\n", n.Pos, n.Param, n.Text)
		}
	}
	var set *targets.Set
	var setSpecs []string
	defer func() {
		if set != nil {
			set.Close()
		}
	}()
	for i, r := range plan.Runs {
		if r.Pause > 0 {
			if !opts.JSON {
				fmt.Fprintf(stderr, "pausing %v (pause=)\n", r.Pause)
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w: the vdbench runs were stopped", pts.ErrInterrupted)
			case <-time.After(r.Pause):
			}
		}
		// One engine for consecutive runs on the same targets; another
		// target set, another engine. The gate ran above: files an earlier
		// run made are the run's own, and a new inspection opens them.
		if set == nil || !slices.Equal(setSpecs, r.Targets) {
			if set != nil {
				set.Close()
				set = nil
			}
			tp, err := targets.Check(targets.Options{Specs: r.Targets, Engine: opts.Engine})
			if err != nil {
				return fmt.Errorf("run %s: %w", r.Name, err)
			}
			// Held exclusively while any of the runs on these targets writes.
			writes := false
			for _, q := range plan.Runs[i:] {
				if !slices.Equal(q.Targets, r.Targets) {
					break
				}
				writes = writes || q.Workload.ReadPct < 100
			}
			if set, err = tp.Open(dir, targets.OpenOptions{Poll: poll.Duration(), ReadOnly: !writes, CPUIdle: idle}); err != nil {
				return fmt.Errorf("run %s: %w", r.Name, err)
			}
			idleState = set.CPUIdle
			if w := set.CPUIdle.Warning(); w != "" && !opts.JSON {
				fmt.Fprintf(stderr, "ptsrun workload --vdbench: %s\n", w)
			}
			setSpecs = r.Targets
			if desc == "" {
				desc = set.Engine.Describe()
			}
		}
		w := r.Workload
		if !opts.JSON {
			fmt.Fprintf(stderr, "run %d/%d %s (%s): %s on %s for %v (%v warm-up)%s\n", i+1, len(plan.Runs), r.Name, r.Pos, r.What(),
				strings.Join(r.Targets, ", "), w.Duration, w.Ramp, r.RateWords())
		}
		at := time.Now().UTC()
		m, err := engine.RunCell(ctx, set.Engine, engine.Cell{Name: r.Name, Workload: w})
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return fmt.Errorf("%w: the vdbench runs were stopped during run %s", pts.ErrInterrupted, r.Name)
			}
			return fmt.Errorf("run %s: %w", r.Name, err)
		}
		done = append(done, rundir.Cell{Key: pts.Named(r.Name), Workload: w, Measurement: m, Started: at})
		runs = append(runs, rundir.VdbenchRun{Name: r.Name, Engine: set.Engine.Describe(), Targets: r.Targets})
		if !opts.JSON {
			fmt.Fprintf(stdout, "%s:\n", r.Name)
			rundir.VdbenchResults(opts.Version, runs[len(runs)-1:], done[len(done)-1:])[0].Print(stdout)
		}
	}
	if dir != "" {
		if err := record(); err != nil {
			return err
		}
		recorded = true
	}
	if opts.JSON {
		b, err := json.MarshalIndent(struct {
			File  string                 `json:"file"`
			Runs  []rundir.VdbenchResult `json:"runs"`
			Notes []vdbench.Note         `json:"notes,omitempty"`
		}{opts.File, rundir.VdbenchResults(opts.Version, runs, done), plan.Notes}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	if dir != "" {
		fmt.Fprintf(stderr, "recorded in %s (a run directory with a cell per run: results.json, tables, report.pdf; the parameter file in vdbench/)\n", dir)
	}
	return nil
}

// checkVdbenchRun checks a run against its targets as RunWorkload checks
// a workload: sizes the targets' logical blocks take, shares fio reads,
// an active range each target holds.
func checkVdbenchRun(r vdbench.Run, tp *targets.Plan) error {
	w := r.Workload
	for _, t := range tp.Local {
		for _, bs := range w.BlockSizes() {
			if bs%t.LogicalBlock != 0 {
				return fmt.Errorf("xfersize: block size %s is not a multiple of %s's logical block size %d", units.FormatSize(bs), t.Raw, t.LogicalBlock)
			}
		}
	}
	if tp.Engine == targets.Fio {
		if err := w.WholePercentages(); err != nil {
			return fmt.Errorf("xfersize: %w: fio reads shares as whole percentages; use the native engine or whole percentages", err)
		}
		if r.EOF {
			return errors.New("seekpct=eof with --engine fio: fio would run to the end of the range whatever elapsed= says; use the native engine")
		}
	}
	for _, id := range tp.Identities {
		if id.CapacityBytes > 0 {
			if err := w.Fits(id.CapacityBytes, id.LogicalBlock); err != nil {
				return fmt.Errorf("target %s: %w", id.Spec, err)
			}
		}
	}
	return nil
}
