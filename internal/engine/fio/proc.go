package fio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
)

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
		return nil, cpu, nil, failed(waitErr, p.stderr.String())
	}
	out, err = Parse(bytes.NewReader(data))
	if err != nil {
		return nil, cpu, nil, fmt.Errorf("%s: %w (fio said: %s)", outPath, err, tail(p.stderr.String()))
	}
	if waitErr != nil {
		runErr = failed(waitErr, p.stderr.String())
	}
	if e.hosts[0] == "" {
		if el := out.runTime().Seconds(); el > 0 {
			cpu.User = tv(ru1.Utime, ru0.Utime) / el / float64(numCPU())
			cpu.Sys = tv(ru1.Stime, ru0.Stime) / el / float64(numCPU())
		}
	}
	return out, cpu, runErr, nil
}

// crashError is fio ended by a signal nobody sent it: a fault of fio's
// own (fio 3.33 has segfaulted in one cell of the conformance suite in
// about one run of the whole suite in ten, on a loaded 2-CPU machine).
type crashError struct {
	sig    syscall.Signal
	stderr string
}

func (c *crashError) Error() string {
	return fmt.Sprintf("fio failed (signal: %v): %s", c.sig, tail(c.stderr))
}

// failed is the error of a fio that ended with waitErr, having written
// stderr: a *crashError when a fault signal ended it.
func failed(waitErr error, stderr string) error {
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch sig := ws.Signal(); sig {
			case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGILL, syscall.SIGFPE, syscall.SIGABRT:
				return &crashError{sig: sig, stderr: stderr}
			}
		}
	}
	return fmt.Errorf("fio failed (%v): %s", waitErr, tail(stderr))
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
