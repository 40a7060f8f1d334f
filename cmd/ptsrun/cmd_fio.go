package main

import (
	"context"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/clihelp"
	"github.com/ptsrun/ptsrun/internal/custom"
	"github.com/ptsrun/ptsrun/internal/progress"
	"github.com/ptsrun/ptsrun/internal/rundir"
)

func fioCommand() *cli.Command {
	return &cli.Command{
		Name:  "fio",
		Usage: "run your own fio job files as they are, through the safety gate, and record them like a run",
		UsageText: "ptsrun fio JOBFILE... --out DIR [--destroy-data SERIAL-OR-PATH ...] [--fio-server HOST:PORT ...] [--plan] [--json]\n\n" +
			"Every reporting group of the job files (stonewall, new_group) becomes a cell of the run directory;\n" +
			"a job that writes to a block device needs --destroy-data naming it. --plan prints what the gate\n" +
			"makes of the job files and the fio command lines, and runs nothing.",
		Flags: slices.Concat(
			clihelp.Group("Targets and safety",
				&cli.StringSliceFlag{Name: "destroy-data", Usage: "confirm that a device (serial or path), file or directory the jobs write may be overwritten " +
					"(HOST:PORT=PATH through fio servers; repeatable)"},
				&cli.StringSliceFlag{Name: "fio-server", Usage: "HOST:PORT of a fio server to run the job files on (repeatable: each runs them)"}),
			operatorFlags(),
			clihelp.Group("Output",
				&cli.StringFlag{Name: "out", Usage: "record the run in this directory (new or empty)"},
				&cli.BoolFlag{Name: "plan", Usage: "print the gate's verdicts and the fio command lines; run nothing"},
				&cli.BoolFlag{Name: "json", Usage: "print the plan or the recorded results as JSON on stdout"}),
		),
		Action: func(c *cli.Context) error {
			op, err := operatorFromFlags(c)
			if err != nil {
				return err
			}
			opts := fioOptions{JobFiles: c.Args().Slice(), Dir: c.String("out"), DestroyData: c.StringSlice("destroy-data"),
				Servers: c.StringSlice("fio-server"), Plan: c.Bool("plan"), JSON: c.Bool("json"), Operator: op}
			return runFioJobs(c.Context, opts, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// fioOptions are fio's options; fioRecord is DIR/fio-run.json,
// fioPlanJSON --plan --json.
type (
	fioOptions  = custom.FioOptions
	fioRecord   = rundir.FioRecord
	fioPlanJSON = custom.FioPlanJSON
)

// The files of a `ptsrun fio` run directory besides those of every run.
const (
	fioRunFile    = rundir.FioRunFile
	fioJobsCSV    = rundir.FioJobsFile
	fioSecondsCSV = rundir.FioSecondsFile
)

// runFioJobs runs the job files through the gate and records the run.
func runFioJobs(ctx context.Context, opts fioOptions, stdout, stderr io.Writer) error {
	opts.Version = version
	return custom.RunFio(ctx, opts, progress.Live(stdout, stderr, io.Discard, opts.JSON, version))
}
