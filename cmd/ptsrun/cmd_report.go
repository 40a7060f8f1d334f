package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/rundir"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "rebuild results.json, the CSV tables and the PDF report of a run from its journal",
		UsageText: "ptsrun report DIR [-o FILE] [--force] [--paper a4|letter] [--json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "o", Usage: "write the PDF here instead of DIR/report.pdf"},
			&cli.BoolFlag{Name: "force", Usage: "replace the -o file even if ptsrun did not write it (never a device or other special file)"},
			&cli.StringFlag{Name: "paper", Value: "a4", Usage: "paper size: a4 or letter"},
			&cli.BoolFlag{Name: "json", Usage: "print the files written and the verdicts as JSON on stdout"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("report needs exactly one run directory")
			}
			paper, err := paperFlag(c)
			if err != nil {
				return err
			}
			out, err := outPath(c, "o")
			if err != nil {
				return err
			}
			dir, err := device.AbsPath(c.Args().First())
			if err != nil {
				return err
			}
			return reportDir(dir, rundir.ReportOptions{PDF: out, Paper: paper, Force: c.Bool("force")}, c.Bool("json"), c.App.Writer, c.App.ErrWriter)
		},
	}
}

// paperFlag reads --paper: a4 or letter.
func paperFlag(c *cli.Context) (string, error) {
	paper := strings.ToLower(c.String("paper"))
	if paper != "a4" && paper != "letter" {
		return "", fmt.Errorf("unknown paper size %q: want a4 or letter", c.String("paper"))
	}
	return paper, nil
}

// reportDir rebuilds every derived file of the run in dir and prints its
// summary.
func reportDir(dir string, o rundir.ReportOptions, asJSON bool, stdout, stderr io.Writer) error {
	b, err := rundir.Report(dir, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "ptsrun: wrote %s, %s and %s\n", filepath.Join(dir, rundir.ResultsFile), filepath.Join(dir, rundir.TablesDir), b.PDF)
	printSummary(stdout, b.Summary(), asJSON)
	return nil
}
