package precondition

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/sim"
)

func TestWIPCChunks(t *testing.T) {
	assert.Equal(t, 1, ChunksPerPass(0), "unknown capacity: one piece")
	assert.Equal(t, 1, ChunksPerPass(128<<20))
	assert.Equal(t, 25, ChunksPerPass(100<<30))
	assert.Equal(t, 50, ChunksPerPass(3<<40))
	w := engine.Workload{Access: engine.Sequential, BlockSize: 128 << 10, TC: 1, QD: 32, ActiveRange: 100, Passes: 2}
	p := &WIPC{Name: "iops-precondition", Workload: w, PerPass: 50}
	assert.Equal(t, 100, p.Chunks())
	assert.Equal(t, "iops-precondition-001", p.Chunk(0).Name)
	assert.Equal(t, "iops-precondition-100", p.Chunk(99).Name)
	// The pieces of a pass tile the range exactly, for every capacity.
	for _, capacity := range []int64{1 << 40, 3_200_631_791_616, 1_000_204_886_016 + 4096} {
		var bytes int64
		prevEnd := int64(0)
		for k := 0; k < 50; k++ {
			c := p.Chunk(k).Workload
			require.Equal(t, prevEnd, c.RangeStartBytes(capacity), "piece %d starts where %d ended", k, k-1)
			prevEnd = c.RangeStartBytes(capacity) + c.RangeBytes(capacity)
			bytes += c.PassBytes(capacity)
		}
		assert.Equal(t, w.RangeBytes(capacity), bytes)
	}
	r := &WIPC{Name: "x", Workload: engine.Workload{Access: engine.Random, BlockSize: 4096, Passes: 2, ActiveRange: 100}, PerPass: 50}
	assert.Equal(t, 1, r.Chunks(), "random preconditioning runs whole")
	assert.Equal(t, "x", r.Chunk(0).Name, "a whole preconditioning keeps its name")
}

// Run goes on from the piece it is told, seeds each piece, reports each
// before the next, and keeps volume and time, not the histograms.
func TestWIPCRunFromAPiece(t *testing.T) {
	m, err := sim.Lookup("client")
	require.NoError(t, err)
	e, err := sim.Open([]sim.Target{{Name: "sim:client", Model: m}})
	require.NoError(t, err)
	defer e.Close()
	w := engine.Workload{Access: engine.Sequential, BlockSize: 128 << 10, TC: 1, QD: 32, ActiveRange: 100, Passes: 2}
	p := &WIPC{Name: "lat-precondition", Workload: w, PerPass: 4, Seed: func(k int) uint64 { return uint64(100 + k) }}
	var got []int
	var bytes int64
	err = p.Run(context.Background(), e, 5, func(k int, c engine.Cell, m engine.Measurement, wall time.Duration) error {
		got = append(got, k)
		assert.Equal(t, p.Chunk(k), c)
		assert.Equal(t, uint64(100+k), c.Workload.Seed)
		assert.Nil(t, m.Write.Hist)
		assert.Nil(t, m.Seconds)
		bytes += m.Write.Bytes
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{5, 6, 7}, got)
	var want int64
	for k := 5; k < 8; k++ {
		want += p.Chunk(k).Workload.PassBytes(m.UserBytes)
	}
	assert.Equal(t, want, bytes, "three pieces of the second pass")
}
