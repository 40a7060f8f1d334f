package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/golden"
	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/pdfreport"
	"github.com/ptsrun/ptsrun/pts"
	"github.com/ptsrun/ptsrun/targets"
)

func fioCommand() *cli.Command {
	return &cli.Command{
		Name:  "fio",
		Usage: "run your own fio job files as they are, through the safety gate, and record them like a run",
		UsageText: "ptsrun fio JOBFILE... --out DIR [--destroy-data SERIAL-OR-PATH ...] [--fio-server HOST:PORT ...] [--plan] [--json]\n\n" +
			"Every reporting group of the job files (stonewall, new_group) becomes a cell of the run directory;\n" +
			"a job that writes to a block device needs --destroy-data naming it. --plan prints what the gate\n" +
			"makes of the job files and the fio command lines, and runs nothing.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "record the run in this directory (new or empty)"},
			&cli.StringSliceFlag{Name: "destroy-data", Usage: "confirm that a device (serial or path), file or directory the jobs write may be overwritten " +
				"(HOST:PORT=PATH through fio servers; repeatable)"},
			&cli.StringSliceFlag{Name: "fio-server", Usage: "HOST:PORT of a fio server to run the job files on (repeatable: each runs them)"},
			&cli.BoolFlag{Name: "plan", Usage: "print the gate's verdicts and the fio command lines; run nothing"},
			&cli.BoolFlag{Name: "json", Usage: "print the plan or the recorded results as JSON on stdout"},
		}, operatorFlags()...),
		Action: func(c *cli.Context) error {
			op, err := operatorFromFlags(c)
			if err != nil {
				return err
			}
			opts := fioOptions{JobFiles: c.Args().Slice(), Dir: c.String("out"), DestroyData: c.StringSlice("destroy-data"),
				Servers: c.StringSlice("fio-server"), Plan: c.Bool("plan"), JSON: c.Bool("json"), Operator: op}
			return runFioJobs(c.Context, opts, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// fioOptions are fio's options.
type fioOptions struct {
	JobFiles    []string
	Dir         string
	DestroyData []string
	Servers     []string
	Plan        bool
	JSON        bool
	Operator    pts.Operator
	Binary      string // fio; "fio" on PATH when empty
}

// Files of a `ptsrun fio` run directory besides those of every run.
const (
	fioRunFile    = "fio-run.json" // fioRecord: the gate's plan and every job's figures
	fioJobsCSV    = "fio-jobs.csv"
	fioSecondsCSV = "fio-seconds.csv"
)

// fioRunDirFiles are the names ptsrun writes at the top of a run
// directory, run.json and the journal first (they make a directory one):
// the gate refuses a job that writes any of them, in DIR or in another
// run directory.
var fioRunDirFiles = []string{pts.RunFile, pts.JournalFile, matrix.ResultsFile, "report.pdf", "tables", fioRunFile, fioJobsCSV,
	fioSecondsCSV, "fio", "seconds.csv", "workload.json", "vdbench.json"}

// fioRecord is DIR/fio-run.json: what ran, what the gate made of it, and
// fio's figures of every job, which the report shows beside the cells.
type fioRecord struct {
	Schema   int                 `json:"schema"`
	Tool     string              `json:"tool"`
	Version  string              `json:"version"`
	Fio      string              `json:"fio_version"`
	Cwd      string              `json:"cwd"` // fio's working directory: relative paths of the job files are there
	JobFiles []fioRecordFile     `json:"job_files"`
	Servers  []string            `json:"fio_servers,omitempty"`
	ReadOnly bool                `json:"read_only"` // fio ran with --readonly
	Targets  []targets.FioTarget `json:"targets"`
	Notes    []string            `json:"notes,omitempty"`
	Groups   []fioRecordGroup    `json:"groups"`
}

// fioRecordFile is a job file, paths relative to the run directory.
type fioRecordFile struct {
	targets.FioJobFile
	Saved    string      `json:"saved"` // the copy of it that ran, include files inlined
	Includes []fioSource `json:"includes,omitempty"`
}

type fioSource struct {
	Path  string `json:"path"`
	Saved string `json:"saved,omitempty"` // none: inlined in the job file's copy
}

type fioRecordGroup struct {
	Cell    int                    `json:"cell"`
	Key     pts.CellKey            `json:"key"`
	JobFile string                 `json:"job_file"`
	Group   int                    `json:"fio_group"` // fio's groupid within its job file
	Series  string                 `json:"series"`    // where the per-second figures come from, or why there are none
	Jobs    []targets.FioJobResult `json:"jobs"`
}

// fioPlanJSON is --plan --json.
type fioPlanJSON struct {
	JobFiles []targets.FioJobFile `json:"job_files"`
	ReadOnly bool                 `json:"read_only"`
	Targets  []targets.FioTarget  `json:"targets"`
	Refused  []string             `json:"refused,omitempty"`
	Notes    []string             `json:"notes,omitempty"`
}

// runFioJobs runs the job files: fio's own check of each, the gate, then
// one fio per job file, and records the run.
func runFioJobs(ctx context.Context, opts fioOptions, stdout, stderr io.Writer) (err error) {
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
		if err := checkNewDir(dir); err != nil {
			return err
		}
		if err := targets.CheckFioRunDir(dir); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	jobs, err := targets.OpenFioJobs(ctx, targets.FioRunOptions{Paths: opts.JobFiles, Binary: opts.Binary, Dir: dir,
		RunDirFiles: fioRunDirFiles, FioServers: opts.Servers, DestroyData: opts.DestroyData, Plan: opts.Plan})
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
	undo, err := prepareDir(dir)
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
				filepath.Join(opts.Dir, "fio"))
			for _, f := range fioRunDirFiles {
				if f != "fio" {
					os.RemoveAll(filepath.Join(dir, f))
				}
			}
		}
	}()
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	rec := fioRecord{Schema: 1, Tool: "ptsrun", Version: version, Fio: jobs.Version, Cwd: cwd, Servers: opts.Servers, ReadOnly: jobs.ReadOnly,
		Targets: plan.Targets, Notes: plan.Notes}
	if err := saveJobFiles(dir, jobs, &rec); err != nil {
		return err
	}
	started := time.Now().UTC()
	var cells []recordedCell
	prog := newProgress(stderr, io.Discard, opts.JSON)
	live := &intervalProgress{p: prog}
	liveCtx := engine.WithIntervalFunc(ctx, live.interval)
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
		live.running(filepath.Base(jf.Path), engine.Workload{Duration: about})
		at := time.Now().UTC()
		groups, err := jobs.Run(liveCtx, k)
		prog.finish()
		if err == nil || !targets.IsFioStopped(err) {
			ran++
		}
		if err != nil {
			stopped := targets.IsFioStopped(err)
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
			w, _, _, err := golden.FioJobWorkload(g.FirstJob, g.Options)
			if err != nil {
				w = engine.Workload{TC: 1, QD: 1, ActiveRange: 100}
			}
			w.Duration = g.Measurement.Elapsed
			key := pts.Named(g.Name)
			cells = append(cells, recordedCell{Key: key, Workload: w, Measurement: g.Measurement, Started: at,
				Ended: at.Add(g.Measurement.Elapsed)})
			rec.Groups = append(rec.Groups, fioRecordGroup{Cell: len(cells) - 1, Key: key, JobFile: g.JobFile, Group: g.Group,
				Series: g.Series, Jobs: g.Jobs})
			at = at.Add(g.Measurement.Elapsed)
		}
		if len(cells) == 0 {
			continue
		}
		// Recorded before the next job file runs: a stop or a failure
		// later keeps what ran.
		if err := recordFio(dir, opts, jobs, plan, rec, cells, started); err != nil {
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
		opts.Dir, fioRunFile, fioJobsCSV, fioSecondsCSV)
	return nil
}

// recordFio makes dir a run directory of the groups run so far: fio-run.json,
// fio-jobs.csv, fio-seconds.csv, and the run directory of custom cells
// (run.json, journal, results, report).
func recordFio(dir string, opts fioOptions, jobs *targets.FioJobs, plan *targets.FioJobsPlan, rec fioRecord, cells []recordedCell, started time.Time) error {
	cells = append([]recordedCell(nil), cells...)
	rec.Groups = append([]fioRecordGroup(nil), rec.Groups...)
	uniqueKeys(cells, rec.Groups)
	if err := saveFioRecord(dir, rec); err != nil {
		return err
	}
	if err := writeFioSeconds(dir, cells); err != nil {
		return err
	}
	kind := targets.Local
	if len(opts.Servers) > 0 {
		kind = targets.Remote
	}
	tp := &targets.Plan{Kind: kind, Engine: targets.Fio, Identities: plan.Identities}
	if len(tp.Identities) == 0 {
		tp.Identities = []device.Identity{{Spec: "fio job files", Kind: device.KindFile, Model: "no file or device"}}
	}
	var names []string
	for _, f := range opts.JobFiles {
		names = append(names, filepath.Base(f))
	}
	return recordWorkload(workloadRecord{Dir: dir, Targets: tp, Engine: "fio " + strings.TrimPrefix(jobs.Version, "fio-"), Started: started,
		Operator: opts.Operator, Cells: cells, Source: "ptsrun fio: " + strings.Join(names, ", ")})
}

// saveJobFiles saves the copy of every job file that fio runs, include
// files inlined, in DIR/fio/jobs, and describes them in rec.
func saveJobFiles(dir string, jobs *targets.FioJobs, rec *fioRecord) error {
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
		f := fioRecordFile{FioJobFile: jf, Saved: rel(jf.Saved)}
		f.Output, f.Logs = rel(jf.Output), rel(jf.Logs)
		for _, src := range jf.Sources[1:] {
			f.Includes = append(f.Includes, fioSource{Path: src.Path})
		}
		rec.JobFiles = append(rec.JobFiles, f)
	}
	return nil
}

// uniqueKeys makes the cells' names unique: a group named like an earlier
// one gets #2, #3; a name that reads as a PTS cell key gets "fio ".
func uniqueKeys(cells []recordedCell, groups []fioRecordGroup) {
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

func saveFioRecord(dir string, rec fioRecord) error {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := pts.WriteFileAtomic(filepath.Join(dir, fioRunFile), append(b, '\n')); err != nil {
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
	return pts.WriteFileAtomic(filepath.Join(dir, fioJobsCSV), buf.Bytes())
}

// writeFioSeconds writes every group's series as seconds.csv writes a
// workload's (matrix.WriteSeriesCSV), after the cell and the group.
func writeFioSeconds(dir string, cells []recordedCell) error {
	var parts []matrix.SeriesPart
	for i, c := range cells {
		parts = append(parts, matrix.SeriesPart{Lead: []string{strconv.Itoa(i + 1), c.Key.String()},
			Series: matrix.SeriesOf(c.Workload, &c.Measurement)})
	}
	var buf bytes.Buffer
	if err := matrix.WriteSeriesCSV(&buf, []string{"cell", "group"}, parts); err != nil {
		return err
	}
	return pts.WriteFileAtomic(filepath.Join(dir, fioSecondsCSV), buf.Bytes())
}

// printFioPlan prints --plan: the gate's verdicts, refusals included, and
// the fio command lines.
func printFioPlan(jobs *targets.FioJobs, asJSON bool, stdout io.Writer) error {
	if !asJSON {
		printFioPlanText(stdout, jobs, true)
		return nil
	}
	p := jobs.Plan
	j := fioPlanJSON{ReadOnly: jobs.ReadOnly, Targets: p.Targets, Refused: p.Refusals, Notes: p.Notes}
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

func printFioPlanText(w io.Writer, jobs *targets.FioJobs, full bool) {
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
		if full {
			fmt.Fprintf(w, "  $ %s\n", strings.Join(jf.Command, " "))
		}
	}
	if full && len(p.Refusals) > 0 {
		fmt.Fprintf(w, "the gate would refuse:\n  %s\n", strings.Join(p.Refusals, "\n  "))
	}
}

// printFioResults prints every group and its jobs.
func printFioResults(w io.Writer, rec fioRecord, cells []recordedCell) {
	for i, c := range cells {
		m := c.Measurement
		t := m.Total()
		fmt.Fprintf(w, "group %d (%s): %s IOPS, %s MB/s, %s ms average over %.1f s\n", i+1, c.Key, pts.FormatIOPS(m.IOPS()),
			pts.FormatMBps(m.MBps()), pts.FormatMs(t.MeanLatNs()/1e6), m.Elapsed.Seconds())
		for _, j := range rec.Groups[i].Jobs {
			fmt.Fprintf(w, "  %s%s (threads %v) on %s: read %s IOPS, write %s IOPS\n", j.Name, hostSuffix(j.Host), j.Threads,
				strings.Join(j.Targets, ", "), pts.FormatIOPS(j.Read.IOPS), pts.FormatIOPS(j.Write.IOPS))
		}
	}
}

// fioReport is what the report of a `ptsrun fio` run shows besides its
// results, read from the run directory (nil for other runs).
func fioReport(dir string) *pdfreport.FioRun {
	data, err := os.ReadFile(filepath.Join(dir, fioRunFile))
	if err != nil {
		return nil
	}
	var rec fioRecord
	if json.Unmarshal(data, &rec) != nil {
		return nil
	}
	out := &pdfreport.FioRun{}
	for _, f := range rec.JobFiles {
		for _, src := range append([]fioSource{{Path: f.Path, Saved: f.Saved}}, f.Includes...) {
			if src.Saved == "" {
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
			fg.Jobs = append(fg.Jobs, pdfreport.FioJob{Name: j.Name, Host: j.Host, Threads: len(j.Threads), Targets: targets.TargetLabel(j.Targets),
				ReadIOPS: j.Read.IOPS, WriteIOPS: j.Write.IOPS, MBps: j.Read.MBps + j.Write.MBps, LatMeanMs: lat,
				RuntimeS: max(j.Read.RuntimeMs, j.Write.RuntimeMs) / 1000})
		}
		out.Groups = append(out.Groups, fg)
	}
	return out
}
