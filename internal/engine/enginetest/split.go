package enginetest

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/units"
)

// ECWSplit is the block-size split of the PTS-E composite workload (ECW,
// PTS 2.0.2 §13): the share of the I/Os of each size.
var ECWSplit = []engine.BlockShare{
	{Bytes: 512, Percent: 4}, {Bytes: 1024, Percent: 1}, {Bytes: 1536, Percent: 1}, {Bytes: 2048, Percent: 1},
	{Bytes: 2560, Percent: 1}, {Bytes: 3072, Percent: 1}, {Bytes: 3584, Percent: 1}, {Bytes: 4096, Percent: 67},
	{Bytes: 8192, Percent: 10}, {Bytes: 16384, Percent: 7}, {Bytes: 32768, Percent: 3}, {Bytes: 65536, Percent: 3},
}

// ECWZones are the ECW's LBA groups: 50 % of the I/Os to the first 5 % of
// the active range, 30 % to the next 15 %, 20 % to the last 80 %.
var ECWZones = []engine.Zone{{IOPercent: 50, RangePercent: 5}, {IOPercent: 30, RangePercent: 15}, {IOPercent: 20, RangePercent: 80}}

// SplitFor is split on a target of logical block lbs: the sizes that are
// not a multiple of it give their share to the smallest size that is (the
// ECW on a 4Kn target: 4 KiB 77 %).
func SplitFor(split []engine.BlockShare, lbs int64) []engine.BlockShare {
	var out []engine.BlockShare
	var moved float64
	for _, s := range split {
		if s.Bytes%lbs != 0 {
			moved += s.Percent
			continue
		}
		out = append(out, s)
	}
	if len(out) > 0 {
		at := 0
		for i, s := range out {
			if s.Bytes < out[at].Bytes {
				at = i
			}
		}
		out[at].Percent += moved
	}
	return out
}

// binomialOK asserts that k of n trials of chance p is within the bounds of
// chance: |k − np| ≤ 5σ + 1, σ = √(np(1−p)). Five standard deviations: a
// correct engine fails it about once in two million checks.
func binomialOK(t *testing.T, k, n int, p float64, format string, a ...any) bool {
	t.Helper()
	exp := float64(n) * p
	bound := 5*math.Sqrt(float64(n)*p*(1-p)) + 1
	return assert.LessOrEqual(t, math.Abs(float64(k)-exp), bound, "%s: %d of %d, %.1f expected (bound ±%.1f)",
		fmt.Sprintf(format, a...), k, n, exp, bound)
}

// minTrace is the fewest traced I/Os the statistical checks are made on.
const minTrace = 1000

// checkSplit checks a measurement of a block-size split: from the trace,
// every I/O has a size of the split, lies in the active range and is aligned
// to the logical block; each size's count is within binomial bounds of its
// share. From the measurement, bytes per I/O is the split's mean size
// within the bounds its variance sets.
//
// Alignment: the native engine and the simulated drive align each I/O to
// its own size; fio aligns random offsets to blockalign, which defaults to
// the smallest size of the split (fio init.c fixup_options): an ECW 64 KiB
// I/O may start on any 512-byte boundary. Both are aligned to the logical
// block, which is what the suite asks of every engine.
func checkSplit(t *testing.T, w engine.Workload, tg Target, m engine.Measurement) {
	t.Helper()
	ar := w.RangeBytes(tg.Capacity)
	share := map[int64]float64{}
	for _, s := range w.BlockSplit {
		share[s.Bytes] = s.Percent / 100
	}
	require.GreaterOrEqual(t, len(m.Trace), minTrace, "%s: too few traced I/Os for the statistics", w)
	count := map[int64]int{}
	for _, io := range m.Trace {
		_, ok := share[io.Size]
		require.True(t, ok, "%s: an I/O of %d bytes, not a size of the split", w, io.Size)
		require.Zero(t, io.Offset%tg.LogicalBlock, "%s: offset %d not aligned to the logical block %d", w, io.Offset, tg.LogicalBlock)
		require.GreaterOrEqual(t, io.Offset, int64(0), w.String())
		require.LessOrEqual(t, io.Offset+io.Size, ar, "%s: I/O at %d of %d bytes outside the active range %d", w, io.Offset, io.Size, ar)
		count[io.Size]++
	}
	for _, s := range w.BlockSplit {
		binomialOK(t, count[s.Bytes], len(m.Trace), share[s.Bytes], "%s: I/Os of %s", w, units.FormatSize(s.Bytes))
	}

	// Bytes per I/O: the mean of N sizes drawn from the split, whose standard
	// deviation is σ/√N, σ² = Σ p·s² − μ².
	tot := m.Total()
	require.Positive(t, tot.IOs, w.String())
	mu := w.MeanBlockSize()
	var m2 float64
	for _, s := range w.BlockSplit {
		m2 += s.Percent / 100 * float64(s.Bytes) * float64(s.Bytes)
	}
	sd := math.Sqrt(max(0, m2-mu*mu) / float64(tot.IOs))
	got := float64(tot.Bytes) / float64(tot.IOs)
	assert.InDelta(t, mu, got, 5*sd+1, "%s: %d bytes in %d I/Os: %.1f bytes per I/O, the split's mean is %.1f (bound ±%.1f)",
		w, tot.Bytes, tot.IOs, got, mu, 5*sd+1)
}

// checkZones checks the trace of a zoned workload: each zone's share of the
// I/Os is within binomial bounds of what it asks; within each zone the I/Os
// fall as often in its lower half as in its upper half. With distinct (one
// block size), the blocks each zone's I/Os touch are as many as uniform
// draws over the whole zone touch, within the bounds of chance: a zone
// drawn from a part of itself, or threads repeating each other's offsets,
// touch fewer.
func checkZones(t *testing.T, w engine.Workload, tg Target, m engine.Measurement, distinct bool) {
	t.Helper()
	ar := w.RangeBytes(tg.Capacity)
	require.GreaterOrEqual(t, len(m.Trace), minTrace, "%s: too few traced I/Os for the statistics", w)
	type zone struct {
		from, to  int64
		n, low    int
		blocks    map[int64]bool
		ioShare   float64
		rangeName string
	}
	var zs []*zone
	var cum float64
	for i, z := range w.Zones {
		from := int64(float64(ar) * cum / 100)
		cum += z.RangePercent
		to := int64(float64(ar) * cum / 100)
		if i == len(w.Zones)-1 {
			to = ar
		}
		zs = append(zs, &zone{from: from, to: to, blocks: map[int64]bool{}, ioShare: z.IOPercent / 100,
			rangeName: fmt.Sprintf("zone %d (%g %% of the range from %d)", i+1, z.RangePercent, from)})
	}
	for _, io := range m.Trace {
		require.GreaterOrEqual(t, io.Offset, int64(0), w.String())
		require.LessOrEqual(t, io.Offset+io.Size, ar, "%s: I/O at %d outside the active range %d", w, io.Offset, ar)
		for _, z := range zs {
			if io.Offset >= z.from && io.Offset < z.to {
				z.n++
				if io.Offset < (z.from+z.to)/2 {
					z.low++
				}
				if distinct {
					z.blocks[io.Offset/w.BlockSize] = true
				}
				break
			}
		}
	}
	n := len(m.Trace)
	for _, z := range zs {
		binomialOK(t, z.n, n, z.ioShare, "%s: I/Os in %s", w, z.rangeName)
		binomialOK(t, z.low, z.n, 0.5, "%s: I/Os in the lower half of %s", w, z.rangeName)
		if distinct {
			slots := (z.to - z.from) / w.BlockSize
			mean, sd := occupancy(float64(slots), float64(z.n))
			got := float64(len(z.blocks))
			assert.InDelta(t, mean, got, 5*sd+1, "%s: %d I/Os in %s touch %.0f distinct blocks of %d, %.1f expected of uniform draws (bound ±%.1f)",
				w, z.n, z.rangeName, got, slots, mean, 5*sd+1)
		}
	}
}

// occupancy is the mean and standard deviation of the number of distinct
// slots n uniform draws over N slots hit: N(1−a) with a = (1−1/N)ⁿ, and the
// variance N²(b−a²) + N(a−b) with b = (1−2/N)ⁿ, written to stay exact for
// N much larger than n.
func occupancy(N, n float64) (mean, sd float64) {
	if N <= 1 {
		return math.Min(N, n), 0
	}
	la := n * math.Log1p(-1/N)
	a := math.Exp(la)
	mean = -N * math.Expm1(la)
	// b − a² = a²·(exp(n·log(1 − 1/(N−1)²)) − 1); a − b = −a·expm1(n·log((1−2/N)/(1−1/N))).
	bMinusA2 := a * a * math.Expm1(n*math.Log1p(-1/((N-1)*(N-1))))
	aMinusB := -a * math.Expm1(n*(math.Log1p(-2/N)-math.Log1p(-1/N)))
	v := N*N*bMinusA2 + N*aMinusB
	return mean, math.Sqrt(max(0, v))
}
