package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// slot is one I/O in flight.
type slot struct {
	buf    unsafe.Pointer
	start  int64 // ns since the run started, when it was submitted (sent)
	size   int64
	off    int64
	read   bool
	active bool
	// bi is the buffer the slot holds (buffers.at); a write takes a new
	// one (buffers.forWrite).
	bi int
	// retries counts the times the I/O was submitted again after a
	// transient result (threadResult.resubmitted).
	retries int
}

// sent stamps the slots prepared since the ring was last entered with t,
// taken just before the entry that hands them to the kernel, and empties
// the list. An I/O's latency runs from there, as fio's does (from after its
// io_u is prepared): the engine's own work between a completion and the
// next submission (the completion's bookkeeping, the next I/O's address
// and data) is not the device's response time. A retried I/O keeps its
// first stamp.
func sent(slots []slot, unsent []int, t int64) []int {
	for _, i := range unsent {
		slots[i].start = t
	}
	return unsent[:0]
}

// buffers is one thread's I/O memory: a buffer per slot and the spares,
// then the random pool. One mapping, so that one registration covers it.
type buffers struct {
	mem []byte
	// mapped is the whole mapping mem is in (mapBuffers), to unmap.
	mapped []byte
	maxBS  int64
	align  int64
	pool   int64 // offset of the pool in mem
	// spare holds the buffers no slot holds, from next on in the order
	// they were given back: a ring, so forWrite is two stores.
	spare []int32
	next  int
}

// writeCooling is how many bytes the device is to have read, at the least,
// since a buffer's last write before the buffer is filled again (forWrite),
// which sets the spares: min(slots, writeCooling / the largest block).
//
// Filling again the buffer of the write that has just completed made a
// loop device's sequential writes 10-14 % slower: 128 KiB at TC1/QD32
// ran at 4.6-4.7 GB/s filling each slot's own buffer, 5.0-5.2 at QD2-16,
// and 5.7 writing a buffer that was never filled again (fio: 4.9-5.2).
// Taking the least recently freed of QD+E buffers gave 4.7 GB/s with E=4,
// 4.9 with 8, 5.2 with 16 and 5.3 with 32, that is once the bytes read
// since the buffer's last write (E blocks) passed the 2 MiB of the
// reading CPU's L2; 1 MiB writes went from 4.8 to 5.5-5.6 GB/s with
// E=4. The cause is likely in the caches of the two CPUs, the filling
// one's and the one of the loop device's worker, the bottleneck, which has
// just read the buffer; this virtual machine has no hardware counters to
// show it, and QD16 was fast without spares.
const writeCooling = 4 << 20

// The pool is two windows' worth of random bytes: a write's data is made a
// window (writeVariety bytes) at a time, each from a random offset of the
// pool with a key of its own, so that a megabyte's write reads the same
// small pool, which stays in the CPU's cache, over and over instead of a
// megabyte of it: the write's buffer is then the only memory its making
// moves, as for fio's refill_buffers. On a loop device, whose copying is
// bound by memory bandwidth, reading a pool as large as the block cost 1 MiB
// sequential writes 5-7 % of their MB/s.
const poolBytes = 2 * writeVariety

// newBuffers makes a thread's buffers for slots I/Os of up to maxBS bytes.
// An io_uring thread's are in huge pages above hugeBlock (ringBuffers).
func newBuffers(slots int, maxBS, align int64, seed uint64, huge bool) *buffers {
	b := &buffers{maxBS: maxBS, align: max(align, 512)}
	spares := min(slots, int((writeCooling+maxBS-1)/maxBS))
	for i := range spares {
		b.spare = append(b.spare, int32(slots+i))
	}
	b.pool = int64(slots+spares) * maxBS
	total := b.pool + poolBytes
	if total > math.MaxInt-2*hugePage {
		panic(fmt.Sprintf("native engine: %d slots of %d bytes do not fit this platform's mappings", slots+spares, maxBS))
	}
	b.mem, b.mapped = mapBuffers(int(total), huge)
	var key [32]byte
	for i := range 8 {
		key[i] = byte(seed >> (8 * i))
	}
	_, _ = rand.NewChaCha8(key).Read(b.mem[b.pool:])
	return b
}

func (b *buffers) free() { _ = unix.Munmap(b.mapped) }

// release lets go of an io_uring thread's buffers once its ring is closed,
// with inflight I/Os still in flight: unregistered buffers with I/Os in
// flight (the thread ended on an error of its ring) stay mapped, because
// an I/O still queued in one of io_uring's workers holds their address,
// which another mapping could take over. Registered buffers are pinned by
// the registration, so they go.
func (b *buffers) release(r *ring, inflight int) {
	if inflight == 0 || r.registeredBufs {
		b.free()
	}
}

// ringBuffers says whether an io_uring thread whose largest block is maxBS
// has its buffers in huge pages (hugeBlock).
func ringBuffers(maxBS int64) bool { return maxBS > hugeBlock }

// hugeBlock is the largest block whose io_uring thread's buffers are in
// pages of 4 KiB; above it they are in transparent huge pages where the
// kernel allows them (madvise). The pread workers' stay in 4 KiB pages:
// each has a block and a spare of its own, and waits for its split I/O
// itself. A block of more than 128 pages is more than one
// request holds on a loop device (max_segments 128) and on many
// controllers, so the block layer splits it, and io_uring hands a split
// I/O, which it first submits without waiting, to one of its workers to
// submit again. In 2 MiB pages the block is a few segments and none of
// that happens. Measured on a 2-CPU KVM guest on a memory-backed loop
// device, TC1/QD32, 3 alternating pairs: 1 MiB sequential reads 6.6-7.3
// GB/s in 4 KiB pages, 7.8-8.5 in huge pages, at 3.0-3.4 % of the host's
// CPUs instead of 4.5-4.7; writes 4.8-5.6 and 5.3-7.1 GB/s. At 128 KiB
// (32 pages) the two were within the host's noise of each other.
const hugeBlock = 512 << 10

// hugePage is the transparent huge page of x86-64 and of arm64 with 4 KiB
// pages: the unit a mapping in huge pages is aligned to.
const hugePage = 2 << 20

// mapBuffers maps n bytes of I/O memory, page-aligned, every page touched
// so that no I/O of the run waits on a first fault (a registered ring
// pins them anyway; the pread workers would fault them during the run).
// With huge, the memory is aligned to hugePage and asked for in huge
// pages. It returns the memory and the whole mapping, to unmap.
func mapBuffers(n int, huge bool) (mem, mapped []byte) {
	if n <= 0 || int64(n) > math.MaxInt-2*hugePage {
		panic(fmt.Sprintf("native engine: %d bytes of buffers do not fit this platform's mappings", n))
	}
	size := n
	if huge {
		size = (n+hugePage-1)/hugePage*hugePage + hugePage // room to align
	}
	mapped, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		panic(fmt.Sprintf("native engine: cannot map %d bytes of buffers: %v", size, err))
	}
	mem = mapped[:n]
	if huge {
		off := int((hugePage - uintptr(unsafe.Pointer(&mapped[0]))%hugePage) % hugePage)
		mem = mapped[off : off+n]
		// A hint: with transparent huge pages off (never) the pages stay
		// 4 KiB, and the I/O works as before.
		_ = unix.Madvise(mapped[off:off+(n+hugePage-1)/hugePage*hugePage], unix.MADV_HUGEPAGE)
	}
	for i := 0; i < len(mem); i += 4096 {
		mem[i] = 0
	}
	return mem, mapped
}

// at is buffer i; slot i holds buffer i to begin with.
func (b *buffers) at(i int) unsafe.Pointer {
	return unsafe.Pointer(&b.mem[int64(i)*b.maxBS])
}

// forWrite takes back held, the buffer of a slot whose I/O has completed,
// and returns the buffer for the slot's next write: the spare given back
// longest ago (writeCooling). A read keeps its slot's buffer, which the
// thread does not touch.
func (b *buffers) forWrite(held int) int {
	if len(b.spare) == 0 {
		return held
	}
	i := int(b.spare[b.next])
	b.spare[b.next] = int32(held)
	b.next++
	if b.next == len(b.spare) {
		b.next = 0
	}
	return i
}

// write makes slot i's buffer the data of a write of size bytes: each
// window of it is a window of the pool XORed with a fresh key, so that two
// windows, of this write or any other, differ in every word.
func (b *buffers) write(i int, size int64, rng *rand.Rand, stamp *atomic.Uint64) {
	words := int(size / 8)
	dst := unsafe.Slice((*uint64)(unsafe.Pointer(&b.mem[int64(i)*b.maxBS])), words)
	const window = writeVariety / 8 // words, a whole number of sectors
	seq := stamp.Add(uint64(words / 64))
	for w := 0; w < words; w += window {
		at := b.pool + int64(rng.Uint64N(uint64(writeVariety/b.align)))*b.align
		n := min(window, words-w)
		src := unsafe.Slice((*uint64)(unsafe.Pointer(&b.mem[at])), n)
		d := dst[w : w+n]
		xorWords(d, src, rng.Uint64())
		// Stamped while the window is still in the cache: after the
		// whole of a 1 MiB block its first sectors are not.
		for s := 0; s < n; s += 64 { // one word per 512-byte sector
			d[s] = mix(seq)
			seq--
		}
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
