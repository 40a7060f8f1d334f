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

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/pdfreport"
	"github.com/ptsrun/ptsrun/pts"
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
			paper := strings.ToLower(c.String("paper"))
			if paper != "a4" && paper != "letter" {
				return fmt.Errorf("unknown paper size %q: want a4 or letter", c.String("paper"))
			}
			out, err := outPath(c, "o")
			if err != nil {
				return err
			}
			dir, err := device.AbsPath(c.Args().First())
			if err != nil {
				return err
			}
			return reportDir(dir, out, paper, c.Bool("force"), c.Bool("json"), c.App.Writer, c.App.ErrWriter)
		},
	}
}

// reportDir rebuilds the results, tables and report of the run in dir;
// pdfPath, when set, is where the report goes instead of DIR/report.pdf,
// which force lets replace a file ptsrun did not write.
func reportDir(dir, pdfPath, paper string, force, asJSON bool, stdout, stderr io.Writer) error {
	// Before anything of it is read: a link in it would be read, then written.
	if err := device.CheckRunTree(dir); err != nil {
		return err
	}
	res, ri, err := matrix.Load(dir)
	if err != nil {
		return err
	}
	// Before anything is written.
	if err := checkReportPath(dir, pdfPath, force); err != nil {
		return err
	}
	if err := res.Save(dir); err != nil {
		return err
	}
	out, err := writeReport(dir, pdfPath, paper, force, ri, res)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "ptsrun: wrote %s, %s and %s\n", filepath.Join(dir, "results.json"), filepath.Join(dir, "tables"), out)
	printSummary(stderr, stdout, res, newSummary(res, dir, out), asJSON)
	return nil
}

// checkReportPath refuses a report path (DIR/report.pdf unless pdfPath)
// that is not a regular file, or one ptsrun did not write unless force.
func checkReportPath(dir, pdfPath string, force bool) error {
	if pdfPath == "" {
		pdfPath = filepath.Join(dir, "report.pdf")
	}
	return device.CheckOutput(pdfPath, force, pdfreport.Produced)
}

// writeReport renders the PDF (DIR/report.pdf unless pdfPath says where),
// atomically, where checkReportPath allows. pdfreport reads no files: the
// fio job files it shows are read here.
func writeReport(dir, pdfPath, paper string, force bool, ri pts.RunInfo, res *matrix.Results) (string, error) {
	if err := checkReportPath(dir, pdfPath, force); err != nil {
		return "", err
	}
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
