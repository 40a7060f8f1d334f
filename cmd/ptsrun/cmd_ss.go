package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/steadystate"
)

func ssCommand() *cli.Command {
	d := steadystate.Default()
	return &cli.Command{
		Name:      "ss",
		Usage:     "steady-state analysis of a series of per-round values",
		UsageText: "ptsrun ss [--window 5] [--max-range 0.20] [--max-slope 0.10] [--column NAME] [--json] FILE|-",
		Description: "Reads one number per line (blank lines and # comments are skipped), or a CSV file with a\n" +
			"header when --column names the column. Exit 0 when the last window is steady, 3 when not,\n" +
			"1 on bad input.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "window", Value: d.Window, Usage: "rounds in the measurement window"},
			&cli.Float64Flag{Name: "max-range", Value: d.MaxRange, Usage: "allowed max−min as a fraction of the window average"},
			&cli.Float64Flag{Name: "max-slope", Value: d.MaxSlope, Usage: "allowed least-squares excursion as a fraction of the average"},
			&cli.StringFlag{Name: "column", Usage: "read this column of a CSV file with a header"},
			&cli.BoolFlag{Name: "json", Usage: "print the verdict as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("ss needs one input: a file, or - for standard input")
			}
			opts := ssOptions{Criteria: steadystate.Criteria{Window: c.Int("window"), MaxRange: c.Float64("max-range"), MaxSlope: c.Float64("max-slope")},
				Input: c.Args().First(), Stdin: c.App.Reader, Column: c.String("column"), JSON: c.Bool("json")}
			return runSS(c.Context, opts, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// ssOptions are ss's options.
type ssOptions struct {
	Criteria steadystate.Criteria
	Input    string    // a file, or - for Stdin
	Stdin    io.Reader // standard input
	Column   string    // a CSV column; "" reads one number per line
	JSON     bool
}

// runSS judges the series in opts.Input; not steady is errNotSteady,
// reported by the verdict it prints.
func runSS(_ context.Context, opts ssOptions, stdout, _ io.Writer) error {
	crit := opts.Criteria
	if err := crit.Validate(); err != nil {
		var ce *steadystate.CriterionError
		if errors.As(err, &ce) {
			return fmt.Errorf("--%s %s: %s", ce.Name, ce.Value, ce.Want)
		}
		return err
	}
	name := opts.Input
	r := opts.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	} else {
		name = "standard input"
	}
	vals, err := steadystate.ReadSeries(r, opts.Column)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if opts.JSON {
		b, err := json.MarshalIndent(crit.Analyze(vals), "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(b))
	} else {
		fmt.Fprint(stdout, crit.Text(vals))
	}
	if !crit.Last(vals).Steady {
		return reported(errNotSteady)
	}
	return nil
}
