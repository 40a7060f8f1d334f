package engine

import (
	"context"
	"time"
)

// TimedIO is one I/O of a timed replay: issued At after the replay's
// start, Size bytes at Offset of the target, a read or a write.
type TimedIO struct {
	At     time.Duration
	Offset int64
	Size   int64
	Read   bool
}

// Timed is a timed replay on one target (`ptsrun replay`): every I/O
// issued at its time, in order, from Depth slots. An I/O whose time has
// come while every slot is busy waits for the first to free up: it is
// delayed, because the target is slower than the capture was.
type Timed struct {
	IOs   []TimedIO // in order of At, the first at 0
	Depth int
	// Speed is how much faster than the capture the I/Os come: their At
	// are the capture's times divided by it (1 when zero). fio scales
	// the capture's times itself (replay_time_scale).
	Speed float64
}

// TimedResult is what an engine measured of a timed replay, per I/O, in
// the order of Timed.IOs: when it was issued (nanoseconds from the
// replay's start, -1 when it was not) and its latency (-1 when it did not
// complete).
type TimedResult struct {
	Engine string
	Issue  []int64
	Lat    []int64
	// Delayed counts the I/Os that found every slot busy at their time;
	// -1 when the engine cannot tell. Waited marks them, per I/O (nil
	// when the engine cannot tell).
	Delayed int
	Waited  []bool
	// Completed is the engine's own count of the I/Os completed, where
	// it keeps one apart from Lat (fio's output, whose latency log may
	// miss a few); 0 counts those with a latency.
	Completed int
	// Resolution is how precise Issue is: 0 for the engine's own clock.
	Resolution time.Duration
	// Note says how the figures were taken, where that needs saying.
	Note    string
	Elapsed time.Duration
}

// Replayer is an engine that replays I/Os at their times (the native
// engine, fio through read_iolog).
type Replayer interface {
	Replay(ctx context.Context, t Timed) (TimedResult, error)
}
