package native

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Target is one block device or file the engine drives: the engines' one
// target type; the native engine takes only targets on this host.
type Target = engine.Target

// Options tune the engine.
type Options struct {
	// ForcePread uses the pread/pwrite pool even where io_uring works.
	ForcePread bool
	// NoPin leaves I/O threads free to move between CPUs. By default,
	// where there are no more io_uring threads than allowed CPUs, each is
	// pinned to a CPU of its own: completions then wake it where it
	// sleeps instead of across CPUs. More threads than CPUs are never
	// pinned: the kernel then balances them better than a fixed round
	// robin does (8 KiB 65/35 at TC32/QD32 on 2 CPUs: 1.36–1.48 × fio's
	// IOPS unpinned, 1.16–1.28 × pinned; BenchmarkVsFio).
	NoPin bool
	// Trace keeps the first Trace I/Os of every thread in the measurement.
	Trace int
	// Poll is how long an io_uring thread polls its completion ring
	// before it sleeps in the kernel. Sleeping costs a wake-up per batch:
	// an inter-processor interrupt that the completing CPU pays and, in a
	// virtual machine, an exit; at QD32 on a fast device that is 5 to 10 %
	// of the IOPS, and at QD1 microseconds of every latency. Zero chooses:
	// while the I/O threads leave a CPU free, DefaultPoll, stretched up to
	// MaxAutoPoll when the thread's completions come that often (poller);
	// else no polling, because pollers would take the CPU from each other.
	// Negative never polls.
	Poll time.Duration
	// IdlePolls says the host's idle CPUs poll (ptsrun holds them so while
	// it measures: package cpuidle). Then the automatic polling is off: a
	// thread's CPU polls in the kernel's idle loop while it sleeps, and
	// waking it costs no interrupt, so polling in the thread only takes
	// the CPU from the device's workers (4 KiB reads at TC1/QD32 on a loop
	// device, idle CPUs polling: 0.95 × fio's IOPS polling, 1.04 not).
	IdlePolls bool
}

// DefaultPoll is the automatic completion polling's budget before it
// stretches (poller): long enough to span the gaps between completions of
// a busy queue, short enough that an idle or slow device costs little CPU.
const DefaultPoll = 50 * time.Microsecond

// pollNs is the completion polling of each of threads I/O threads on cpus
// usable CPUs: its budget, and whether it is the automatic one (which
// poller stretches).
func (e *Engine) pollNs(threads, cpus int) (int64, bool) {
	switch {
	case e.opts.Poll < 0:
		return 0, false
	case e.opts.Poll > 0:
		return int64(e.opts.Poll), false
	case e.opts.IdlePolls:
		return 0, false
	case threads < cpus:
		return int64(DefaultPoll), true
	}
	return 0, false
}

// eagerSubmit says whether each of threads I/O threads on cpus usable
// CPUs, qd deep, submits a refill as soon as it reaps the next completion,
// instead of all of a batch's refills with the wait that ends the batch: a
// system call for each completion of a batch but its last, for I/Os that
// reach the device sooner and a thread that is awake more of the time, so
// that fewer completions find it asleep and the completing CPU, often the
// device's bottleneck, wakes it less often. Only while the threads leave a
// CPU free for those calls (at TC4 on 2 CPUs it gave nothing for more
// CPU), not at a depth of 1, where the one refill of a batch goes with its
// wait anyway, and only while the thread's completions come closer
// together than MinPollGap apiece (poller.close): further apart, the
// thread sleeps between most of them whichever way it submits (128 KiB
// sequential reads at TC1/QD32, a completion every 20 us, were 5.5-6.8
// GB/s eager against 5.8-7.6 batched, 4 alternating pairs, within the
// host's noise). Measured on a 2-CPU KVM guest (idle CPUs polling) against
// a memory-backed loop device, 4 KiB random reads at TC1/QD32, 4
// alternating pairs: 225-263 k IOPS batched, 252-281 k eager, with
// 110-151 k context switches in 4 s against 58-66 k, for 0.62-0.7 of the
// host's CPUs against 0.53.
func eagerSubmit(threads, cpus, qd int) bool { return threads < cpus && qd > 1 }

// Engine is the native engine opened on a target set.
type Engine struct {
	targets []Target
	files   []*os.File
	ro      []bool
	opts    Options
	mode    string // "io_uring" or "pread"
	// timedWait: the kernel's io_uring waits take a timeout (Linux 5.11),
	// which paced io_uring threads sleep with; without it a workload with
	// a rate cap takes the pread path.
	timedWait bool
	stamp     atomic.Uint64
}

// Write data: a write's buffer is a window of the thread's pool of random
// bytes, at a random offset, XORed with a fresh random 64-bit key, and the
// first word of every 512-byte sector is replaced by a mixed unique counter.
// Blocks are incompressible; no two are alike, nor a shifted copy of another
// that a compressor or deduplicator could find (two windows that overlap
// differ by a random key in every word); and the pool stays in the CPU cache,
// so making the data costs one pass over the block. A slot has one write in
// flight at a time and its buffer is its own, so the kernel never sees data
// change before it is written.
const writeVariety = 64 << 10

// Open opens every target with O_DIRECT and checks io_uring.
func Open(targets []Target, opts Options) (*Engine, error) {
	if len(targets) == 0 {
		return nil, errors.New("native engine: no target")
	}
	e := &Engine{targets: targets, opts: opts}
	for _, t := range targets {
		if t.Server != "" {
			return nil, fmt.Errorf("native engine: target %s is on the fio server %s: the native engine does I/O on this host only", t.Name, t.Server)
		}
		f, err := os.OpenFile(t.Path, os.O_RDWR|unix.O_DIRECT, 0)
		ro := false
		if errors.Is(err, unix.EROFS) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
			f, err = os.OpenFile(t.Path, os.O_RDONLY|unix.O_DIRECT, 0)
			ro = true
		}
		if errors.Is(err, unix.EINVAL) {
			err = fmt.Errorf("%s cannot be opened with O_DIRECT: its filesystem (tmpfs?) does not do direct I/O", t.Path)
		}
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("native engine: %w", err)
		}
		e.files = append(e.files, f)
		e.ro = append(e.ro, ro)
	}
	e.mode = "pread"
	if !opts.ForcePread {
		if r, err := newRing(4); err == nil {
			e.timedWait = r.extArg
			r.close()
			e.mode = "io_uring"
		}
	}
	return e, nil
}

// Mode says which I/O path runs: io_uring or pread.
func (e *Engine) Mode() string { return e.mode }

// Describe names the engine.
func (e *Engine) Describe() string { return "native " + e.mode }

// Close closes the targets.
func (e *Engine) Close() error {
	var first error
	for _, f := range e.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	e.files = nil
	return first
}

// threadResult is what one thread measured: its totals, and its part of
// the series, which it hands over interval by interval.
type threadResult struct {
	target int
	read   engine.DirStats
	write  engine.DirStats
	series recorder
	trace  []engine.TraceIO
	// maxDepth is the most I/Os the thread had in flight at once.
	maxDepth int
	// resubmitted counts the I/Os submitted again after a transient
	// result (transient).
	resubmitted int64
	err         error
	end         time.Time
}

// RunCells runs each cell on every target at once.
func (e *Engine) RunCells(ctx context.Context, _ string, cells []engine.Cell, done func(int, engine.Measurement, time.Duration) error) error {
	return engine.RunEach(ctx, cells, done, e.run)
}

// run executes the workload on every target at once: TC threads per
// target, each with QD I/Os in flight.
func (e *Engine) run(ctx context.Context, w engine.Workload) (engine.Measurement, error) {
	if w.Idle {
		return engine.Rest(ctx, w)
	}
	maxBS := w.MaxBlockSize()
	for i, t := range e.targets {
		if err := w.Fits(t.Size, t.LogicalBlock); err != nil {
			return engine.Measurement{}, fmt.Errorf("%s: %w", t.Name, err)
		}
		if e.ro[i] && w.ReadShare() < 1 {
			return engine.Measurement{}, fmt.Errorf("%s is read-only: it cannot take writes", t.Name)
		}
	}
	if err := ctx.Err(); err != nil {
		return engine.Measurement{}, err
	}

	// A paced io_uring thread sleeps in io_uring_enter with a timeout; a
	// kernel without one runs the workload on the pread path.
	mode := e.mode
	if mode == "io_uring" && newPacer(w) != nil && !e.timedWait {
		mode = "pread"
	}

	var stop atomic.Bool
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-runCtx.Done()
		stop.Store(true)
	}()
	var ru0 unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru0)
	start := time.Now()
	var deadline time.Time
	if w.Duration > 0 {
		deadline = start.Add(w.Duration)
	}

	// Every I/O thread blocks in io_uring_enter, or at QD1 in its
	// pread or pwrite (rawPio), without giving up its P, so each needs a P
	// of its own, and the rest of the process one more.
	threads := len(e.targets) * w.TC
	if mode == "io_uring" || (rawQD1 && w.QD == 1) {
		if prev := runtime.GOMAXPROCS(0); prev < threads+2 {
			runtime.GOMAXPROCS(threads + 2)
			defer runtime.GOMAXPROCS(prev)
		}
	}
	allowed := allowedCPUs()
	pollNs, autoPoll := e.pollNs(threads, len(allowed))
	eager := eagerSubmit(threads, len(allowed), w.QD)
	if e.opts.NoPin || threads > len(allowed) {
		allowed = nil
	}
	of := make([]int, 0, threads)
	for ti := range e.targets {
		for range w.TC {
			of = append(of, ti)
		}
	}
	ser := newSeries(ctx, len(e.targets), w.RampSeconds(), of)
	var results []*threadResult
	var wg sync.WaitGroup
	for ti := range e.targets {
		for th := 0; th < w.TC; th++ {
			cpu := -1
			if len(allowed) > 0 {
				cpu = allowed[len(results)%len(allowed)]
			}
			res := &threadResult{target: ti, series: recorder{ser: ser, p: len(results)}}
			results = append(results, res)
			gen := engine.NewAddrGen(w, e.targets[ti].Size, th, w.TC, ti)
			wg.Add(1)
			go func(ti, th int) {
				defer wg.Done()
				if mode == "io_uring" {
					res.err = e.uringThread(w, ti, th, cpu, newPoller(pollNs, autoPoll, w.QD), eager, gen, start, deadline, &stop, maxBS, res)
				} else {
					res.err = e.preadThread(w, ti, th, cpu, gen, start, deadline, &stop, maxBS, res)
				}
				res.end = time.Now()
				res.series.done()
				if res.err != nil {
					stop.Store(true) // an I/O error ends the cell for every thread
				}
			}(ti, th)
		}
	}
	wg.Wait()
	end := start
	for _, r := range results {
		if r.end.After(end) {
			end = r.end
		}
	}
	var ru1 unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru1)

	// The cell's time runs to its last completion: I/Os in flight at the
	// deadline are waited for and counted. A ramp is left out of it, as
	// its I/Os are out of the totals.
	m := engine.Measurement{Engine: "native " + mode, Elapsed: max(end.Sub(start)-w.Ramp, 0)}
	cpus := float64(runtime.NumCPU())
	el := end.Sub(start).Seconds() // CPU time over the whole run, ramp included
	m.CPU.User = tvSeconds(ru1.Utime, ru0.Utime) / el / cpus
	m.CPU.Sys = tvSeconds(ru1.Stime, ru0.Stime) / el / cpus
	per := make([]engine.TargetStats, len(e.targets))
	var errs []error
	for _, r := range results {
		m.Read.Merge(r.read)
		m.Write.Merge(r.write)
		per[r.target].Read.Merge(r.read)
		per[r.target].Write.Merge(r.write)
		m.Trace = append(m.Trace, r.trace...)
		m.MaxDepth = max(m.MaxDepth, r.maxDepth)
		m.Resubmitted += r.resubmitted
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	// Every thread has handed its last interval over: the series is whole.
	all, perSeries := ser.result()
	m.Seconds = all
	if len(e.targets) > 1 {
		for i, t := range e.targets {
			per[i].Target = t.Name
			per[i].Seconds = perSeries[i]
		}
		m.Targets = per
	}
	if len(errs) > 0 {
		err := errors.Join(errs...)
		m.Error = err.Error()
		return m, err
	}
	if err := ctx.Err(); err != nil {
		return m, err
	}
	return m, nil
}

func tvSeconds(a, b unix.Timeval) float64 {
	return float64(a.Sec-b.Sec) + float64(a.Usec-b.Usec)/1e6
}

// Probe says which I/O path the engine would take here: io_uring or pread.
func Probe() string {
	if r, err := newRing(4); err == nil {
		r.close()
		return "io_uring"
	}
	return "pread"
}

// allowedCPUs lists the CPUs this thread may run on, in order; nil when
// the kernel does not say.
func allowedCPUs() []int {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return nil
	}
	var cpus []int
	for c := 0; c < 1024 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}
