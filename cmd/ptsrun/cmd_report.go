package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/pdfreport"
	"github.com/ptsrun/ptsrun/pts"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "rebuild results.json, the CSV tables and the PDF report of a run from its journal",
		UsageText: "ptsrun report DIR [-o FILE] [--paper a4|letter] [--json]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "o", Usage: "write the PDF here instead of DIR/report.pdf"},
			&cli.StringFlag{Name: "paper", Value: "a4", Usage: "paper size: a4 or letter"},
			&cli.BoolFlag{Name: "json", Usage: "print the files written and the verdicts as JSON on stdout"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("report needs exactly one run directory")
			}
			paper := strings.ToLower(c.String("paper"))
			if paper != "a4" && paper != "letter" {
				return fmt.Errorf("unknown paper size %q: want a4 or letter", c.String("paper"))
			}
			return reportDir(c.Args().First(), c.String("o"), paper, c.Bool("json"), c.App.Writer, c.App.ErrWriter)
		},
	}
}

func reportDir(dir, pdfPath, paper string, asJSON bool, stdout, stderr io.Writer) error {
	res, ri, err := matrix.Load(dir)
	if err != nil {
		return err
	}
	if err := res.Save(dir); err != nil {
		return err
	}
	out, err := writeReport(dir, pdfPath, paper, ri, res)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "ptsrun: wrote %s, %s and %s\n", filepath.Join(dir, "results.json"), filepath.Join(dir, "tables"), out)
	printSummary(stderr, stdout, res, newSummary(res, dir, out), asJSON)
	return nil
}

// writeReport renders the PDF (DIR/report.pdf unless pdfPath says where),
// atomically. pdfreport reads no files: the fio job files it shows are
// read here.
func writeReport(dir, pdfPath, paper string, ri pts.RunInfo, res *matrix.Results) (string, error) {
	if pdfPath == "" {
		pdfPath = filepath.Join(dir, "report.pdf")
	}
	doc := pdfreport.Build(ri, res, pdfreport.Options{Paper: paper, JobFiles: jobFiles(dir, ri.Stages), Fio: fioReport(dir)})
	var buf bytes.Buffer
	created := res.Start
	if created.IsZero() {
		created = ri.Created
	}
	if err := doc.Render(&buf, created); err != nil {
		return "", fmt.Errorf("report %s: %w", pdfPath, err)
	}
	return pdfPath, pts.WriteFileAtomic(pdfPath, buf.Bytes())
}

// jobFiles reads, for each stage, the fio job file of its first cell in
// round 1: the fio engine writes one per cell into DIR/fio, named after
// the stage, round, cell and key (pts/runner.go, cellName). A run that fio
// did not run has none.
func jobFiles(dir string, stages []pts.Stage) map[string]pdfreport.JobFile {
	out := map[string]pdfreport.JobFile{}
	for _, st := range stages {
		matches, _ := filepath.Glob(filepath.Join(dir, "fio", st.ID+"-r01-c01-*.fio"))
		slices.Sort(matches)
		if len(matches) == 0 {
			continue
		}
		data, err := os.ReadFile(matches[0])
		if err != nil {
			continue
		}
		out[st.ID] = pdfreport.JobFile{Name: filepath.Base(matches[0]), Text: string(data)}
	}
	return out
}
