package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/clihelp"
	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/metrics"
	"github.com/ptsrun/ptsrun/internal/precondition"
	"github.com/ptsrun/ptsrun/internal/progress"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/rundir"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// runFlags are the flags of run and plan, in their help groups.
func runFlags() []cli.Flag {
	d := pts.DefaultConfig()
	g := clihelp.Group
	return slices.Concat(
		g("Targets and safety",
			&cli.StringSliceFlag{Name: "target", Usage: "target: a block device, file:PATH[:SIZE], sim, sim:client or sim:enterprise (repeatable: one target set, loaded at once)"},
			&cli.StringSliceFlag{Name: "fio-server", Usage: "HOST:PORT[=TARGET] of a fio server whose host loads TARGET (repeatable; engine fio)"},
			&cli.StringFlag{Name: "purge", Value: d.Purge, Usage: "purge method: " + strings.Join(precondition.Methods(), ", ")},
			&cli.BoolFlag{Name: "no-telemetry", Usage: "do not read the drives' temperature and health (SMART, hwmon) between cells"}, destroyDataFlag()),
		g("Tests",
			&cli.StringFlag{Name: "tests", Value: pts.JoinTests(d.Tests, ","), Usage: "tests to run: " + testIDs() + ", or all"},
			&cli.StringFlag{Name: "profile", Value: d.Profile, Usage: "enterprise (PTS-E) or client (PTS-C)"},
			&cli.StringFlag{Name: "block-sizes", Usage: "quick look, not the PTS (a deviation in the report): run only these block sizes (4k,64k,1024k) " +
				"of the IOPS and latency matrices; throughput runs the stages of those that are its own (1024k, 128k). " +
				"Must keep the tracking cells' sizes: 4k, 64k, 1024k for IOPS, 4k for latency, one of throughput's"},
			&cli.StringFlag{Name: "mixes", Usage: "quick look, not the PTS (a deviation in the report): run only these R/W mixes (100/0,65/35,0/100) " +
				"of every test, throughput's 100/0 and 0/100 included. Must keep the tracking cells' mixes: 100/0, 65/35, 0/100 for IOPS, 0/100 for latency and throughput"},
			&cli.DurationFlag{Name: "cell-time", Value: time.Duration(d.CellTime), DefaultText: pts.ShortDuration(time.Duration(d.CellTime)) + ", the PTS's", Usage: "duration of each cell"},
			&cli.Float64Flag{Name: "active-range", Usage: "active range of every test in %", DefaultText: pts.LeftOut("active-range")},
			&cli.Float64Flag{Name: "pc-active-range", Value: 100, DefaultText: pts.LeftOut("pc-active-range"), Usage: "active range of the workload-independent preconditioning in %"},
			&cli.Uint64Flag{Name: "seed", Value: d.Seed, Usage: "seed of every random stream (recorded)"}),
		g("RWSW",
			&cli.StringFlag{Name: "capture", Usage: "the capture --tests rwsw applies (a fio iolog, blkparse or biosnoop output), read once into run.json; docs/capture.md"},
			&cli.StringFlag{Name: "capture-format", Value: "auto", Usage: "the capture's format: auto, iolog, blkparse, biosnoop"},
			&cli.StringFlag{Name: "capture-device", Value: "all", Usage: "the capture's device to apply, or all"}),
		g("IOPS/TP/LAT",
			&cli.IntFlag{Name: "tc", Usage: "IOPS test thread count", DefaultText: pts.LeftOut("tc")},
			&cli.IntFlag{Name: "qd", Usage: "IOPS test queue depth per thread", DefaultText: pts.LeftOut("qd")},
			&cli.Float64Flag{Name: "tp-active-range", Usage: "throughput test's active range in % " + pts.HelpSource("tp-active-range"), DefaultText: pts.LeftOut("tp-active-range")},
			&cli.Float64Flag{Name: "lat-active-range", Usage: "latency test's active range in % " + pts.HelpSource("lat-active-range"), DefaultText: pts.LeftOut("lat-active-range")}),
		g("Steady state",
			&cli.IntFlag{Name: "max-rounds", Value: d.MaxRounds, DefaultText: fmt.Sprint(d.MaxRounds, ", the PTS's"), Usage: "round limit per stage"},
			&cli.IntFlag{Name: "ss-window", Value: d.SS.Window, DefaultText: fmt.Sprint(d.SS.Window, ", the PTS's"), Usage: "steady-state window in rounds"},
			&cli.Float64Flag{Name: "ss-max-range", Value: d.SS.MaxRange, DefaultText: fmt.Sprint(d.SS.MaxRange, ", the PTS's"), Usage: "allowed range as a fraction of the window average"},
			&cli.Float64Flag{Name: "ss-max-slope", Value: d.SS.MaxSlope, DefaultText: fmt.Sprint(d.SS.MaxSlope, ", the PTS's"), Usage: "allowed slope excursion as a fraction of the average"}),
		testParamFlags(),
		g("Engine",
			&cli.StringFlag{Name: "engine", Usage: "workload engine: native, fio or sim", DefaultText: "native; sim for simulated drives, fio with --fio-server"},
			pollFlag(), cpuIdleFlag()),
		operatorFlags(),
		g("Output",
			&cli.StringFlag{Name: "out", Usage: "run directory to create"},
			&cli.BoolFlag{Name: "json", Usage: "print events as JSON lines on stdout"},
			progressPeriodFlag()),
	)
}

// progressPeriodFlag is how often, at least, a log shows a time series:
// hidden, for tests that do not wait a minute.
func progressPeriodFlag() cli.Flag {
	return &cli.DurationFlag{Name: "progress-period", Value: time.Minute, Hidden: true,
		Usage: "off a terminal, print a line of a time series at least this often"}
}

// testParamFlags are the flags the tests' definitions declare, a help
// group per test.
func testParamFlags() []cli.Flag {
	var out []cli.Flag
	for _, t := range pts.Tests {
		for _, p := range t.Params {
			usage := strings.TrimSpace(p.Usage + " " + pts.HelpSource(p.Flag)) // a default that is a reading says whose
			var f cli.Flag = &cli.StringFlag{Name: p.Flag, Value: p.Default, Usage: usage}
			if p.Switch {
				f = &cli.BoolFlag{Name: p.Flag, Usage: usage}
			}
			out = append(out, clihelp.Group(strings.ToUpper(string(t.ID)), f)...)
		}
	}
	return out
}

// destroyDataFlag confirms a target may be overwritten.
func destroyDataFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "destroy-data", Usage: "confirm that the named target (serial or path) may be overwritten"}
}

// cpuIdleFlag is how quick to wake the host's idle CPUs are kept while
// ptsrun measures local targets (cpuidle.Parse).
func cpuIdleFlag() cli.Flag {
	return &cli.StringFlag{Name: "cpu-idle", Value: "shallow", Usage: "how quick to wake the host's idle CPUs are kept while measuring a device on this host " +
		"(PM QoS, /dev/cpu_dma_latency; needs root and a cpuidle driver): shallow (they poll: no wake-up latency in the device's), host (as the host has them), " +
		"or the longest wake-up allowed, such as 20us"}
}

func pollFlag() cli.Flag {
	return &cli.StringFlag{Name: "poll", Value: "auto", Usage: "native engine: how long an I/O thread polls for completions before it sleeps: " +
		"auto (while the I/O threads leave a CPU free, the host's idle CPUs do not poll and, at a depth above 1, completions come 10µs or more apart: 50µs, or up to 1ms when completions come that often), off, or a duration"}
}

// runOptions are the options of run and plan: the configuration as the
// flags set it, before pts.Config.Resolve, who runs it, and where.
type runOptions struct {
	Config   pts.Config
	Operator pts.Operator
	Dir      string            // --out; plan ignores it
	Metrics  *metrics.Textfile // --metrics-textfile, checked; nil without it, and for plan
	JSON     bool
	// Period is how often, at least, a log shows a time series.
	Period time.Duration
}

// runOptionsFrom reads the flags of run and plan.
func runOptionsFrom(c *cli.Context) (runOptions, error) {
	op, err := operatorFromFlags(c)
	if err != nil {
		return runOptions{}, err
	}
	if c.Args().Len() > 0 {
		return runOptions{}, fmt.Errorf("unexpected argument %q", c.Args().First())
	}
	cfg, err := configFromFlags(c)
	if err != nil {
		return runOptions{}, err
	}
	dir, err := outPath(c, "out")
	if err != nil {
		return runOptions{}, err
	}
	tf, err := metrics.Open(c.String(metrics.Flag), version, c.App.ErrWriter)
	if err != nil {
		return runOptions{}, err
	}
	return runOptions{Config: cfg, Operator: op, Dir: dir, Metrics: tf, JSON: c.Bool("json"), Period: c.Duration("progress-period")}, nil
}

// outPath is the path flag name names, made absolute against the working
// directory before anything inspects it (device.AbsPath); "" when unset.
func outPath(c *cli.Context, name string) (string, error) {
	p := c.String(name)
	if p == "" {
		return "", nil
	}
	a, err := device.AbsPath(p)
	if err != nil {
		return "", fmt.Errorf("--%s: %w", name, err)
	}
	return a, nil
}

// configFromFlags reads the run configuration from the flags. It is checked
// by pts.Config.Resolve (checkRun).
func configFromFlags(c *cli.Context) (pts.Config, error) {
	cfg := pts.DefaultConfig()
	tests, err := pts.ParseTests(c.String("tests"))
	if err != nil {
		return cfg, err
	}
	cfg.Tests = tests
	cfg.Profile = c.String("profile")
	cfg.Engine = c.String("engine")
	cfg.Targets = c.StringSlice("target")
	cfg.TC, cfg.QD = c.Int("tc"), c.Int("qd")
	// Config's 0 is the setting left out: a 0 given is refused as Resolve
	// refuses a value out of range.
	for _, f := range []string{"tc", "qd"} {
		if c.IsSet(f) && c.Int(f) == 0 {
			return cfg, pts.Refused(f, 0)
		}
	}
	for _, f := range []string{"active-range", "tp-active-range", "lat-active-range", "pc-active-range"} {
		if c.IsSet(f) && c.Float64(f) <= 0 {
			return cfg, pts.Refused(f, c.Float64(f))
		}
	}
	cfg.CellTime, cfg.NoTelemetry = pts.Duration(c.Duration("cell-time")), c.Bool("no-telemetry")
	cfg.MaxRounds = c.Int("max-rounds")
	// --active-range sets every test's; the per-test flags override it.
	cfg.ActiveRange = c.Float64("active-range")
	cfg.TPActiveRange, cfg.LATActiveRange, cfg.TimelineActiveRange = cfg.ActiveRange, cfg.ActiveRange, cfg.ActiveRange
	if c.IsSet("tp-active-range") {
		cfg.TPActiveRange = c.Float64("tp-active-range")
	}
	if c.IsSet("lat-active-range") {
		cfg.LATActiveRange = c.Float64("lat-active-range")
	}
	cfg.PCActiveRange = c.Float64("pc-active-range")
	if c.IsSet("block-sizes") {
		if cfg.BlockSizes, err = pts.ParseBlockSizes(c.String("block-sizes")); err != nil {
			return cfg, err
		}
	}
	if c.IsSet("mixes") {
		if cfg.Mixes, err = pts.ParseMixes(c.String("mixes")); err != nil {
			return cfg, err
		}
	}
	for _, p := range pts.AllParams() {
		if c.IsSet(p.Flag) {
			if cfg.Params == nil {
				cfg.Params = map[string]string{}
			}
			cfg.Params[p.Flag] = c.String(p.Flag)
			if p.Switch {
				cfg.Params[p.Flag] = strconv.FormatBool(c.Bool(p.Flag))
			}
		}
	}
	cfg.Purge = c.String("purge")
	cfg.DestroyData = c.StringSlice("destroy-data")
	cfg.FioServers = c.StringSlice("fio-server")
	cfg.Seed = c.Uint64("seed")
	cfg.Poll = c.String("poll") // run.json keeps the text; checkRun parses it
	cfg.CPUIdle = c.String("cpu-idle")
	cfg.SS = steadystate.Criteria{Window: c.Int("ss-window"), MaxRange: c.Float64("ss-max-range"), MaxSlope: c.Float64("ss-max-slope")}
	if err := rundir.ApplyCapture(&cfg, c.String("capture"), c.String("capture-format"), c.String("capture-device")); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// checkedRun is a run's configuration resolved and checked against its
// targets (rundir.CheckRun): what run and demo start and plan prints.
type checkedRun = rundir.Checked

// checkRun resolves cfg and checks it against its targets; gate applies the
// safety check to them.
func checkRun(ctx context.Context, cfg pts.Config, gate bool) (checkedRun, error) {
	return rundir.CheckRun(ctx, cfg, gate)
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "purge, precondition and run the PTS tests on a target",
		UsageText: "ptsrun run --target T --destroy-data SERIAL|PATH --out DIR [--tests iops,tp,lat] [--profile enterprise|client] [--block-sizes 4k,64k,1024k] [--mixes 100/0,65/35,0/100] ...",
		Flags:     append(runFlags(), clihelp.Group("Output", &cli.StringFlag{Name: metrics.Flag, Usage: metrics.Usage})...),
		Action: func(c *cli.Context) error {
			opts, err := runOptionsFrom(c)
			if err != nil {
				return err
			}
			return runRun(c.Context, opts, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// runRun checks the run and its targets, makes the run directory and runs.
func runRun(ctx context.Context, opts runOptions, stdout, stderr io.Writer) error {
	run, err := checkRun(ctx, opts.Config, true)
	if err != nil {
		return err
	}
	if opts.Dir == "" {
		return fmt.Errorf("no run directory: name one with --out")
	}
	return startRun(ctx, run, opts.Operator, opts.Dir, opts.Metrics, opts.JSON, opts.Period, stdout, stderr)
}

// startRun makes the run directory and runs.
func startRun(ctx context.Context, run checkedRun, op pts.Operator, dir string, tf *metrics.Textfile, asJSON bool, period time.Duration, stdout, stderr io.Writer) error {
	if err := runClock.check(); err != nil {
		return err
	}
	x, err := rundir.Start(ctx, run, dir, op, version, runClock.now)
	if err != nil {
		return err
	}
	return execute(ctx, x, tf, asJSON, period, stdout, stderr)
}

// execute runs (or resumes) x, then prints its summary, or how to
// resume it when it was stopped; a log shows a time series at least once
// a period; tf, if any, is written beside the display.
func execute(ctx context.Context, x *rundir.Execution, tf *metrics.Textfile, asJSON bool, period time.Duration, stdout, stderr io.Writer) error {
	b, runErr, err := x.Run(ctx, metrics.Tee(progress.New(stderr, stdout, asJSON, version, period), tf), runClock.now)
	if err != nil {
		return errors.Join(runErr, err)
	}
	if errors.Is(runErr, pts.ErrInterrupted) {
		fmt.Fprintf(stderr, "ptsrun: interrupted; the journal is intact. Continue with: %s\n", rundir.ResumeCommand(x.Dir, x.Set.Plan))
		return reported(runErr)
	}
	if runErr != nil {
		return runErr
	}
	printSummary(stdout, b.Summary(), asJSON)
	if !b.Steady() {
		return reported(errNotSteady) // the summary says which stage
	}
	return nil
}

// resumeOptions are resume's options.
type resumeOptions struct {
	Dir string
	// DestroyData confirms again, for whoever resumes, every target the
	// run writes: run.json's confirmations are not theirs.
	DestroyData []string
	JSON        bool
	Period      time.Duration     // how often, at least, a log shows a time series
	Metrics     *metrics.Textfile // --metrics-textfile, checked
}

func resumeCommand() *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "continue an interrupted run",
		UsageText: "ptsrun resume DIR [--destroy-data SERIAL-OR-PATH ...]",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "destroy-data", Usage: "confirm again that the named target (serial or path) may be overwritten: every target the run writes"},
			&cli.BoolFlag{Name: "json", Usage: "print events as JSON lines on stdout"},
			progressPeriodFlag(),
			&cli.StringFlag{Name: metrics.Flag, Usage: metrics.Usage},
			&cli.StringFlag{Name: "capture", Usage: "an rwsw run's capture, checked to be the file it started with (its sha256)"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("resume needs exactly one run directory")
			}
			if err := rundir.CheckCapture(c.Args().First(), c.String("capture")); err != nil {
				return err
			}
			tf, err := metrics.Open(c.String(metrics.Flag), version, c.App.ErrWriter)
			if err != nil {
				return err
			}
			dir, err := device.AbsPath(c.Args().First())
			if err != nil {
				return err
			}
			return runResume(c.Context, resumeOptions{Dir: dir, DestroyData: c.StringSlice("destroy-data"), JSON: c.Bool("json"),
				Period: c.Duration("progress-period"), Metrics: tf},
				c.App.Writer, c.App.ErrWriter)
		},
	}
}

// runResume continues the run in opts.Dir on the targets it started on
// (rundir.Resume), or rebuilds the results of one that is complete.
func runResume(ctx context.Context, opts resumeOptions, stdout, stderr io.Writer) error {
	x, err := rundir.Resume(ctx, opts.Dir, opts.DestroyData)
	if errors.Is(err, rundir.ErrComplete) {
		fmt.Fprintf(stderr, "ptsrun: the run in %s is already complete; rebuilding its results\n", opts.Dir)
		return reportDir(opts.Dir, rundir.ReportOptions{}, opts.JSON, stdout, stderr)
	}
	if err != nil {
		return err
	}
	return execute(ctx, x, opts.Metrics, opts.JSON, opts.Period, stdout, stderr)
}

// demoOptions are demo's options.
type demoOptions struct {
	Model    string // simulated drive: enterprise or client
	Tests    []pts.TestID
	Dir      string // "" makes ./ptsrun-demo-TIME
	Operator pts.Operator
	JSON     bool
}

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:      "demo",
		Usage:     "run IOPS, throughput and latency (or --tests) on the simulated drive (a model, not hardware)",
		UsageText: "ptsrun demo [--out DIR] [--model enterprise|client] [--tests iops,tp,lat|all] [--tested-by NAME] [--lab NAME]",
		Flags: slices.Concat(
			clihelp.Group("Tests",
				&cli.StringFlag{Name: "tests", Value: pts.JoinTests(pts.DefaultConfig().Tests, ","), Usage: "tests to run: " + testIDs() + ", or all (every one at the spec's durations: about 4 days of device time)"},
				&cli.StringFlag{Name: "model", Value: "enterprise", Usage: "simulated drive: enterprise or client"}),
			operatorFlags(),
			clihelp.Group("Output",
				&cli.StringFlag{Name: "out", Usage: "run directory", DefaultText: "./ptsrun-demo-TIME"},
				&cli.BoolFlag{Name: "json", Usage: "print events as JSON lines on stdout"}),
		),
		Action: func(c *cli.Context) error {
			op, err := operatorFromFlags(c)
			if err != nil {
				return err
			}
			tests, err := pts.ParseTests(c.String("tests"))
			if err != nil {
				return err
			}
			dir, err := outPath(c, "out")
			if err != nil {
				return err
			}
			return runDemo(c.Context, demoOptions{Model: c.String("model"), Tests: tests, Dir: dir, Operator: op, JSON: c.Bool("json")},
				c.App.Writer, c.App.ErrWriter)
		},
	}
}

// runDemo runs the default PTS tests on a simulated drive.
func runDemo(ctx context.Context, opts demoOptions, stdout, stderr io.Writer) error {
	cfg := pts.DefaultConfig()
	cfg.Targets = []string{"sim:" + opts.Model}
	if len(opts.Tests) > 0 {
		cfg.Tests = opts.Tests
	}
	if opts.Model == "client" {
		cfg.Profile = "client"
	}
	run, err := checkRun(ctx, cfg, false)
	if err != nil {
		return err
	}
	dir := opts.Dir
	if dir == "" {
		if dir, err = device.AbsPath("ptsrun-demo-" + time.Now().Format("20060102-150405")); err != nil {
			return err
		}
	}
	return startRun(ctx, run, opts.Operator, dir, nil, opts.JSON, 0, stdout, stderr)
}

// testIDs lists the tests --tests takes.
func testIDs() string {
	var ids []pts.TestID
	for _, t := range pts.Tests {
		ids = append(ids, t.ID)
	}
	return pts.JoinTests(ids, ", ")
}
