package engine

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWorkloadValidate(t *testing.T) {
	ok := Workload{Access: Random, ReadPct: 65, BlockSize: 4096, TC: 4, QD: 32, ActiveRange: 100, Duration: time.Second}
	require.NoError(t, ok.Validate(512))
	for _, tc := range []struct {
		name string
		mod  func(*Workload)
		msg  string
	}{
		{"tc", func(w *Workload) { w.TC = 0 }, "thread count 0"},
		{"qd", func(w *Workload) { w.QD = 2000 }, "queue depth 2000"},
		{"read", func(w *Workload) { w.ReadPct = 101 }, "read percentage 101"},
		{"range", func(w *Workload) { w.ActiveRange = 0 }, "active range 0%"},
		{"no end", func(w *Workload) { w.Duration = 0 }, "neither a duration nor a number of passes"},
		{"nan passes", func(w *Workload) { w.Passes = math.NaN() }, "negative or infinite"},
		{"alignment", func(w *Workload) { w.BlockSize = 4000 }, "not a multiple of the logical block size 512"},
		{"split sum", func(w *Workload) { w.BlockSplit = []BlockShare{{4096, 50}, {8192, 40}} }, "add up to 90%"},
		{"zones", func(w *Workload) { w.Zones = []Zone{{50, 5}, {50, 5}} }, "cover 100% of the I/O and 10% of the range"},
	} {
		w := ok
		tc.mod(&w)
		err := w.Validate(512)
		assert.ErrorIs(t, err, ErrBadWorkload, tc.name)
		assert.ErrorContains(t, err, tc.msg, tc.name)
	}
	w := ok
	w.BlockSize = 512
	assert.ErrorContains(t, w.Validate(4096), "0.5 KiB is not a multiple of the logical block size 4096")
	assert.Equal(t, "RND 4 KiB 65/35 TC4/QD32", ok.String())
	assert.Equal(t, 128, ok.OIO())
}

func TestPassBytes(t *testing.T) {
	w := Workload{BlockSize: 128 << 10, ActiveRange: 75, Passes: 2}
	capacity := int64(1_000_204_886_016)
	ar := w.RangeBytes(capacity)
	assert.Zero(t, ar%(128<<10))
	assert.LessOrEqual(t, ar, capacity*3/4)
	assert.Greater(t, ar, capacity*3/4-(128<<10))
	assert.Equal(t, 2*ar, w.PassBytes(capacity))
}

func TestAccessJSON(t *testing.T) {
	b, err := json.Marshal(Workload{Access: Sequential})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"access":"seq"`)
	var w Workload
	require.NoError(t, json.Unmarshal(b, &w))
	assert.Equal(t, Sequential, w.Access)
	assert.Error(t, json.Unmarshal([]byte(`{"access":"zigzag"}`), &w))
}

// Merging histograms is exact: the merge of parts equals one histogram of all.
func TestHistogramMergeExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	all := NewHistogram()
	parts := []*Histogram{NewHistogram(), NewHistogram(), NewHistogram()}
	for i := 0; i < 100000; i++ {
		v := int64(rng.ExpFloat64()*80_000) + 1000
		all.Record(v)
		parts[i%3].Record(v)
	}
	merged := NewHistogram()
	for _, p := range parts {
		merged.Merge(p)
	}
	assert.True(t, merged.Equal(all))
	assert.Equal(t, all.Count(), merged.Count())
	for _, p := range []float64{50, 99, 99.9, 99.99, 99.999, 100} {
		assert.Equal(t, all.Percentile(p), merged.Percentile(p), "p%v", p)
	}
}

func TestHistogramAccuracyAndJSON(t *testing.T) {
	h := NewHistogram()
	for v := int64(1); v <= 1_000_000; v++ {
		h.Record(v * 100) // 100 ns … 100 ms, uniform
	}
	for _, p := range []float64{10, 50, 90, 99, 99.9, 99.999} {
		want := p / 100 * 1e8
		assert.InEpsilon(t, want, float64(h.Percentile(p)), 0.01, "p%v within 1 %%", p)
	}
	b, err := json.Marshal(h)
	require.NoError(t, err)
	var back Histogram
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, back.Equal(h))
	assert.Error(t, json.Unmarshal([]byte(`"not a histogram"`), &back))

	h.RecordN(5e12, 3) // beyond the geometry: clamped, counted
	assert.Equal(t, int64(1_000_003), h.Count())
	bins := h.Bins()
	require.NotEmpty(t, bins)
	assert.LessOrEqual(t, bins[0].LowNs, bins[0].HighNs)
}

// A histogram read from JSON, or compacted, answers as its decoded self,
// turns back into bins when written to, and saves the same encoding.
func TestHistogramCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := NewHistogram()
	for range 100_000 {
		h.Record(int64(rng.ExpFloat64() * 50_000))
	}
	want := h.Clone()
	b, err := json.Marshal(h)
	require.NoError(t, err)

	var read Histogram
	require.NoError(t, json.Unmarshal(b, &read))
	h.Compact()
	for _, c := range []*Histogram{&read, h} {
		assert.Nil(t, c.h, "kept encoded")
		assert.Equal(t, want.Count(), c.Count())
		assert.Equal(t, want.Percentile(99.999), c.Percentile(99.999))
		assert.Equal(t, want.Bins(), c.Bins())
		assert.True(t, c.Equal(want))
		again, err := json.Marshal(c)
		require.NoError(t, err)
		assert.JSONEq(t, string(b), string(again))
		cl := c.Clone()
		assert.True(t, cl.Equal(want))
	}
	// Merging from a compact histogram leaves it compact; into one decodes it.
	sum := NewHistogram()
	sum.Merge(&read)
	sum.Merge(h)
	assert.Nil(t, read.h)
	assert.Equal(t, 2*want.Count(), sum.Count())
	read.Record(1)
	assert.NotNil(t, read.h)
	assert.Equal(t, want.Count()+1, read.Count())

	// Saving keeps the encoding for Compact; a change after it must not
	// leave a stale one behind.
	live := NewHistogram()
	live.Record(100)
	_, err = json.Marshal(live)
	require.NoError(t, err)
	live.Record(200)
	live.Compact()
	assert.Equal(t, int64(2), live.Count(), "a record after saving survives Compact")
	b2, err := json.Marshal(live)
	require.NoError(t, err)
	var again Histogram
	require.NoError(t, json.Unmarshal(b2, &again))
	assert.Equal(t, int64(2), again.Count())
}

func TestDirStats(t *testing.T) {
	var a, b DirStats
	a.Record(1000, 10, 4096)
	a.Record(3000, 10, 4096)
	b.Record(500, 5, 4096)
	b.Record(90_000, 1, 4096)
	a.Merge(b)
	assert.Equal(t, int64(26), a.IOs)
	assert.Equal(t, int64(26*4096), a.Bytes)
	assert.Equal(t, int64(500), a.LatMinNs)
	assert.Equal(t, int64(90_000), a.LatMaxNs)
	assert.InDelta(t, (10*1000+10*3000+5*500+90_000)/26.0, a.MeanLatNs(), 1e-9)
	assert.LessOrEqual(t, a.PercentileNs(100), a.LatMaxNs, "never above the true maximum")
	assert.InDelta(t, 26.0, a.IOPS(time.Second), 1e-12)
	assert.InDelta(t, 26*4096/1e6, a.MBps(time.Second), 1e-12)
	m := Measurement{Elapsed: 2 * time.Second, Read: a, Write: b}
	assert.InDelta(t, 16.0, m.IOPS(), 1e-12, "read + write")
}

// Printed percentiles do not merge: the merge keeps those both parts
// printed, at the larger value (an upper bound), and none of parts of
// different latencies.
func TestDirStatsPrintedMerge(t *testing.T) {
	part := func(kind string, pct ...float64) DirStats {
		d := DirStats{IOs: 10, Bytes: 40960, LatSumNs: 1e6, LatMinNs: 10, LatMaxNs: 1e6, PctLat: kind}
		for i := 0; i < len(pct); i += 2 {
			d.Printed = append(d.Printed, PrintedPct{P: pct[i], Ns: pct[i+1]})
		}
		return d
	}
	var one DirStats
	one.Merge(part(LatCompletion, 99, 100, 99.999, 900))
	assert.False(t, one.PrintedBound, "one part: fio's own values")
	assert.Equal(t, []PrintedPct{{99, 100}, {99.999, 900}}, one.Printed)

	two := one
	two.Merge(part(LatCompletion, 99, 150, 99.99, 700, 99.999, 800))
	assert.True(t, two.PrintedBound)
	assert.Equal(t, []PrintedPct{{99, 150}, {99.999, 900}}, two.Printed, "only what both printed, at the larger")
	assert.Equal(t, []PrintedPct{{99, 100}, {99.999, 900}}, one.Printed, "the first part is not changed")
	v, ok := two.PrintedNs(99.999)
	assert.True(t, ok)
	assert.Equal(t, 900.0, v)
	_, ok = two.PrintedNs(99.99)
	assert.False(t, ok)

	mixed := two
	mixed.Merge(part("", 99, 100))
	assert.Equal(t, LatMixed, mixed.PctLat)
	assert.Empty(t, mixed.Printed)

	var none DirStats
	none.Merge(part(LatCompletion, 99, 100))
	none.Merge(part(LatCompletion))
	assert.Empty(t, none.Printed, "a part without printed percentiles leaves none")
	assert.False(t, none.PrintedBound)
}

// ecw is the PTS-E composite workload (PTS 2.0.2 §13): its block sizes and zones.
func ecw() Workload {
	return Workload{Access: Random, ReadPct: 40, TC: 1, QD: 32, ActiveRange: 100, Duration: time.Minute,
		BlockSplit: []BlockShare{{512, 4}, {1024, 1}, {1536, 1}, {2048, 1}, {2560, 1}, {3072, 1}, {3584, 1},
			{4096, 67}, {8192, 10}, {16384, 7}, {32768, 3}, {65536, 3}},
		Zones: []Zone{{50, 5}, {30, 15}, {20, 80}}}
}

func TestSplitAndZonesLabels(t *testing.T) {
	w := ecw()
	assert.Equal(t, "RND composite 40/60 TC1/QD32 zoned", w.String())
	assert.Equal(t, "0.5 KiB 4 %, 1 KiB 1 %, 1.5 KiB 1 %, 2 KiB 1 %, 2.5 KiB 1 %, 3 KiB 1 %, 3.5 KiB 1 %, "+
		"4 KiB 67 %, 8 KiB 10 %, 16 KiB 7 %, 32 KiB 3 %, 64 KiB 3 %", w.SplitLabel())
	assert.Equal(t, "50 % of I/O → first 5 %, 30 % → next 15 %, 20 % → last 80 %", w.ZonesLabel())
	assert.Equal(t, "RND composite 40/60 TC1/QD32 — block sizes "+w.SplitLabel()+"; zones: "+w.ZonesLabel(), w.Description())
	assert.Equal(t, "0.5k:4,1k:1,1.5k:1,2k:1,2.5k:1,3k:1,3.5k:1,4k:67,8k:10,16k:7,32k:3,64k:3", w.SplitKey())
	assert.Equal(t, "50/5:30/15:20/80", w.ZonesKey())
	assert.NoError(t, w.WholePercentages())

	for _, tc := range []struct {
		name                string
		w                   Workload
		str, desc, split, z string
	}{
		{"plain", Workload{Access: Random, ReadPct: 65, BlockSize: 8192, TC: 2, QD: 4, ActiveRange: 100},
			"RND 8 KiB 65/35 TC2/QD4", "RND 8 KiB 65/35 TC2/QD4", "", ""},
		{"split only", Workload{Access: Random, BlockSplit: []BlockShare{{4096, 50.5}, {8192, 49.5}}, TC: 1, QD: 1, ActiveRange: 50},
			"RND composite 0/100 TC1/QD1 AR 50%", "RND composite 0/100 TC1/QD1 AR 50% — block sizes 4 KiB 50.5 %, 8 KiB 49.5 %", "4k:50.5,8k:49.5", ""},
		{"zones only", Workload{Access: Random, ReadPct: 100, BlockSize: 4096, TC: 1, QD: 1, ActiveRange: 100, Zones: []Zone{{90, 10}, {10, 90}}},
			"RND 4 KiB 100/0 TC1/QD1 zoned", "RND 4 KiB 100/0 TC1/QD1 — zones: 90 % of I/O → first 10 %, 10 % → last 90 %", "", "90/10:10/90"},
		{"one zone", Workload{Access: Random, ReadPct: 100, BlockSize: 4096, TC: 1, QD: 1, ActiveRange: 100, Zones: []Zone{{100, 100}}},
			"RND 4 KiB 100/0 TC1/QD1 zoned", "RND 4 KiB 100/0 TC1/QD1 — zones: 100 % of I/O → all 100 %", "", "100/100"},
	} {
		assert.Equal(t, tc.str, tc.w.String(), tc.name)
		assert.Equal(t, tc.desc, tc.w.Description(), tc.name)
		assert.Equal(t, tc.split, tc.w.SplitKey(), tc.name)
		assert.Equal(t, tc.z, tc.w.ZonesKey(), tc.name)
	}
	half := Workload{BlockSplit: []BlockShare{{4096, 50.5}, {8192, 49.5}}}
	assert.ErrorContains(t, half.WholePercentages(), "the share 50.5 % of 4 KiB is not a whole percentage")
	z := Workload{Zones: []Zone{{50, 2.5}, {50, 97.5}}}
	assert.ErrorContains(t, z.WholePercentages(), "the zone 50/2.5 is not in whole percentages")
}

func TestParseBlockSplit(t *testing.T) {
	w := ecw()
	got, err := ParseBlockSplit(w.SplitKey())
	require.NoError(t, err)
	assert.Equal(t, w.BlockSplit, got, "SplitKey and ParseBlockSplit agree")
	for _, tc := range []struct {
		in   string
		want []BlockShare
	}{
		{"4k:100", []BlockShare{{4096, 100}}},
		{"4k:67, 8k:33", []BlockShare{{4096, 67}, {8192, 33}}},
		{"512:50%,64KiB:50%", []BlockShare{{512, 50}, {65536, 50}}},
		{"4k:50.5,8k:49.5", []BlockShare{{4096, 50.5}, {8192, 49.5}}},
	} {
		got, err := ParseBlockSplit(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	for _, tc := range []struct{ in, msg string }{
		{"4k:60,8k:30", `the shares add up to 90 %, not 100 %`},
		{"4k:60,8k:50", `the shares add up to 110 %, not 100 %`},
		{"4k:100,8k:0", `the share of 8 KiB: 0 % is not positive`},
		{"4k:110,8k:-10", `the share of 4 KiB: 110 % is more than 100 %`},
		{"4k:50,8k", `entry "8k" is not SIZE:PERCENT`},
		{"4k:50,,8k:50", `entry "" is not SIZE:PERCENT`},
		{"4x:50,8k:50", `size "4x" is not a number`},
		{"4k:half,8k:50", `the share of 4 KiB: "half" is not a percentage`},
		{"4k:NaN,8k:50", `"NaN" is not a percentage`},
		{"4k:50,4096:50", "4 KiB appears twice"},
		{"", `entry "" is not SIZE:PERCENT`},
	} {
		_, err := ParseBlockSplit(tc.in)
		assert.ErrorContains(t, err, tc.msg, tc.in)
	}
}

func TestParseZones(t *testing.T) {
	w := ecw()
	got, err := ParseZones(w.ZonesKey())
	require.NoError(t, err)
	assert.Equal(t, w.Zones, got, "ZonesKey and ParseZones agree")
	got, err = ParseZones(" 90/10 : 10%/90% ")
	require.NoError(t, err)
	assert.Equal(t, []Zone{{90, 10}, {10, 90}}, got)
	for _, tc := range []struct{ in, msg string }{
		{"50/5:30/15:20/70", "the zones cover 90 % of the range, not 100 %"},
		{"50/5:30/15:10/80", "the zones take 90 % of the I/O, not 100 %"},
		{"50/5:50/0:0/95", `the range share of "50/0": 0 % is not positive`},
		{"100/5:0/95", `the I/O share of "0/95": 0 % is not positive`},
		{"50/5:-30/15", `-30 % is not positive`},
		{"50/5,50/95", `separate the zones with ':', as fio does`},
		{"50/5:50", `entry "50" is not IO%/RANGE%`},
		{"50/x:50/95", `"x" is not a percentage`},
		{"", `entry "" is not IO%/RANGE%`},
	} {
		_, err := ParseZones(tc.in)
		assert.ErrorContains(t, err, tc.msg, tc.in)
	}
}

// The options of workloads outside the PTS are named in full, and the
// figures engines derive from them add up.
func TestRampRateRandomLabels(t *testing.T) {
	w := Workload{Access: Random, ReadPct: 50, BlockSize: 4096, TC: 1, QD: 4, ActiveRange: 100, Duration: 16 * time.Minute,
		Ramp: 6 * time.Minute, RandomPct: 80, RateIOPS: 5000}
	assert.Equal(t, "RND80% 4 KiB 50/50 TC1/QD4", w.String())
	assert.Equal(t, "RND80% 4 KiB 50/50 TC1/QD4, at most 5000 IOPS per target, the first 6m0s a ramp", w.Description())
	assert.Equal(t, 360, w.RampSeconds())
	assert.Equal(t, 10*time.Minute, w.Measured())
	assert.Equal(t, 5000.0, w.RateIOPSCap())
	w.RateMBps = 10 // 10 MB/s of 4 KiB is 2441 IOPS: that cap binds
	assert.InDelta(t, 1e7/4096, w.RateIOPSCap(), 1e-9)
	assert.Contains(t, w.Description(), "at most 5000 IOPS and 10 MB/s per target")
	w.RateIOPS = 0
	assert.InDelta(t, 1e7/4096, w.RateIOPSCap(), 1e-9)
	w.Ramp = 1500 * time.Millisecond
	assert.Equal(t, 2, w.RampSeconds(), "the second the ramp ends in is the ramp's")
	w.Ramp = 0
	assert.Zero(t, w.RampSeconds())
	assert.Zero(t, Workload{BlockSize: 4096}.RateIOPSCap())
}

// A random share: the rest of the I/Os continue where the thread's last
// I/O of the same direction ended, as fio does, in the same stream for the
// same seed; 0 and 100 draw every offset at random, as before.
func TestAddrGenRandomShare(t *testing.T) {
	const capacity = 1 << 30
	base := Workload{Access: Random, ReadPct: 70, BlockSize: 4096, TC: 1, QD: 1, ActiveRange: 50, RangeStart: 10, Duration: time.Second, Seed: 7}
	seqShare := func(w Workload) (same, any float64) {
		g := NewAddrGen(w, capacity, 0, 1, 0)
		last := map[bool]int64{}
		var prev int64 = -1
		var s, a int
		const n = 200000
		start, end := w.RangeStartBytes(capacity), w.RangeStartBytes(capacity)+w.RangeBytes(capacity)
		for range n {
			io := g.Next()
			require.GreaterOrEqual(t, io.Offset, start)
			require.LessOrEqual(t, io.Offset+io.Size, end)
			if e, ok := last[io.Read]; ok && io.Offset == e {
				s++
			}
			if io.Offset == prev {
				a++
			}
			last[io.Read] = io.Offset + io.Size
			prev = io.Offset + io.Size
		}
		return float64(s) / n, float64(a) / n
	}
	for _, pct := range []float64{80, 20, 50.5} {
		w := base
		w.RandomPct = pct
		same, _ := seqShare(w)
		assert.InDelta(t, 1-pct/100, same, 0.005, "%v %% random: the rest continue their direction's last I/O", pct)
	}
	for _, pct := range []float64{0, 100} {
		w := base
		w.RandomPct = pct
		same, _ := seqShare(w)
		assert.Less(t, same, 0.001, "%v %%: every offset at random", pct)
	}
	// One direction: the previous I/O and the direction's last are one.
	w := base
	w.ReadPct, w.RandomPct = 100, 25
	same, prev := seqShare(w)
	assert.InDelta(t, 0.75, same, 0.005)
	assert.Equal(t, same, prev)

	// The same seed gives the same stream; 100 % random is the stream of
	// a workload without a share.
	a, b := base, base
	a.RandomPct, b.RandomPct = 60, 60
	ga, gb := NewAddrGen(a, capacity, 0, 1, 0), NewAddrGen(b, capacity, 0, 1, 0)
	hundred, plain := base, base
	hundred.RandomPct = 100
	gh, gp := NewAddrGen(hundred, capacity, 0, 1, 0), NewAddrGen(plain, capacity, 0, 1, 0)
	for range 1000 {
		require.Equal(t, ga.Next(), gb.Next())
		require.Equal(t, gp.Next(), gh.Next())
	}
	// At the end of the range the continuation starts over at its start.
	tiny := Workload{Access: Random, ReadPct: 0, BlockSize: 4096, TC: 1, QD: 1, ActiveRange: 100, Duration: time.Second, RandomPct: 1, Seed: 3}
	g := NewAddrGen(tiny, 64<<10, 0, 1, 0)
	seen := map[int64]bool{}
	for range 64 {
		io := g.Next()
		require.LessOrEqual(t, io.Offset+io.Size, int64(64<<10))
		seen[io.Offset] = true
	}
	assert.Len(t, seen, 16, "a 1 %% random stream walks the whole 64 KiB range")
}

func TestIntervalStats(t *testing.T) {
	var a, b IntervalStats
	for i := int64(1); i <= 1000; i++ {
		a.Record(true, i*1000, 1, 4096) // 1 µs … 1 ms
	}
	b.Record(false, 5_000_000, 2, 8192)
	b.Record(true, 2_000_000, 1, 4096)
	a.Merge(&b)
	s := a.Second(true)
	assert.Equal(t, int64(1001), s.ReadIOs)
	assert.Equal(t, int64(2), s.WriteIOs)
	assert.Equal(t, int64(1001*4096), s.ReadBytes)
	assert.Equal(t, int64(2*8192), s.WriteBytes)
	assert.True(t, s.Ramp)
	require.NotNil(t, s.Read)
	require.NotNil(t, s.Write)
	assert.InDelta(t, 990_000, s.Read.P99Ns, 990_000*0.01, "p99 of 1 µs…1 ms and one 2 ms read")
	assert.InDelta(t, 999_000, s.Read.P999Ns, 999_000*0.01)
	assert.Equal(t, int64(2_000_000), s.Read.MaxNs, "the maximum is exact")
	assert.Equal(t, int64(5_000_000), s.Write.MaxNs)
	assert.InDelta(t, (500_500_000.0+2_000_000+10_000_000)/1003, s.LatMeanNs, 1e-6)

	a.Reset()
	assert.True(t, a.Empty())
	assert.Nil(t, a.Second(false).Read, "no I/O, no latency")
	a.Record(false, 7, 1, 512)
	assert.Equal(t, int64(7), a.Second(false).Write.P99Ns, "a reset histogram forgets what it held")

	var m Second
	m.MergeCounts(Second{ReadIOs: 1, LatMeanNs: 10})
	m.MergeCounts(Second{WriteIOs: 3, LatMeanNs: 30, Ramp: true})
	assert.InDelta(t, 25.0, m.LatMeanNs, 1e-9)
	assert.True(t, m.Ramp)
}

func TestIntervalValidate(t *testing.T) {
	w := Workload{Access: Random, ReadPct: 100, BlockSize: 4096, TC: 1, QD: 1, ActiveRange: 100, Duration: 10 * time.Second}
	for _, tc := range []struct {
		iv time.Duration
		ok bool
	}{{0, true}, {time.Second, true}, {250 * time.Millisecond, true}, {10 * time.Second, true},
		{50 * time.Millisecond, false}, {1500 * time.Microsecond, false}, {11 * time.Second, false}, {-time.Second, false}} {
		w.Interval = tc.iv
		err := w.Validate(512)
		if tc.ok {
			assert.NoError(t, err, tc.iv)
		} else {
			assert.Error(t, err, tc.iv)
		}
	}
	w.Interval, w.Ramp = 2*time.Second, 4*time.Second
	assert.NoError(t, w.Validate(512))
	assert.Equal(t, 2, w.RampSeconds())
	assert.Equal(t, 4, w.IntervalOf(9*time.Second))
	w.Ramp = 3 * time.Second
	assert.ErrorContains(t, w.Validate(512), "a ramp of 3s is not a whole number of the series' intervals (2s)",
		"an interval the ramp ends in would be both the ramp's and the results'")
	w.Interval, w.Ramp = 0, 1500*time.Millisecond
	assert.ErrorContains(t, w.Validate(512), "(1s)")
}

// A slow receiver never holds up the reporter's caller: intervals queue,
// and past the backlog are dropped; Close waits for those queued.
func TestIntervalReporter(t *testing.T) {
	assert.Nil(t, NewIntervalReporter(context.Background()), "nobody asked")
	var nilRep *IntervalReporter
	nilRep.Report(0, Second{})
	nilRep.Close()

	release := make(chan struct{})
	var got []int
	ctx := WithIntervalFunc(context.Background(), func(i int, s Second) {
		<-release
		got = append(got, i)
	})
	r := NewIntervalReporter(ctx)
	// The receiver returns only once release is closed, after the loop: a
	// Report that waited for it would never return.
	for i := 0; i < 1000; i++ {
		r.Report(i, Second{ReadIOs: int64(i)})
	}
	close(release)
	r.Close()
	require.NotEmpty(t, got)
	assert.LessOrEqual(t, len(got), intervalBacklog+1)
	assert.IsIncreasing(t, got, "in order")
	assert.Equal(t, 0, got[0])
}
