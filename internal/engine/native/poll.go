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
type poller struct {
	base, max int64 // ns; max == base: a fixed budget
	gap       int64 // ns, moving average of the recent waits; 0: none yet
}

// MaxAutoPoll bounds the automatic polling's stretch (Options.Poll zero).
const MaxAutoPoll = 1_000_000 // ns

func newPoller(base int64, auto bool) poller {
	p := poller{base: base, max: base}
	if auto && base > 0 {
		p.max = max(base, MaxAutoPoll)
	}
	return p
}

// budget is how long to poll for the next completion.
func (p *poller) budget() int64 {
	if b := 2 * p.gap; b > p.base && b <= p.max {
		return b
	}
	return p.base
}

// waited records how long the thread waited for a completion: an
// exponential moving average over about eight waits, so that a change of
// block size or device speed moves it within a few I/Os.
func (p *poller) waited(ns int64) {
	if ns < 0 {
		ns = 0
	}
	if p.gap == 0 {
		p.gap = ns
		return
	}
	p.gap += (ns - p.gap) / 8
}
