package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/clihelp"
	"github.com/ptsrun/ptsrun/internal/pdfreport"
	"github.com/ptsrun/ptsrun/internal/streams"
)

func streamsCommand() *cli.Command {
	return &cli.Command{
		Name:      "streams",
		Usage:     "a capture of real-world I/O characterised into I/O streams, after the SNIA RWSW method",
		UsageText: "ptsrun streams CAPTURE [--format auto|iolog|blkparse|biosnoop] [--event Q|D] [--device D|all] [--step 5m] [--top 10] [--json] [--pdf FILE]",
		Description: "Reads a fio iolog (version 2 or 3), blkparse's default output or bcc's biosnoop output,\n" +
			"and prints each I/O stream's (random or sequential, transfer size, direction) share of the I/Os,\n" +
			"overall and per step, the demand intensity, and the applied test workload: the top streams\n" +
			"covering 90 % of the I/Os (at most 12), renormalised. docs/capture.md.",
		Flags: slices.Concat(
			clihelp.Group("Capture",
				&cli.StringFlag{Name: "format", Value: string(capture.Auto), Usage: "the capture's format: auto (from its content), iolog, blkparse, biosnoop"},
				&cli.StringFlag{Name: "event", Value: "Q", Usage: "blkparse's event taken as the I/O: Q (queued) or D (issued)"},
				&cli.StringFlag{Name: "device", Value: "all", Usage: "the capture's device to characterise (a file of an iolog, MAJ,MIN of blkparse, a disk of biosnoop), or all"}),
			clihelp.Group("Streams",
				&cli.DurationFlag{Name: "step", Value: streams.DefaultStep, Usage: "the length of a step"},
				&cli.IntFlag{Name: "top", Value: streams.DefaultTop, Usage: "the number of streams the top share and the steps' columns count"}),
			clihelp.Group("Output",
				&cli.BoolFlag{Name: "json", Usage: "print the report as one JSON document"},
				&cli.StringFlag{Name: "pdf", Usage: "also write the stream map, demand intensity and cumulative table as a PDF to this file"},
				&cli.BoolFlag{Name: "force", Usage: "let --pdf replace a file ptsrun did not write"})),
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("streams needs one capture: a file, or - for standard input")
			}
			parse, err := capture.OptionsOf(c.String("format"), c.String("event"))
			if err != nil {
				return err
			}
			opt := streams.Options{Step: c.Duration("step"), Top: c.Int("top")}
			if opt.Step <= 0 || opt.Top <= 0 {
				return fmt.Errorf("--step and --top must be positive")
			}
			rep, name, err := streams.ReadFile(c.Args().First(), c.App.Reader, c.String("device"), parse, opt)
			if err != nil {
				return err
			}
			if pdf, err := outPath(c, "pdf"); err != nil || pdf != "" {
				if err == nil {
					err = writePDF(pdf, c.Bool("force"), "streams", func(w io.Writer) error { return pdfreport.RenderStreams(w, rep, name, "") })
				}
				if err != nil {
					return err
				}
			}
			if c.Bool("json") {
				return printJSON(c.App.Writer, rep)
			}
			return rep.Text(c.App.Writer, name)
		},
	}
}
