package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// check verifies the FTL's invariants: maps agree, valid counts match, every
// block is in exactly one of free, open or closed.
func (f *ftl) check(t *testing.T) {
	t.Helper()
	valid := make([]int32, f.nBlocks)
	for lu, pu := range f.l2p {
		if pu >= 0 {
			require.Equal(t, int32(lu), f.p2l[pu], "p2l[l2p[%d]]", lu)
			valid[pu/f.unitsPerBlock]++
		}
	}
	for pu, lu := range f.p2l {
		if lu >= 0 {
			require.Equal(t, int32(pu), f.l2p[lu], "l2p[p2l[%d]]", pu)
		}
	}
	require.Equal(t, valid, f.valid)
	seen := make([]int, f.nBlocks)
	for i := 0; i < f.freeN; i++ {
		b := f.free[(f.freeH+i)%len(f.free)]
		require.Equal(t, blockFree, f.state[b])
		seen[b]++
	}
	for _, b := range f.closed {
		require.Equal(t, blockFull, f.state[b])
		seen[b]++
	}
	for _, fr := range []frontier{f.host, f.gc} {
		if fr.block >= 0 {
			require.Equal(t, blockOpen, f.state[fr.block])
			seen[fr.block]++
		}
	}
	for b, n := range seen {
		require.Equal(t, 1, n, "block %d is in %d lists", b, n)
	}
}

func TestFTLInvariants(t *testing.T) {
	for _, tc := range []struct {
		op, window float64
	}{{0.07, 1}, {0.07, 0.125}, {0.28, 0.125}, {0.02, 0.05}} {
		f := newFTL(1<<14, tc.op, tc.window)
		rng := rand.New(rand.NewPCG(1, 2))
		// Sequential fill twice, then random overwrites of four capacities.
		for pass := 0; pass < 2; pass++ {
			for lu := int32(0); lu < f.userUnits; lu++ {
				f.write(lu, gContig)
			}
		}
		f.check(t)
		require.Equal(t, int64(f.userUnits), f.mapped())
		for i := 0; i < 4*int(f.userUnits); i++ {
			f.write(int32(rng.Uint64N(uint64(f.userUnits))), 12)
			if i%10007 == 0 {
				f.check(t)
			}
		}
		f.check(t)
		require.Equal(t, int64(f.userUnits), f.mapped())
		f.trim(0, f.userUnits/2)
		f.check(t)
		f.purge()
		f.check(t)
		require.Zero(t, f.mapped())
	}
}
