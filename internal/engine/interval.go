package engine

import (
	"context"
	"sync"
)

// IntervalReporter passes a running measurement's intervals to its
// context's IntervalFunc from a goroutine of its own, in order: the
// engine's measuring threads hand an interval over and go on, so that a
// receiver that is slow (a terminal nobody reads, a stalled pipe) never
// stalls the I/O. When the receiver falls far behind, intervals are
// dropped rather than waited for: they are for progress, and the
// measurement keeps them all.
type IntervalReporter struct {
	f     IntervalFunc
	ch    chan reportedInterval
	done  chan struct{}
	close sync.Once
}

type reportedInterval struct {
	i int
	s Second
}

// intervalBacklog is how many intervals may wait for a slow receiver.
const intervalBacklog = 64

// NewIntervalReporter starts a reporter for ctx's IntervalFunc; nil, whose
// methods do nothing, when ctx has none.
func NewIntervalReporter(ctx context.Context) *IntervalReporter {
	f, ok := ctx.Value(intervalKey{}).(IntervalFunc)
	if !ok || f == nil {
		return nil
	}
	r := &IntervalReporter{f: f, ch: make(chan reportedInterval, intervalBacklog), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for x := range r.ch {
			r.f(x.i, x.s)
		}
	}()
	return r
}

// Report queues interval i; it never blocks.
func (r *IntervalReporter) Report(i int, s Second) {
	if r == nil {
		return
	}
	select {
	case r.ch <- reportedInterval{i, s}:
	default: // the receiver is this far behind: progress can skip one
	}
}

// Close waits until every queued interval has been passed on; Report must
// not be called after it. Closing again does nothing.
func (r *IntervalReporter) Close() {
	if r == nil {
		return
	}
	r.close.Do(func() { close(r.ch) })
	<-r.done
}
