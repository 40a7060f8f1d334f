package native

// poller decides how long an I/O thread polls its completion ring before
// it sleeps in the kernel. A fixed budget (Options.Poll) is used as is. The
// automatic one starts at DefaultPoll and stretches to twice the thread's
// recent wait for a completion when that is still within MaxAutoPoll:
// then the next completion most likely comes while the thread still polls,
// and the thread is not woken. Waking it costs the completing CPU an
// interrupt and, in a virtual machine, an exit, and that CPU is often the
// bottleneck (a loop device's worker copying 1 MiB writes: 3-5 % of its
// MB/s); and the wake-up's own microseconds land in the measured response
// time. A wait longer than that (a slow device) is slept through after
// DefaultPoll, so that it costs little CPU.
//
// The automatic budget is also 0 (sleep at once) while completions come
// closer together than MinPollGap apiece: then a thread that sleeps wakes
// to several completions, so a wake-up is paid once per batch, while a
// polling thread reaps them one at a time, submits one at a time, and
// holds a CPU that the device's own work needs. Not at a depth of 1: a
// thread with one I/O in flight has no batch to wake to, so sleeping only
// adds the wake-up, and its wait, which includes the wake-up when it
// sleeps and not when it polls, would flip the choice back and forth on a
// device faster than the floor. Measured on a 2-CPU
// Firecracker guest against a memory-backed loop device, 4 KiB reads at
// TC1/QD32 (a completion every 5 us): 0.85-0.94x fio's IOPS polling,
// 1.14 not; 128 KiB and 1 MiB reads at TC1/QD32 (every 20 and 180 us):
// 1.11 and 1.15 polling, 0.96 and 0.99 not; 4 KiB reads at TC1/QD1 (every
// 16 us): a mean response time 1.38x better than fio's polling, 1.04 not.
type poller struct {
	base, max int64   // ns; max == base: a fixed budget
	floor     bool    // MinPollGap applies: automatic, and more than one I/O in flight
	gap       int64   // ns, moving average of the recent waits; 0: none yet
	reaped    float64 // moving average of the completions a wait brought
}

// MinPollGap is the automatic polling's floor: completions closer
// together than this apiece are slept for (poller).
const MinPollGap = 10_000 // ns

// MaxAutoPoll bounds the automatic polling's stretch (Options.Poll zero).
const MaxAutoPoll = 1_000_000 // ns

// newPoller is the poller of a thread that keeps up to depth I/Os in
// flight.
func newPoller(base int64, auto bool, depth int) poller {
	p := poller{base: base, max: base, floor: auto && base > 0 && depth > 1}
	if auto && base > 0 {
		p.max = max(base, MaxAutoPoll)
	}
	return p
}

// budget is how long to poll for the next completion.
func (p *poller) budget() int64 {
	if p.floor && p.close() {
		return 0
	}
	if b := 2 * p.gap; b > p.base && b <= p.max {
		return b
	}
	return p.base
}

// close says whether the thread's recent completions came closer together
// than MinPollGap apiece (the quotient waited keeps), which is where a
// thread that submits each refill at once gains (eagerSubmit). The waits
// leave out the thread's own work between them, which the eager
// submission adds to: once it is on, it stays on a little past the floor.
func (p *poller) close() bool {
	return p.reaped > 0 && float64(p.gap) < MinPollGap*p.reaped
}

// waited records how long the thread waited for a completion and how many
// completions it then reaped: exponential moving averages over about
// eight waits, so that a change of block size or device speed moves them
// within a few I/Os. Their quotient, the wait per completion, is about the
// same polling or not (a sleeping thread's wait includes its wake-up, but
// it reaps the completions that came meanwhile), so the choice it makes
// holds; a mean of each wait's own quotient would not (a sleep's long
// wait for one completion swings it), and on a 2-CPU guest at TC1/QD32 it
// flipped between the two on 30-70 % of the waits.
func (p *poller) waited(ns int64, completions int) {
	ns = max(ns, 0)
	n := float64(max(completions, 1))
	if p.reaped == 0 {
		p.gap, p.reaped = ns, n
		return
	}
	p.gap += (ns - p.gap) / 8
	p.reaped += (n - p.reaped) / 8
}
