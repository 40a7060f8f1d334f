package rundir

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ptsrun/ptsrun/internal/fiojobs"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pdfreport"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// FioRecord is what `ptsrun fio` records besides the journal, and
// DIR/fio-run.json as it is: what ran, what the gate made of it, and
// fio's figures of every job, which the report shows beside the cells.
type FioRecord struct {
	Schema   int              `json:"schema"`
	Tool     string           `json:"tool"`
	Version  string           `json:"version"`
	Fio      string           `json:"fio_version"`
	Cwd      string           `json:"cwd"` // fio's working directory: relative paths of the job files are there
	JobFiles []FioRecordFile  `json:"job_files"`
	Servers  []string         `json:"fio_servers,omitempty"`
	ReadOnly bool             `json:"read_only"` // fio ran with --readonly
	Targets  []fiojobs.Target `json:"targets"`
	Notes    []string         `json:"notes,omitempty"`
	Groups   []FioRecordGroup `json:"groups"`
}

// FioRecordFile is a job file, paths relative to the run directory.
type FioRecordFile struct {
	fiojobs.JobFile
	Saved    string      `json:"saved"` // the copy of it that ran, include files inlined: in FioDir/jobs
	Includes []FioSource `json:"includes,omitempty"`
}

// FioSource is a file a job file includes.
type FioSource struct {
	Path  string `json:"path"`
	Saved string `json:"saved,omitempty"` // none: inlined in the job file's copy
}

// FioRecordGroup is a reporting group of the job files: a cell of the run.
type FioRecordGroup struct {
	Cell    int                 `json:"cell"`
	Key     pts.CellKey         `json:"key"`
	JobFile string              `json:"job_file"`
	Group   int                 `json:"fio_group"` // fio's groupid within its job file
	Series  string              `json:"series"`    // where the per-second figures come from, or why there are none
	Jobs    []fiojobs.JobResult `json:"jobs"`
}

// check refuses a record read from run.json that does not fit its run:
// a group for each of its cells, and copies of job files in the run
// directory's FioDir/jobs only (the report reads them).
func (r *FioRecord) check(cells int) error {
	if r == nil {
		return errors.New("no record")
	}
	if len(r.Groups) != cells {
		return fmt.Errorf("%d groups for %d cells", len(r.Groups), cells)
	}
	for i, g := range r.Groups {
		if g.Cell != i {
			return fmt.Errorf("group %d is cell %d", i+1, g.Cell+1)
		}
	}
	for _, f := range r.JobFiles {
		for _, saved := range append([]string{f.Saved}, savedIncludes(f)...) {
			if saved != "" && !inFioJobs(saved) {
				return fmt.Errorf("the copy %q of %s is not in the run directory's %s: refused", saved, f.Path, filepath.Join(FioDir, "jobs"))
			}
		}
	}
	return nil
}

func savedIncludes(f FioRecordFile) []string {
	var out []string
	for _, s := range f.Includes {
		out = append(out, s.Saved)
	}
	return out
}

// inFioJobs says whether rel, a path relative to a run directory, names a
// file in its FioDir/jobs.
func inFioJobs(rel string) bool {
	return filepath.IsLocal(rel) && filepath.Dir(filepath.Clean(rel)) == filepath.Join(FioDir, "jobs")
}

// writeFio writes fio-run.json, fio-jobs.csv and fio-seconds.csv.
func writeFio(dir string, rec *FioRecord, cells []Cell) error {
	if err := writeJSON(filepath.Join(dir, FioRunFile), rec); err != nil {
		return err
	}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	_ = cw.Write([]string{"cell", "group", "job", "host", "threads", "targets", "read_ios", "read_iops", "read_fio_iops", "read_mbps",
		"read_lat_mean_ms", "write_ios", "write_iops", "write_fio_iops", "write_mbps", "write_lat_mean_ms", "runtime_ms"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, g := range rec.Groups {
		for _, j := range g.Jobs {
			var th []string
			for _, n := range j.Threads {
				th = append(th, strconv.Itoa(n))
			}
			_ = cw.Write([]string{strconv.Itoa(g.Cell + 1), g.Key.String(), j.Name, j.Host, strings.Join(th, " "), strings.Join(j.Targets, " "),
				strconv.FormatInt(j.Read.IOs, 10), f(j.Read.IOPS), f(j.Read.FioIOPS), f(j.Read.MBps), f(j.Read.LatMeanMs),
				strconv.FormatInt(j.Write.IOs, 10), f(j.Write.IOPS), f(j.Write.FioIOPS), f(j.Write.MBps), f(j.Write.LatMeanMs),
				f(max(j.Read.RuntimeMs, j.Write.RuntimeMs))})
		}
	}
	cw.Flush()
	if err := pts.WriteFileAtomic(filepath.Join(dir, FioJobsFile), buf.Bytes()); err != nil {
		return err
	}
	// Every group's series as seconds.csv writes a workload's, after the
	// cell and the group it is.
	var parts []matrix.SeriesPart
	for i, c := range cells {
		parts = append(parts, matrix.SeriesPart{Lead: []string{strconv.Itoa(i + 1), c.Key.String()},
			Series: matrix.SeriesOf(c.Workload, &c.Measurement)})
	}
	buf.Reset()
	if err := matrix.WriteSeriesCSV(&buf, []string{"cell", "group"}, parts); err != nil {
		return err
	}
	return pts.WriteFileAtomic(filepath.Join(dir, FioSecondsFile), buf.Bytes())
}

// fioReport is what the report of a `ptsrun fio` run shows besides its
// results: from run.json's record, or for a run recorded before it from
// its fio-run.json; nil for other runs. The job files it shows are read
// from their copies in FioDir/jobs.
func fioReport(dir string, s *side) (*pdfreport.FioRun, error) {
	var rec *FioRecord
	switch {
	case s != nil && s.Command == byFio:
		rec = s.Fio
	case s == nil:
		data, err := os.ReadFile(filepath.Join(dir, FioRunFile))
		if err != nil {
			return nil, nil
		}
		rec = &FioRecord{}
		if json.Unmarshal(data, rec) != nil {
			return nil, nil
		}
		for _, f := range rec.JobFiles {
			if f.Saved != "" && !inFioJobs(f.Saved) {
				return nil, fmt.Errorf("%s: the copy %q of %s is not in the run directory's %s: refused", filepath.Join(dir, FioRunFile),
					f.Saved, f.Path, filepath.Join(FioDir, "jobs"))
			}
		}
	default:
		return nil, nil
	}
	out := &pdfreport.FioRun{}
	for _, f := range rec.JobFiles {
		for _, src := range append([]FioSource{{Path: f.Path, Saved: f.Saved}}, f.Includes...) {
			if src.Saved == "" || !inFioJobs(src.Saved) {
				continue // inlined in the job file's copy
			}
			text, err := os.ReadFile(filepath.Join(dir, src.Saved))
			if err != nil {
				continue
			}
			name := src.Path
			if src.Path != f.Path {
				name += " (included by " + f.Path + ")"
			}
			out.JobFiles = append(out.JobFiles, pdfreport.JobFile{Name: name, Text: string(text)})
		}
		out.Commands = append(out.Commands, strings.Join(f.Command, " "))
		if f.Logs != "" {
			out.Notes = append(out.Notes, fmt.Sprintf("%s: ptsrun's per-second logs are in %s of the run directory.", f.Path, f.Logs))
		}
		if f.LogNote != "" {
			out.Notes = append(out.Notes, f.Path+": "+f.LogNote)
		}
		if f.Confined != "" {
			out.Notes = append(out.Notes, f.Path+": "+f.Confined+".")
		}
	}
	out.Notes = append(out.Notes, fmt.Sprintf("fio ran in %s: relative paths of the job files, and the logs the jobs ask for themselves, are there.", rec.Cwd))
	if rec.ReadOnly {
		out.Notes = append(out.Notes, "No job writes: fio ran with --readonly.")
	}
	out.Notes = append(out.Notes, rec.Notes...)
	for _, t := range rec.Targets {
		p := t.Path
		if t.Host != "" {
			p = t.Host + "=" + t.Path
		}
		out.Targets = append(out.Targets, pdfreport.FioTarget{Path: p, Kind: t.Kind, Use: t.Why, Verdict: t.Verdict})
	}
	for _, g := range rec.Groups {
		fg := pdfreport.FioGroup{Cell: g.Cell, Name: g.Key.String(), JobFile: g.JobFile, Series: g.Series}
		for _, j := range g.Jobs {
			lat := j.Read.LatMeanMs
			if n := j.Read.IOs + j.Write.IOs; n > 0 {
				lat = (j.Read.LatMeanMs*float64(j.Read.IOs) + j.Write.LatMeanMs*float64(j.Write.IOs)) / float64(n)
			}
			fg.Jobs = append(fg.Jobs, pdfreport.FioJob{Name: j.Name, Host: j.Host, Threads: len(j.Threads), Targets: fiojobs.TargetLabel(j.Targets),
				ReadIOPS: j.Read.IOPS, WriteIOPS: j.Write.IOPS, MBps: j.Read.MBps + j.Write.MBps, LatMeanMs: lat,
				RuntimeS: max(j.Read.RuntimeMs, j.Write.RuntimeMs) / 1000})
		}
		out.Groups = append(out.Groups, fg)
	}
	return out, nil
}
