package replay

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/targets"
)

// MappingRule is how a captured offset lands on the target: a reading,
// recorded in replay.json.
const MappingRule = "size rounded up to the target's logical block; offset aligned down to the logical block, " +
	"then taken modulo the room for the I/O (the target's capacity, in whole logical blocks, less the size, plus one block): " +
	"offsets that fit stay as captured, others wrap around"

// DepthRule is where the number of slots comes from.
const (
	DepthCaptured = "the capture's maximum outstanding I/O, from its completions: one slot per I/O it had in flight at once"
	DepthDefault  = "the capture has no completions (a fio iolog): --depth, 32 by default"
	DepthGiven    = "--depth, as given"
)

// DefaultDepth is the slots of a capture without completions.
const DefaultDepth = 32

// Options are what `ptsrun replay` is asked.
type Options struct {
	Args    []string  // the command's arguments: the capture, a file or "-" for Stdin
	Stdin   io.Reader // read when the capture is "-"
	Format  string    // the capture's format (capture.Format), "" for auto
	Event   string    // blkparse's event: Q (the default) or D
	Device  string    // the capture's device to replay; "" or all for every one
	Targets targets.Options
	Speed   float64 // 0 is 1
	Depth   int     // 0 takes it from the capture
	// CPUIdle is how quick to wake the host's idle CPUs are kept while
	// the replay runs (--cpu-idle, cpuidle.Parse): a lateness of the
	// host's wake-ups is not the target's.
	CPUIdle string
	Warn    io.Writer // told when the idle CPUs asked for could not be held; nil: nobody
}

// Map is one captured I/O's offset and size on a target of capacity
// bytes and logical block lb (MappingRule); ok is false when the I/O is
// larger than the target, of no bytes, or at a negative offset.
func Map(off, size, capacity, lb int64) (int64, int64, bool) {
	lb = max(lb, 512)
	usable := capacity / lb * lb
	// Checked before rounding up: a size near the largest int64 would
	// wrap to a negative one that passes the fit check.
	if size <= 0 || size > usable || off < 0 {
		return 0, 0, false
	}
	if size = (size + lb - 1) / lb * lb; size > usable {
		return 0, 0, false
	}
	room := usable - size + lb
	return off / lb * lb % room, size, true
}

// MaxOutstanding is the most I/Os c had in flight at once, from their
// starts and completions; 0 when none completed.
func MaxOutstanding(c *capture.Capture) int {
	type ev struct {
		at time.Duration
		d  int
	}
	var evs []ev
	for _, io := range c.IOs {
		if io.Completed && io.Done >= io.Start {
			evs = append(evs, ev{io.Start, 1}, ev{io.Done, -1})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.at != b.at {
			return int(min(max(a.at-b.at, -1), 1))
		}
		return a.d - b.d // a completion before a start at the same time
	})
	n, most := 0, 0
	for _, e := range evs {
		n += e.d
		most = max(most, n)
	}
	return most
}

// plan is the timed replay of c on a target of capacity bytes, logical
// block lb.
func plan(c *capture.Capture, capacity, lb int64, speed float64, depth int) (engine.Timed, string, error) {
	if c.Coarse != nil {
		return engine.Timed{}, "", errors.New("a coarse capture (/proc/diskstats) has counts per step, not I/Os: there is nothing to replay")
	}
	if !c.Timed {
		return engine.Timed{}, "", errors.New("the capture has no times of its own (a version 2 iolog without wait lines): there is nothing to replay them by")
	}
	if len(c.IOs) == 0 {
		return engine.Timed{}, "", errors.New("the capture has no reads or writes to replay")
	}
	if speed <= 0 || math.IsInf(speed, 0) || math.IsNaN(speed) {
		return engine.Timed{}, "", fmt.Errorf("--speed %v: want a positive factor (2 replays twice as fast)", speed)
	}
	rule := DepthGiven
	if depth <= 0 {
		if depth = MaxOutstanding(c); depth > 0 {
			rule = DepthCaptured
		} else {
			depth, rule = DefaultDepth, DepthDefault
		}
	}
	t := engine.Timed{Depth: depth, Speed: speed, IOs: make([]engine.TimedIO, 0, len(c.IOs))}
	t0 := c.IOs[0].Start
	for _, io := range c.IOs {
		off, size, ok := Map(io.Offset, io.Size, capacity, lb)
		if !ok && io.Size <= 0 {
			return engine.Timed{}, "", fmt.Errorf("line %d: an I/O of %d bytes: nothing to replay", io.Line, io.Size)
		}
		if !ok {
			return engine.Timed{}, "", fmt.Errorf("line %d: an I/O of %d bytes does not fit on the target's %d bytes", io.Line, io.Size, capacity)
		}
		at := time.Duration(float64(io.Start-t0) / speed)
		t.IOs = append(t.IOs, engine.TimedIO{At: at, Offset: off, Size: size, Read: io.Dir == capture.Read})
	}
	return t, rule, nil
}
