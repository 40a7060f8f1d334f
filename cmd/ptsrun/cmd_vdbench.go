package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/pts"
	"github.com/ptsrun/ptsrun/targets"
	"github.com/ptsrun/ptsrun/vdbench"
)

// vdbenchFlags are workload's flags for vdbench parameter files.
func vdbenchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "vdbench", Usage: "run a vdbench parameter file (sd, wd, rd) without vdbench: each rd, and each value of its for-loops, " +
			"a cell of --out DIR, on the targets its sds' luns name (takes --engine, --destroy-data, --out, --seed, --poll, --json, --dry-run)"},
		&cli.BoolFlag{Name: "dry-run", Usage: "with --vdbench: print the translation of the file, run by run, and run nothing"},
	}
}

// The workload flags a vdbench file takes the place of, including those of
// the workload options (a flag this command does not have is never set).
var vdbenchReplaces = []string{"target", "access", "read", "bs", "zones", "tc", "qd", "time", "active-range", "fio-server",
	"ramp", "random-pct", "rate-iops", "rate-mbps", "size", "preset", "interval"}

// vdbenchOptions are workload's options with --vdbench.
type vdbenchOptions struct {
	File        string
	Engine      string
	DestroyData []string
	Dir         string
	Seed        uint64
	Poll        string
	Operator    pts.Operator
	JSON        bool
	DryRun      bool
}

// vdbenchCommand is workload with --vdbench.
func vdbenchCommand(c *cli.Context) error {
	if !c.IsSet("vdbench") {
		return errors.New("--dry-run goes with --vdbench FILE")
	}
	if c.Args().Len() > 0 {
		return fmt.Errorf("unexpected argument %q", c.Args().First())
	}
	for _, f := range vdbenchReplaces {
		if c.IsSet(f) {
			return fmt.Errorf("--%s: the vdbench file gives the targets and the workload (with --vdbench: --engine, --destroy-data, --out, --seed, --poll, --json, --dry-run)", f)
		}
	}
	op, err := operatorFromFlags(c)
	if err != nil {
		return err
	}
	dir, err := outPath(c, "out")
	if err != nil {
		return err
	}
	opts := vdbenchOptions{File: c.String("vdbench"), Engine: c.String("engine"), DestroyData: c.StringSlice("destroy-data"),
		Dir: dir, Seed: c.Uint64("seed"), Poll: c.String("poll"), Operator: op, JSON: c.Bool("json"), DryRun: c.Bool("dry-run")}
	return runVdbench(c.Context, opts, c.App.Writer, c.App.ErrWriter)
}

// vdbenchResult is one run's measurement in --json and DIR/vdbench.json.
type vdbenchResult struct {
	Name string `json:"name"`
	workloadResult
}

// runVdbench translates a vdbench parameter file and runs it: every check
// (the file, the targets, the safety gate, the run directory) before any
// I/O, then each run in order, each a cell of one run directory.
func runVdbench(ctx context.Context, opts vdbenchOptions, stdout, stderr io.Writer) (err error) {
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
		done     []recordedCell
		results  []vdbenchResult
		desc     string // the first engine's description
		started  time.Time
		recorded bool
	)
	if dir != "" {
		if err := checkNewDir(dir); err != nil {
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
	runs := plan.Runs
	for _, r := range runs {
		if union.Kind == targets.Simulated && !slices.Equal(r.Targets, plan.Runs[0].Targets) {
			return fmt.Errorf("%s: run %s: the simulated drives keep their state per target set: every run of a file loads the same ones (here %v, the first run %v)",
				r.Pos, r.Name, r.Targets, plan.Runs[0].Targets)
		}
		w := r.Workload
		tp, err := targets.Check(targets.Options{Specs: r.Targets, Engine: opts.Engine, DestroyData: opts.DestroyData, Gate: w.ReadPct < 100})
		if err != nil {
			return fmt.Errorf("%s: run %s: %w", r.Pos, r.Name, err)
		}
		if err := checkVdbenchRun(r, tp); err != nil {
			return fmt.Errorf("%s: run %s: %w", r.Pos, r.Name, err)
		}
	}
	poll, err := pts.ParsePoll(opts.Poll)
	if err != nil {
		return err
	}
	if dir != "" {
		if err := union.CheckRunDir(dir); err != nil {
			return err
		}
		undo, perr := prepareDir(dir)
		if perr != nil {
			return perr
		}
		defer func() {
			if err != nil && !recorded {
				undo()
			}
		}()
		// Recording what was done when stopped: the runs done are whole
		// measurements, and a long file should not be lost to its last run.
		defer func() {
			if errors.Is(err, pts.ErrInterrupted) && len(done) > 0 {
				if rerr := recordVdbench(dir, opts, f, plan, union, desc, poll, started, done, results); rerr != nil {
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
		fmt.Fprintf(stderr, "ptsrun workload --vdbench %s: %d run(s) on %s\n", opts.File, len(runs), strings.Join(union.Names(), ", "))
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
	for i, r := range runs {
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
			for _, q := range runs[i:] {
				if !slices.Equal(q.Targets, r.Targets) {
					break
				}
				writes = writes || q.Workload.ReadPct < 100
			}
			if set, err = tp.Open(dir, targets.OpenOptions{Poll: poll.Duration(), ReadOnly: !writes}); err != nil {
				return fmt.Errorf("run %s: %w", r.Name, err)
			}
			setSpecs = r.Targets
			if desc == "" {
				desc = set.Engine.Describe()
			}
		}
		w := r.Workload
		if !opts.JSON {
			fmt.Fprintf(stderr, "run %d/%d %s (%s): %s on %s for %v (%v warm-up)%s\n", i+1, len(runs), r.Name, r.Pos, r.What(),
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
		res := workloadResult{Tool: "ptsrun", Version: version, Engine: set.Engine.Describe(), Workload: w, Targets: r.Targets,
			Elapsed: m.Elapsed.Seconds(), Read: dirOf(m.Read, m.Elapsed), Write: dirOf(m.Write, m.Elapsed),
			Total: dirOf(m.Total(), m.Elapsed), CPU: m.CPU}
		for _, t := range m.Targets {
			res.PerTgt = append(res.PerTgt, targetJSON{Target: t.Target, Host: t.Host, Read: dirOf(t.Read, m.Elapsed), Write: dirOf(t.Write, m.Elapsed), CPU: t.CPU})
		}
		done = append(done, recordedCell{Key: pts.Named(r.Name), Workload: w, Measurement: m, Started: at})
		results = append(results, vdbenchResult{Name: r.Name, workloadResult: res})
		if !opts.JSON {
			fmt.Fprintf(stdout, "%s:\n", r.Name)
			printWorkload(stdout, res)
		}
	}
	if dir != "" {
		if err := recordVdbench(dir, opts, f, plan, union, desc, poll, started, done, results); err != nil {
			return err
		}
		recorded = true
	}
	if opts.JSON {
		b, err := json.MarshalIndent(struct {
			File  string          `json:"file"`
			Runs  []vdbenchResult `json:"runs"`
			Notes []vdbench.Note  `json:"notes,omitempty"`
		}{opts.File, results, plan.Notes}, "", "  ")
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

// checkVdbenchRun checks a run against its targets as runWorkload checks a
// workload: sizes the targets' logical blocks take, shares fio reads, an
// active range each target holds.
func checkVdbenchRun(r vdbench.Run, tp *targets.Plan) error {
	w := r.Workload
	for _, t := range tp.Local {
		for _, bs := range w.BlockSizes() {
			if bs%t.LogicalBlock != 0 {
				return fmt.Errorf("xfersize: block size %s is not a multiple of %s's logical block size %d", engine.FormatSize(bs), t.Raw, t.LogicalBlock)
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

// recordVdbench makes dir a run directory of the runs done, a cell each,
// with the parameter file and its includes in dir/vdbench/ and the
// translation and results in dir/vdbench.json.
func recordVdbench(dir string, opts vdbenchOptions, f *vdbench.File, plan *vdbench.Plan, union *targets.Plan, desc string,
	poll pts.Poll, started time.Time, done []recordedCell, results []vdbenchResult) error {
	if err := os.MkdirAll(filepath.Join(dir, "vdbench"), 0o755); err != nil {
		return err
	}
	taken := map[string]bool{}
	for i, src := range f.Sources {
		name := filepath.Base(src.Name)
		if taken[name] {
			name = fmt.Sprintf("%d-%s", i, name)
		}
		taken[name] = true
		if err := pts.WriteFileAtomic(filepath.Join(dir, "vdbench", name), src.Text); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(struct {
		Plan    *vdbench.Plan   `json:"translation"`
		Results []vdbenchResult `json:"results"`
	}{plan, results}, "", "  ")
	if err != nil {
		return err
	}
	if err := pts.WriteFileAtomic(filepath.Join(dir, "vdbench.json"), append(b, '\n')); err != nil {
		return err
	}
	return recordWorkload(workloadRecord{Dir: dir, Targets: union, Engine: desc, Poll: poll, Started: started,
		Operator: opts.Operator, Cells: done})
}
