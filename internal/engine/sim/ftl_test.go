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
	t.Parallel() // simulated drives of its own, CPU-bound: beside the others
	for _, op := range []float64{0.07, 0.28, 0.02} {
		f := newFTL(1<<14, op)
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

// The victim choice on its own: at any over-provisioning, writes skewed
// as the PTS ECW zones skew them (50 % to 5 % of the units, 30 % to the next
// 15 %, 20 % to the last 80 %) relocate fewer units per host write than
// uniform ones.
func TestCollectionCheaperWithHotData(t *testing.T) {
	t.Parallel() // simulated drives of its own, CPU-bound: beside the others
	zoned := func(rng *rand.Rand, n int32) int32 {
		u := rng.Float64()
		lo, hi := 0.20, 1.0
		switch {
		case u < 0.5:
			lo, hi = 0, 0.05
		case u < 0.8:
			lo, hi = 0.05, 0.20
		}
		a, b := int32(lo*float64(n)), int32(hi*float64(n))
		return a + int32(rng.Uint64N(uint64(b-a)))
	}
	for _, op := range []float64{0.07, 0.2, 0.28} {
		wa := map[bool]float64{}
		for _, skewed := range []bool{false, true} {
			f := newFTL(1<<16, op)
			for lu := int32(0); lu < f.userUnits; lu++ {
				f.write(lu, gContig)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			next := func() int32 {
				if skewed {
					return zoned(rng, f.userUnits)
				}
				return int32(rng.Uint64N(uint64(f.userUnits)))
			}
			for i := 0; i < 4*int(f.userUnits); i++ {
				f.write(next(), 12)
			}
			h0, r0 := f.hostUnits, f.relocated
			for i := 0; i < 2*int(f.userUnits); i++ {
				f.write(next(), 12)
			}
			f.check(t)
			wa[skewed] = 1 + float64(f.relocated-r0)/float64(f.hostUnits-h0)
		}
		t.Logf("OP %.0f %%: write amplification %.2f uniform, %.2f ECW zones", 100*op, wa[false], wa[true])
		require.Less(t, wa[true], 0.95*wa[false], "OP %v", op)
	}
}

// The whole range's layout, kept as units are written, trimmed and
// purged, is what counting them afresh gives.
func TestGranCountsKept(t *testing.T) {
	f := newFTL(4096, 0.1)
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(when string) {
		kept := f.granCounts
		f.countGran()
		require.Equal(t, f.granCounts, kept, when)
	}
	for i := range 20000 {
		lu := int32(rng.IntN(int(f.userUnits)))
		switch i % 7 {
		case 0:
			f.trim(lu, min(lu+8, f.userUnits))
		default:
			f.write(lu, uint8(rng.IntN(13)))
		}
	}
	check("after writes and trims")
	f.purge()
	check("after a purge")
}
