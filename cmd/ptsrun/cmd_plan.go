package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/pts"
)

func planCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "print the phases, cells and an ETA of a run; run nothing",
		UsageText: "ptsrun plan (same flags as run)",
		Flags:     runFlags(),
		Action: func(c *cli.Context) error {
			// The operator's flags are checked as run checks them.
			opts, err := runOptionsFrom(c)
			if err != nil {
				return err
			}
			return runPlan(c.Context, opts, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// runPlan prints what run would do with opts, refusals included, and runs
// nothing.
func runPlan(ctx context.Context, opts runOptions, stdout, _ io.Writer) error {
	run, err := checkRun(ctx, opts.Config, false)
	if err != nil {
		return err
	}
	if err := pts.CheckTargets(run.Config.Stages(run.Profile), run.Targets.Identities); err != nil {
		return err
	}
	refusal, err := run.WritePlan(ctx, stdout, opts.JSON)
	if err != nil {
		return err
	}
	if refusal != nil {
		return reported(refusal) // the plan has said it
	}
	return nil
}
