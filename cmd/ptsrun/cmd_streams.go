package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/streams"
)

func streamsCommand() *cli.Command {
	return &cli.Command{
		Name:      "streams",
		Usage:     "a capture of real-world I/O characterised into I/O streams, after the SNIA RWSW method",
		UsageText: "ptsrun streams CAPTURE [--format auto|iolog|blkparse|biosnoop] [--event Q|D] [--device D|all] [--step 5m] [--top 10] [--json]",
		Description: "Reads a fio iolog (version 2 or 3), blkparse's default output or bcc's biosnoop output,\n" +
			"and prints each I/O stream's (random or sequential, transfer size, direction) share of the I/Os,\n" +
			"overall and per step, the demand intensity, and the applied test workload: the top streams\n" +
			"covering 90 % of the I/Os (at most 12), renormalised. docs/capture.md.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: string(capture.Auto), Usage: "the capture's format: auto (from its content), iolog, blkparse, biosnoop"},
			&cli.StringFlag{Name: "event", Value: "Q", Usage: "blkparse's event taken as the I/O: Q (queued) or D (issued)"},
			&cli.StringFlag{Name: "device", Value: "all", Usage: "the capture's device to characterise (a file of an iolog, MAJ,MIN of blkparse, a disk of biosnoop), or all"},
			&cli.DurationFlag{Name: "step", Value: streams.DefaultStep, Usage: "the length of a step"},
			&cli.IntFlag{Name: "top", Value: streams.DefaultTop, Usage: "the number of streams the top share and the steps' columns count"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as one JSON document"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("streams needs one capture: a file, or - for standard input")
			}
			ev := strings.ToUpper(c.String("event"))
			if ev != "Q" && ev != "D" {
				return fmt.Errorf("--event %s: want Q (queued) or D (issued)", c.String("event"))
			}
			opts := streamsOptions{Input: c.Args().First(), Stdin: c.App.Reader, Device: c.String("device"), JSON: c.Bool("json"),
				Parse:  capture.Options{Format: capture.Format(c.String("format")), Event: ev[0]},
				Report: streams.Options{Step: c.Duration("step"), Top: c.Int("top")}}
			if opts.Report.Step <= 0 || opts.Report.Top <= 0 {
				return fmt.Errorf("--step and --top must be positive")
			}
			return runStreams(c.Context, opts, c.App.Writer)
		},
	}
}

// streamsOptions are streams' options.
type streamsOptions struct {
	Input  string    // a file, or - for Stdin
	Stdin  io.Reader // standard input
	Device string
	Parse  capture.Options
	Report streams.Options
	JSON   bool
}

func runStreams(_ context.Context, opts streamsOptions, stdout io.Writer) error {
	name, r := opts.Input, opts.Stdin
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
	c, err := capture.Parse(r, name, opts.Parse)
	if err != nil {
		return err
	}
	one, err := c.Select(opts.Device)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	rep, err := streams.Characterise(one, c.Devices(), opts.Device, opts.Report)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if opts.JSON {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, string(b))
		return err
	}
	return rep.Text(stdout, name)
}
