package targets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/engine/fio"
)

// The gate of `ptsrun fio`: a user's job files run as they are, so the gate
// reads them the way fio does (fio.ParseJobFiles, Threads, Access) and
// judges every file and device a job does I/O on:
//
//   - A block device a job writes (rw with writes or trims, an engine that
//     deletes, truncates or allocates, unlink) passes the same check as a
//     target of `run`: refused when mounted, holding a mounted partition,
//     held by md, dm or LVM, active swap or read-only; otherwise it needs
//     --destroy-data naming its serial or path.
//   - A block device a job only reads needs nothing.
//   - A path under /dev that does not exist is refused: fio would make a
//     regular file there (the device is missing, or misspelt).
//   - A character device, directory, fifo or socket a job writes is
//     refused: ptsrun cannot tell what writing it destroys.
//   - A regular file a job writes that exists is overwritten: inside the
//     job file's directory or the run directory it is the job's own;
//     elsewhere it needs --destroy-data naming it or a directory above it.
//   - A file a job creates is fine; the plan lists it, and says when it is
//     outside the job file's directory and the run directory.
//   - What the gate cannot resolve for a job that writes (an unset
//     ${VAR}, $ncpus-style keywords in a file name, $clientuid, a trace to
//     replay, an engine whose targets are not local paths) is refused,
//     naming the line. A command run by the job (exec_prerun,
//     exec_postrun, ioengine=exec or a library) is refused whatever the
//     job does.
//   - Through fio servers ptsrun sees nothing of the servers' hosts: every
//     path a job writes needs --destroy-data HOST:PORT=PATH for each
//     server, include files and ${VAR} (read on the server) are refused.
//
// When no job writes or creates anything, fio runs with --readonly: fio
// itself then refuses any write.

// FioJobsOptions are what `ptsrun fio` was given.
type FioJobsOptions struct {
	Files       []*fio.UserJobFile
	Cwd         string   // fio's working directory, absolute
	RunDir      string   // --out, absolute
	FioServers  []string // HOST:PORT
	DestroyData []string
	// Gate refuses what may not run; without it CheckFioJobs only reports
	// (a plan).
	Gate bool
	FS   device.FS
	Stat fio.Stat // LiveStat in Cwd when nil
}

// FioTarget is one file or device the job files do I/O on.
type FioTarget struct {
	Name    string   `json:"name"`           // as fio names it (the first job's spelling)
	At      fio.Pos  `json:"at"`             // where the first job names it
	Path    string   `json:"path"`           // absolute; the device node for a block device
	Host    string   `json:"host,omitempty"` // the fio server whose host it is on
	Kind    string   `json:"kind"`           // block device, file, new file, character device, …
	Written bool     `json:"written"`
	Why     string   `json:"why"`  // what the jobs do to it, with the lines
	Jobs    []string `json:"jobs"` // the jobs that use it
	Verdict string   `json:"verdict"`
	Refused string   `json:"refused,omitempty"`
	// Outside marks a file written outside the job file's directory and
	// the run directory.
	Outside bool `json:"outside,omitempty"`

	key        string
	id         *device.Identity
	dev        *device.Target
	inspectErr error
}

// FioThread is a thread of a job and the targets it uses.
type FioThread struct {
	fio.Thread
	File    int    // index into the job files
	JobName string // the section's name
	Targets []int  // indexes into FioJobsPlan.Targets
	Writes  bool
}

// FioJobsPlan is the gate's reading of the job files.
type FioJobsPlan struct {
	Targets    []FioTarget
	Threads    []FioThread
	Identities []device.Identity
	// ReadOnly says no job writes or creates anything: fio runs with
	// --readonly and refuses any write itself.
	ReadOnly bool
	// Refusals are what the gate refuses, each naming its line; Notes
	// what it reports.
	Refusals []string
	Notes    []string
}

// CheckFioJobs judges every target of the job files. With o.Gate, a
// refusal is an error wrapping device.ErrUnsafe that lists them all.
func CheckFioJobs(o FioJobsOptions) (*FioJobsPlan, error) {
	if o.FS.Root == "" {
		o.FS = device.Live
	}
	remote := len(o.FioServers) > 0
	if o.Stat == nil {
		o.Stat = fio.LiveStat{Dir: o.Cwd}
		if remote {
			o.Stat = remoteStat{}
		}
	}
	p := &FioJobsPlan{ReadOnly: true}
	byKey := map[string]int{}
	refuse := func(at fio.Pos, format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		if at.File != "" {
			msg = at.String() + ": " + msg
		}
		if !slices.Contains(p.Refusals, msg) {
			p.Refusals = append(p.Refusals, msg)
		}
	}
	for fi, jf := range o.Files {
		if remote {
			for _, src := range jf.Sources[1:] {
				refuse(fio.Pos{File: src.Path}, "an include file: a fio server reads it on its own host, where ptsrun cannot see it")
			}
		}
		// Each job file runs in a fio of its own: its threads are numbered
		// from 1 (fio's thread numbers name their log files).
		threads := jf.Threads(1, o.Stat)
		for _, th := range threads {
			j := jf.Jobs[th.Job]
			a := j.Access()
			ft := FioThread{Thread: th, File: fi, JobName: j.Name, Writes: a.Writes && !a.NoIO}
			for _, r := range a.Refuse {
				refuse(r.At, "%s", r.Msg)
			}
			if remote {
				for _, opt := range j.Options {
					if len(opt.Unset) > 0 || strings.Contains(opt.Raw, "${") && slices.Contains([]string{"filename", "directory", "opendir",
						"filename_format", "rw", "ioengine"}, opt.Name) {
						refuse(opt.At, "%s: a fio server puts its own environment's values for ${VAR}, which ptsrun cannot see", opt.Raw)
					}
				}
			}
			if a.Writes {
				p.ReadOnly = false // fio --readonly refuses a writing job, whatever its engine
			}
			switch {
			case a.NoIO:
				p.Threads = append(p.Threads, ft)
				continue
			case !a.Files && a.Writes:
				refuse(j.At, "job %s: %s: ptsrun cannot check what it writes to", j.Name, a.Why)
				p.ReadOnly = false
				p.Threads = append(p.Threads, ft)
				continue
			case !a.Files:
				p.Notes = append(p.Notes, fmt.Sprintf("job %s (%s): ioengine=%s reads from targets that are not paths on this host", j.Name, j.At, a.Engine))
				p.Threads = append(p.Threads, ft)
				continue
			}
			if a.Writes {
				p.ReadOnly = false
				for _, u := range th.Unresolved {
					refuse(u.At, "%s (job %s writes: %s)", u.Msg, j.Name, a.Why)
				}
			} else {
				for _, u := range th.Unresolved {
					note := fmt.Sprintf("%s: %s (job %s only reads)", u.At, u.Msg, j.Name)
					if !slices.Contains(p.Notes, note) {
						p.Notes = append(p.Notes, note)
					}
				}
			}
			files := append(slices.Clone(th.Files), a.Also...)
			for k, f := range files {
				written := a.Writes || k >= len(th.Files) // write_iolog is written
				why := a.Why
				if k >= len(th.Files) {
					why = "its I/O log (" + f.At.String() + ")"
				}
				hosts := []string{""}
				if remote {
					hosts = o.FioServers
				}
				for _, h := range hosts {
					t := o.target(f, h)
					idx, ok := byKey[t.key]
					if !ok {
						idx = len(p.Targets)
						byKey[t.key] = idx
						p.Targets = append(p.Targets, t)
					}
					tg := &p.Targets[idx]
					if !slices.Contains(tg.Jobs, j.Name) {
						tg.Jobs = append(tg.Jobs, j.Name)
					}
					if written && !tg.Written {
						tg.Written = true
						tg.Why = fmt.Sprintf("written by job %s: %s", j.Name, why)
					}
					if tg.Why == "" {
						tg.Why = fmt.Sprintf("read by job %s: %s", j.Name, why)
					}
					if !slices.Contains(ft.Targets, idx) {
						ft.Targets = append(ft.Targets, idx)
					}
				}
			}
			p.Threads = append(p.Threads, ft)
		}
	}
	real := func(p string) string {
		if !o.live() || p == "" {
			return p
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			return filepath.Join(r, filepath.Base(p))
		}
		return p
	}
	jobDirs := []string{}
	for _, jf := range o.Files {
		jobDirs = append(jobDirs, real(filepath.Dir(abs(o.Cwd, jf.Path))))
	}
	o.RunDir = real(o.RunDir)
	var sys *device.System
	for _, t := range p.Targets {
		if t.Kind == kindBlock && t.Written && t.dev != nil && sys == nil {
			s, err := o.FS.System()
			if err != nil {
				return p, err
			}
			sys = &s
		}
	}
	for i := range p.Targets {
		t := &p.Targets[i]
		o.judge(t, jobDirs, sys)
		if t.Refused != "" {
			refuse(t.At, "%s", t.Refused)
		}
		if t.Kind == kindNewFile {
			p.ReadOnly = false // fio lays the file out: it writes it
		}
		if t.Outside {
			p.Notes = append(p.Notes, fmt.Sprintf("%s %s is outside the job file's directory and the run directory", t.Kind, t.Path))
		}
	}
	p.Identities = identities(p.Targets)
	if o.Gate && len(p.Refusals) > 0 {
		return p, fmt.Errorf("%w: refusing to run the job files:\n  %s", device.ErrUnsafe, strings.Join(p.Refusals, "\n  "))
	}
	return p, nil
}

// Kinds of targets.
const (
	kindBlock   = "block device"
	kindFile    = "file"
	kindNewFile = "new file"
	kindChar    = "character device"
	kindDir     = "directory"
	kindOther   = "fifo or socket"
	kindRemote  = "path on a fio server's host"
	kindMissing = "missing device"
)

func abs(cwd, p string) string { return fio.Abs(cwd, p) }

// live says the gate looks at this host, not a fixture tree.
func (o FioJobsOptions) live() bool { return o.FS.Root == device.Live.Root }

// target places a file fio names and says what it is, on this host or on
// the fio server h.
func (o FioJobsOptions) target(f fio.FileRef, h string) FioTarget {
	t := FioTarget{Name: f.Name, At: f.At, Path: abs(o.Cwd, f.Name), Host: h}
	if h != "" {
		t.Path = f.Name
		t.Kind, t.key = kindRemote, h+"="+f.Name
		return t
	}
	t.key = t.Path
	switch o.Stat.Kind(t.Path) {
	case fio.Missing:
		t.Kind = kindNewFile
		if strings.HasPrefix(t.Path, "/dev/") {
			t.Kind = kindMissing
		}
		// Where it will be made: its directory with links followed.
		if o.live() {
			if d, err := filepath.EvalSymlinks(filepath.Dir(t.Path)); err == nil {
				t.Path = filepath.Join(d, filepath.Base(t.Path))
				t.key = t.Path
			}
		}
	case fio.Regular:
		// The file itself, links followed: a link in the job's directory
		// to a file elsewhere is that file.
		t.Kind = kindFile
		if o.live() {
			if real, err := filepath.EvalSymlinks(t.Path); err == nil {
				t.Path, t.key = real, real
			}
		}
	case fio.Directory:
		t.Kind = kindDir
	case fio.Char:
		t.Kind = kindChar
	case fio.Other:
		t.Kind = kindOther
	case fio.Block:
		t.Kind = kindBlock
		dt, err := o.FS.Inspect(device.Spec{Raw: t.Path, Kind: device.KindBlock, Path: t.Path})
		if err != nil {
			t.inspectErr = err
			return t
		}
		t.dev = &dt
		t.key = dt.Block.Path()
		t.Path = dt.Block.Path()
	}
	return t
}

// judge decides a target.
func (o FioJobsOptions) judge(t *FioTarget, jobDirs []string, sys *device.System) {
	t.Verdict = "read only: nothing to confirm"
	refuse := func(why string) {
		t.Refused = fmt.Sprintf("%s is a %s, %s: %s", t.Name, t.Kind, t.Why, why)
		t.Verdict = "refused: " + why
	}
	if t.inspectErr != nil {
		if t.Written {
			refuse("ptsrun cannot identify it: " + t.inspectErr.Error())
		} else {
			t.Verdict = "read only; ptsrun cannot identify it: " + t.inspectErr.Error()
		}
		return
	}
	switch t.Kind {
	case kindRemote:
		if !t.Written {
			return
		}
		spec := t.Host + "=" + t.Path
		if slices.Contains(o.DestroyData, spec) {
			t.Verdict = "confirmed by --destroy-data " + spec
			return
		}
		refuse("ptsrun cannot check " + t.Path + " on " + t.Host + ": confirm that its data may be destroyed with --destroy-data " + spec)
	case kindMissing:
		refuse("there is no such device: fio would make a regular file in /dev")
	case kindBlock:
		t.id = &t.dev.Identity
		if !t.Written {
			return
		}
		v := o.FS.Check(*t.dev, *sys)
		if !v.Usable {
			refuse("refusing to write to it: " + strings.Join(v.Refused, "; "))
			return
		}
		if !v.Confirmed(*t.dev, o.DestroyData) {
			what := "its data"
			if len(v.Carries) > 0 {
				what = strings.Join(v.Carries, ", ")
			}
			refuse("writing destroys " + what + ": confirm with --destroy-data " + v.Confirm)
			return
		}
		t.Verdict = "confirmed by --destroy-data"
	case kindChar, kindDir, kindOther:
		if t.Written {
			refuse("ptsrun cannot tell what writing it destroys")
		}
	case kindNewFile:
		t.Verdict = "made by fio: nothing to destroy"
		t.Outside = !inside(t.Path, append(slices.Clone(jobDirs), o.RunDir))
	case kindFile:
		if !t.Written {
			return
		}
		own := append(slices.Clone(jobDirs), o.RunDir)
		switch {
		case inside(t.Path, own):
			t.Verdict = "the job's own file (beside its job file or in the run directory)"
		case inside(t.Path, o.DestroyData):
			t.Verdict = "confirmed by --destroy-data"
		default:
			refuse("writing overwrites it: confirm with --destroy-data " + t.Path + " (or a directory above it)")
		}
	}
}

// inside says whether path is one of dirs or below one.
func inside(path string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if path == d || strings.HasPrefix(path, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

// identities are the targets' identities for run.json: every device, and
// the first few files.
func identities(ts []FioTarget) []device.Identity {
	var out []device.Identity
	files := 0
	const maxFiles = 8
	for _, t := range ts {
		switch {
		case t.id != nil:
			id := *t.id
			id.Spec = t.Path
			out = append(out, id)
		case t.Kind == kindRemote:
			out = append(out, device.Identity{Spec: t.Host + "=" + t.Path, Kind: device.KindRemote, Path: t.Path,
				Interface: "fio server", Notes: "on the fio server at " + t.Host + "; identity not visible from here"})
		case t.Kind == kindFile || t.Kind == kindNewFile:
			files++
			if files > maxFiles {
				continue
			}
			id := device.Identity{Spec: t.Path, Kind: device.KindFile, Path: t.Path, Interface: "file", Model: t.Kind, WriteCache: "unknown"}
			if fi, err := os.Stat(t.Path); err == nil {
				id.CapacityBytes = fi.Size()
			}
			out = append(out, id)
		}
	}
	if files > maxFiles {
		out = append(out, device.Identity{Spec: fmt.Sprintf("%d more files", files-maxFiles), Kind: device.KindFile,
			Model: "files the jobs use", Interface: "file"})
	}
	return out
}

// remoteStat is what ptsrun knows of a fio server's host: nothing. A job
// named like a path may name a device there.
type remoteStat struct{}

func (remoteStat) Kind(p string) fio.FileKind {
	if strings.Contains(p, "/") {
		return fio.Other
	}
	return fio.Missing
}

func (remoteStat) List(string) ([]string, error) {
	return nil, errors.New("opendir on a fio server's host: ptsrun cannot list it")
}
