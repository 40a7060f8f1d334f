// Package native is ptsrun's own workload engine: pure Go on
// golang.org/x/sys/unix, O_DIRECT on block devices and files.
//
// Each thread of a workload (TC per target) owns an io_uring ring with QD I/Os
// in flight, registered files, buffers and ring fd, and reaps completions in
// batches: one io_uring_enter per batch submits the refills and collects the
// next completions; while the threads leave a CPU free and completions come
// closer than MinPollGap apiece, each refill but a batch's last is
// submitted as soon as the next completion is reaped (eagerSubmit). While
// the I/O threads leave a CPU free, a thread that finds no completion
// polls for up to DefaultPoll (stretched to twice its recent waits, at
// most MaxAutoPoll: poller) before it sleeps, because
// being woken costs the completing CPU an interrupt (and a virtual machine an
// exit) on every batch; unless the host's idle CPUs poll (ptsrun holds them
// so while it measures, package cpuidle: Options.IdlePolls), for then a
// sleeping thread's CPU polls in the kernel's idle loop, waking it costs no
// interrupt, and a polling thread only takes the CPU from the device's
// workers. Where io_uring is not available (an old kernel, or
// io_uring_disabled set) a pool of TC × QD goroutines doing pread/pwrite takes
// its place, and the measurement says which one ran; at QD1 each thread's
// one worker is pinned as an io_uring thread is and keeps its P through
// the system call (rawPio), which is what brings it to fio's psync there. native_linux.go opens
// the engine and runs a workload's threads, threads_linux.go is the I/O loop
// of each (io_uring or pread), buffers_linux.go the data they write and
// uring_linux.go the ring.
//
// Latencies are taken on the monotonic clock, once per completion batch, and
// go into mergeable histograms; nothing is kept per I/O, so memory stays flat
// however long a workload runs. Write buffers are refreshed for every write
// from a pool of random bytes at a random offset and stamped with a unique
// counter in every 512-byte sector, so the data is incompressible and no two
// written blocks are alike. A write fills the thread's least recently freed
// buffer, of QD and some spares, not the one the device has just read
// (buffers.forWrite, writeCooling). An io_uring thread whose blocks are
// larger than 512 KiB has its buffers in transparent huge pages, so that a
// block is a few segments and the block layer does not split it
// (hugeBlock).
package native
