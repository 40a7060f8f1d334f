package native

import (
	"context"
	"math"
	"sync"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// series gathers a run's series from its I/O threads (producers). Latency
// percentiles do not merge, so an interval can only be summarised once
// every thread's histogram of it is in: each thread hands its share of an
// interval over when it moves past it, and the interval is summarised,
// reported and its histograms reused as soon as every thread has passed
// it. Only the intervals still open hold histograms, so the memory stays
// flat however long the run.
type series struct {
	rep     *engine.IntervalReporter // nil when nobody asked
	ramp    int                      // the first ramp intervals are the warm-up's
	targets int                      // with 2+, each target has its own series too
	of      []int                    // each producer's target

	mu sync.Mutex
	// pos is each producer's next interval: it has passed every one before
	// (math.MaxInt once it has finished).
	pos   []int
	base  int           // the first interval not yet summarised
	open  []*seriesSlot // intervals base, base+1, …; nil while nobody handed one in
	free  []*seriesSlot // summarised slots, kept for their histograms
	made  int           // slots allocated: bounded by the producers' spread
	reach int           // the series runs at least to here: producers were in every interval before
	all   []engine.Second
	per   [][]engine.Second // with 2+ targets
}

// seriesSlot is one open interval.
type seriesSlot struct {
	tg  []engine.IntervalStats // per target
	sum engine.IntervalStats   // the targets merged, with 2+
}

// newSeries gathers the series of producers threads, the k-th driving
// target of[k] of targets; intervals before ramp are the warm-up's.
// Each summarised interval is reported to ctx's engine.IntervalFunc, from
// a goroutine of the reporter's: the thread that completes an interval
// holds the series' lock, which every thread needs to move on.
func newSeries(ctx context.Context, targets, ramp int, of []int) *series {
	s := &series{rep: engine.NewIntervalReporter(ctx), ramp: ramp, targets: targets, of: of, pos: make([]int, len(of))}
	if targets > 1 {
		s.per = make([][]engine.Second, targets)
	}
	return s
}

// hand merges st, producer p's share of interval i, and records that p has
// passed every interval before next: the ones between i and next it skipped
// (asleep, or waiting for a slow device) are empty of its I/O. st is reset
// for the producer to reuse.
func (s *series) hand(p, i int, st *engine.IntervalStats, next int) {
	s.mu.Lock()
	// A producer never hands in an interval it has passed, whose slot may be
	// gone; should it, its I/Os count in the earliest one still its own.
	i = max(i, s.pos[p])
	next = max(next, i+1)
	if !st.Empty() {
		k := i - s.base // ≥ 0: base ≤ every producer's pos
		for len(s.open) <= k {
			s.open = append(s.open, nil)
		}
		if s.open[k] == nil {
			s.open[k] = s.slot()
		}
		s.open[k].tg[s.of[p]].Merge(st)
	}
	s.pos[p] = next
	s.reach = max(s.reach, i+1)
	low := math.MaxInt
	for _, q := range s.pos {
		low = min(low, q)
	}
	if low == math.MaxInt { // every producer has finished
		low = max(s.base+len(s.open), s.reach)
	}
	s.flush(low)
	s.mu.Unlock()
	// Outside the lock: clearing two histograms takes a while, and the
	// other threads may be waiting to hand theirs over.
	st.Reset()
}

// slot is an empty slot, a summarised one reused when there is one.
func (s *series) slot() *seriesSlot {
	if n := len(s.free); n > 0 {
		sl := s.free[n-1]
		s.free = s.free[:n-1]
		return sl
	}
	s.made++
	return &seriesSlot{tg: make([]engine.IntervalStats, s.targets)}
}

// flush summarises and reports every interval before upTo, in order.
func (s *series) flush(upTo int) {
	for ; s.base < upTo; s.base++ {
		var sl *seriesSlot
		if len(s.open) > 0 {
			sl = s.open[0]
			s.open[0] = nil
			s.open = s.open[1:]
		}
		ramp := s.base < s.ramp
		sec := engine.Second{Ramp: ramp}
		switch {
		case sl == nil:
			for k := range s.per {
				s.per[k] = append(s.per[k], sec)
			}
		case s.targets == 1:
			sec = sl.tg[0].Second(ramp)
		default:
			for k := range sl.tg {
				s.per[k] = append(s.per[k], sl.tg[k].Second(ramp))
				sl.sum.Merge(&sl.tg[k])
			}
			sec = sl.sum.Second(ramp)
		}
		if sl != nil {
			for k := range sl.tg {
				sl.tg[k].Reset()
			}
			sl.sum.Reset()
			s.free = append(s.free, sl)
		}
		s.all = append(s.all, sec)
		s.rep.Report(s.base, sec)
	}
}

// result is the series and each target's (nil with one target), once
// every producer has finished.
func (s *series) result() ([]engine.Second, [][]engine.Second) {
	s.rep.Close() // the progress has every interval before the measurement is returned
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all, s.per
}

// recorder is one I/O thread's part of the series: the interval it is in
// and what it completed in it so far. Only its thread touches it, so the
// I/O path records into it without a lock; the series' lock is taken once
// per interval, when the thread moves on.
type recorder struct {
	ser *series
	p   int
	cur int
	st  engine.IntervalStats
}

// at moves the thread on to interval i, handing over the interval it was
// in, when i is later. An earlier i (a pread worker's completion counted
// after another's later one) stays in the current interval.
func (r *recorder) at(i int) {
	if i > r.cur {
		r.ser.hand(r.p, r.cur, &r.st, i)
		r.cur = i
	}
}

// record adds one completed I/O to the current interval.
func (r *recorder) record(read bool, ns, size int64) {
	if read {
		r.st.Read.Record(ns, 1, size)
	} else {
		r.st.Write.Record(ns, 1, size)
	}
}

// done hands over the last interval: the thread has finished.
func (r *recorder) done() { r.ser.hand(r.p, r.cur, &r.st, math.MaxInt) }
