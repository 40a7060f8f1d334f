package fiojobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/confine"
	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/fio"
)

// Jobs are a user's fio job files, read by fio and checked by the
// gate, ready to run one after the other (each in a fio of its own: fio
// resets the defaults ptsrun's options set before every further job
// file). fio runs the copies the gate judged, saved in the run directory
// (Save), never the user's files.
type Jobs struct {
	Plan    *Plan
	Version string // fio's
	// ReadOnly says every job file's fio runs with --readonly: no job
	// writes, on this host.
	ReadOnly bool
	files    []*fio.UserJobFile
	runs     []fio.UserRun
	notes    []string // per job file: why ptsrun adds no log options
	dir      string
	cwd      string
	saved    bool
	// gate is what the gate judged the job files with: it judges them
	// again before each job file runs.
	gate gateOptions
}

// Options are what `ptsrun fio` was given.
type Options struct {
	Paths  []string // the job files
	Binary string   // fio; "fio" on PATH when empty
	Dir    string   // the run directory, absolute ("" for a plan)
	// RunDirFiles are the names ptsrun writes at the top of a run
	// directory, those that make a directory one first (gateOptions).
	RunDirFiles []string
	FioServers  []string
	DestroyData []string
	// Plan reports what the gate would refuse instead of refusing it.
	Plan bool
}

// Open reads the job files and has fio read each (`fio
// --parse-only` with the options ptsrun will add): a file fio rejects is an
// error in fio's words, naming the line (fio.ErrFioRejects), before anything
// else; one fio reads otherwise than ptsrun can follow, or with an option
// the gate does not model, is refused. Then the gate judges the targets:
// unless o.Plan, a refusal is an error wrapping device.ErrUnsafe.
func Open(ctx context.Context, o Options) (*Jobs, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	v, err := fio.ProbeVersion(o.Binary)
	if err != nil {
		return nil, err
	}
	if !v.AtLeast(fio.MinVersion.Major, fio.MinVersion.Minor) {
		return nil, fmt.Errorf("fio %s is too old: ptsrun needs fio %s or newer", v.Raw, fio.MinVersion)
	}
	if o.Dir == "" {
		o.Dir = "DIR" // a plan's placeholder for the run directory
	}
	f := &Jobs{Version: v.Raw, dir: o.Dir, cwd: cwd}
	remote := len(o.FioServers) > 0
	for k, path := range o.Paths {
		jf, err := fio.ReadJobFile(path, fio.ReadOptions{})
		if err != nil {
			return nil, refusedIf(err)
		}
		r := fio.FioReading{Binary: o.Binary, Args: f.auxArgs()}
		if !remote {
			r.Args = append(fio.AllLogArgs(f.logDir(k)), r.Args...)
		}
		if err := r.Read(ctx, jf); err != nil {
			return nil, refusedIf(err)
		}
		f.files = append(f.files, jf)
	}
	fio.NumberGroups(f.files)
	runDir := o.Dir
	if !filepath.IsAbs(runDir) {
		runDir = ""
	}
	gate := gateOptions{Files: f.files, Cwd: cwd, RunDir: runDir, RunDirFiles: o.RunDirFiles,
		FioServers: o.FioServers, DestroyData: o.DestroyData, Gate: !o.Plan}
	plan, gerr := check(gate)
	if gerr != nil {
		return nil, gerr
	}
	f.Plan, f.gate = plan, gate
	f.ReadOnly = plan.ReadOnly && !remote
	for k, jf := range f.files {
		r := fio.UserRun{Binary: o.Binary, JobFile: jf, Path: f.copyPath(k),
			Output: filepath.Join(o.Dir, "fio", fmt.Sprintf("%02d-%s.json", k+1, filepath.Base(jf.Path))), Servers: o.FioServers}
		note := ""
		if !remote {
			r.Args, note = jf.LogArgs(f.logDir(k))
			if plan.ReadOnlyFile[k] {
				r.Args = append(r.Args, "--readonly")
			}
		} else {
			note = "through fio servers ptsrun's log options do not reach the jobs (fio sends the servers only the job files): no per-second series"
		}
		r.Args = append(r.Args, f.auxArgs()...)
		f.runs = append(f.runs, r)
		f.notes = append(f.notes, note)
	}
	return f, nil
}

// refusedIf makes a job file the gate cannot judge as fio runs it a
// refusal (exit 4); a job file fio rejects too stays bad input.
func refusedIf(err error) error {
	if errors.Is(err, fio.ErrCannotJudge) {
		return fmt.Errorf("%w: %v", device.ErrUnsafe, err)
	}
	return err
}

// logDir is where job file k's fio writes ptsrun's logs.
func (f *Jobs) logDir(k int) string {
	return filepath.Join(f.dir, "fio", "logs", fmt.Sprintf("%02d", k+1))
}

// auxArgs put the files fio writes of its own (verify state, verify
// dumps) into the run directory rather than fio's working directory.
func (f *Jobs) auxArgs() []string {
	return []string{"--aux-path=" + filepath.Join(f.dir, "fio", "aux")}
}

// copyPath is where job file k's copy is saved: what fio runs.
func (f *Jobs) copyPath(k int) string {
	return filepath.Join(f.dir, "fio", "jobs", fmt.Sprintf("%02d-%s", k+1, filepath.Base(f.files[k].Path)))
}

// Save writes the copy of every job file, include files inlined, into the
// run directory, read-only: fio runs these, never the user's files. It
// returns their paths.
func (f *Jobs) Save() ([]string, error) {
	var out []string
	for k, jf := range f.files {
		p := f.copyPath(k)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, jf.Copy, 0o444); err != nil {
			return nil, fmt.Errorf("saving the copy of %s: %w", jf.Path, err)
		}
		out = append(out, p)
	}
	f.saved = true
	return out, nil
}

// Len is the number of job files.
func (f *Jobs) Len() int { return len(f.files) }

// JobFile describes job file k: what it is, what runs it, and the
// files it reads.
type JobFile struct {
	Path    string       `json:"path"`
	Command []string     `json:"command"`
	Output  string       `json:"output"`             // fio's json+ output
	Logs    string       `json:"logs,omitempty"`     // where ptsrun's per-second logs go; "" when it adds none
	LogNote string       `json:"log_note,omitempty"` // why not
	Saved   string       `json:"-"`                  // the copy fio runs
	Sources []fio.Source `json:"-"`                  // the job file and its include files, as read
	Groups  []string     `json:"groups"`             // "w0×2 w1×2": each reporting group's jobs and threads
	// ReadOnly says its fio runs with --readonly: none of its jobs writes.
	ReadOnly bool `json:"read_only,omitempty"`
	// Confined says where the kernel lets its fio write (Landlock), or
	// why it does not confine it.
	Confined string `json:"confined"`
	// Seconds is how long its time-based groups run (ramp_time +
	// runtime of each group's longest job), 0 when not all are time based.
	Seconds float64 `json:"seconds,omitempty"`
}

// File describes job file k.
func (f *Jobs) File(k int) JobFile {
	jf, r := f.files[k], f.runs[k]
	d := JobFile{Path: jf.Path, Command: r.Command(), Output: r.Output, LogNote: f.notes[k], Saved: r.Path, Sources: jf.Sources,
		ReadOnly: slices.Contains(r.Args, "--readonly"), Confined: f.confinement(k)}
	if slices.ContainsFunc(r.Args, isLogArg) {
		d.Logs = f.logDir(k)
	}
	counts := map[string]int{}
	for _, th := range f.Plan.Threads {
		if th.File == k {
			counts[fmt.Sprintf("%d/%s", jf.Jobs[th.Job].Group, th.JobName)]++
		}
	}
	last := -1
	per := map[int]time.Duration{}
	timed := true
	for _, j := range jf.Jobs {
		if j.Group != last {
			d.Groups = append(d.Groups, "")
			last = j.Group
		}
		g := &d.Groups[len(d.Groups)-1]
		item := fmt.Sprintf("%s×%d", j.Name, counts[fmt.Sprintf("%d/%s", j.Group, j.Name)])
		if !strings.Contains(" "+*g+" ", " "+item+" ") {
			*g = strings.TrimSpace(*g + " " + item)
		}
		t, ok := jobTime(j)
		timed = timed && ok && t > 0
		per[j.Group] = max(per[j.Group], t)
	}
	if timed {
		for _, t := range per {
			d.Seconds += t.Seconds()
		}
	}
	return d
}

func isLogArg(a string) bool { return strings.HasPrefix(a, "--write_iops_log=") }

// jobTime is a time-based job's ramp_time + runtime.
func jobTime(j fio.JobDef) (time.Duration, bool) {
	if !j.Flag("time_based") {
		return 0, false
	}
	return fio.JobTime(j)
}

// GroupResult is a reporting group as it ran: a cell of the run.
type GroupResult struct {
	Name    string // its jobs' names joined by +
	JobFile string
	Group   int // fio's groupid within its job file
	// Series says where the per-second figures come from, or why there
	// are none.
	Series      string
	Measurement engine.Measurement
	Jobs        []JobResult
	// FirstJob is the options of the group's first job (its own and
	// inherited): what describes its workload.
	FirstJob string
	Options  map[string]string
}

// JobResult is one entry of fio's output: a thread, or the threads
// fio reports as one. IOPS are ptsrun's reading (I/Os over the job's run
// time), FioIOPS fio's own figure.
type JobResult struct {
	Name    string     `json:"name"`
	Host    string     `json:"host,omitempty"`
	Threads []int      `json:"threads"` // fio's thread numbers: its log files'
	Targets []string   `json:"targets"`
	Read    Dir        `json:"read"`
	Write   Dir        `json:"write"`
	CPU     engine.CPU `json:"cpu"`
}

// Dir is one direction of a job: the engine's figures of a direction,
// with fio's run time and IOPS.
type Dir = engine.Figures

func jobDir(d fio.Dir) Dir {
	r := Dir{IOs: d.IOs, Bytes: d.Bytes, RuntimeMs: float64(d.Runtime) / 1e6, FioIOPS: d.IOPS}
	if d.Runtime > 0 {
		r.IOPS = float64(d.IOs) / d.Runtime.Seconds()
		r.MBps = float64(d.Bytes) / 1e6 / d.Runtime.Seconds()
	}
	r.LatMeanMs = d.Stats().MeanLatNs() / 1e6
	return r
}

// Run runs job file k and reads what it did, a result per reporting
// group. stderr gets what fio prints there, and is kept beside its
// output. A cancelled ctx stops fio and returns ctx's error.
func (f *Jobs) Run(ctx context.Context, k int) ([]GroupResult, error) {
	r, jf := f.runs[k], f.files[k]
	dir := filepath.Dir(r.Output)
	if slices.ContainsFunc(r.Args, isLogArg) {
		dir = f.logDir(k)
	}
	if !f.saved {
		return nil, fmt.Errorf("%s: the copy fio runs is not saved", jf.Path)
	}
	for _, d := range []string{dir, filepath.Join(f.dir, "fio", "aux")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	// What fio may write is held open first (internal/confine): Landlock
	// confines fio to those files and directories, as they are now.
	rules := f.confineRules(k)
	for _, r := range rules {
		// A directory --destroy-data names that does not exist yet is made
		// now, to hold fio to it (the others exist: the gate judged them).
		if r.Dir && !isDir(r.Path) {
			if err := os.MkdirAll(r.Path, 0o755); err != nil {
				return nil, fmt.Errorf("making %s, which --destroy-data names, for fio: %w", r.Path, err)
			}
		}
	}
	pinned, err := confine.Pin(rules)
	if err != nil {
		return nil, fmt.Errorf("%w: holding what fio may write: %v", device.ErrUnsafe, err)
	}
	defer pinned.Close()
	// What the gate judged may have changed while the job files before
	// this one ran (a file of the job's own made a link to a device): it
	// judges them all again, now, and what was held must be what it
	// judged. The block devices are held from here on.
	if f.gate.Gate {
		if _, err := check(f.gate); err != nil {
			return nil, fmt.Errorf("judged again before fio runs it: %w", err)
		}
		if err := pinned.Check(); err != nil {
			return nil, fmt.Errorf("%w: judged again before fio runs it: %v", device.ErrUnsafe, err)
		}
	}
	r.Confine = pinned
	held, err := f.holdWritten(k)
	if err != nil {
		return nil, err
	}
	defer held.Release()
	var errb bytes.Buffer
	out, runErr, err := r.Run(ctx, &errb)
	_ = os.WriteFile(strings.TrimSuffix(r.Output, ".json")+".stderr", errb.Bytes(), 0o644)
	if err != nil {
		return nil, err
	}
	if runErr != nil {
		return nil, runErr
	}
	var threads []Thread
	for _, th := range f.Plan.Threads {
		if th.File == k {
			threads = append(threads, th)
		}
	}
	return f.groups(jf, threads, out, r, f.logDir(k))
}

// groups makes one job file's output into its reporting groups: every
// job's figures added up, per target, and the per-second series from the
// threads' logs.
func (f *Jobs) groups(jf *fio.UserJobFile, threads []Thread, out *fio.Output, r fio.UserRun, logDir string) ([]GroupResult, error) {
	ths := make([]fio.Thread, len(threads))
	for i, t := range threads {
		ths[i] = t.Thread
	}
	results, err := fio.MatchJobs(out, jf, ths)
	if err != nil {
		return nil, err
	}
	for _, jr := range results {
		if jr.Job.Error != 0 {
			return nil, fmt.Errorf("%w: fio job %s ended with error %d", engine.ErrIO, jr.Job.Name, jr.Job.Error)
		}
	}
	ours := slices.ContainsFunc(r.Args, isLogArg)
	var gids []int
	for _, jr := range results {
		if !slices.Contains(gids, jr.Group) {
			gids = append(gids, jr.Group)
		}
	}
	var groups []GroupResult
	for _, gid := range gids {
		g := GroupResult{JobFile: jf.Path, Group: gid - jf.Jobs[0].Group}
		m := engine.Measurement{Engine: "fio " + out.Version.String(), CPU: engine.CPU{Of: engine.CPUOfOne}}
		per := map[string]*engine.TargetStats{}
		var order, names []string
		var series []fio.Series
		byTarget := map[string][]fio.Series{} // each target's threads' series
		var mine []fio.JobResult
		missing := 0
		for _, jr := range results {
			if jr.Group != gid {
				continue
			}
			mine = append(mine, jr)
			rd, wr := jr.Job.Read.Stats(), jr.Job.Write.Stats()
			m.Read.Merge(rd)
			m.Write.Merge(wr)
			m.Elapsed = max(m.Elapsed, jr.Job.Elapsed())
			var files []string
			var nums []int
			var jobSeries []fio.Series
			for _, ti := range jr.Threads {
				th := threads[ti]
				nums = append(nums, th.Number)
				j := jf.Jobs[th.Job]
				if g.FirstJob == "" {
					g.FirstJob, g.Options = j.Name, optionMap(j)
				}
				if !slices.Contains(names, j.Name) {
					names = append(names, j.Name)
				}
				for _, fr := range th.Files {
					if !slices.Contains(files, fr.Name) {
						files = append(files, fr.Name)
					}
				}
				s, err := fio.ReadSeries(jf.Logs(th.Thread, logDir, f.cwd, ours))
				if err != nil || s.Covered < time.Second {
					missing++
				} else {
					series = append(series, s)
					jobSeries = append(jobSeries, s)
				}
			}
			host := ""
			if jr.Job.Host != "" {
				host = fmt.Sprintf("%s:%d", jr.Job.Host, jr.Job.Port)
			}
			// Named as a target of a fio server is named everywhere
			// (HOST:PORT=PATH): results key targets by name.
			key := TargetLabel(files)
			if host != "" {
				key = host + "=" + key
			}
			byTarget[key] = append(byTarget[key], jobSeries...)
			ts := per[key]
			if ts == nil {
				ts = &engine.TargetStats{Target: key, Host: host}
				per[key] = ts
				order = append(order, key)
			}
			rd.Hist, wr.Hist = nil, nil
			ts.Read.Merge(rd)
			ts.Write.Merge(wr)
			g.Jobs = append(g.Jobs, JobResult{Name: jr.Job.Name, Host: host, Threads: nums, Targets: files,
				Read: jobDir(jr.Job.Read), Write: jobDir(jr.Job.Write)})
		}
		// CPU per second of the group's time.
		for k, jr := range mine {
			c := fio.UserCPU(jr.Job, m.Elapsed)
			g.Jobs[k].CPU = c
			m.CPU = m.CPU.Add(c)
		}
		whole := len(series) > 0 && missing == 0
		if whole {
			m.Seconds = fio.MergeSeries(series)
		}
		if len(order) > 1 {
			for _, k := range order {
				if whole {
					// The seconds every thread of the group logged, as the whole's.
					s := fio.MergeSeries(byTarget[k])
					per[k].Seconds = s[:min(len(s), len(m.Seconds))]
				}
				m.Targets = append(m.Targets, *per[k])
			}
		}
		switch {
		case whole:
			g.Series = fmt.Sprintf("The per-second figures are fio's logs of the group's %d threads (one-second averages), added up; "+
				"fio does not log a thread's last, partial second.", len(series))
			if !ours {
				g.Series = fmt.Sprintf("The per-second figures are from the logs the jobs write themselves (%d threads).", len(series))
			}
		case len(r.Servers) > 0:
			g.Series = "No per-second figures: through fio servers ptsrun's log options do not reach the jobs."
		default:
			g.Series = fmt.Sprintf("No per-second figures: %d of the group's %d threads left no log ptsrun can read "+
				"(compressed logs, no logs of their own, or runs shorter than a second).", missing, missing+len(series))
		}
		g.Name = strings.Join(names, "+")
		g.Measurement = m
		groups = append(groups, g)
	}
	return groups, nil
}

// TargetLabel names a job's files as one target: the file, or the first
// and how many more.
func TargetLabel(names []string) string {
	switch len(names) {
	case 0:
		return "no file"
	case 1:
		return names[0]
	case 2, 3:
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", names[0], len(names)-1)
}

// optionMap is a job's options as fio's JSON "job options" would hold
// them: the last value of each.
func optionMap(j fio.JobDef) map[string]string {
	m := map[string]string{}
	for _, o := range j.Options {
		m[o.Name] = strings.TrimSpace(o.Value)
	}
	return m
}

// IsStopped says err is fio stopped by ctx.
func IsStopped(err error) bool { return errors.Is(err, context.Canceled) }

// CheckRunDir refuses a run directory whose paths fio would misread in
// its log options.
func CheckRunDir(dir string) error {
	_, err := fio.CheckWorkDir(filepath.Join(dir, "fio"))
	return err
}
