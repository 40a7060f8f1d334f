package enginetest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ptsrun/ptsrun/internal/engine"
)

func TestSplitFor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lbs   int64
		split []engine.BlockShare
		want  []engine.BlockShare
	}{
		{"512-byte sectors keep the ECW", 512, ECWSplit, ECWSplit},
		{"4Kn: the sub-4 KiB shares go to 4 KiB", 4096, ECWSplit, []engine.BlockShare{{Bytes: 4096, Percent: 77},
			{Bytes: 8192, Percent: 10}, {Bytes: 16384, Percent: 7}, {Bytes: 32768, Percent: 3}, {Bytes: 65536, Percent: 3}}},
		{"to the smallest that fits, wherever it is", 4096, []engine.BlockShare{{Bytes: 8192, Percent: 50}, {Bytes: 512, Percent: 20}, {Bytes: 4096, Percent: 30}},
			[]engine.BlockShare{{Bytes: 8192, Percent: 50}, {Bytes: 4096, Percent: 50}}},
	} {
		assert.Equal(t, tc.want, SplitFor(tc.split, tc.lbs), tc.name)
	}
	assert.Equal(t, ECWSplit[0], engine.BlockShare{Bytes: 512, Percent: 4}, "SplitFor leaves its input alone")
}

// occupancy against the plain formula where that is exact enough, and
// against draws.
func TestOccupancy(t *testing.T) {
	for _, c := range []struct{ N, n float64 }{{100, 50}, {3276, 4000}, {52428, 1600}, {10, 1000}} {
		a, b := math.Pow(1-1/c.N, c.n), math.Pow(1-2/c.N, c.n)
		mean, sd := occupancy(c.N, c.n)
		assert.InEpsilon(t, c.N*(1-a), mean, 1e-9, "%v", c)
		if v := c.N*(c.N-1)*b + c.N*a - c.N*c.N*a*a; v > 1e-6 {
			assert.InEpsilon(t, math.Sqrt(v), sd, 1e-6, "%v", c)
		}
	}
	// 1.25e7 slots (5 % of a 1 TB drive in 4 KiB blocks), 4000 draws: the
	// plain formula cancels to noise, this one does not.
	mean, sd := occupancy(1.25e7, 4000)
	assert.InDelta(t, 4000-4000.0*3999/2/1.25e7, mean, 1e-3)
	assert.InDelta(t, 0.8, sd, 0.05)

	rng := rand.New(rand.NewPCG(1, 2))
	const N, n, runs = 500, 400, 4000
	var s, s2 float64
	for r := 0; r < runs; r++ {
		seen := map[uint64]bool{}
		for i := 0; i < n; i++ {
			seen[rng.Uint64N(N)] = true
		}
		k := float64(len(seen))
		s += k
		s2 += k * k
	}
	mean, sd = occupancy(N, n)
	m := s / runs
	assert.InDelta(t, mean, m, 5*sd/math.Sqrt(runs))
	assert.InEpsilon(t, sd, math.Sqrt(s2/runs-m*m), 0.1)
}
