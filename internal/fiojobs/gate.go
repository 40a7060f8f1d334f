package fiojobs

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine/fio"
)

// The gate of `ptsrun fio`: a user's job files run as fio reads them, so
// the gate takes fio's reading (fio.FioReading), refuses every option
// whose effect it does not model (fio.Refusals: the allow-list), and
// judges every path a job writes or reads:
//
//   - A block device a job writes (rw with writes or trims, an engine that
//     deletes, truncates or allocates, unlink, fill_device) passes the same
//     check as a target of `run`: refused when mounted, holding a mounted
//     partition, held by md, dm or LVM, active swap or read-only; otherwise
//     it needs --destroy-data naming its serial or path.
//   - A block device a job only reads needs nothing.
//   - A path under /dev that does not exist is refused: fio would make a
//     regular file there (the device is missing, or misspelt).
//   - A character device, directory, fifo or socket a job writes is
//     refused: ptsrun cannot tell what writing it destroys.
//   - A regular file is written when a job writes it, or lays it out: it
//     is smaller than where a read job's I/O ends (offset + size, size
//     shared by the smaller of the files named and nrfiles=), or the
//     job has fill_device; or deleted (unlink, whatever the engine:
//     null and cpuio delete too). It passes the check a file target of
//     run does: refused when a loop device bound to it is in use, or it
//     is active swap; one that backs a loop device not in use needs
//     --destroy-data naming it, beside the job file or not. One with more
//     than one hard link is refused
//     (writing it changes it under its other names); so is a job file or
//     include file of the run, and a file of a run directory (ptsrun's own
//     in DIR, or any in another run directory). Otherwise it is the job's
//     own in DIR or in the job file's own directory (not below it);
//     elsewhere it needs --destroy-data naming it or a directory above it.
//   - A file a job creates is written: in DIR or the job file's own
//     directory it is the job's; elsewhere (fio makes missing directories
//     too) it needs --destroy-data naming it or a directory above it.
//   - A log a job writes (write_*_log, write_iolog) must be in DIR.
//   - What the gate cannot resolve for a job that writes (opendir it
//     cannot list, $clientuid) is refused, naming the line; so is a path
//     with a ".." after a directory that does not exist yet, read or
//     written (fio makes the directory, and the kernel then resolves the
//     ".." where the text cannot tell).
//   - Through fio servers ptsrun sees nothing of the servers' hosts: every
//     path a job writes, or may lay out (a read job with a size=: the
//     file may be missing or shorter there), needs --destroy-data
//     HOST:PORT=PATH for each server; ${VAR} and $ncpus-style keywords
//     (read on the server) are refused.
//
// A job file none of whose jobs writes or creates anything runs in a fio
// with --readonly, whatever the other job files do: fio itself then
// refuses any write. Before each job file runs, the gate judges them all
// again (Jobs.Run): a file swapped for a link meanwhile is refused.

// gateOptions are what `ptsrun fio` was given.
type gateOptions struct {
	Files  []*fio.UserJobFile
	Cwd    string // fio's working directory, absolute
	RunDir string // --out, absolute; "" for a plan without one
	// RunDirFiles are the names ptsrun writes at the top of a run
	// directory, the first ones those that make a directory one (run.json):
	// a job writes none of them, in DIR or in another run directory.
	RunDirFiles []string
	FioServers  []string // HOST:PORT
	DestroyData []string
	// Gate refuses what may not run; without it check only reports
	// (a plan).
	Gate bool
	FS   device.FS
	Stat fio.Stat // LiveStat in Cwd when nil
}

// Target is one file or device the job files do I/O on, or a log they
// write.
type Target struct {
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
	// Log marks a log file a job writes (not I/O).
	Log bool `json:"log,omitempty"`

	key        string
	unresolved string // why ptsrun cannot tell where the path leads
	// replaced says a job may lay the file out again or delete it (fio
	// removes and makes it anew), or ptsrun cannot tell.
	replaced   bool
	stat       fio.FileStat
	id         *device.Identity
	dev        *device.Target
	inspectErr error
}

// Thread is a thread of a job and the targets it uses.
type Thread struct {
	fio.Thread
	File    int    // index into the job files
	JobName string // the section's name
	Targets []int  // indexes into Plan.Targets
	Writes  bool
}

// Plan is the gate's reading of the job files.
type Plan struct {
	Targets    []Target
	Threads    []Thread
	Identities []device.Identity
	// ReadOnly says no job writes or creates anything. ReadOnlyFile says
	// it of each job file: the fio that runs one of those runs with
	// --readonly and refuses any write itself, whatever the other job
	// files do.
	ReadOnly     bool
	ReadOnlyFile []bool
	// Refusals are what the gate refuses, each naming its line; Notes
	// what it reports.
	Refusals []string
	Notes    []string
}

// check judges every target of the job files. With o.Gate, a
// refusal is an error wrapping device.ErrUnsafe that lists them all.
func check(o gateOptions) (*Plan, error) {
	if o.FS.Root == "" {
		o.FS = device.Live
	}
	remote := len(o.FioServers) > 0
	if o.Stat == nil {
		o.Stat = fio.LiveStat{Dir: o.Cwd}
	}
	// The jobs' files are on the servers' hosts, the logs here.
	var jobStat fio.Stat = o.Stat
	if remote {
		jobStat = remoteStat{}
	}
	p := &Plan{ReadOnly: true}
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
	// use adds what a job does to a target.
	use := func(ft *Thread, t Target, job string, written bool, why string) {
		idx, ok := byKey[t.key]
		if !ok {
			idx = len(p.Targets)
			byKey[t.key] = idx
			p.Targets = append(p.Targets, t)
		}
		tg := &p.Targets[idx]
		tg.replaced = tg.replaced || t.replaced
		if !slices.Contains(tg.Jobs, job) {
			tg.Jobs = append(tg.Jobs, job)
		}
		if written && !tg.Written {
			tg.Written = true
			tg.Why = fmt.Sprintf("written by job %s: %s", job, why)
		}
		if tg.Why == "" {
			tg.Why = fmt.Sprintf("read by job %s: %s", job, why)
		}
		if !t.Log && !slices.Contains(ft.Targets, idx) {
			ft.Targets = append(ft.Targets, idx)
		}
	}
	hosts := []string{""}
	if remote {
		hosts = o.FioServers
	}
	p.ReadOnlyFile = make([]bool, len(o.Files))
	for fi := range o.Files {
		p.ReadOnlyFile[fi] = true
	}
	for fi, jf := range o.Files {
		for _, r := range jf.Refusals(remote) {
			refuse(r.At, "%s", r.Msg)
		}
		// Each job file runs in a fio of its own: its threads are numbered
		// from 1 (fio's thread numbers name their log files).
		for _, th := range jf.Threads(1, jobStat) {
			j := jf.Jobs[th.Job]
			a := j.Access()
			ft := Thread{Thread: th, File: fi, JobName: j.Name, Writes: a.Writes && !a.NoIO}
			for _, l := range jf.LogFiles(th, o.Cwd, remote) {
				for _, h := range hosts {
					name := l.Name
					if h != "" {
						// The fio client writes a server's logs here, named
						// after the server (client.c fio_client_handle_iolog).
						name += "." + strings.Split(h, ":")[0]
					}
					t := o.target(fio.FileRef{Name: name, At: l.At}, "")
					t.Log = true
					use(&ft, t, j.Name, true, "its log ("+l.At.String()+")")
				}
			}
			if a.Writes {
				p.ReadOnlyFile[fi] = false // fio --readonly refuses a writing job, whatever its engine
			}
			if a.NoIO && !a.Deletes {
				// No I/O on its files, and none deleted: the engine opens
				// nothing.
				p.Threads = append(p.Threads, ft)
				continue
			}
			if a.Writes {
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
			for _, f := range th.Files {
				for _, h := range hosts {
					t := o.target(f, h)
					written, why := a.Writes, a.Why
					lays, reason := false, ""
					if t.Kind == kindFile {
						lays, reason = j.LaysOut(th.JobNum, len(th.Files), t.stat.Size)
						// What fio may remove and make again needs its
						// directory (internal/confine), not only the file.
						t.replaced = lays || a.Deletes || a.Fills || a.Unsure
					}
					switch {
					case written:
					case t.Kind == kindFile:
						// A file a read job's I/O goes beyond is laid out again.
						if lays {
							written, why = true, "fio lays it out again: "+reason
						}
					case t.Kind == kindRemote:
						// ptsrun cannot see the server's file: missing, or
						// shorter than the job's I/O, fio lays it out (and
						// makes the directories above it).
						if lays, reason := j.LaysOut(th.JobNum, len(th.Files), 0); lays {
							written, why = true, "fio lays it out if it is missing or shorter than the job's I/O, and ptsrun cannot see it on the server ("+reason+")"
						}
					}
					use(&ft, t, j.Name, written, why)
				}
			}
			p.Threads = append(p.Threads, ft)
		}
	}
	g := o.gateDirs()
	var sys *device.System
	for _, t := range p.Targets {
		if t.Written && sys == nil && (t.Kind == kindBlock && t.dev != nil || t.Kind == kindFile && o.live()) {
			s, err := o.FS.System()
			if err != nil {
				return p, err
			}
			sys = &s
		}
	}
	for i := range p.Targets {
		t := &p.Targets[i]
		o.judge(t, g, sys)
		if t.Refused != "" {
			refuse(t.At, "%s", t.Refused)
		}
	}
	for _, th := range p.Threads {
		for _, ti := range th.Targets {
			if p.Targets[ti].Written {
				p.ReadOnlyFile[th.File] = false // fio lays out or writes the file
			}
		}
	}
	p.ReadOnly = !slices.Contains(p.ReadOnlyFile, false)
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

// identities are the targets' identities for run.json: every device, and
// the first few files.
func identities(ts []Target) []device.Identity {
	var out []device.Identity
	files := 0
	const maxFiles = 8
	for _, t := range ts {
		switch {
		case t.Log:
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

func (remoteStat) Stat(p string) fio.FileStat {
	if strings.Contains(p, "/") {
		return fio.FileStat{Kind: fio.Other, NotRegular: true}
	}
	return fio.FileStat{}
}

func (remoteStat) List(string) ([]string, error) {
	return nil, errors.New("opendir on a fio server's host: ptsrun cannot list it")
}
