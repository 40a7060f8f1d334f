package native

import (
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// pacer keeps one thread to its share of a workload's rate cap (the
// target's cap spread evenly over its TC threads). The k-th I/O is due
// once the I/Os before it have used up their share of the time: k ÷ IOPS
// after the start, or their bytes ÷ bytes per second, whichever is later
// (fio's rate with rate_process=linear does the same). A thread that has
// fallen behind, because the device stalled, issues at once, so that the
// rate over the run holds; a thread ahead of its schedule sleeps until the
// next I/O is due, in the kernel, never spinning.
type pacer struct {
	nsPerIO   float64 // 0: no IOPS cap
	nsPerByte float64 // 0: no bandwidth cap
	ios       int64   // issued so far
	bytes     int64
}

// maxSleep bounds one sleep of a paced thread, so that a stop (the end of
// the run, an interrupt, another thread's I/O error) is noticed within it
// even at a rate of one I/O a second.
const maxSleep = 50 * time.Millisecond

// newPacer is a thread's pacer for w; nil when w has no rate cap.
func newPacer(w engine.Workload) *pacer {
	if w.RateIOPS <= 0 && w.RateMBps <= 0 {
		return nil
	}
	p := &pacer{}
	tc := float64(max(w.TC, 1))
	if w.RateIOPS > 0 {
		p.nsPerIO = 1e9 * tc / w.RateIOPS
	}
	if w.RateMBps > 0 {
		p.nsPerByte = 1e9 * tc / (w.RateMBps * 1e6)
	}
	return p
}

// due is when the next I/O may be issued, in nanoseconds since the run
// started.
func (p *pacer) due() int64 {
	return int64(max(float64(p.ios)*p.nsPerIO, float64(p.bytes)*p.nsPerByte))
}

// issued counts an I/O of size bytes as issued.
func (p *pacer) issued(size int64) {
	p.ios++
	p.bytes += size
}
