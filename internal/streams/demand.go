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

// Demand is a capture's dominant demand intensity: OIO, the number of
// I/Os outstanding for the most time while any was, and how it was found.
type Demand struct {
	OIO    int    `json:"oio"`
	Source string `json:"source"`
}

// Dominant is c's dominant demand intensity: from each I/O's start and
// completion, the time the capture spent at each number of I/Os
// outstanding, above zero; the number it spent the most time at (ties to
// the smaller). A capture without completions has none to measure, and
// is taken to have NoDemandOIO, which Source says.
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
	best, most := 1, time.Duration(-1)
	for k, d := range at {
		if d > most || d == most && k < best {
			best, most = k, d
		}
	}
	return Demand{OIO: best, Source: "from completions: the number of I/Os outstanding for the most time while any was"}
}
