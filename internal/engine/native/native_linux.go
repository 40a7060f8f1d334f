package native

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

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
	// NoPin leaves I/O threads free to move between CPUs. By default each
	// io_uring thread is pinned to one of the allowed CPUs, round robin:
	// completions then wake it where it sleeps instead of across CPUs.
	NoPin bool
	// Trace keeps the first Trace I/Os of every thread in the measurement.
	Trace int
	// Poll is how long an io_uring thread polls its completion ring
	// before it sleeps in the kernel. Sleeping costs a wake-up per batch:
	// an inter-processor interrupt that the completing CPU pays and, in a
	// virtual machine, an exit; at QD32 on a fast device that is 5 to 10 %
	// of the IOPS, and at QD1 microseconds of every latency. Zero chooses:
	// DefaultPoll while the I/O threads leave a CPU free, else no polling,
	// because pollers would take the CPU from each other. Negative never
	// polls.
	Poll time.Duration
}

// DefaultPoll bounds the completion polling of Options.Poll: long enough
// to span the gaps between completions of a busy queue, short enough that
// an idle or slow device costs little CPU.
const DefaultPoll = 50 * time.Microsecond

// pollNs is the completion polling of each of threads I/O threads on cpus
// usable CPUs.
func (e *Engine) pollNs(threads, cpus int) int64 {
	switch {
	case e.opts.Poll < 0:
		return 0
	case e.opts.Poll > 0:
		return int64(e.opts.Poll)
	case threads < cpus:
		return int64(DefaultPoll)
	}
	return 0
}

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

func alignedBuffer(n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		panic(fmt.Sprintf("native engine: cannot map %d bytes of buffers: %v", n, err))
	}
	return b
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
	err      error
	end      time.Time
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
	var maxBS int64 = w.BlockSize
	for _, s := range w.BlockSplit {
		maxBS = max(maxBS, s.Bytes)
	}
	for i, t := range e.targets {
		if err := w.Fits(t.Size, t.LogicalBlock); err != nil {
			return engine.Measurement{}, fmt.Errorf("%s: %w", t.Name, err)
		}
		if e.ro[i] && w.ReadPct < 100 {
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

	// Every I/O thread blocks in io_uring_enter without giving up its P, so
	// each needs a P of its own, and the rest of the process one more.
	threads := len(e.targets) * w.TC
	if mode == "io_uring" {
		if prev := runtime.GOMAXPROCS(0); prev < threads+2 {
			runtime.GOMAXPROCS(threads + 2)
			defer runtime.GOMAXPROCS(prev)
		}
	}
	var allowed []int
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) == nil {
		for c := 0; c < 1024 && len(allowed) < set.Count(); c++ {
			if set.IsSet(c) {
				allowed = append(allowed, c)
			}
		}
	}
	pollNs := e.pollNs(threads, len(allowed))
	if e.opts.NoPin {
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
					res.err = e.uringThread(w, ti, th, cpu, pollNs, gen, start, deadline, &stop, maxBS, res)
				} else {
					res.err = e.preadThread(w, ti, th, gen, start, deadline, &stop, maxBS, res)
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

// slot is one I/O in flight.
type slot struct {
	buf    unsafe.Pointer
	start  int64 // ns since the run started
	size   int64
	off    int64
	read   bool
	active bool
}

// buffers is one thread's I/O memory: a buffer per slot, then the random
// pool. One mapping, so that one registration covers it.
type buffers struct {
	mem   []byte
	maxBS int64
	align int64
	pool  int64 // offset of the pool in mem
}

func newBuffers(slots int, maxBS, align int64, seed uint64) *buffers {
	b := &buffers{maxBS: maxBS, align: max(align, 512)}
	b.pool = int64(slots) * maxBS
	b.mem = alignedBuffer(int(b.pool + maxBS + writeVariety))
	var key [32]byte
	for i := range 8 {
		key[i] = byte(seed >> (8 * i))
	}
	_, _ = rand.NewChaCha8(key).Read(b.mem[b.pool:])
	return b
}

func (b *buffers) free() { _ = unix.Munmap(b.mem) }

func (b *buffers) slot(i int) unsafe.Pointer {
	return unsafe.Pointer(&b.mem[int64(i)*b.maxBS])
}

// write makes slot i's buffer the data of a write of size bytes.
func (b *buffers) write(i int, size int64, rng *rand.Rand, stamp *atomic.Uint64) {
	at := b.pool + int64(rng.Uint64N(uint64(writeVariety/b.align)))*b.align
	key := rng.Uint64()
	words := int(size / 8)
	src := unsafe.Slice((*uint64)(unsafe.Pointer(&b.mem[at])), words)
	dst := unsafe.Slice((*uint64)(unsafe.Pointer(&b.mem[int64(i)*b.maxBS])), words)
	xorWords(dst, src, key)
	seq := stamp.Add(uint64(words / 64))
	for w := 0; w < words; w += 64 { // one word per 512-byte sector
		dst[w] = mix(seq)
		seq--
	}
}

// xorWords sets dst to src XOR key, eight words a step: the compiler
// checks bounds once per step instead of per word, which makes it about
// 1.6 times as fast as the plain loop.
func xorWords(dst, src []uint64, key uint64) {
	src = src[:len(dst)]
	n := len(dst) &^ 7
	for w := 0; w < n; w += 8 {
		d, s := dst[w:w+8:w+8], src[w:w+8:w+8]
		d[0], d[1], d[2], d[3] = s[0]^key, s[1]^key, s[2]^key, s[3]^key
		d[4], d[5], d[6], d[7] = s[4]^key, s[5]^key, s[6]^key, s[7]^key
	}
	for w := n; w < len(dst); w++ {
		dst[w] = src[w] ^ key
	}
}

// mix is splitmix64's finaliser: a bijection, so unique counters give unique,
// random-looking stamps.
func mix(x uint64) uint64 {
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func ioError(t Target, s *slot, res int64) error {
	dir := "write"
	if s.read {
		dir = "read"
	}
	if res < 0 {
		return fmt.Errorf("%w: %s %s of %d bytes at offset %d: %v", engine.ErrIO, t.Name, dir, s.size, s.off, unix.Errno(-res))
	}
	return fmt.Errorf("%w: %s short %s: %d of %d bytes at offset %d", engine.ErrIO, t.Name, dir, res, s.size, s.off)
}

func (e *Engine) uringThread(w engine.Workload, ti, th, cpu int, pollNs int64, gen *engine.AddrGen, start, deadline time.Time,
	stop *atomic.Bool, maxBS int64, res *threadResult) error {
	// A single-issuer ring must be entered from the thread that made it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cpu >= 0 {
		var one, all unix.CPUSet
		if unix.SchedGetaffinity(0, &all) == nil {
			one.Set(cpu)
			if unix.SchedSetaffinity(0, &one) == nil {
				// The thread goes back to the pool; leave it as it was.
				defer unix.SchedSetaffinity(0, &all)
			}
		}
	}
	qd := uint32(w.QD)
	entries := uint32(1)
	for entries < qd {
		entries <<= 1
	}
	r, err := newRing(entries)
	if err != nil {
		return fmt.Errorf("%s: %w", e.targets[ti].Name, err)
	}
	defer r.close()
	fd := int32(e.files[ti].Fd())
	if r.registerFiles([]int32{fd}) == nil {
		fd = 0
	}
	bufs := newBuffers(w.QD, maxBS, e.targets[ti].LogicalBlock, w.Seed+uint64(ti)<<32+uint64(th))
	defer bufs.free()
	_ = r.registerBuffer(bufs.mem) // unregistered buffers work too, a little slower
	rng := rand.New(rand.NewPCG(w.Seed^0x5bd1e995, uint64(ti)<<32|uint64(th)))
	slots := make([]slot, w.QD)
	trace := e.opts.Trace
	now := func() int64 { return int64(time.Since(start)) }
	var deadNs int64 = 1<<63 - 1
	if !deadline.IsZero() {
		deadNs = int64(deadline.Sub(start))
	}
	pace := newPacer(w)
	rampNs := int64(w.Ramp)
	ivNs := int64(w.SeriesInterval()) // w.IntervalOf, without copying w per batch
	rec := &res.series
	inflight := 0
	issue := func(i int, t int64) bool {
		io := gen.Next()
		if io.Size == 0 {
			return false
		}
		res.maxDepth = max(res.maxDepth, inflight+1) // the caller counts it in flight
		if pace != nil {
			pace.issued(io.Size)
		}
		s := &slots[i]
		s.size, s.off, s.read, s.start, s.active = io.Size, io.Offset, io.Read, t, true
		s.buf = bufs.slot(i)
		if !io.Read {
			bufs.write(i, io.Size, rng, &e.stamp)
		}
		if trace > 0 {
			res.trace = append(res.trace, engine.TraceIO{Target: ti, Thread: th, Offset: io.Offset, Size: io.Size, Read: io.Read})
			trace--
		}
		r.prep(io.Read, fd, s.buf, uint32(io.Size), io.Offset, uint64(i))
		return true
	}
	// Paced: the slots without an I/O, each waiting for the next I/O's
	// turn; without a rate a completed slot is refilled at once.
	var free []int
	exhausted := false // the generator has no more I/O (Passes)
	t0 := now()
	for i := range slots {
		switch {
		case pace != nil:
			free = append(free, i)
		case issue(i, t0):
			inflight++
		}
	}
	fill := func(t int64) {
		for len(free) > 0 && !exhausted && pace.due() <= t {
			if !issue(free[len(free)-1], t) {
				exhausted = true
				break
			}
			free = free[:len(free)-1]
			inflight++
		}
	}
	var firstErr error
	halted := false
	for {
		if pace != nil && !halted {
			fill(now())
		}
		waiting := pace != nil && !halted && !exhausted && len(free) > 0
		if inflight == 0 && !waiting {
			break
		}
		var err error
		switch wake := min(deadNs, 1<<62); {
		case waiting:
			if pace.due() < wake {
				wake = pace.due()
			}
			if d := wake - now(); d > 0 {
				err = r.waitFor(min(d, int64(maxSleep)))
			} else if inflight > 0 {
				err = r.enter(0) // submit, and reap what is there
			}
		default:
			// Wait for one completion, not more: the queue stays as full
			// as the workload asks.
			err = r.wait(pollNs, now)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", e.targets[ti].Name, err)
		}
		t := now()
		halt := firstErr != nil || t >= deadNs || stop.Load()
		// Every wake-up, with completions or not (a paced thread's), moves
		// the thread to the interval it is in, so that it does not hold
		// the others' intervals open.
		rec.at(int(t / ivNs))
		r.reap(func(ud uint64, rv int32) {
			s := &slots[ud]
			s.active = false
			inflight--
			if pace != nil {
				free = append(free, int(ud))
			}
			if int64(rv) != s.size {
				if firstErr == nil {
					firstErr = ioError(e.targets[ti], s, int64(rv))
				}
				return
			}
			lat := t - s.start
			measured := t >= rampNs // a ramp's I/Os are in the series only
			if s.read {
				if measured {
					res.read.Record(lat, 1, s.size)
				}
				rec.st.Read.Record(lat, 1, s.size)
			} else {
				if measured {
					res.write.Record(lat, 1, s.size)
				}
				rec.st.Write.Record(lat, 1, s.size)
			}
			if pace == nil && !halt && firstErr == nil && issue(int(ud), t) {
				inflight++
			}
		})
		halted = halted || halt || firstErr != nil
	}
	return firstErr
}

func (e *Engine) preadThread(w engine.Workload, ti, th int, gen *engine.AddrGen, start, deadline time.Time,
	stop *atomic.Bool, maxBS int64, res *threadResult) error {
	var mu sync.Mutex // guards gen, pace, res and firstErr among the QD workers
	var firstErr error
	pace := newPacer(w)
	var wg sync.WaitGroup
	// Unpaced, every worker takes its first I/O before any issues one, so
	// that the queue starts full as io_uring's first fill does, however the
	// goroutines are scheduled; from then on each worker keeps one I/O in
	// flight.
	var ready *sync.WaitGroup
	if pace == nil {
		ready = new(sync.WaitGroup)
		ready.Add(w.QD)
	}
	var inflight atomic.Int32
	fd := int(e.files[ti].Fd())
	trace := e.opts.Trace
	rec := &res.series
	// tick moves the thread on to the interval it is in while its workers
	// sleep for their paced turns, so that it does not hold the others'
	// intervals open.
	tick := func() {
		mu.Lock()
		rec.at(w.IntervalOf(time.Since(start)))
		mu.Unlock()
	}
	for q := 0; q < w.QD; q++ {
		wg.Add(1)
		go func(q int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(w.Seed^0x5bd1e995, uint64(ti)<<32|uint64(th)<<16|uint64(q)))
			bufs := newBuffers(1, maxBS, e.targets[ti].LogicalBlock, w.Seed+uint64(ti)<<32+uint64(th)<<16+uint64(q))
			defer bufs.free()
			arrived := ready == nil
			arrive := func() {
				if !arrived {
					arrived = true
					ready.Done()
				}
			}
			defer arrive() // a worker that ends before its first I/O lets the others go
			depth := 0
			defer func() {
				mu.Lock()
				res.maxDepth = max(res.maxDepth, depth)
				mu.Unlock()
			}()
			for {
				mu.Lock()
				if firstErr != nil || stop.Load() || (!deadline.IsZero() && !time.Now().Before(deadline)) {
					mu.Unlock()
					return
				}
				io := gen.Next()
				var due time.Time
				if pace != nil && io.Size > 0 {
					due = start.Add(time.Duration(pace.due()))
					pace.issued(io.Size)
				}
				if trace > 0 && io.Size > 0 {
					res.trace = append(res.trace, engine.TraceIO{Target: ti, Thread: th, Offset: io.Offset, Size: io.Size, Read: io.Read})
					trace--
				}
				mu.Unlock()
				if io.Size == 0 {
					return
				}
				if pace != nil && !sleepUntil(due, deadline, stop, tick) {
					return
				}
				// In flight from here to its completion: every worker counts
				// its first I/O before any passes the barrier.
				depth = max(depth, int(inflight.Add(1)))
				if !arrived {
					arrive()
					ready.Wait()
				}
				buf := bufs.slot(0)
				if !io.Read {
					bufs.write(0, io.Size, rng, &e.stamp)
				}
				b := unsafe.Slice((*byte)(buf), io.Size)
				t0 := time.Now()
				var n int
				var err error
				if io.Read {
					n, err = unix.Pread(fd, b, io.Offset)
				} else {
					n, err = unix.Pwrite(fd, b, io.Offset)
				}
				t1 := time.Now()
				inflight.Add(-1)
				lat := int64(t1.Sub(t0))
				mu.Lock()
				if err != nil || int64(n) != io.Size {
					if firstErr == nil {
						rv := int64(n)
						if errno, ok := err.(unix.Errno); ok {
							rv = -int64(errno)
						}
						firstErr = ioError(e.targets[ti], &slot{size: io.Size, off: io.Offset, read: io.Read}, rv)
					}
					mu.Unlock()
					return
				}
				// Workers take the lock in their own order: one whose I/O
				// completed just before a boundary may come after one that
				// moved the thread past it, and its I/O counts in the next
				// interval (recorder.at).
				rec.at(w.IntervalOf(t1.Sub(start)))
				rec.record(io.Read, lat, io.Size)
				measured := t1.Sub(start) >= w.Ramp // a ramp's I/Os are in the series only
				if io.Read {
					if measured {
						res.read.Record(lat, 1, io.Size)
					}
				} else if measured {
					res.write.Record(lat, 1, io.Size)
				}
				mu.Unlock()
			}
		}(q)
	}
	wg.Wait()
	return firstErr
}

// sleepUntil sleeps until at, a paced I/O's turn, and says whether it may
// be issued: not when the run's deadline comes first or it is stopped. It
// calls tick after every sleep.
func sleepUntil(at, deadline time.Time, stop *atomic.Bool, tick func()) bool {
	for {
		if stop.Load() || (!deadline.IsZero() && !at.Before(deadline)) {
			return false
		}
		d := time.Until(at)
		if d <= 0 {
			return true
		}
		time.Sleep(min(d, maxSleep))
		tick()
	}
}

// Probe says which I/O path the engine would take here: io_uring or pread.
func Probe() string {
	if r, err := newRing(4); err == nil {
		r.close()
		return "io_uring"
	}
	return "pread"
}
