package fio

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
)

// MinVersion is the oldest fio the engine drives: lat_ns and json+ bins in
// nanoseconds came with fio 3.0.
var MinVersion = Version{Major: 3, Minor: 0}

// Options configure the engine.
type Options struct {
	Binary  string // fio executable; "fio" on PATH by default
	WorkDir string // where job files, outputs and logs are kept; a temporary directory when empty
	// IOEngine forces fio's ioengine; by default io_uring where fio (3.13+)
	// and the kernel have it, else libaio.
	IOEngine string
	// Trace keeps the first Trace I/Os of every target (from fio's
	// write_iolog) in the measurement; the conformance suite uses it.
	Trace int
}

// Engine runs workloads with fio.
type Engine struct {
	opts    Options
	bin     string
	version Version
	targets []Target
	hosts   []string // "" for local, else server addresses, in target order of first appearance
	ioeng   string
	tmp     string
	seq     atomic.Int64 // numbers unnamed cells
	flock   bool         // flock(1) is there: cells can be started ahead
}

// ErrNoFio is returned when fio cannot be run.
var ErrNoFio = errors.New("fio is not available")

// ProbeVersion runs `fio --version`.
func ProbeVersion(bin string) (Version, error) {
	if bin == "" {
		bin = "fio"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return Version{}, fmt.Errorf("%w: %s is not installed or not on PATH (Debian: apt-get install fio)", ErrNoFio, bin)
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return Version{}, fmt.Errorf("%w: %s --version: %v", ErrNoFio, path, err)
	}
	return ParseVersion(string(out))
}

// Open checks fio and the targets. Targets with a Server run on that fio
// server (fio --server on the remote host); the others on this host.
func Open(targets []Target, opts Options) (*Engine, error) {
	if len(targets) == 0 {
		return nil, errors.New("fio engine: no target")
	}
	// Before fio runs at all: the version and ioengine probes already load
	// the first target.
	if err := CheckTargets(targets); err != nil {
		return nil, err
	}
	if opts.WorkDir != "" {
		abs, err := CheckWorkDir(opts.WorkDir)
		if err != nil {
			return nil, err
		}
		opts.WorkDir = abs
	}
	bin := opts.Binary
	if bin == "" {
		bin = "fio"
	}
	v, err := ProbeVersion(bin)
	if err != nil {
		return nil, err
	}
	if !v.AtLeast(MinVersion.Major, MinVersion.Minor) {
		return nil, fmt.Errorf("fio %s is too old: ptsrun needs fio %s or newer (nanosecond latencies and json+ histograms)", v.Raw, MinVersion)
	}
	e := &Engine{opts: opts, bin: bin, version: v, targets: targets}
	seen := map[string]bool{}
	for _, t := range targets {
		if !seen[t.Server] {
			seen[t.Server] = true
			e.hosts = append(e.hosts, t.Server)
		}
	}
	if len(e.hosts) > 1 && seen[""] {
		return nil, errors.New("fio engine: targets on this host and on fio servers cannot be mixed; name this host as a server too (fio --server on 127.0.0.1)")
	}
	for _, h := range e.hosts {
		if h != "" {
			if err := checkServer(h); err != nil {
				return nil, err
			}
		}
	}
	e.ioeng = opts.IOEngine
	if e.ioeng == "" {
		e.ioeng = "libaio"
		if v.AtLeast(3, 13) && (e.hosts[0] != "" || e.probeEngine("io_uring") == nil) {
			e.ioeng = "io_uring"
		}
	}
	if _, err := exec.LookPath("flock"); err == nil {
		e.flock = true
	}
	if opts.WorkDir == "" {
		d, err := os.MkdirTemp("", "ptsrun-fio-")
		if err != nil {
			return nil, err
		}
		if err := CheckPath(d); err != nil {
			os.Remove(d)
			return nil, fmt.Errorf("fio engine: its job files and logs cannot be kept in %q (TMPDIR): %w", d, err)
		}
		// Reached by path from here on, as a run directory is: nobody
		// else may be able to rename it away (a TMPDIR others may write).
		if err := device.CheckDir(d); err != nil {
			os.Remove(d)
			return nil, fmt.Errorf("fio engine: its job files and logs cannot be kept in TMPDIR: %w", err)
		}
		e.tmp = d
		e.opts.WorkDir = d
	} else {
		// fio runs in a cell's log directory (where a server returns its
		// logs): a relative --out would name files under that.
		d, err := filepath.Abs(opts.WorkDir)
		if err != nil {
			return nil, fmt.Errorf("fio engine: %w", err)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("fio engine: %w", err)
		}
		e.opts.WorkDir = d
	}
	return e, nil
}

// CheckTargets refuses targets whose paths fio would read as other files.
func CheckTargets(targets []Target) error {
	for _, t := range targets {
		if err := CheckPath(t.Path); err != nil {
			return fmt.Errorf("target %s: fio cannot be given the path %q: %w", t.Name, t.Path, err)
		}
	}
	return nil
}

// CheckWorkDir refuses a work directory whose paths (logs, I/O logs, the
// hold lock) fio would read as others, and returns it absolute: fio runs in
// the cell's log directory, so every path it gets must be.
func CheckWorkDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("fio engine: %w", err)
	}
	if err := CheckPath(abs); err != nil {
		return "", fmt.Errorf("fio's job files and logs cannot be kept in %q: %w", abs, err)
	}
	return abs, nil
}

// checkServer connects to a fio server's port, so that an unreachable one is
// named before any cell runs.
func checkServer(addr string) error {
	host, port, ok := strings.Cut(addr, ":")
	if !ok || host == "" || port == "" {
		return fmt.Errorf("fio server %q: want HOST:PORT", addr)
	}
	if _, err := strconv.Atoi(port); err != nil {
		return fmt.Errorf("fio server %q: port %q is not a number", addr, port)
	}
	d := netDialer()
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return fmt.Errorf("fio server %s is not reachable (start `fio --server=ip:%s,%s` there): %w", addr, host, port, err)
	}
	return c.Close()
}

// probeEngine runs one 4 KiB read with the engine on the first target.
func (e *Engine) probeEngine(name string) error {
	t := e.targets[0]
	cmd := exec.Command(e.bin, "--name=probe", "--filename="+filenameValue(t.Path), "--ioengine="+name, "--rw=read",
		"--bs=4k", "--size=4k", "--direct=1", "--disk_util=0", "--output-format=json")
	return cmd.Run()
}

// Describe names fio, its version and ioengine.
func (e *Engine) Describe() string {
	s := fmt.Sprintf("fio %s (%s)", strings.TrimPrefix(e.version.Raw, "fio-"), e.ioeng)
	if e.hosts[0] != "" {
		s += " on " + strings.Join(e.hosts, ", ")
	}
	return s
}

// Version is the fio version.
func (e *Engine) Version() Version { return e.version }

// Close removes the temporary work directory, if the engine made one.
func (e *Engine) Close() error {
	if e.tmp != "" {
		return os.RemoveAll(e.tmp)
	}
	return nil
}

// JobFilesFor returns the job files a workload would run on targets, one per
// host (keyed "local" or by server address), without running anything:
// ptsrun plan prints them. The ioengine is the one fio would get on a
// current kernel.
func JobFilesFor(w engine.Workload, targets []Target) map[string]string {
	out := map[string]string{}
	var hosts []string
	for _, t := range targets {
		if !contains(hosts, t.Server) {
			hosts = append(hosts, t.Server)
		}
	}
	for _, h := range hosts {
		var ts []Target
		for _, t := range targets {
			if t.Server == h {
				ts = append(ts, t)
			}
		}
		key := h
		if h == "" {
			key = "local"
		}
		out[key] = JobFile(w, ts, jobSpec{IOEngine: "io_uring", Comment: "ptsrun: " + w.Description()})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hostTargets are the targets the fio server h (or this host, "") loads.
func (e *Engine) hostTargets(h string) []Target {
	var ts []Target
	for _, t := range e.targets {
		if t.Server == h {
			ts = append(ts, t)
		}
	}
	return ts
}

func hostKey(i int, h string) string {
	if h == "" {
		return "local"
	}
	return fmt.Sprintf("host%d", i)
}
