package precondition

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Each pass of the workload-independent preconditioning is written in up to
// WIPCChunksPerPass pieces of at least WIPCChunkBytes. The caller journals
// each piece, so an interrupted preconditioning resumes where it stopped
// instead of starting over (hours on a large drive).
const (
	WIPCChunksPerPass = 50
	WIPCChunkBytes    = 4 << 30
)

// ChunksPerPass is how many pieces a pass over targets of the given
// capacity is written in (0: unknown, as on fio servers: one piece).
func ChunksPerPass(capacity int64) int {
	return int(min(max(capacity/WIPCChunkBytes, 1), WIPCChunksPerPass))
}

// WIPC is a workload-independent preconditioning (PTS §2.1.18: a fixed
// write pass, twice the user capacity, before the test's own workload)
// written in pieces.
type WIPC struct {
	// Name names the pieces' files: Name when it runs whole, else
	// Name-001, Name-002, …
	Name     string
	Workload engine.Workload
	PerPass  int                // pieces per pass: ChunksPerPass of the smallest target
	Seed     func(k int) uint64 // piece k's seed
}

// Chunks is the number of pieces: sequential whole passes split into
// PerPass pieces each; anything else runs whole.
func (p *WIPC) Chunks() int {
	w := p.Workload
	if w.Access != engine.Sequential || w.Passes <= 0 || w.Passes != math.Trunc(w.Passes) || p.PerPass <= 1 {
		return 1
	}
	return int(w.Passes) * p.PerPass
}

// Chunk is piece k: one pass over its part of the active range, seeded and
// named.
func (p *WIPC) Chunk(k int) engine.Cell {
	c := engine.Cell{Name: p.Name, Workload: p.Workload}
	if n := p.Chunks(); n > 1 {
		c.Name = fmt.Sprintf("%s-%03d", p.Name, k+1)
		w := &c.Workload
		part := k % p.PerPass
		span := w.ActiveRange - w.RangeStart
		w.Passes = 1
		w.RangeStart = p.Workload.RangeStart + span*float64(part)/float64(p.PerPass)
		w.ActiveRange = p.Workload.RangeStart + span*float64(part+1)/float64(p.PerPass)
		if part == p.PerPass-1 {
			w.ActiveRange = p.Workload.ActiveRange
		}
	}
	if p.Seed != nil {
		c.Workload.Seed = p.Seed(k)
	}
	return c
}

// Run writes the pieces from piece from on and calls done with each, before
// the next starts. Each piece is its own RunCells, so that an engine that
// runs a batch in one go still reports every piece as it is written. The
// measurements keep volume and time only: their histograms and per-second
// samples say nothing about a preconditioning.
func (p *WIPC) Run(ctx context.Context, e engine.Engine, from int, done func(k int, piece engine.Cell, m engine.Measurement, wall time.Duration) error) error {
	for k := from; k < p.Chunks(); k++ {
		c := p.Chunk(k)
		err := e.RunCells(ctx, c.Name, []engine.Cell{c}, func(_ int, m engine.Measurement, wall time.Duration) error {
			m.Read.Hist, m.Write.Hist, m.Seconds = nil, nil, nil
			return done(k, c, m, wall)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
