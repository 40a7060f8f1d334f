package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/progress"
	"github.com/ptsrun/ptsrun/internal/rundir"
)

// statusOptions are status's options.
type statusOptions struct {
	Dir   string
	Watch bool
	Every time.Duration // --watch's period
	JSON  bool
}

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show where a run stands (running, stopped or finished), read only, from any host that sees its directory",
		UsageText: "ptsrun status DIR [--watch] [--json]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "watch", Usage: "show it again every few seconds until the run ends (ctrl-C stops)"},
			&cli.DurationFlag{Name: "every", Value: 5 * time.Second, Usage: "with --watch, how often"},
			&cli.BoolFlag{Name: "json", Usage: "print the status as one JSON document on stdout (with --watch, one a line)"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("status needs exactly one run directory")
			}
			dir, err := device.AbsPath(c.Args().First())
			if err != nil {
				return err
			}
			if c.Duration("every") <= 0 {
				return fmt.Errorf("--every %s: give a duration above 0", c.Duration("every"))
			}
			return runStatus(c.Context, statusOptions{Dir: dir, Watch: c.Bool("watch"), Every: c.Duration("every"), JSON: c.Bool("json")}, c.App.Writer)
		},
	}
}

// runStatus shows the run's status, and with Watch again every period
// until it is no longer running, or ctx ends.
func runStatus(ctx context.Context, opts statusOptions, stdout io.Writer) error {
	for {
		st, err := rundir.ReadStatus(ctx, opts.Dir)
		if err != nil {
			return err
		}
		progress.WriteStatus(stdout, st, opts.JSON)
		if !opts.Watch || st.State != rundir.StateRunning && st.State != rundir.StateUnknown {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(opts.Every):
		}
		if !opts.JSON {
			fmt.Fprintln(stdout)
		}
	}
}
