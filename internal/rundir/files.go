package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The files of a run directory (docs/run-directory.md).
const (
	RunFile     = pts.RunFile     // what was run, on what, where: written first
	JournalFile = pts.JournalFile // one record per event, synced after each
	ResultsFile = matrix.ResultsFile
	TablesDir   = "tables" // the results' CSV tables
	ReportFile  = "report.pdf"
	SimDir      = "sim" // the simulated drive's state
	FioDir      = "fio" // the fio engine's job files, output and logs; `ptsrun fio`'s copies of the job files and fio's output
	// `ptsrun workload --out`: the measurement as --json prints it, and
	// every interval of its time series.
	WorkloadFile = "workload.json"
	SecondsFile  = "seconds.csv"
	// `ptsrun workload --vdbench --out`: the translation and each run's
	// figures, and the parameter files as read.
	VdbenchFile = "vdbench.json"
	VdbenchDir  = "vdbench"
	// `ptsrun fio`: the gate's verdicts and every job's figures, each job
	// as a row, each reporting group's time series.
	FioRunFile     = "fio-run.json"
	FioJobsFile    = "fio-jobs.csv"
	FioSecondsFile = "fio-seconds.csv"
)

// Names are the names ptsrun writes at the top of a run directory,
// run.json and the journal first (they make a directory one): `ptsrun
// fio`'s gate refuses a job that writes any of them, in its run directory
// or in another.
var Names = []string{RunFile, JournalFile, ResultsFile, ReportFile, TablesDir, FioRunFile, FioJobsFile, FioSecondsFile, FioDir,
	SecondsFile, WorkloadFile, VdbenchFile, ReplayFile, LockFile}

// JournalPath is where dir's journal is.
func JournalPath(dir string) string { return filepath.Join(dir, JournalFile) }

// CheckNew refuses, before anything runs, a directory for a new run that
// is not empty, or that another user could change or redirect
// (device.CheckDir: it, and every directory above it). dir may not exist.
func CheckNew(dir string) error {
	if err := device.CheckDir(dir); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("run directory %s: %w", dir, err)
	case len(entries) > 0:
		if ri, err := pts.LoadRunInfo(dir); err == nil {
			what := pts.JoinTests(ri.Config.Tests, ",")
			switch {
			case ri.Workload:
				what = "a workload"
			case ri.Imported:
				what = "imported results"
			}
			return fmt.Errorf("run directory %s already holds a run (%s on %s, started %s): resume it with `ptsrun resume %s` or choose another --out",
				dir, what, strings.Join(ri.Config.Targets, ","), ri.Created.Format(time.RFC3339), dir)
		}
		return fmt.Errorf("run directory %s is not empty", dir)
	}
	return nil
}

// Make makes dir for a new run, as CheckNew allows it: absent (made here,
// one directory at a time, device.MakeDir), or empty. It returns a
// function that removes what it made, for a start that fails.
func Make(dir string) (undo func(), err error) {
	if err := CheckNew(dir); err != nil {
		return nil, err
	}
	made, err := device.MakeDir(dir)
	if made != "" {
		if err != nil {
			os.RemoveAll(made)
			return nil, err
		}
		return func() { os.RemoveAll(made) }, nil
	}
	if err != nil {
		return nil, err
	}
	return func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}, nil
}

// RemoveAllBut removes every name of Names from dir but keep: when `ptsrun
// fio` cannot record the job files that ran, their output in FioDir
// stays, and the rest goes, so that the directory is no run directory.
func RemoveAllBut(dir, keep string) {
	for _, f := range Names {
		if f != keep {
			os.RemoveAll(filepath.Join(dir, f))
		}
	}
}
