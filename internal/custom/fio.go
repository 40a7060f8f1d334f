package custom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/fiojobs"
	"github.com/ptsrun/ptsrun/internal/importer"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/rundir"
	"github.com/ptsrun/ptsrun/internal/targets"
)

// FioOptions are `ptsrun fio`'s options.
type FioOptions struct {
	JobFiles    []string
	Dir         string
	DestroyData []string
	Servers     []string
	Plan        bool
	JSON        bool
	Operator    pts.Operator
	Binary      string // fio; "fio" on PATH when empty
	Version     string // ptsrun's, for what it records
}

// FioPlanJSON is --plan --json.
type FioPlanJSON struct {
	JobFiles []fiojobs.JobFile `json:"job_files"`
	ReadOnly bool              `json:"read_only"`
	Targets  []fiojobs.Target  `json:"targets"`
	Refused  []string          `json:"refused,omitempty"`
	Notes    []string          `json:"notes,omitempty"`
}

// RunFio runs the job files: fio's own check of each, the gate, then one
// fio per job file, and records the run, a cell per reporting group.
func RunFio(ctx context.Context, opts FioOptions, out Output) (err error) {
	stdout, stderr := out.Stdout, out.Stderr
	if len(opts.JobFiles) == 0 {
		return errors.New("fio needs at least one job file: ptsrun fio JOBFILE... --out DIR")
	}
	if opts.Dir == "" && !opts.Plan {
		return errors.New("--out: name the directory to record the run in (or --plan to run nothing)")
	}
	for _, s := range opts.Servers {
		if err := device.CheckControl(s); err != nil {
			return fmt.Errorf("--fio-server %q: %w", s, err)
		}
		if h, p, ok := strings.Cut(s, ":"); !ok || h == "" || p == "" || strings.Contains(s, "=") {
			return fmt.Errorf("--fio-server %q: want HOST:PORT (the job files name the targets)", s)
		}
	}
	dir := ""
	if opts.Dir != "" {
		if dir, err = filepath.Abs(opts.Dir); err != nil {
			return err
		}
		if err := rundir.CheckNew(dir); err != nil {
			return err
		}
		if err := fiojobs.CheckRunDir(dir); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	jobs, err := fiojobs.Open(ctx, fiojobs.Options{Paths: opts.JobFiles, Binary: opts.Binary, Dir: dir,
		RunDirFiles: rundir.Names, FioServers: opts.Servers, DestroyData: opts.DestroyData, Plan: opts.Plan})
	if err != nil {
		return err
	}
	plan := jobs.Plan
	if opts.Plan {
		return printFioPlan(jobs, opts.JSON, stdout)
	}
	if !opts.JSON {
		printFioPlanText(stderr, jobs, false)
	}
	undo, err := rundir.Make(dir)
	if err != nil {
		return err
	}
	ran := 0      // job files fio ran: their output is kept when a later one fails
	recorded := 0 // job files recorded in the run directory, kept when a later one fails or is stopped
	defer func() {
		switch {
		case err == nil || recorded > 0:
		case ran == 0:
			undo()
		default:
			err = fmt.Errorf("%w; fio's output of the %d job file(s) that ran is kept in %s (not a run directory)", err, ran,
				filepath.Join(opts.Dir, rundir.FioDir))
			rundir.RemoveAllBut(dir, rundir.FioDir)
		}
	}()
	// Held while it records, as run and resume hold theirs: a second
	// command recording into the directory, or a run, is refused.
	lock, lerr := rundir.TakeLock(dir, "fio")
	if lerr != nil {
		undo = func() {} // the holder's directory: nothing of it is removed
		return lerr
	}
	defer lock.Release() // before the undo above
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	rec := rundir.FioRecord{Schema: 1, Tool: "ptsrun", Version: opts.Version, Fio: jobs.Version, Cwd: cwd, Servers: opts.Servers,
		ReadOnly: jobs.ReadOnly, Targets: plan.Targets, Notes: plan.Notes}
	if err := saveJobFiles(dir, jobs, &rec); err != nil {
		return err
	}
	started := time.Now().UTC()
	var cells []rundir.Cell
	liveCtx := engine.WithIntervalFunc(ctx, out.Progress.Interval)
	for k := 0; k < jobs.Len(); k++ {
		jf := jobs.File(k)
		about := time.Duration(jf.Seconds * float64(time.Second))
		if !opts.JSON {
			msg := ""
			if jf.Seconds > 0 {
				msg = fmt.Sprintf(" (about %s)", about)
			}
			fmt.Fprintf(stderr, "ptsrun fio: running %s%s\n", jf.Path, msg)
		}
		out.Progress.Running(filepath.Base(jf.Path), engine.Workload{Duration: about})
		at := time.Now().UTC()
		groups, err := jobs.Run(liveCtx, k)
		out.Progress.Done()
		if err == nil || !fiojobs.IsStopped(err) {
			ran++
		}
		if err != nil {
			stopped := fiojobs.IsStopped(err)
			switch {
			case stopped && recorded > 0:
				return fmt.Errorf("%w: fio was stopped during %s; the %d job file(s) before it are recorded in %s", pts.ErrInterrupted,
					jf.Path, k, opts.Dir)
			case stopped:
				return fmt.Errorf("%w: fio was stopped; nothing recorded", pts.ErrInterrupted)
			case recorded > 0:
				return fmt.Errorf("%s: %w (the %d job file(s) before it are recorded in %s)", jf.Path, err, k, opts.Dir)
			}
			return fmt.Errorf("%s: %w", jf.Path, err)
		}
		for _, g := range groups {
			w, _, _, err := importer.FioJobWorkload(g.FirstJob, g.Options)
			if err != nil {
				w = engine.Workload{TC: 1, QD: 1, ActiveRange: 100}
			}
			w.Duration = g.Measurement.Elapsed
			key := pts.Named(g.Name)
			cells = append(cells, rundir.Cell{Key: key, Workload: w, Measurement: g.Measurement, Started: at,
				Ended: at.Add(g.Measurement.Elapsed)})
			rec.Groups = append(rec.Groups, rundir.FioRecordGroup{Cell: len(cells) - 1, Key: key, JobFile: g.JobFile, Group: g.Group,
				Series: g.Series, Jobs: g.Jobs})
			at = at.Add(g.Measurement.Elapsed)
		}
		if len(cells) == 0 {
			continue
		}
		// Recorded before the next job file runs: a stop or a failure
		// later keeps what ran.
		if err := recordFio(dir, opts, jobs, rec, cells, started); err != nil {
			return err
		}
		recorded = k + 1
	}
	if len(cells) == 0 {
		return errors.New("the job files ran no job fio reports on")
	}
	uniqueKeys(cells, rec.Groups)
	if opts.JSON {
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	printFioResults(stdout, rec, cells)
	fmt.Fprintf(stderr, "recorded in %s (%s, %s, %s; the job files and fio's output in fio/; results.json, tables, report.pdf)\n",
		opts.Dir, rundir.FioRunFile, rundir.FioJobsFile, rundir.FioSecondsFile)
	return nil
}

// recordFio makes dir a run directory of the groups run so far: a custom
// cell each, with the record of the gate and of fio's figures.
func recordFio(dir string, opts FioOptions, jobs *fiojobs.Jobs, rec rundir.FioRecord, cells []rundir.Cell, started time.Time) error {
	cells = append([]rundir.Cell(nil), cells...)
	rec.Groups = append([]rundir.FioRecordGroup(nil), rec.Groups...)
	uniqueKeys(cells, rec.Groups)
	kind := targets.Local
	if len(opts.Servers) > 0 {
		kind = targets.Remote
	}
	tp := &targets.Plan{Kind: kind, Engine: targets.Fio, Identities: jobs.Plan.Identities}
	if len(tp.Identities) == 0 {
		tp.Identities = []device.Identity{{Spec: "fio job files", Kind: device.KindFile, Model: "no file or device"}}
	}
	var names []string
	for _, f := range opts.JobFiles {
		names = append(names, filepath.Base(f))
	}
	_, err := rundir.Record(rundir.Recording{Dir: dir, Targets: tp, Engine: "fio " + strings.TrimPrefix(jobs.Version, "fio-"), Started: started,
		Operator: opts.Operator, Version: opts.Version, Cells: cells, Source: "ptsrun fio: " + strings.Join(names, ", "), Fio: &rec})
	return err
}

// saveJobFiles saves the copy of every job file that fio runs, include
// files inlined, in DIR/fio/jobs, and describes them in rec.
func saveJobFiles(dir string, jobs *fiojobs.Jobs, rec *rundir.FioRecord) error {
	if _, err := jobs.Save(); err != nil {
		return err
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(dir, p); err == nil && p != "" {
			return r
		}
		return p
	}
	for k := 0; k < jobs.Len(); k++ {
		jf := jobs.File(k)
		f := rundir.FioRecordFile{JobFile: jf, Saved: rel(jf.Saved)}
		f.Output, f.Logs = rel(jf.Output), rel(jf.Logs)
		for _, src := range jf.Sources[1:] {
			f.Includes = append(f.Includes, rundir.FioSource{Path: src.Path})
		}
		rec.JobFiles = append(rec.JobFiles, f)
	}
	return nil
}

// uniqueKeys makes the cells' names unique: a group named like an earlier
// one gets #2, #3; a name that reads as a PTS cell key gets "fio ".
func uniqueKeys(cells []rundir.Cell, groups []rundir.FioRecordGroup) {
	seen := map[string]int{}
	for i := range cells {
		name := cells[i].Key.String()
		if _, err := pts.ParseCellKey(name); err == nil {
			name = "fio " + name
		}
		seen[name]++
		if n := seen[name]; n > 1 {
			name = fmt.Sprintf("%s #%d", name, n)
		}
		cells[i].Key = pts.Named(name)
		groups[i].Key = cells[i].Key
	}
}

// printFioPlan prints --plan: the gate's verdicts, refusals included, and
// the fio command lines.
func printFioPlan(jobs *fiojobs.Jobs, asJSON bool, stdout io.Writer) error {
	if !asJSON {
		printFioPlanText(stdout, jobs, true)
		return nil
	}
	p := jobs.Plan
	j := FioPlanJSON{ReadOnly: jobs.ReadOnly, Targets: p.Targets, Refused: p.Refusals, Notes: p.Notes}
	for k := 0; k < jobs.Len(); k++ {
		j.JobFiles = append(j.JobFiles, jobs.File(k))
	}
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, string(b))
	return nil
}

func printFioPlanText(w io.Writer, jobs *fiojobs.Jobs, full bool) {
	p := jobs.Plan
	for k := 0; k < jobs.Len(); k++ {
		jf := jobs.File(k)
		var gs []string
		for i, g := range jf.Groups {
			gs = append(gs, fmt.Sprintf("group %d: %s", i+1, g))
		}
		fmt.Fprintf(w, "ptsrun fio: %s: %s\n", jf.Path, strings.Join(gs, "; "))
	}
	for _, t := range p.Targets {
		name := t.Path
		if t.Host != "" {
			name = t.Host + "=" + t.Path
		}
		fmt.Fprintf(w, "  %s (%s): %s — %s\n", name, t.Kind, t.Why, t.Verdict)
	}
	for _, n := range p.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if jobs.ReadOnly {
		fmt.Fprintln(w, "  no job writes: fio runs with --readonly, and refuses any write itself")
	}
	for k := 0; k < jobs.Len(); k++ {
		jf := jobs.File(k)
		if jf.LogNote != "" {
			fmt.Fprintf(w, "  logs: %s\n", jf.LogNote)
		}
		if full && jf.Confined != "" {
			fmt.Fprintf(w, "  %s: %s\n", jf.Path, jf.Confined)
		}
		if full {
			fmt.Fprintf(w, "  $ %s\n", strings.Join(jf.Command, " "))
		}
	}
	if full && len(p.Refusals) > 0 {
		fmt.Fprintf(w, "the gate would refuse:\n  %s\n", strings.Join(p.Refusals, "\n  "))
	}
}

// printFioResults prints every group and its jobs.
func printFioResults(w io.Writer, rec rundir.FioRecord, cells []rundir.Cell) {
	for i, c := range cells {
		m := c.Measurement
		t := m.Total()
		fmt.Fprintf(w, "group %d (%s): %s IOPS, %s MB/s, %s ms average over %.1f s\n", i+1, c.Key, pts.FormatIOPS(m.IOPS()),
			pts.FormatMBps(m.MBps()), pts.FormatMs(t.MeanLatNs()/1e6), m.Elapsed.Seconds())
		for _, j := range rec.Groups[i].Jobs {
			fmt.Fprintf(w, "  %s%s (threads %v) on %s: read %s IOPS, write %s IOPS\n", j.Name, rundir.OnHost(j.Host), j.Threads,
				strings.Join(j.Targets, ", "), pts.FormatIOPS(j.Read.IOPS), pts.FormatIOPS(j.Write.IOPS))
		}
	}
}
