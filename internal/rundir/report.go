package rundir

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pdfreport"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// ReportOptions say where a run's report goes and on what paper.
type ReportOptions struct {
	PDF   string // the report's path; DIR/report.pdf when empty
	Paper string // a4 (the default) or letter
	Force bool   // replace a file at PDF that ptsrun did not write (never a device or other special file)
}

// Built is what a rebuild of a run directory read and wrote.
type Built struct {
	Dir     string // the run directory
	Info    pts.RunInfo
	Results *matrix.Results
	PDF     string // where the report went
}

// Steady says whether every stage that seeks steady state reached it (a
// time series alone seeks none).
func (b *Built) Steady() bool {
	for _, t := range b.Results.Tests {
		for _, s := range t.Stages {
			if !s.Steady && s.SeeksSteady() {
				return false
			}
		}
	}
	return true
}

// Report rebuilds every derived file of the run in dir, an absolute path,
// from its run.json and journal alone (`ptsrun report`): results.json,
// the tables, the files of the command that recorded its workloads
// (workload.json and seconds.csv, vdbench.json, fio-run.json,
// fio-jobs.csv and fio-seconds.csv) and the report. A run directory
// written into again is outside input: its tree is checked before
// anything of it is read (device.CheckRunTree), the report's path before
// anything is written.
func Report(dir string, o ReportOptions) (*Built, error) {
	if err := device.CheckRunTree(dir); err != nil {
		return nil, err
	}
	return rebuild(dir, o)
}

// Derive writes the derived files of a run directory that ptsrun has just
// written (at a run's end, after a recording, an import), as Report does.
func Derive(dir string) (*Built, error) { return rebuild(dir, ReportOptions{}) }

func rebuild(dir string, o ReportOptions) (*Built, error) {
	res, ri, err := matrix.Load(dir)
	if err != nil {
		return nil, err
	}
	// Before anything is written.
	if err := checkReportPath(dir, o.PDF, o.Force); err != nil {
		return nil, err
	}
	s, err := readSide(ri)
	if err != nil {
		return nil, err
	}
	fio, err := fioReport(dir, s)
	if err != nil {
		return nil, err
	}
	// The results, the tables and the side files are written while the
	// report renders in memory (both only read res): the writes were a
	// sixth of a rebuild's time, the rendering a third. The report is
	// written last, once the others are.
	saved := make(chan error, 1)
	go func() {
		if err := res.Save(dir); err != nil {
			saved <- err
			return
		}
		saved <- writeSide(dir, ri, s)
	}()
	pdf, doc, rerr := renderReport(dir, o, ri, res, fio)
	if err := <-saved; err != nil {
		return nil, err
	}
	if rerr != nil {
		return nil, rerr
	}
	if err := writeReport(dir, o, pdf, doc); err != nil {
		return nil, err
	}
	return &Built{Dir: dir, Info: ri, Results: res, PDF: pdf}, nil
}

// checkReportPath refuses a report path (DIR/report.pdf unless pdf) that
// is not a regular file, or one ptsrun did not write unless force.
func checkReportPath(dir, pdf string, force bool) error {
	return device.CheckOutput(reportPath(dir, pdf), force, pdfreport.Produced)
}

// reportPath is where a run's report goes: pdf, or DIR/report.pdf.
func reportPath(dir, pdf string) string {
	if pdf == "" {
		return filepath.Join(dir, ReportFile)
	}
	return pdf
}

// renderReport renders the PDF into memory and says where it goes
// (reportPath). pdfreport reads no files: the fio job files it shows are
// read here.
func renderReport(dir string, o ReportOptions, ri pts.RunInfo, res *matrix.Results, fio *pdfreport.FioRun) (string, []byte, error) {
	pdf := reportPath(dir, o.PDF)
	paper := o.Paper
	if paper == "" {
		paper = "a4"
	}
	doc := pdfreport.Build(ri, res, pdfreport.Options{Paper: paper, JobFiles: jobFiles(dir, ri.Stages), Fio: fio})
	var buf bytes.Buffer
	created := res.Start
	if created.IsZero() {
		created = ri.Created
	}
	if err := doc.Render(&buf, created); err != nil {
		return pdf, nil, fmt.Errorf("report %s: %w", pdf, err)
	}
	return pdf, buf.Bytes(), nil
}

// writeReport writes the rendered report to pdf atomically, where
// checkReportPath allows (asked again: the path may have changed since).
func writeReport(dir string, o ReportOptions, pdf string, doc []byte) error {
	if err := checkReportPath(dir, o.PDF, o.Force); err != nil {
		return err
	}
	return pts.WriteFileAtomic(pdf, doc)
}

// jobFiles reads, for each stage, the fio job file of its first cell in
// round 1: the fio engine writes one per cell into DIR/fio, named after
// the stage, round, cell and key (pts/runner.go, cellName); run.json's
// stage IDs are plain names (pts checks them as it reads it). A run that
// fio did not run has none.
func jobFiles(dir string, stages []pts.Stage) map[string]pdfreport.JobFile {
	out := map[string]pdfreport.JobFile{}
	for _, st := range stages {
		matches, _ := filepath.Glob(filepath.Join(dir, FioDir, st.ID+"-r01-c01-*.fio"))
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
