package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/clihelp"
	"github.com/ptsrun/ptsrun/internal/custom"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/progress"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/rundir"
	"github.com/ptsrun/ptsrun/internal/targets"
)

// orPreset is the default of a flag that overrides a preset's setting:
// left out, a preset brings its own.
func orPreset(v string) string { return v + "; with --preset, the preset's" }

func workloadCommand() *cli.Command {
	return &cli.Command{
		Name:  "workload",
		Usage: "run one workload, or named presets one after the other, on a target for a time, outside the PTS methodology",
		UsageText: "ptsrun workload --target T --engine native|fio|sim --access random|seq --read PCT --bs SIZE[:PCT,...]\n" +
			"   --tc N --qd N --time DURATION [--ramp DURATION] [--interval DURATION] [--random-pct PCT] [--rate-iops N] [--rate-mbps N]\n" +
			"   [--size PCT | --active-range PCT] [--zones IO%/RANGE%:...] [--json]\n" +
			"   [--out DIR [--tested-by NAME] [--lab NAME] [--dut-note K=V ...]]\n" +
			"ptsrun workload --preset NAME[,NAME...] --target T [--tc N] [--qd N] [--time D] [--ramp D] [--rate-iops N] [--out DIR]\n" +
			"ptsrun workload --preset list\n\n" +
			"The PTS-E composite workload (ECW, 40/60 at TC1/QD32):\n" +
			"   --read 40 --bs 0.5k:4,1k:1,1.5k:1,2k:1,2.5k:1,3k:1,3.5k:1,4k:67,8k:10,16k:7,32k:3,64k:3 --zones 50/5:30/15:20/80\n\n" +
			"A preset brings its workload, load, time and ramp; --tc, --qd, --time, --ramp, --active-range or --size,\n" +
			"--rate-iops, --rate-mbps and --seed given on the command line override them, for every preset named.\n" +
			"--time is each workload's whole time, its ramp included.",
		Flags: slices.Concat(
			clihelp.Group("Targets and safety",
				&cli.StringSliceFlag{Name: "target", Usage: "a block device, file:PATH[:SIZE] or sim:MODEL (repeatable: loaded at once)"},
				&cli.StringSliceFlag{Name: "fio-server", Usage: "HOST:PORT[=TARGET] of a fio server (repeatable; engine fio)"},
				destroyDataFlag()),
			clihelp.Group("Workload",
				&cli.StringFlag{Name: "preset", Usage: "run named workloads one after the other into one run directory, a cell each: " +
					"NAME[,NAME...]; list prints them with their parameters"},
				&cli.StringFlag{Name: "access", Value: "random", Usage: "random or seq"},
				&cli.IntFlag{Name: "read", Value: 100, Usage: "read percentage, 0…100"},
				&cli.StringFlag{Name: "bs", Value: "4k", Usage: "block size (512, 4k, 128k, 1m), or a block-size split SIZE:PCT,... " +
					"(4k:67,8k:33: each size's share of the I/Os, adding up to 100)"},
				&cli.StringFlag{Name: "zones", Usage: "random I/O in zones of the active range, IO%/RANGE% pairs as fio's zoned distribution writes them " +
					"(50/5:30/15:20/80: 50 % of the I/Os to the first 5 %, 30 % to the next 15 %, 20 % to the last 80 %)"},
				&cli.Float64Flag{Name: "random-pct", Value: 100, Usage: "share of a random workload's I/Os at random offsets, the rest continuing " +
					"where the thread's last I/O of the same direction ended (fio percentage_random, vdbench seekpct)"},
				&cli.Float64Flag{Name: "active-range", Value: 100, DefaultText: orPreset("100"), Usage: "active range in %"},
				&cli.StringFlag{Name: "size", Usage: "how much of each target, in %, as fio's size=80%: the active range", DefaultText: "--active-range"},
				&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the address and data streams"}),
			clihelp.Group("Load and time",
				&cli.IntFlag{Name: "tc", Value: 1, DefaultText: orPreset("1"), Usage: "threads per target"},
				&cli.IntFlag{Name: "qd", Value: 32, DefaultText: orPreset("32"), Usage: "queue depth per thread"},
				&cli.DurationFlag{Name: "time", Value: time.Minute, DefaultText: orPreset("1m"), Usage: "duration, the ramp included"},
				&cli.DurationFlag{Name: "ramp", DefaultText: orPreset("none"), Usage: "a warm-up at the start of --time: run, kept in the per-second series (marked), " +
					"left out of the results (fio ramp_time, vdbench warmup)"},
				&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "length of each entry of the time series: IOPS, MB/s, mean, p99, " +
					"p99.9 and max latency per direction and per target (whole milliseconds, from 100ms)"},
				&cli.Float64Flag{Name: "rate-iops", DefaultText: orPreset("no cap"), Usage: "cap each target at this many IOPS, spread over its threads (fio rate_iops, vdbench iorate)"},
				&cli.Float64Flag{Name: "rate-mbps", DefaultText: orPreset("no cap"), Usage: "cap each target at this many MB/s (decimal), spread over its threads (fio rate)"}),
			clihelp.Group("vdbench", vdbenchFlags()...),
			clihelp.Group("Engine",
				&cli.StringFlag{Name: "engine", Usage: "native, fio, or sim", DefaultText: "native; sim for simulated drives, fio with --fio-server"},
				pollFlag(), cpuIdleFlag()),
			operatorFlags(),
			clihelp.Group("Output",
				&cli.BoolFlag{Name: "json", Usage: "print the measurement as JSON"},
				&cli.StringFlag{Name: "out", Usage: "record the workload and its per-second series in this directory"},
				&cli.StringFlag{Name: "metrics-textfile", Usage: "write each interval's IOPS, MB/s, response time and time left to this file, as run does (docs/metrics.md)"}),
		),
		Action: func(c *cli.Context) error {
			if c.IsSet("vdbench") || c.IsSet("dry-run") {
				return vdbenchCommand(c)
			}
			if strings.EqualFold(strings.TrimSpace(c.String("preset")), "list") {
				return custom.ListPresets(c.App.Writer, c.Bool("json"))
			}
			opts, err := workloadOptionsFrom(c)
			if err != nil {
				return err
			}
			return runWorkload(c.Context, opts, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// workloadOptions are workload's options; workloadResult and workloadSet
// are the JSON of one workload's measurement and of several.
type (
	workloadOptions = custom.WorkloadOptions
	workloadResult  = rundir.WorkloadResult
	workloadSet     = rundir.WorkloadSet
)

// workloadOptionsFrom reads workload's flags.
func workloadOptionsFrom(c *cli.Context) (workloadOptions, error) {
	if c.Args().Len() > 0 {
		return workloadOptions{}, fmt.Errorf("unexpected argument %q", c.Args().First())
	}
	set := map[string]bool{}
	for _, f := range c.FlagNames() {
		if c.IsSet(f) {
			set[f] = true
		}
	}
	opts, err := custom.ParseWorkloadFlags(custom.WorkloadFlags{Set: set, Preset: c.String("preset"), Access: c.String("access"),
		BS: c.String("bs"), Zones: c.String("zones"), Size: c.String("size"), Read: c.Int("read"), TC: c.Int("tc"), QD: c.Int("qd"),
		Time: c.Duration("time"), Ramp: c.Duration("ramp"), Interval: c.Duration("interval"), RandomPct: c.Float64("random-pct"),
		RateIOPS: c.Float64("rate-iops"), RateMBps: c.Float64("rate-mbps"), ActiveRange: c.Float64("active-range"), Seed: c.Uint64("seed")})
	if err != nil {
		return workloadOptions{}, err
	}
	if opts.Dir, err = outPath(c, "out"); err != nil {
		return workloadOptions{}, err
	}
	opts.Targets = targets.Options{Specs: c.StringSlice("target"), Engine: c.String("engine"), FioServers: c.StringSlice("fio-server"),
		DestroyData: c.StringSlice("destroy-data")}
	opts.Poll, opts.JSON, opts.Metrics = c.String("poll"), c.Bool("json"), c.String("metrics-textfile")
	opts.CPUIdle = c.String("cpu-idle")
	if err := opts.Check(); err != nil {
		return workloadOptions{}, err
	}
	opts.Operator, err = operatorFromFlags(c)
	return opts, err
}

// workloadKey names the cell of a recorded workload (pts.WorkloadKey).
func workloadKey(w engine.Workload) pts.CellKey { return pts.WorkloadKey(w) }

// runWorkload runs the workloads of opts and, with opts.Dir, records them.
func runWorkload(ctx context.Context, opts workloadOptions, stdout, stderr io.Writer) error {
	opts.Version = version
	return custom.RunWorkload(ctx, opts, progress.Live(stdout, stderr, stdout, opts.JSON, version))
}
