package streams

import (
	"cmp"
	"slices"
	"time"

	"github.com/ptsrun/ptsrun/internal/capture"
)

// NoDemandOIO is the outstanding I/O a capture without completions is
// taken to have (a fio iolog's): 32, one thread at the PTS-E IOPS test's
// depth.
const NoDemandOIO = 32

// Demand is a capture's dominant demand intensity: OIO, the median number
// of I/Os outstanding over the time any was, and how it was found.
type Demand struct {
	OIO    int    `json:"oio"`
	Source string `json:"source"`
}

// Dominant is c's dominant demand intensity: from each I/O's start and
// completion, the time the capture spent at each number of I/Os
// outstanding, above zero; the median of that time (the smallest number
// at or below which it spent half of it). The most frequent number would
// be the mode, which a wide spread of depths leaves at one of them by
// chance. A capture without completions has none to measure, and is
// taken to have NoDemandOIO, which Source says.
func Dominant(c *capture.Capture) Demand {
	type edge struct {
		at time.Duration
		d  int
	}
	var edges []edge
	for _, io := range c.IOs {
		if !io.Completed {
			return Demand{OIO: NoDemandOIO, Source: "the capture has no completions to measure it by: taken as 32, the PTS-E IOPS test's depth"}
		}
		edges = append(edges, edge{io.Start, 1}, edge{max(io.Done, io.Start), -1})
	}
	// Completions before starts at the same instant: an I/O that ends as
	// the next begins leaves one outstanding, not two.
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.d, b.d)) })
	at := map[int]time.Duration{}
	n := 0
	for i, e := range edges {
		if i > 0 && n > 0 {
			at[n] += e.at - edges[i-1].at
		}
		n += e.d
	}
	var levels []int
	var busy time.Duration
	for k, d := range at {
		levels = append(levels, k)
		busy += d
	}
	slices.Sort(levels)
	best, acc := 1, time.Duration(0)
	for _, k := range levels {
		if acc += at[k]; 2*acc >= busy {
			best = k
			break
		}
	}
	return Demand{OIO: best, Source: "from completions: the median number of I/Os outstanding over the time any was"}
}
