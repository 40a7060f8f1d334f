package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/custom"
	"github.com/ptsrun/ptsrun/internal/rundir"
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

// vdbenchOptions are workload's options with --vdbench; vdbenchResult is
// one run's measurement in --json and DIR/vdbench.json.
type (
	vdbenchOptions = custom.VdbenchOptions
	vdbenchResult  = rundir.VdbenchResult
)

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
		Dir: dir, Seed: c.Uint64("seed"), Poll: c.String("poll"), CPUIdle: c.String("cpu-idle"), Operator: op, JSON: c.Bool("json"), DryRun: c.Bool("dry-run")}
	return runVdbench(c.Context, opts, c.App.Writer, c.App.ErrWriter)
}

// runVdbench translates a vdbench parameter file and runs it.
func runVdbench(ctx context.Context, opts vdbenchOptions, stdout, stderr io.Writer) error {
	opts.Version = version
	return custom.RunVdbench(ctx, opts, custom.Output{Stdout: stdout, Stderr: stderr})
}
