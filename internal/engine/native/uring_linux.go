package native

import (
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// io_uring ABI (include/uapi/linux/io_uring.h).
const (
	iouringOffSQRing = 0
	iouringOffCQRing = 0x8000000
	iouringOffSQEs   = 0x10000000

	featSingleMmap = 1 << 0
	featExtArg     = 1 << 8 // IORING_FEAT_EXT_ARG, Linux 5.11

	setupCoopTaskrun  = 1 << 8
	setupSingleIssuer = 1 << 12
	setupDeferTaskrun = 1 << 13

	enterGetEvents      = 1 << 0
	enterExtArg         = 1 << 3
	enterRegisteredRing = 1 << 4

	opReadFixed  = 4
	opWriteFixed = 5
	opRead       = 22
	opWrite      = 23

	sqeFixedFile = 1 << 0

	registerBuffers   = 0
	registerFiles     = 2
	registerRingFds   = 20
	unregisterRingFds = 21
)

// rsrcUpdate is struct io_uring_rsrc_update.
type rsrcUpdate struct {
	offset, resv uint32
	data         uint64
}

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	rwFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad         uint64
}

type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// getEventsArg is struct io_uring_getevents_arg: with IORING_ENTER_EXT_ARG
// io_uring_enter waits at most ts for its completions.
type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32 // pad before Linux 6.12
	ts        uint64 // *kernelTimespec
}

type kernelTimespec struct{ sec, nsec int64 }

// ring is one io_uring instance used by one goroutine.
type ring struct {
	fd              int
	sqHead, sqTail  *uint32
	sqMask          uint32
	sqArray         []uint32
	sqes            []sqe
	cqHead, cqTail  *uint32
	cqMask          uint32
	cqes            []cqe
	mmaps           [][]byte
	pendingTail     uint32 // SQ tail not yet published
	registeredFiles bool
	registeredBufs  bool
	enterFd         uintptr // the ring's fd, or its registered index
	enterFlags      uintptr
	extArg          bool // the kernel takes a timeout for its waits (waitFor)
	// waitFor's argument and timeout: in the ring, on the heap, where
	// nothing moves them while the kernel holds their addresses.
	waitArg getEventsArg
	waitTS  kernelTimespec
}

var errNoUring = errors.New("io_uring is not available")

// newRing sets up a ring of at least entries submission slots, trying the
// cheapest completion mode the kernel has first.
func newRing(entries uint32) (*ring, error) {
	var p uringParams
	var fd uintptr
	var errno syscall.Errno
	// Single issuer with deferred task work (6.1+): completions are
	// processed when the thread asks for them, in batches, without
	// interrupting it. Older kernels get what they support.
	for _, flags := range []uint32{setupSingleIssuer | setupDeferTaskrun, setupCoopTaskrun, 0} {
		p = uringParams{flags: flags, cqEntries: entries * 2}
		fd, _, errno = unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
		if errno == 0 {
			break
		}
		if errno != unix.EINVAL {
			break
		}
	}
	if errno != 0 {
		if errno == unix.ENOSYS || errno == unix.EPERM {
			return nil, fmt.Errorf("%w: %v", errNoUring, errno)
		}
		return nil, fmt.Errorf("io_uring_setup: %w", errno)
	}
	r := &ring{fd: int(fd), extArg: p.features&featExtArg != 0}
	sqSize := uintptr(p.sqOff.array) + uintptr(p.sqEntries)*4
	cqSize := uintptr(p.cqOff.cqes) + uintptr(p.cqEntries)*unsafe.Sizeof(cqe{})
	if p.features&featSingleMmap != 0 {
		sqSize = max(sqSize, cqSize)
	}
	sqMem, err := unix.Mmap(r.fd, iouringOffSQRing, int(sqSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("io_uring mmap SQ ring: %w", err)
	}
	r.mmaps = append(r.mmaps, sqMem)
	cqMem := sqMem
	if p.features&featSingleMmap == 0 {
		cqMem, err = unix.Mmap(r.fd, iouringOffCQRing, int(cqSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("io_uring mmap CQ ring: %w", err)
		}
		r.mmaps = append(r.mmaps, cqMem)
	}
	sqeMem, err := unix.Mmap(r.fd, iouringOffSQEs, int(uintptr(p.sqEntries)*unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("io_uring mmap SQEs: %w", err)
	}
	r.mmaps = append(r.mmaps, sqeMem)

	sqBase := unsafe.Pointer(&sqMem[0])
	r.sqHead = (*uint32)(unsafe.Add(sqBase, p.sqOff.head))
	r.sqTail = (*uint32)(unsafe.Add(sqBase, p.sqOff.tail))
	r.sqMask = *(*uint32)(unsafe.Add(sqBase, p.sqOff.ringMask))
	r.sqArray = unsafe.Slice((*uint32)(unsafe.Add(sqBase, p.sqOff.array)), p.sqEntries)
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&sqeMem[0])), p.sqEntries)
	cqBase := unsafe.Pointer(&cqMem[0])
	r.cqHead = (*uint32)(unsafe.Add(cqBase, p.cqOff.head))
	r.cqTail = (*uint32)(unsafe.Add(cqBase, p.cqOff.tail))
	r.cqMask = *(*uint32)(unsafe.Add(cqBase, p.cqOff.ringMask))
	r.cqes = unsafe.Slice((*cqe)(unsafe.Add(cqBase, p.cqOff.cqes)), p.cqEntries)
	// The SQ array maps slot i to SQE i once and for all.
	for i := range r.sqArray {
		r.sqArray[i] = uint32(i)
	}
	r.pendingTail = atomic.LoadUint32(r.sqTail)
	r.enterFd, r.enterFlags = uintptr(r.fd), enterGetEvents
	r.registerRing()
	return r, nil
}

// registerRing registers the ring's own fd (5.18+), so that every enter
// skips looking the fd up and counting references on it: a few per cent
// of a thread's time at 200 k enters a second.
func (r *ring) registerRing() {
	u := rsrcUpdate{offset: ^uint32(0), data: uint64(r.fd)} // any free index
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerRingFds,
		uintptr(unsafe.Pointer(&u)), 1, 0, 0)
	if errno == 0 && n == 1 {
		r.enterFd, r.enterFlags = uintptr(u.offset), enterGetEvents|enterRegisteredRing
	}
}

// close lets go of the ring. A registered ring fd is a reference the
// thread holds: closing the fd alone leaves the ring, its registered
// files and pinned buffers alive until the thread ends, and Go keeps
// its threads. A device of a finished run stayed open that way (a loop
// device could not be detached). close must run on the ring's thread.
func (r *ring) close() {
	if r.enterFlags&enterRegisteredRing != 0 {
		u := rsrcUpdate{offset: uint32(r.enterFd)}
		_, _, _ = unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), unregisterRingFds,
			uintptr(unsafe.Pointer(&u)), 1, 0, 0)
		r.enterFd, r.enterFlags = uintptr(r.fd), r.enterFlags&^enterRegisteredRing
	}
	for _, m := range r.mmaps {
		_ = unix.Munmap(m)
	}
	r.mmaps = nil
	if r.fd > 0 {
		_ = unix.Close(r.fd)
		r.fd = -1
	}
}

// registerFiles registers fds so that SQEs refer to them by index.
func (r *ring) registerFiles(fds []int32) error {
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerFiles,
		uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), 0, 0)
	if errno != 0 {
		return errno
	}
	r.registeredFiles = true
	return nil
}

// registerBuffer pins one buffer region for READ_FIXED/WRITE_FIXED.
func (r *ring) registerBuffer(buf []byte) error {
	iov := unix.Iovec{Base: &buf[0]}
	iov.SetLen(len(buf))
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerBuffers,
		uintptr(unsafe.Pointer(&iov)), 1, 0, 0)
	if errno != 0 {
		return errno
	}
	r.registeredBufs = true
	return nil
}

// prep fills the next SQE; it is published by submit.
func (r *ring) prep(read bool, fd int32, buf unsafe.Pointer, n uint32, off int64, userData uint64) {
	s := &r.sqes[r.pendingTail&r.sqMask]
	var op uint8
	switch {
	case read && r.registeredBufs:
		op = opReadFixed
	case read:
		op = opRead
	case r.registeredBufs:
		op = opWriteFixed
	default:
		op = opWrite
	}
	flags := uint8(0)
	if r.registeredFiles {
		flags = sqeFixedFile
	}
	*s = sqe{opcode: op, flags: flags, fd: fd, off: uint64(off), addr: uint64(uintptr(buf)), len: n, userData: userData}
	r.pendingTail++
}

// enter publishes the prepared SQEs and waits for at least minComplete
// completions. GETEVENTS also with minComplete 0: it runs the deferred
// completion work, so that finished I/Os reach the CQ ring.
func (r *ring) enter(minComplete uint32) error { return r.enterWith(minComplete, r.enterFlags) }

// submit hands the kernel the prepared SQEs, if any, and does not wait:
// without GETEVENTS, so the deferred completion work waits for the
// thread's next enter, unless the kernel has no room for the SQEs.
func (r *ring) submit() error {
	if r.pendingTail == atomic.LoadUint32(r.sqTail) {
		return nil
	}
	return r.enterWith(0, r.enterFlags&^enterGetEvents)
}

// enterWith publishes the prepared SQEs and enters the ring with flags
// until the kernel has taken them all.
func (r *ring) enterWith(minComplete uint32, flags uintptr) error {
	tail := r.pendingTail
	toSubmit := tail - atomic.LoadUint32(r.sqTail)
	atomic.StoreUint32(r.sqTail, tail)
	for {
		// RawSyscall: the thread owns its P (see Engine.run), so there is
		// no need to hand the P over while the kernel waits for completions,
		// and not doing so saves the scheduler round trip on every batch.
		n, _, errno := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, r.enterFd, uintptr(toSubmit), uintptr(minComplete), flags, 0, 0)
		switch errno {
		case 0:
			toSubmit -= uint32(n)
			if toSubmit == 0 {
				return nil
			}
			continue
		case unix.EINTR:
			continue
		case unix.EAGAIN, unix.EBUSY:
			// No room yet: run the deferred completion work too, so that
			// the completions reach the CQ ring (the thread reaps them on
			// its next turn) and make room.
			flags |= enterGetEvents
			continue
		}
		return fmt.Errorf("io_uring_enter: %w", errno)
	}
}

// wait submits the prepared SQEs and returns once a completion is in the
// CQ ring. For up to pollNs (on clock) it asks the kernel without sleeping,
// then it sleeps until one arrives.
func (r *ring) wait(pollNs int64, clock func() int64) error {
	if pollNs > 0 {
		if err := r.enter(0); err != nil || r.ready() {
			return err
		}
		for until := clock() + pollNs; clock() < until; {
			if err := r.enter(0); err != nil || r.ready() {
				return err
			}
		}
	}
	return r.enter(1)
}

// waitFor submits the prepared SQEs and returns once a completion is in
// the CQ ring or timeoutNs has passed, asleep in the kernel meanwhile (a
// paced thread waits so for its next I/O's turn). It needs the kernel's
// IORING_FEAT_EXT_ARG (extArg). Unlike enter it is an ordinary system
// call: the thread may sleep for milliseconds, and the Go scheduler and
// garbage collector must not wait for it.
func (r *ring) waitFor(timeoutNs int64) error {
	r.waitTS = kernelTimespec{sec: timeoutNs / 1e9, nsec: timeoutNs % 1e9}
	r.waitArg = getEventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.waitTS)))}
	tail := r.pendingTail
	toSubmit := tail - atomic.LoadUint32(r.sqTail)
	atomic.StoreUint32(r.sqTail, tail)
	for {
		n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, r.enterFd, uintptr(toSubmit), 1,
			r.enterFlags|enterExtArg, uintptr(unsafe.Pointer(&r.waitArg)), unsafe.Sizeof(r.waitArg))
		switch errno {
		case 0:
			toSubmit -= uint32(n)
			if toSubmit == 0 {
				return nil
			}
			continue
		case unix.ETIME:
			return nil
		case unix.EINTR, unix.EAGAIN, unix.EBUSY:
			continue
		}
		return fmt.Errorf("io_uring_enter: %w", errno)
	}
}

// ready reports whether a completion is waiting in the CQ ring.
func (r *ring) ready() bool { return atomic.LoadUint32(r.cqTail) != *r.cqHead }

// reap calls f for every available completion and returns how many there were.
func (r *ring) reap(f func(userData uint64, res int32)) int {
	head := *r.cqHead // only this goroutine writes it
	tail := atomic.LoadUint32(r.cqTail)
	n := 0
	for ; head != tail; head++ {
		c := &r.cqes[head&r.cqMask]
		f(c.userData, c.res)
		n++
	}
	atomic.StoreUint32(r.cqHead, head)
	return n
}
