package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/precondition"
	"github.com/ptsrun/ptsrun/pts"
	"github.com/ptsrun/ptsrun/steadystate"
	"github.com/ptsrun/ptsrun/targets"
)

// runFlags are the flags of run and plan.
func runFlags() []cli.Flag {
	d := pts.DefaultConfig()
	return append([]cli.Flag{
		&cli.StringSliceFlag{Name: "target", Usage: "target: a block device, file:PATH[:SIZE], sim, sim:client or sim:enterprise (repeatable: one target set, loaded at once)"},
		&cli.StringFlag{Name: "out", Usage: "run directory to create"},
		&cli.StringFlag{Name: "tests", Value: pts.JoinTests(d.Tests, ","), Usage: "tests to run: " + testIDs()},
		&cli.StringFlag{Name: "profile", Value: d.Profile, Usage: "enterprise (PTS-E) or client (PTS-C)"},
		&cli.StringFlag{Name: "engine", Usage: "workload engine: native (default for devices and files), fio, or sim (simulated drives)"},
		&cli.StringSliceFlag{Name: "fio-server", Usage: "HOST:PORT[=TARGET] of a fio server whose host loads TARGET (repeatable; engine fio)"},
		&cli.StringFlag{Name: "block-sizes", Usage: "quick look, not the PTS (a deviation in the report): run only these block sizes (4k,64k,1024k) " +
			"of the IOPS and latency matrices; throughput runs the stages of those that are its own (1024k, 128k). " +
			"Must keep the tracking cells' sizes: 4k, 64k, 1024k for IOPS, 4k for latency, one of throughput's"},
		&cli.StringFlag{Name: "mixes", Usage: "quick look, not the PTS (a deviation in the report): run only these R/W mixes (100/0,65/35,0/100) " +
			"of every test, throughput's 100/0 and 0/100 included. Must keep the tracking cells' mixes: 100/0, 65/35, 0/100 for IOPS, 0/100 for latency and throughput"},
		&cli.IntFlag{Name: "tc", Usage: "IOPS test thread count (default: the profile's)"},
		&cli.IntFlag{Name: "qd", Usage: "IOPS test queue depth per thread (default: the profile's)"},
		&cli.DurationFlag{Name: "cell-time", Value: time.Duration(d.CellTime), Usage: "duration of each cell (PTS: 60s)"},
		&cli.IntFlag{Name: "max-rounds", Value: d.MaxRounds, Usage: "round limit per stage (PTS: 25)"},
		&cli.Float64Flag{Name: "active-range", Usage: "active range of every test in % (default: the profile's: IOPS E 100, C 75; throughput and latency 100)"},
		&cli.Float64Flag{Name: "tp-active-range", Usage: "throughput test's active range in % (default: --active-range, else 100; UNVERIFIED for PTS-C)"},
		&cli.Float64Flag{Name: "lat-active-range", Usage: "latency test's active range in % (default: --active-range, else 100; UNVERIFIED for PTS-C)"},
		&cli.Float64Flag{Name: "pc-active-range", Value: 100, Usage: "active range of the workload-independent preconditioning in % (PTS: 100)"},
		&cli.StringFlag{Name: "purge", Value: d.Purge, Usage: "purge method: " + strings.Join(precondition.Methods(), ", ")},
		&cli.StringSliceFlag{Name: "destroy-data", Usage: "confirm that the named target (serial or path) may be overwritten"},
		&cli.Uint64Flag{Name: "seed", Value: d.Seed, Usage: "seed of every random stream (recorded)"},
		&cli.IntFlag{Name: "ss-window", Value: d.SS.Window, Usage: "steady-state window in rounds (PTS: 5)"},
		&cli.Float64Flag{Name: "ss-max-range", Value: d.SS.MaxRange, Usage: "allowed range as a fraction of the window average (PTS: 0.20)"},
		&cli.Float64Flag{Name: "ss-max-slope", Value: d.SS.MaxSlope, Usage: "allowed slope excursion as a fraction of the average (PTS: 0.10)"},
		pollFlag(),
		&cli.BoolFlag{Name: "json", Usage: "print events as JSON lines on stdout"},
	}, append(operatorFlags(), testParamFlags()...)...)
}

// testParamFlags are the flags the tests' definitions declare.
func testParamFlags() []cli.Flag {
	var out []cli.Flag
	for _, p := range pts.AllParams() {
		out = append(out, &cli.StringFlag{Name: p.Flag, Value: p.Default, Usage: p.Usage})
	}
	return out
}

func pollFlag() cli.Flag {
	return &cli.StringFlag{Name: "poll", Value: "auto", Usage: "native engine: how long an I/O thread polls for completions before it sleeps: " +
		"auto (50µs while the I/O threads leave a CPU free), off, or a duration"}
}

// configFromFlags builds and checks the run configuration and its targets;
// gate applies the safety check to them.
func configFromFlags(c *cli.Context, gate bool) (pts.Config, pts.Profile, *targets.Plan, error) {
	if c.Args().Len() > 0 {
		return pts.Config{}, pts.Profile{}, nil, fmt.Errorf("unexpected argument %q", c.Args().First())
	}
	cfg, p, err := baseConfig(c)
	if err != nil {
		return cfg, p, nil, err
	}
	tp, err := targets.Check(targets.Options{Specs: cfg.Targets, Engine: cfg.Engine, FioServers: cfg.FioServers,
		DestroyData: cfg.DestroyData, Gate: gate})
	if err != nil {
		return cfg, p, nil, err
	}
	cfg.Engine = string(tp.Engine)
	cfg.MinBlock = max(cfg.MinBlock, tp.MinBlock())
	method, err := tp.ChoosePurge(cfg.Purge)
	if err != nil {
		return cfg, p, nil, err
	}
	if gate {
		// A purge of the whole NVMe controller is refused here, before the
		// run directory exists, unless every namespace it erases may go.
		if _, _, err := tp.WidePurge(c.Context, method, cfg.DestroyData); err != nil {
			return cfg, p, nil, err
		}
	}
	return cfg, p, tp, nil
}

func baseConfig(c *cli.Context) (pts.Config, pts.Profile, error) {
	cfg := pts.DefaultConfig()
	tests, err := pts.ParseTests(c.String("tests"))
	if err != nil {
		return cfg, pts.Profile{}, err
	}
	cfg.Tests = tests
	cfg.Profile = c.String("profile")
	cfg.Engine = c.String("engine")
	cfg.Targets = c.StringSlice("target")
	cfg.TC, cfg.QD = c.Int("tc"), c.Int("qd")
	if c.IsSet("tc") && cfg.TC == 0 || c.IsSet("qd") && cfg.QD == 0 {
		return cfg, pts.Profile{}, fmt.Errorf("thread count and queue depth must be at least 1")
	}
	cfg.CellTime = pts.Duration(c.Duration("cell-time"))
	cfg.MaxRounds = c.Int("max-rounds")
	for _, f := range []string{"active-range", "tp-active-range", "lat-active-range", "pc-active-range"} {
		if c.IsSet(f) && c.Float64(f) <= 0 {
			return cfg, pts.Profile{}, fmt.Errorf("--%s %g%% is outside (0, 100]", f, c.Float64(f))
		}
	}
	// --active-range sets every test's; the per-test flags override it.
	cfg.ActiveRange = c.Float64("active-range")
	cfg.TPActiveRange, cfg.LATActiveRange = cfg.ActiveRange, cfg.ActiveRange
	if c.IsSet("tp-active-range") {
		cfg.TPActiveRange = c.Float64("tp-active-range")
	}
	if c.IsSet("lat-active-range") {
		cfg.LATActiveRange = c.Float64("lat-active-range")
	}
	cfg.PCActiveRange = c.Float64("pc-active-range")
	if c.IsSet("block-sizes") {
		if cfg.BlockSizes, err = pts.ParseBlockSizes(c.String("block-sizes")); err != nil {
			return cfg, pts.Profile{}, err
		}
	}
	if c.IsSet("mixes") {
		if cfg.Mixes, err = pts.ParseMixes(c.String("mixes")); err != nil {
			return cfg, pts.Profile{}, err
		}
	}
	for _, p := range pts.AllParams() {
		if c.IsSet(p.Flag) {
			if cfg.Params == nil {
				cfg.Params = map[string]string{}
			}
			cfg.Params[p.Flag] = c.String(p.Flag)
		}
	}
	cfg.Purge = c.String("purge")
	cfg.DestroyData = c.StringSlice("destroy-data")
	cfg.FioServers = c.StringSlice("fio-server")
	cfg.Seed = c.Uint64("seed")
	cfg.Poll = c.String("poll")
	cfg.SS = steadystate.Criteria{Window: c.Int("ss-window"), MaxRange: c.Float64("ss-max-range"), MaxSlope: c.Float64("ss-max-slope")}
	p, err := cfg.Resolve()
	return cfg, p, err
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "purge, precondition and run the PTS tests on a target",
		UsageText: "ptsrun run --target T --out DIR [--tests iops,tp,lat] [--profile enterprise|client] [--block-sizes 4k,64k,1024k] [--mixes 100/0,65/35,0/100] ...",
		Flags:     runFlags(),
		Action: func(c *cli.Context) error {
			dir := c.String("out")
			op, err := operatorFromFlags(c)
			if err != nil {
				return err
			}
			cfg, p, tp, err := configFromFlags(c, true)
			if err != nil {
				return err
			}
			if dir == "" {
				return fmt.Errorf("no run directory: name one with --out")
			}
			return startRun(c.Context, cfg, p, tp, op, dir, c.Bool("json"), c.App.Writer, c.App.ErrWriter)
		},
	}
}

// prepareDir makes dir for a new run: it may not exist, or be empty. It
// returns a function that removes what it made, for a start that fails.
func prepareDir(dir string) (func(), error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("run directory %s: %w", dir, err)
		}
		return func() { os.RemoveAll(dir) }, nil
	case err != nil:
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	case len(entries) > 0:
		if ri, err := pts.LoadRunInfo(dir); err == nil {
			what := pts.JoinTests(ri.Config.Tests, ",")
			switch {
			case ri.Workload:
				what = "a workload"
			case ri.Imported:
				what = "imported results"
			}
			return nil, fmt.Errorf("run directory %s already holds a run (%s on %s, started %s): resume it with `ptsrun resume %s` or choose another --out",
				dir, what, strings.Join(ri.Config.Targets, ","), ri.Created.Format(time.RFC3339), dir)
		}
		return nil, fmt.Errorf("run directory %s is not empty", dir)
	}
	return func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}, nil
}

// startRun creates the run directory and runs.
func startRun(ctx context.Context, cfg pts.Config, p pts.Profile, tp *targets.Plan, op pts.Operator, dir string, asJSON bool, stdout, stderr io.Writer) error {
	if err := runClock.check(); err != nil {
		return err
	}
	if err := tp.CheckRunDir(dir); err != nil {
		return err
	}
	if err := pts.CheckTargets(cfg.Stages(p), tp.Identities); err != nil {
		return err
	}
	undo, err := prepareDir(dir)
	if err != nil {
		return err
	}
	host := targets.ProbeHost(version)
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: version, Spec: "PTS " + pts.SpecRevision,
		Created: runClock.now().UTC(), Config: cfg, Profile: p, Stages: cfg.Stages(p), Targets: tp.Identities,
		Host: host, Engine: tp.Describe(host), Operator: op}
	// run.json first: from here on, a kill leaves a run that resume accepts.
	if err := pts.WriteRunInfo(dir, ri); err != nil {
		undo()
		return err
	}
	poll, _ := pts.ParsePoll(cfg.Poll) // checked by Resolve
	set, err := tp.Open(dir, targets.OpenOptions{Poll: poll.Duration()})
	if err != nil {
		undo()
		return err
	}
	return execute(ctx, dir, ri, set, nil, asJSON, stdout, stderr)
}

// execute runs (or resumes) the run in dir and writes its results.
func execute(ctx context.Context, dir string, ri pts.RunInfo, set *targets.Set, prior *pts.State, asJSON bool, stdout, stderr io.Writer) error {
	j, err := pts.OpenJournal(dir)
	if err != nil {
		set.Engine.Close()
		return err
	}
	method, err := set.Plan.ChoosePurge(ri.Config.Purge)
	if err != nil {
		set.Engine.Close()
		j.Close()
		return err
	}
	obs := newProgress(stderr, stdout, asJSON)
	purger, err := set.Purger(method, ri.Config.DestroyData, obs.note)
	if err != nil {
		set.Engine.Close()
		j.Close()
		return err
	}
	r := &pts.Runner{Info: ri, Engine: set.Engine, Journal: j, Observer: obs, Purger: purger, Cache: set.WriteCache(), Now: runClock.now}
	obs.begin(ri, dir)
	runErr := r.Run(ctx, prior)
	obs.finish()
	if err := set.Engine.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if err := j.Close(); err != nil && runErr == nil {
		runErr = err
	}
	res, _, err := matrix.Load(dir)
	if err != nil {
		return errors.Join(runErr, err)
	}
	if err := res.Save(dir); err != nil {
		return errors.Join(runErr, err)
	}
	if _, err := writeReport(dir, "", "a4", ri, res); err != nil {
		return errors.Join(runErr, err)
	}
	if errors.Is(runErr, pts.ErrInterrupted) {
		fmt.Fprintf(stderr, "ptsrun: interrupted; the journal is intact. Continue with: ptsrun resume %s\n", dir)
		return reported(runErr)
	}
	if runErr != nil {
		return runErr
	}
	summarize(stderr, stdout, res, dir, asJSON)
	for _, t := range res.Tests {
		for _, s := range t.Stages {
			if !s.Steady && !s.Timeline { // a time series seeks no steady state
				return reported(errNotSteady) // the summary says which stage
			}
		}
	}
	return nil
}

func resumeCommand() *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "continue an interrupted run",
		UsageText: "ptsrun resume DIR",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print events as JSON lines on stdout"}},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("resume needs exactly one run directory")
			}
			return resumeRun(c.Context, c.Args().First(), c.Bool("json"), c.App.Writer, c.App.ErrWriter)
		},
	}
}

func resumeRun(ctx context.Context, dir string, asJSON bool, stdout, stderr io.Writer) error {
	ri, err := pts.LoadRunInfo(dir)
	if err != nil {
		return err
	}
	recs, _, err := pts.LoadJournal(dir)
	if err != nil {
		return err
	}
	prior := pts.Replay(ri.Stages, recs)
	if prior.Ended {
		fmt.Fprintf(stderr, "ptsrun: the run in %s is already complete; rebuilding its results\n", dir)
		return reportDir(dir, "", "a4", asJSON, stdout, stderr)
	}
	// The same targets, checked again: a device may have been mounted since.
	tp, err := targets.Check(targets.Options{Specs: ri.Config.Targets, Engine: ri.Config.Engine,
		FioServers: ri.Config.FioServers, DestroyData: ri.Config.DestroyData, Gate: true})
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if err := tp.CheckRunDir(dir); err != nil {
		return err
	}
	poll, _ := pts.ParsePoll(ri.Config.Poll)
	set, err := tp.Open(dir, targets.OpenOptions{Poll: poll.Duration()})
	if err != nil {
		return err
	}
	if len(tp.Identities) != len(ri.Targets) {
		set.Engine.Close()
		return fmt.Errorf("%w: %s was run on %d targets, now %d", device.ErrUnsafe, dir, len(ri.Targets), len(tp.Identities))
	}
	for i, id := range tp.Identities {
		if !id.SameDevice(ri.Targets[i]) {
			set.Engine.Close()
			return fmt.Errorf("%w: target %d is not the device this run started on (%s, now %s)",
				device.ErrUnsafe, i+1, ri.Targets[i].Label(), id.Label())
		}
	}
	return execute(ctx, dir, ri, set, prior, asJSON, stdout, stderr)
}

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:      "demo",
		Usage:     "run IOPS, throughput and latency on the simulated drive (a model, not hardware)",
		UsageText: "ptsrun demo [--out DIR] [--model enterprise|client] [--tested-by NAME] [--lab NAME]",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "run directory (default: ./ptsrun-demo-TIME)"},
			&cli.StringFlag{Name: "model", Value: "enterprise", Usage: "simulated drive: enterprise or client"},
			&cli.BoolFlag{Name: "json", Usage: "print events as JSON lines on stdout"},
		}, operatorFlags()...),
		Action: func(c *cli.Context) error {
			op, err := operatorFromFlags(c)
			if err != nil {
				return err
			}
			cfg := pts.DefaultConfig()
			model := c.String("model")
			cfg.Targets = []string{"sim:" + model}
			if model == "client" {
				cfg.Profile = "client"
			}
			p, err := cfg.Resolve()
			if err != nil {
				return err
			}
			tp, err := targets.Check(targets.Options{Specs: cfg.Targets, Engine: cfg.Engine})
			if err != nil {
				return err
			}
			dir := c.String("out")
			if dir == "" {
				dir = "ptsrun-demo-" + time.Now().Format("20060102-150405")
			}
			return startRun(c.Context, cfg, p, tp, op, dir, c.Bool("json"), c.App.Writer, c.App.ErrWriter)
		},
	}
}

// testIDs lists the tests --tests takes.
func testIDs() string {
	var ids []pts.TestID
	for _, t := range pts.Tests {
		ids = append(ids, t.ID)
	}
	return pts.JoinTests(ids, ", ")
}
