package native

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Timed replay (`ptsrun replay`): the I/Os of a capture issued at their
// times, apart from the workload path above (threads_linux.go), which it
// leaves as it is. One thread issues them all from one ring of Depth
// slots: it sleeps in the kernel until shortly before the next I/O's time
// (or a completion), then polls the ring up to that time, so that an
// I/O is issued within microseconds of its time while a slot is free.

// replayEarly is how long before an I/O's time the thread stops sleeping
// and polls: about the kernel's timer slack (50 µs). Polling longer took
// the CPU from the target's own threads (a loop device's worker) on a
// loaded two-core host: at 150 µs and 20 000 IOPS the thread never slept,
// the loop device's response time was four times as long and more I/Os
// found every slot busy.
const replayEarly = 50 * time.Microsecond

// Replay issues t's I/Os on the engine's first target at their times.
func (e *Engine) Replay(ctx context.Context, t engine.Timed) (engine.TimedResult, error) {
	if len(e.targets) != 1 {
		return engine.TimedResult{}, fmt.Errorf("native engine: a replay is of one target, not %d", len(e.targets))
	}
	tg := e.targets[0]
	var maxBS int64 = 512
	writes := false
	for _, io := range t.IOs {
		maxBS = max(maxBS, io.Size)
		writes = writes || !io.Read
		if io.Offset < 0 || io.Size <= 0 || io.Offset+io.Size > tg.Size {
			return engine.TimedResult{}, fmt.Errorf("%s: an I/O of %d bytes at %d is outside its %d bytes", tg.Name, io.Size, io.Offset, tg.Size)
		}
	}
	if writes && e.ro[0] {
		return engine.TimedResult{}, fmt.Errorf("%s is read-only: it cannot take the replay's writes", tg.Name)
	}
	depth := max(t.Depth, 1)
	res := engine.TimedResult{Engine: "native " + e.mode, Issue: make([]int64, len(t.IOs)), Lat: make([]int64, len(t.IOs)),
		Waited: make([]bool, len(t.IOs))}
	for i := range res.Issue {
		res.Issue[i], res.Lat[i] = -1, -1
	}
	start := time.Now()
	var err error
	if e.mode == "io_uring" && e.timedWait {
		if prev := runtime.GOMAXPROCS(0); prev < 3 {
			runtime.GOMAXPROCS(3)
			defer runtime.GOMAXPROCS(prev)
		}
		err = e.replayUring(ctx, t.IOs, depth, maxBS, start, &res)
	} else {
		err = e.replayPread(ctx, t.IOs, depth, maxBS, start, &res)
		res.Engine = "native pread"
	}
	res.Elapsed = time.Since(start)
	return res, err
}

func (e *Engine) replayUring(ctx context.Context, ios []engine.TimedIO, depth int, maxBS int64, start time.Time, res *engine.TimedResult) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tg := e.targets[0]
	entries := uint32(1)
	for entries < uint32(depth) {
		entries <<= 1
	}
	r, err := newRing(entries)
	if err != nil {
		return fmt.Errorf("%s: %w", tg.Name, err)
	}
	fd := int32(e.files[0].Fd())
	if r.registerFiles([]int32{fd}) == nil {
		fd = 0
	}
	bufs := newBuffers(depth, maxBS, tg.LogicalBlock, 0x7265706c6179, ringBuffers(maxBS))
	_ = r.registerBuffer(bufs.mem)
	next, inflight := 0, 0
	defer func() { bufs.release(r, inflight) }() // after the ring's close
	defer r.close()
	rng := rand.New(rand.NewPCG(0x5bd1e995, 0x7265706c6179))
	slots := make([]slot, depth)
	for i := range slots {
		slots[i].bi = i
	}
	owner := make([]int, depth) // the I/O each slot holds
	free := make([]int, 0, depth)
	for i := depth - 1; i >= 0; i-- {
		free = append(free, i)
	}
	now := func() int64 { return int64(time.Since(start)) }
	// blocked: the next I/O's time came while every slot was busy; the
	// I/Os issued when a slot frees up had all waited for it.
	blocked := false
	unsent := make([]int, 0, depth) // prepared, not yet submitted (sent)
	var firstErr error
	for next < len(ios) || inflight > 0 {
		if ctx.Err() != nil || firstErr != nil {
			if inflight == 0 {
				break
			}
			next = len(ios) // issue no more; reap what is in flight
		}
		t := now()
		for next < len(ios) && len(free) > 0 && int64(ios[next].At) <= t {
			io := ios[next]
			i := free[len(free)-1]
			free = free[:len(free)-1]
			s := &slots[i]
			s.size, s.off, s.read, s.active = io.Size, io.Offset, io.Read, true
			if !io.Read {
				s.bi = bufs.forWrite(s.bi)
				bufs.write(s.bi, io.Size, rng, &e.stamp)
			}
			s.buf = bufs.at(s.bi)
			r.prep(io.Read, fd, s.buf, uint32(io.Size), io.Offset, uint64(i))
			owner[i] = next
			unsent = append(unsent, i)
			if blocked {
				res.Delayed++
				res.Waited[next] = true
			}
			next++
			inflight++
		}
		blocked = false
		if next < len(ios) && len(free) == 0 && int64(ios[next].At) <= t {
			blocked = true
		}
		// Issued, and timed from, the entry below that submits them.
		tn := now()
		for _, i := range unsent {
			res.Issue[owner[i]] = tn
		}
		unsent = sent(slots, unsent, tn)
		switch {
		case next < len(ios) && len(free) > 0:
			// Until the next I/O's time: asleep while it is far, woken by
			// a completion too; polling when it is near.
			if d := int64(ios[next].At) - tn - int64(replayEarly); d > 0 {
				err = r.waitFor(d)
			} else {
				err = r.enter(0)
			}
		case inflight > 0:
			err = r.enter(1)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tg.Name, err)
		}
		done := now()
		r.reap(func(ud uint64, rv int32) {
			s := &slots[ud]
			s.active = false
			inflight--
			free = append(free, int(ud))
			if int64(rv) != s.size {
				if firstErr == nil {
					firstErr = ioError(tg, s, int64(rv))
				}
				return
			}
			res.Lat[owner[ud]] = done - s.start
		})
	}
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// replayPread is the replay where io_uring (with timed waits) is not
// there: depth workers, each taking the next I/O, sleeping until its
// time and doing it with pread or pwrite.
func (e *Engine) replayPread(ctx context.Context, ios []engine.TimedIO, depth int, maxBS int64, start time.Time, res *engine.TimedResult) error {
	tg := e.targets[0]
	fd := int(e.files[0].Fd())
	var mu sync.Mutex
	next := 0
	var firstErr error
	var wg sync.WaitGroup
	for q := range depth {
		wg.Add(1)
		go func(q int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(0x5bd1e995, uint64(q)))
			bufs := newBuffers(1, maxBS, tg.LogicalBlock, uint64(q), false)
			defer bufs.free()
			bi := 0 // the buffer this worker holds
			for {
				mu.Lock()
				if next >= len(ios) || firstErr != nil || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				n := next
				next++
				// Taken after its time: no worker was free when it came.
				if int64(time.Since(start)) > int64(ios[n].At)+int64(time.Millisecond) {
					res.Delayed++
					res.Waited[n] = true
				}
				mu.Unlock()
				io := ios[n]
				if d := time.Until(start.Add(io.At)); d > 0 {
					time.Sleep(d)
				}
				if !io.Read {
					bi = bufs.forWrite(bi)
					bufs.write(bi, io.Size, rng, &e.stamp)
				}
				b := unsafe.Slice((*byte)(bufs.at(bi)), io.Size)
				t0 := time.Since(start)
				var got int
				var err error
				if io.Read {
					got, err = unix.Pread(fd, b, io.Offset)
				} else {
					got, err = unix.Pwrite(fd, b, io.Offset)
				}
				t1 := time.Since(start)
				mu.Lock()
				res.Issue[n] = int64(t0)
				if err != nil || int64(got) != io.Size {
					rv := int64(got)
					var errno unix.Errno
					if errors.As(err, &errno) {
						rv = -int64(errno)
					}
					if firstErr == nil {
						firstErr = ioError(tg, &slot{size: io.Size, off: io.Offset, read: io.Read}, rv)
					}
				} else {
					res.Lat[n] = int64(t1 - t0)
				}
				mu.Unlock()
			}
		}(q)
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}
