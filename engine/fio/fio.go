package fio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ptsrun/ptsrun/engine"
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
	seq     atomic.Int64
	name    string // name of the next job file (SetCellName)
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
	if opts.WorkDir == "" {
		d, err := os.MkdirTemp("", "ptsrun-fio-")
		if err != nil {
			return nil, err
		}
		e.tmp = d
		e.opts.WorkDir = d
	} else if err := os.MkdirAll(opts.WorkDir, 0o755); err != nil {
		return nil, fmt.Errorf("fio engine: %w", err)
	}
	return e, nil
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
	cmd := exec.Command(e.bin, "--name=probe", "--filename="+t.Path, "--ioengine="+name, "--rw=read",
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

// SetCellName names the next job file (the runner names them by stage,
// round and cell, so that a run directory's fio/ folder reads like the plan).
func (e *Engine) SetCellName(name string) { e.name = name }

// Close removes the temporary work directory, if the engine made one.
func (e *Engine) Close() error {
	if e.tmp != "" {
		return os.RemoveAll(e.tmp)
	}
	return nil
}

// JobFiles returns the job files a workload would run, one per host, without
// running anything (ptsrun plan prints them).
func (e *Engine) JobFiles(w engine.Workload) map[string]string {
	out := map[string]string{}
	for hi, h := range e.hosts {
		var ts []Target
		for _, t := range e.targets {
			if t.Server == h {
				ts = append(ts, t)
			}
		}
		out[hostKey(hi, h)] = JobFile(w, ts, jobSpec{IOEngine: e.ioeng, Comment: "ptsrun: " + w.String()})
	}
	return out
}

func hostKey(i int, h string) string {
	if h == "" {
		return "local"
	}
	return fmt.Sprintf("host%d", i)
}

// Run executes one workload: the job files are written to the work directory
// and fio runs them with --output-format=json+.
func (e *Engine) Run(ctx context.Context, w engine.Workload) (engine.Measurement, error) {
	for _, t := range e.targets {
		lbs := t.LogicalBlock
		if err := w.Validate(lbs); err != nil {
			return engine.Measurement{}, fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return engine.Measurement{}, err
	}
	name := e.name
	e.name = ""
	if name == "" {
		name = fmt.Sprintf("workload-%04d", e.seq.Add(1))
	}
	dir := e.opts.WorkDir
	base := filepath.Join(dir, name)
	logDir := base + ".logs"
	_ = os.RemoveAll(logDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return engine.Measurement{}, fmt.Errorf("fio engine: %w", err)
	}
	args := []string{"--output-format=json+", "--output=" + base + ".json"}
	for hi, h := range e.hosts {
		var ts []Target
		for _, t := range e.targets {
			if t.Server == h {
				ts = append(ts, t)
			}
		}
		jobPath := base + ".fio"
		if len(e.hosts) > 1 || h != "" {
			jobPath = fmt.Sprintf("%s.%s.fio", base, hostKey(hi, h))
		}
		prefix := filepath.Join(logDir, "t")
		iolog := ""
		if e.opts.Trace > 0 {
			iolog = filepath.Join(logDir, fmt.Sprintf("iolog.h%d", hi))
		}
		content := JobFile(w, ts, jobSpec{IOEngine: e.ioeng, LogPrefix: prefix, IOLog: iolog,
			Comment: fmt.Sprintf("ptsrun cell %s: %s\nrun by hand: fio --output-format=json+ %s", name, w.String(), filepath.Base(jobPath))})
		if err := os.WriteFile(jobPath, []byte(content), 0o644); err != nil {
			return engine.Measurement{}, fmt.Errorf("fio engine: %w", err)
		}
		if h != "" {
			args = append(args, "--client="+clientAddr(h))
		}
		args = append(args, jobPath)
	}
	cmd := exec.CommandContext(ctx, e.bin, args...)
	cmd.Dir = logDir // client/server writes returned logs in the current directory
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru0)
	runErr := cmd.Run()
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru1)
	if ctx.Err() != nil {
		return engine.Measurement{}, ctx.Err()
	}
	outPath := base + ".json"
	data, readErr := os.ReadFile(outPath)
	if runErr != nil && (readErr != nil || len(data) == 0) {
		return engine.Measurement{}, fmt.Errorf("fio failed (%v): %s", runErr, tail(stderr.String()))
	}
	out, err := Parse(bytes.NewReader(data))
	if err != nil {
		return engine.Measurement{}, fmt.Errorf("%s: %w (fio said: %s)", outPath, err, tail(stderr.String()))
	}
	m, err := e.measurement(out, w)
	if err != nil {
		return m, err
	}
	if runErr != nil {
		return m, fmt.Errorf("fio failed (%v): %s", runErr, tail(stderr.String()))
	}
	if local := e.hosts[0] == ""; local {
		el := m.Elapsed.Seconds()
		if el > 0 {
			m.CPU.User = tv(ru1.Utime, ru0.Utime) / el / float64(numCPU())
			m.CPU.Sys = tv(ru1.Stime, ru0.Stime) / el / float64(numCPU())
		}
	}
	m.Seconds = readLogs(logDir)
	if e.opts.Trace > 0 {
		m.Trace = e.readIOLogs(logDir)
	}
	return m, nil
}

// readIOLogs reads fio's write_iolog files, one per thread.
func (e *Engine) readIOLogs(dir string) []engine.TraceIO {
	var out []engine.TraceIO
	for hi, h := range e.hosts {
		k := 0
		for ti, t := range e.targets {
			if t.Server != h {
				continue
			}
			logs, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("iolog.h%d.t%d.*", hi, k)))
			k++
			sort.Strings(logs)
			for _, l := range logs {
				th, _ := strconv.Atoi(l[strings.LastIndexByte(l, '.')+1:])
				out = append(out, readIOLog(l, ti, th, e.opts.Trace)...)
			}
		}
	}
	return out
}

func clientAddr(h string) string {
	host, port, _ := strings.Cut(h, ":")
	if strings.Contains(host, ":") { // IPv6
		return "ip6:" + host + "," + port
	}
	return "ip:" + host + "," + port
}

func tv(a, b syscall.Timeval) float64 {
	return float64(a.Sec-b.Sec) + float64(a.Usec-b.Usec)/1e6
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	lines := strings.Split(s, "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	if s == "" {
		return "no message"
	}
	return strings.Join(lines, " / ")
}

// measurement maps fio's jobs to the targets and merges them.
func (e *Engine) measurement(out *Output, w engine.Workload) (engine.Measurement, error) {
	m := engine.Measurement{Engine: e.Describe()}
	found := make([]bool, len(e.targets))
	per := make([]engine.TargetStats, len(e.targets))
	for _, j := range out.Jobs {
		if j.Error != 0 {
			return m, fmt.Errorf("%w: fio job %s%s ended with error %d (%s)", engine.ErrIO, j.Name, onHost(j),
				j.Error, syscall.Errno(j.Error).Error())
		}
		idx := -1
		if strings.HasPrefix(j.Name, "t") {
			if n, err := strconv.Atoi(j.Name[1:]); err == nil {
				// Job t<n> is the n-th target of its host.
				k := 0
				for ti, t := range e.targets {
					if addrMatches(t.Server, j) {
						if k == n {
							idx = ti
						}
						k++
					}
				}
			}
		}
		if idx < 0 || found[idx] {
			return m, fmt.Errorf("fio output has an unexpected job %q%s", j.Name, onHost(j))
		}
		found[idx] = true
		r, wr := j.Read.Stats(), j.Write.Stats()
		per[idx] = engine.TargetStats{Target: e.targets[idx].Name, Host: e.targets[idx].Server, Read: r, Write: wr}
		m.Read.Merge(r)
		m.Write.Merge(wr)
		m.Elapsed = max(m.Elapsed, j.Elapsed())
	}
	for i, ok := range found {
		if !ok {
			return m, fmt.Errorf("fio output has no result for %s", e.targets[i].Name)
		}
	}
	if len(e.targets) > 1 {
		m.Targets = per
	}
	_ = w
	return m, nil
}

func onHost(j Job) string {
	if j.Host == "" {
		return ""
	}
	return fmt.Sprintf(" on %s:%d", j.Host, j.Port)
}

func addrMatches(server string, j Job) bool {
	if server == "" {
		return j.Host == ""
	}
	host, port, _ := strings.Cut(server, ":")
	p, _ := strconv.Atoi(port)
	return j.Port == p && (j.Host == host || host == "localhost" || j.Host == "")
}

// readIOLog reads one I/O log ("fio version 3 iolog": time, file, action,
// offset, length).
func readIOLog(path string, target, thread, limit int) []engine.TraceIO {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []engine.TraceIO
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < limit {
		fs := strings.Fields(sc.Text())
		if len(fs) != 5 || (fs[2] != "read" && fs[2] != "write") {
			continue
		}
		off, err1 := strconv.ParseInt(fs[3], 10, 64)
		size, err2 := strconv.ParseInt(fs[4], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, engine.TraceIO{Target: target, Thread: thread, Offset: off, Size: size, Read: fs[2] == "read"})
	}
	return out
}

// readLogs builds the per-second series from fio's iops and bw logs (one
// file per clone; values per 1000 ms interval, direction 0 read, 1 write).
func readLogs(dir string) []engine.Second {
	var secs []engine.Second
	at := func(ms int64) *engine.Second {
		i := int((ms - 1) / 1000)
		if i < 0 {
			i = 0
		}
		for len(secs) <= i {
			secs = append(secs, engine.Second{})
		}
		return &secs[i]
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	sort.Strings(files)
	for _, f := range files {
		base := filepath.Base(f)
		kind := ""
		switch {
		case strings.Contains(base, "_iops."):
			kind = "iops"
		case strings.Contains(base, "_bw."):
			kind = "bw"
		default:
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Split(sc.Text(), ",")
			if len(fields) < 3 {
				continue
			}
			ms, err1 := strconv.ParseInt(strings.TrimSpace(fields[0]), 10, 64)
			val, err2 := strconv.ParseInt(strings.TrimSpace(fields[1]), 10, 64)
			dirn, err3 := strconv.Atoi(strings.TrimSpace(fields[2]))
			if err1 != nil || err2 != nil || err3 != nil {
				continue
			}
			s := at(ms)
			switch {
			case kind == "iops" && dirn == 0:
				s.ReadIOs += val
			case kind == "iops" && dirn == 1:
				s.WriteIOs += val
			case kind == "bw" && dirn == 0:
				s.ReadBytes += val * 1024 // KiB/s over one second
			case kind == "bw" && dirn == 1:
				s.WriteBytes += val * 1024
			}
		}
		fh.Close()
	}
	return secs
}
