package native

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ptsrun/ptsrun/internal/engine"
)

func ioError(t Target, s *slot, res int64) error {
	dir := "write"
	if s.read {
		dir = "read"
	}
	if res < 0 && s.retries > 0 {
		return fmt.Errorf("%w: %s %s of %d bytes at offset %d: %v, %d times", engine.ErrIO, t.Name, dir, s.size, s.off, unix.Errno(-res), s.retries+1)
	}
	if res < 0 {
		return fmt.Errorf("%w: %s %s of %d bytes at offset %d: %v", engine.ErrIO, t.Name, dir, s.size, s.off, unix.Errno(-res))
	}
	return fmt.Errorf("%w: %s short %s: %d of %d bytes at offset %d", engine.ErrIO, t.Name, dir, res, s.size, s.off)
}

// maxRetries bounds how often one I/O is submitted again after a
// transient result: a kernel that keeps cancelling is an error.
const maxRetries = 8

// transient reports whether an I/O's result is io_uring giving it back
// unstarted rather than the device failing it: -ECANCELED when an async
// worker for it could not be made (seen at TC32/QD32 on a loop device
// on 2 CPUs, where most I/Os wait for the device's 128 tags in workers),
// -EAGAIN and -EINTR. fio fails its job on these; a day-long run should
// not end on one, but it counts them (Measurement.Resubmitted).
func transient(rv int32) bool {
	switch unix.Errno(-rv) {
	case unix.ECANCELED, unix.EAGAIN, unix.EINTR:
		return rv < 0
	}
	return false
}

func (e *Engine) uringThread(w engine.Workload, ti, th, cpu int, poll poller, eager bool, gen *engine.AddrGen, start, deadline time.Time,
	stop *atomic.Bool, maxBS int64, res *threadResult) error {
	// A single-issuer ring must be entered from the thread that made it.
	defer lockThread(cpu)()
	qd := uint32(w.QD)
	entries := uint32(1)
	for entries < qd {
		entries <<= 1
	}
	r, err := newRing(entries)
	if err != nil {
		return fmt.Errorf("%s: %w", e.targets[ti].Name, err)
	}
	fd := int32(e.files[ti].Fd())
	if r.registerFiles([]int32{fd}) == nil {
		fd = 0
	}
	bufs := newBuffers(w.QD, maxBS, e.targets[ti].LogicalBlock, w.Seed+uint64(ti)<<32+uint64(th), ringBuffers(maxBS))
	_ = r.registerBuffer(bufs.mem) // unregistered buffers work too, a little slower
	inflight := 0
	defer func() { bufs.release(r, inflight) }() // after the ring's close
	defer r.close()
	rng := rand.New(rand.NewPCG(w.Seed^0x5bd1e995, uint64(ti)<<32|uint64(th)))
	slots := make([]slot, w.QD)
	for i := range slots {
		slots[i].bi = i
	}
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
	// The slots prepared since the ring was last entered; their I/Os'
	// latency starts at the entry that submits them (sent).
	unsent := make([]int, 0, w.QD)
	issue := func(i int) bool {
		io := gen.Next()
		if io.Size == 0 {
			return false
		}
		res.maxDepth = max(res.maxDepth, inflight+1) // the caller counts it in flight
		if pace != nil {
			pace.issued(io.Size)
		}
		s := &slots[i]
		s.size, s.off, s.read, s.active, s.retries = io.Size, io.Offset, io.Read, true, 0
		if !io.Read {
			s.bi = bufs.forWrite(s.bi)
			bufs.write(s.bi, io.Size, rng, &e.stamp)
		}
		s.buf = bufs.at(s.bi)
		if trace > 0 {
			res.trace = append(res.trace, engine.TraceIO{Target: ti, Thread: th, Offset: io.Offset, Size: io.Size, Read: io.Read})
			trace--
		}
		r.prep(io.Read, fd, s.buf, uint32(io.Size), io.Offset, uint64(i))
		unsent = append(unsent, i)
		return true
	}
	// Paced: the slots without an I/O, each waiting for the next I/O's
	// turn; without a rate a completed slot is refilled at once.
	var free []int
	exhausted := false // the generator has no more I/O (Passes)
	for i := range slots {
		switch {
		case pace != nil:
			free = append(free, i)
		case issue(i):
			inflight++
		}
	}
	fill := func(t int64) {
		for len(free) > 0 && !exhausted && pace.due() <= t {
			if !issue(free[len(free)-1]) {
				exhausted = true
				break
			}
			free = free[:len(free)-1]
			inflight++
		}
	}
	var firstErr error
	var ringErr error // the eager submission's (eagerSubmit)
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
		waitFrom := int64(-1)
		switch wake := min(deadNs, 1<<62); {
		case waiting:
			if pace.due() < wake {
				wake = pace.due()
			}
			tn := now()
			if d := wake - tn; d > 0 {
				unsent = sent(slots, unsent, tn)
				err = r.waitFor(min(d, int64(maxSleep)))
			} else if inflight > 0 {
				unsent = sent(slots, unsent, tn)
				err = r.enter(0) // submit, and reap what is there
			}
		default:
			// Wait for one completion, not more: the queue stays as full
			// as the workload asks.
			waitFrom = now()
			unsent = sent(slots, unsent, waitFrom)
			err = r.wait(poll.budget(), now)
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
		n := r.reap(func(ud uint64, rv int32) {
			s := &slots[ud]
			if transient(rv) && s.retries < maxRetries {
				// Given back unstarted by io_uring's own machinery, not
				// by the device: the same I/O again, its latency still
				// from its first submission.
				s.retries++
				res.resubmitted++
				r.prep(s.read, fd, s.buf, uint32(s.size), s.off, ud)
				return
			}
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
			if pace == nil && eager && ringErr == nil && poll.close() {
				// What was prepared since the last submission (the
				// previous completion's refill, or a retry) goes now
				// (eagerSubmit); a batch's last refill goes with its wait.
				if len(unsent) > 0 {
					unsent = sent(slots, unsent, now())
				}
				ringErr = r.submit()
			}
			if pace == nil && !halt && firstErr == nil && ringErr == nil && issue(int(ud)) {
				inflight++
			}
		})
		if ringErr != nil {
			// As an error of the wait's enter: the ring cannot be
			// trusted with the I/Os in flight.
			return fmt.Errorf("%s: %w", e.targets[ti].Name, ringErr)
		}
		if waitFrom >= 0 {
			poll.waited(t-waitFrom, n)
		}
		halted = halted || halt || firstErr != nil
	}
	return firstErr
}

// lockThread locks the calling goroutine to its OS thread and, with cpu
// 0 or more, pins the thread to that CPU. The function it returns undoes
// both: the thread goes back to Go's pool as it was, or every thread
// started after it would inherit the one CPU.
func lockThread(cpu int) (unlock func()) {
	runtime.LockOSThread()
	if cpu >= 0 {
		var one, all unix.CPUSet
		if unix.SchedGetaffinity(0, &all) == nil {
			one.Set(cpu)
			if unix.SchedSetaffinity(0, &one) == nil {
				return func() {
					_ = unix.SchedSetaffinity(0, &all)
					runtime.UnlockOSThread()
				}
			}
		}
	}
	return runtime.UnlockOSThread
}

// rawQD1 says whether a QD1 pread worker does its I/O by raw system calls
// (rawPio): on 64-bit ABIs only, where pread64's offset is one argument
// (32-bit ones split it, arm and mips after a padding slot).
const rawQD1 = strconv.IntSize == 64

// maxRawNs is the slowest I/O after which a QD1 pread worker goes back to
// ordinary system calls for the rest of the cell. A raw call keeps the
// goroutine running in the runtime's eyes, and a direct read waits
// uninterruptibly, so every stop of the world (the garbage collector's)
// waits for it: for a microsecond or so on a healthy device, but for the
// whole of a hung device's timeout, with the other targets' threads and
// the interrupt handler stopped too. One slow I/O is then the most it
// holds them.
const maxRawNs = 10_000_000

// rawPio is pread(2), or pwrite(2), by a raw system call: the calling
// goroutine keeps its P while the kernel does the I/O, as an io_uring
// thread does while it waits (Engine.run gives every such thread a P of
// its own). One 4 KiB read at a time on a 2-CPU guest's loop device, in
// fio's psync's mean latency ÷ the worker's: 0.68–0.72 through unix.Pread,
// which hands the P over and takes it back around the call, in an
// unpinned goroutine; 0.72–0.79 pinned and locked to its thread; 0.77–0.98
// (median 0.98) pinned and raw.
func rawPio(read bool, fd int, buf unsafe.Pointer, n, off int64) (int, error) {
	nr := uintptr(unix.SYS_PWRITE64)
	if read {
		nr = unix.SYS_PREAD64
	}
	for {
		r, _, errno := unix.RawSyscall6(nr, uintptr(fd), uintptr(buf), uintptr(n), uintptr(off), 0, 0)
		switch errno {
		case 0:
			return int(r), nil
		case unix.EINTR:
			continue
		}
		return -1, errno
	}
}

func (e *Engine) preadThread(w engine.Workload, ti, th, cpu int, gen *engine.AddrGen, start, deadline time.Time,
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
	// One worker, one I/O at a time (QD1, the PTS latency test's depth):
	// it takes the thread's CPU and does its I/O by raw system calls
	// (rawPio), the shortest path there is for it. Deeper, the QD workers
	// share the Ps and hand them over while they wait.
	raw := rawQD1 && w.QD == 1
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
			if raw {
				defer lockThread(cpu)()
			}
			rawNow := raw // until an I/O is slower than maxRawNs
			rng := rand.New(rand.NewPCG(w.Seed^0x5bd1e995, uint64(ti)<<32|uint64(th)<<16|uint64(q)))
			bufs := newBuffers(1, maxBS, e.targets[ti].LogicalBlock, w.Seed+uint64(ti)<<32+uint64(th)<<16+uint64(q), false)
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
			bi := 0 // the buffer this worker holds
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
				if !io.Read {
					bi = bufs.forWrite(bi)
					bufs.write(bi, io.Size, rng, &e.stamp)
				}
				buf := bufs.at(bi)
				t0 := time.Since(start)
				var n int
				var err error
				switch {
				case rawNow:
					n, err = rawPio(io.Read, fd, buf, io.Size, io.Offset)
				case io.Read:
					n, err = unix.Pread(fd, unsafe.Slice((*byte)(buf), io.Size), io.Offset)
				default:
					n, err = unix.Pwrite(fd, unsafe.Slice((*byte)(buf), io.Size), io.Offset)
				}
				t1 := time.Since(start)
				inflight.Add(-1)
				lat := int64(t1 - t0)
				if lat > maxRawNs {
					rawNow = false
				}
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
				rec.at(w.IntervalOf(t1))
				rec.record(io.Read, lat, io.Size)
				// A ramp's I/Os are in the series only. One that completed
				// in the ramp's last instant but was counted in an interval
				// after it (above) is measured too: the totals are the
				// series' intervals after the ramp.
				measured := t1 >= w.Ramp || rec.cur >= rec.ser.ramp
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
