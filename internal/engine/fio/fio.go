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
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

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

// RunCells runs the cells one after the other. On this host each cell is
// one fio invocation with its own job file, named after the cell (the
// runner names them by stage, round and cell, so that a run directory's
// fio/ folder reads like the plan). The next cell's fio is started while
// the current cell runs, held before its I/O by a lock (exec_prerun=flock)
// that is let go once done has returned: the next cell starts a few
// milliseconds after this one ends instead of after fio's start-up (about
// a fifth of a second). Through fio servers, where every fio invocation
// waits about a second (the server sleeps up to 1 s between a client's
// commands), several cells run in one invocation named name (runBatch);
// traced runs keep one invocation per cell.
func (e *Engine) RunCells(ctx context.Context, name string, cells []engine.Cell, done func(int, engine.Measurement, time.Duration) error) error {
	idle := slices.ContainsFunc(cells, func(c engine.Cell) bool { return c.Workload.Idle })
	if len(cells) > 1 && e.hosts[0] != "" && e.opts.Trace == 0 && !idle {
		return e.runBatch(ctx, name, cells, done)
	}
	names := make([]string, len(cells))
	for i, c := range cells {
		names[i] = e.cellName(c)
	}
	var held *proc // the next cell's fio, started ahead
	defer func() { held.drop() }()
	for i, c := range cells {
		if err := e.validate(c.Workload); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		if c.Workload.Idle {
			// No fio at all: the drive rests in wall time.
			m, err := engine.Rest(ctx, c.Workload)
			if err != nil {
				return err
			}
			if err := done(i, m, time.Since(start)); err != nil {
				return err
			}
			continue
		}
		p := held
		held = nil
		if p != nil {
			p.unhold()
		} else {
			var err error
			if p, err = e.launch(ctx, c.Workload, names[i], false); err != nil {
				return err
			}
		}
		if i+1 < len(cells) && e.hosts[0] == "" && e.flock && !cells[i+1].Workload.Idle {
			if h, err := e.launch(ctx, cells[i+1].Workload, names[i+1], true); err == nil {
				held = h
			}
		}
		m, err := e.finish(ctx, p)
		if err != nil {
			return err
		}
		if err := done(i, m, time.Since(start)); err != nil {
			return err
		}
	}
	return nil
}

// cellName is the base name of a cell's files.
func (e *Engine) cellName(c engine.Cell) string {
	if c.Name != "" {
		return c.Name
	}
	return fmt.Sprintf("workload-%04d", e.seq.Add(1))
}

// validate checks a workload against every target.
func (e *Engine) validate(w engine.Workload) error {
	if err := checkWorkload(w); err != nil {
		return err
	}
	for _, t := range e.targets {
		if err := w.Validate(t.LogicalBlock); err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	return nil
}

// proc is one fio process.
type proc struct {
	w      engine.Workload
	base   string
	logDir string
	cmd    *exec.Cmd
	stderr bytes.Buffer
	lock   *os.File // held exclusively until the cell may start; nil when not held
	// locked is the lock file of a process started held: removed once fio
	// has ended, so that a run leaves no empty lock file per cell behind.
	locked string
	live   *liveFeed // fio's status lines as intervals, for progress; nil when nobody asked
}

// unhold lets a held process start its I/O.
func (p *proc) unhold() {
	_ = unix.Flock(int(p.lock.Fd()), unix.LOCK_UN)
	p.release()
	if p.live != nil {
		p.live.begin(time.Now())
	}
}

// drop stops a held process that will not be used; nil does nothing.
func (p *proc) drop() {
	if p == nil {
		return
	}
	// Kill the whole group first, so that no I/O starts, then let go of
	// the lock: the prerun shell holds fio's stderr open until flock
	// returns, and Wait waits for that.
	signalGroup(p.cmd, syscall.SIGKILL)
	p.release()
	_ = p.cmd.Wait()
	if p.live != nil {
		p.live.close()
	}
	_ = os.RemoveAll(p.logDir)
	for _, f := range []string{p.base + ".fio", p.base + ".json", p.base + ".lock"} {
		_ = os.Remove(f)
	}
}

// launch writes a cell's job files and starts fio, held behind a lock when
// hold is set; with an engine.IntervalFunc in ctx, its status lines are
// reported as they come.
func (e *Engine) launch(ctx context.Context, w engine.Workload, name string, hold bool) (*proc, error) {
	p, err := e.newProc(name)
	if err != nil {
		return nil, err
	}
	p.w = w
	if engine.WantsIntervals(ctx) {
		p.live = newLiveFeed(ctx, w)
	}
	prerun := ""
	if hold {
		lock, err := device.OpenRunFile(p.base+".lock", os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
			lock.Close()
			return nil, err
		}
		p.lock, p.locked = lock, p.base+".lock"
		prerun = "flock -s " + shellQuote(p.base+".lock") + " true"
	}
	args, err := e.jobFiles(p, "json+", func(hi int, ts []Target, jobPath string) string {
		iolog := ""
		if e.opts.Trace > 0 {
			iolog = filepath.Join(p.logDir, fmt.Sprintf("iolog.h%d", hi))
		}
		// The host in the log name: fio names the logs a server returns
		// after its host, so two servers on one host would collide.
		return JobFile(w, ts, jobSpec{IOEngine: e.ioeng, LogPrefix: filepath.Join(p.logDir, fmt.Sprintf("h%dt", hi)), IOLog: iolog,
			NoHistLog: !e.histLog(w), Prerun: prerun,
			Comment: fmt.Sprintf("ptsrun cell %s: %s\nrun by hand: fio --output-format=json+ %s", name, w.Description(), filepath.Base(jobPath))})
	})
	if err != nil {
		p.release()
		return nil, err
	}
	if p.live != nil {
		args = append(liveArgs(w), args...)
	}
	return p, e.start(p, args)
}

// histLog says whether w's job files ask for histogram logs: whether
// fio's memory for them is within budget over all the engine's targets
// (HistLogFits), so that every host's logs are alike. A round's cells
// run one after the other, each with its own threads, which fio frees
// as they end: each cell's budget is its own.
func (e *Engine) histLog(w engine.Workload) bool {
	ok, _, _ := HistLogFits(w, len(e.targets))
	return ok
}

// newProc is the fio run of name, with an empty log directory.
func (e *Engine) newProc(name string) (*proc, error) {
	p := &proc{base: filepath.Join(e.opts.WorkDir, name)}
	p.logDir = p.base + ".logs"
	_ = os.RemoveAll(p.logDir)
	if err := os.MkdirAll(p.logDir, 0o755); err != nil {
		return nil, fmt.Errorf("fio engine: %w", err)
	}
	return p, nil
}

// jobFiles writes the job files of p, one per host (content of the host's
// index and targets and the file's path), and returns fio's arguments:
// the output in format, then each host's --client and job file.
func (e *Engine) jobFiles(p *proc, format string, content func(hi int, ts []Target, jobPath string) string) ([]string, error) {
	args := []string{"--output-format=" + format, "--output=" + p.base + ".json"}
	for hi, h := range e.hosts {
		jobPath := p.base + ".fio"
		if len(e.hosts) > 1 || h != "" {
			jobPath = fmt.Sprintf("%s.%s.fio", p.base, hostKey(hi, h))
		}
		if err := device.WriteRunFile(jobPath, []byte(content(hi, e.hostTargets(h), jobPath)), 0o644); err != nil {
			return nil, fmt.Errorf("fio engine: %w", err)
		}
		if h != "" {
			args = append(args, "--client="+clientAddr(h))
		}
		args = append(args, jobPath)
	}
	return args, nil
}

// start runs fio with args for p.
func (e *Engine) start(p *proc, args []string) error {
	p.cmd = exec.Command(e.bin, args...)
	p.cmd.Dir = p.logDir // client/server writes returned logs (and fio its prerun output) here
	p.cmd.Stderr = &p.stderr
	if p.live != nil {
		p.cmd.Stdout = p.live
	}
	p.cmd.SysProcAttr = childAttr()
	// Whatever fio leaves behind holding its stderr, Wait returns.
	p.cmd.WaitDelay = 5 * time.Second
	if err := p.cmd.Start(); err != nil {
		p.release()
		return fmt.Errorf("%w: %v", ErrNoFio, err)
	}
	if p.live != nil && p.lock == nil {
		p.live.begin(time.Now())
	}
	return nil
}

func (p *proc) release() {
	if p.lock != nil {
		p.lock.Close()
		p.lock = nil
	}
}

// finish waits for a running fio and reads its result.
func (e *Engine) finish(ctx context.Context, p *proc) (engine.Measurement, error) {
	out, cpu, runErr, err := e.wait(ctx, p)
	if err != nil {
		return engine.Measurement{}, err
	}
	m, err := e.measurement(out, p.w)
	if err != nil {
		return m, e.explain(err, out, p)
	}
	if runErr != nil {
		return m, runErr
	}
	if e.hosts[0] == "" {
		m.CPU = cpu
	}
	e.setSeries(&m, p.logDir, "", out.Jobs, p.w)
	if e.opts.Trace > 0 {
		m.Trace = e.readIOLogs(p.logDir)
	}
	return m, nil
}

// wait waits for fio and parses its output. runErr is fio's own failure
// when it still wrote results, for the caller to report after them.
func (e *Engine) wait(ctx context.Context, p *proc) (out *Output, cpu engine.CPU, runErr, err error) {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			signalGroup(p.cmd, syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				signalGroup(p.cmd, syscall.SIGKILL)
			}
		case <-done:
		}
	}()
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru0)
	waitErr := p.cmd.Wait()
	if p.live != nil {
		p.live.close() // fio's output is all in: what is queued is passed on
	}
	if p.locked != "" {
		// fio's prerun took the lock and fio has ended: nobody needs it.
		_ = os.Remove(p.locked)
	}
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru1)
	close(done)
	if ctx.Err() != nil {
		return nil, cpu, nil, ctx.Err()
	}
	outPath := p.base + ".json"
	data, readErr := os.ReadFile(outPath)
	if waitErr != nil && (readErr != nil || len(data) == 0) {
		return nil, cpu, nil, fmt.Errorf("fio failed (%v): %s", waitErr, tail(p.stderr.String()))
	}
	out, err = Parse(bytes.NewReader(data))
	if err != nil {
		return nil, cpu, nil, fmt.Errorf("%s: %w (fio said: %s)", outPath, err, tail(p.stderr.String()))
	}
	if waitErr != nil {
		runErr = fmt.Errorf("fio failed (%v): %s", waitErr, tail(p.stderr.String()))
	}
	if e.hosts[0] == "" {
		if el := out.runTime().Seconds(); el > 0 {
			cpu.User = tv(ru1.Utime, ru0.Utime) / el / float64(numCPU())
			cpu.Sys = tv(ru1.Stime, ru0.Stime) / el / float64(numCPU())
		}
	}
	return out, cpu, runErr, nil
}

// explain adds what fio said, and where its job file is, to an error.
func (e *Engine) explain(err error, out *Output, p *proc) error {
	if msgs := out.Messages; len(msgs) > 0 {
		if len(msgs) > 3 {
			msgs = append(msgs[:2:2], fmt.Sprintf("… %d more …", len(msgs)-3), msgs[len(msgs)-1])
		}
		return fmt.Errorf("%w (fio said: %s; job file %s)", err, strings.Join(msgs, " / "), p.base+".fio")
	}
	return err
}

// runBatch runs the cells one after the other in one fio invocation
// through the fio servers, each cell's jobs waiting for the previous
// cell's (stonewall), and calls done for each when all have run. name
// names the files. Its failures are the batch's: *engine.BatchError.
func (e *Engine) runBatch(ctx context.Context, name string, cells []engine.Cell, done func(int, engine.Measurement, time.Duration) error) error {
	start := time.Now()
	ms, err := e.batch(ctx, name, cells)
	if err != nil { // fio failed: what it wrote is not the cells' results
		return &engine.BatchError{Err: err}
	}
	wall := time.Since(start) / time.Duration(len(ms))
	for k, m := range ms {
		if err := done(k, m, wall); err != nil {
			return err
		}
	}
	return nil
}

// batch runs runBatch's fio and returns each cell's measurement, and fio's
// own failure when it still wrote results.
func (e *Engine) batch(ctx context.Context, name string, cells []engine.Cell) ([]engine.Measurement, error) {
	for _, c := range cells {
		if err := e.validate(c.Workload); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ws := make([]engine.Workload, len(cells))
	names := make([]string, len(cells))
	for k, c := range cells {
		ws[k], names[k] = c.Workload, e.cellName(c)
	}
	p, err := e.newProc(name)
	if err != nil {
		return nil, err
	}
	var lines []string
	for k, n := range names {
		lines = append(lines, fmt.Sprintf("c%d = %s: %s", k, n, ws[k].String()))
	}
	args, err := e.jobFiles(p, "json+", func(hi int, ts []Target, _ string) string {
		specs := make([]jobSpec, len(ws))
		for k := range ws {
			specs[k] = jobSpec{IOEngine: e.ioeng, LogPrefix: filepath.Join(p.logDir, fmt.Sprintf("c%dh%dt", k, hi)), NoHistLog: !e.histLog(ws[k])}
		}
		return RoundJobFile(ws, ts, specs, fmt.Sprintf("ptsrun round %s, one cell after the other:\n%s", name, strings.Join(lines, "\n")))
	})
	if err != nil {
		return nil, err
	}
	if err := e.start(p, args); err != nil {
		return nil, err
	}
	out, _, runErr, err := e.wait(ctx, p)
	if err != nil {
		return nil, err
	}
	ms := make([]engine.Measurement, len(ws))
	for k, w := range ws {
		prefix := fmt.Sprintf("c%d", k)
		cell := *out
		cell.Jobs = nil
		for _, j := range out.Jobs {
			if rest, ok := strings.CutPrefix(j.Name, prefix); ok && (strings.HasPrefix(rest, "t") || strings.HasPrefix(rest, "r")) {
				j.Name = rest // t<n>, or r<n> for its ramp
				cell.Jobs = append(cell.Jobs, j)
			}
		}
		m, err := e.measurement(&cell, w)
		if err != nil {
			return nil, e.explain(fmt.Errorf("cell %s: %w", names[k], err), out, p)
		}
		e.setSeries(&m, p.logDir, prefix, cell.Jobs, w)
		ms[k] = m
	}
	return ms, runErr
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
	jobs := make([]Job, len(e.targets))
	for _, j := range out.Jobs {
		if j.Error != 0 {
			return m, fmt.Errorf("%w: fio job %s%s ended with error %d (%s)", engine.ErrIO, j.Name, onHost(j),
				j.Error, syscall.Errno(j.Error).Error())
		}
		if isRampJob(j.Name) {
			continue // its I/Os are in the series only
		}
		idx := e.targetIndex(j, "t")
		if idx < 0 || found[idx] {
			return m, fmt.Errorf("fio output has an unexpected job %q%s", j.Name, onHost(j))
		}
		found[idx] = true
		jobs[idx] = j
		r, wr := j.Read.Stats(), j.Write.Stats()
		per[idx] = engine.TargetStats{Target: e.targets[idx].Name, Host: e.targets[idx].Server, Read: r, Write: wr}
		m.Read.Merge(r)
		m.Write.Merge(wr)
		m.Elapsed = max(m.Elapsed, j.Elapsed())
		m.MaxDepth = max(m.MaxDepth, j.MaxDepth)
	}
	for i, ok := range found {
		if !ok {
			return m, fmt.Errorf("fio output has no result for %s", e.targets[i].Name)
		}
	}
	// Through fio servers, fio's own account of its job threads is the only
	// CPU figure there is; on this host wait measures the whole process.
	if e.hosts[0] != "" {
		m.CPU.Of = engine.CPUOfOne
	}
	for i := range per {
		c := jobCPU(jobs[i], w.TC, m.Elapsed)
		per[i].CPU = &c
		if e.hosts[0] != "" {
			m.CPU = m.CPU.Add(c)
		}
	}
	if len(e.targets) > 1 {
		m.Targets = per
	}
	return m, nil
}

// jobCPU is the CPU time of one target's job threads per second of
// elapsed, in CPUs. fio's usr_cpu and sys_cpu are percent of the group's
// summed thread run time (job_runtime, the sum over its tc threads), so
// they are the mean per thread; fio before job_runtime ran each thread for
// about the elapsed time.
func jobCPU(j Job, tc int, elapsed time.Duration) engine.CPU {
	c := engine.CPU{Of: engine.CPUOfOne}
	if elapsed <= 0 {
		return c
	}
	threads := float64(max(tc, 1))
	if j.JobRuntime > 0 {
		threads = j.JobRuntime.Seconds() / elapsed.Seconds()
	}
	c.User = j.UsrCPU / 100 * threads
	c.Sys = j.SysCPU / 100 * threads
	return c
}

// targetIndex is the target of job <prefix><n>: the n-th target of the
// job's host; -1 for other jobs.
func (e *Engine) targetIndex(j Job, prefix string) int {
	rest, ok := strings.CutPrefix(j.Name, prefix)
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return -1
	}
	k := 0
	for ti, t := range e.targets {
		if addrMatches(t.Server, j) {
			if k == n {
				return ti
			}
			k++
		}
	}
	return -1
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
