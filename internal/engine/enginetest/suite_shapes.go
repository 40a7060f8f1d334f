package enginetest

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// The suite's checks of a workload's shape: block-size splits, zones,
// rate caps, ramps, the random share, incompressible data, and the
// checks of a measurement they share.

func durationAndPasses(t *testing.T, open Opener, caps Caps) {
	// Both a time and a volume: whichever comes first ends it (a WSAT
	// step cut at what is left of its 4 × capacity budget).
	e, ts := open(t, 1)
	w := rnd(0, 4096, 2, 4, 100, 5*time.Minute)
	w.Passes = float64(4<<20) / float64(w.RangeBytes(ts[0].Capacity))
	m := run(t, e, w)
	want := w.PassBytes(ts[0].Capacity)
	assert.GreaterOrEqual(t, m.Write.Bytes, want-int64(w.TC), "the volume first: all of it")
	assert.LessOrEqual(t, m.Write.Bytes, want+int64(w.TC)*w.BlockSize, "and at most a block more per thread")
	// The time first: a second, and a hundred passes no engine moves in it.
	w = rnd(0, 4096, 1, 4, 100, time.Second)
	w.Passes = 100
	m = run(t, e, w)
	assert.Positive(t, m.Write.Bytes)
	assert.Less(t, m.Write.Bytes, w.PassBytes(ts[0].Capacity), "the time first: the volume not reached")
}

func blockSplit(t *testing.T, open Opener, caps Caps) {
	generationOnly(t, caps)
	e, ts := open(t, 1)
	w := ofIOs(engine.Workload{Access: engine.Random, ReadPct: 40, BlockSplit: SplitFor(ECWSplit, ts[0].LogicalBlock),
		TC: 4, QD: 8, ActiveRange: 50}, 2*minTrace, ts[0].Capacity)
	m := run(t, e, w)
	checkSplit(t, w, ts[0], m)
}

func zones(t *testing.T, open Opener, caps Caps) {
	generationOnly(t, caps)
	e, ts := open(t, 1)
	w := rnd(40, 4096, 4, 8, 100, 0)
	w.Zones = ECWZones
	w = ofIOs(w, 4*minTrace, ts[0].Capacity)
	m := run(t, e, w)
	checkZones(t, w, ts[0], m, true)
}

func blockSplitAndZones(t *testing.T, open Opener, caps Caps) {
	generationOnly(t, caps)
	e, ts := open(t, 1)
	w := ofIOs(engine.Workload{Access: engine.Random, ReadPct: 40, BlockSplit: SplitFor(ECWSplit, ts[0].LogicalBlock),
		Zones: ECWZones, TC: 2, QD: 16, ActiveRange: 100}, 2*minTrace, ts[0].Capacity)
	m := run(t, e, w)
	checkSplit(t, w, ts[0], m)
	checkZones(t, w, ts[0], m, false)
}

func rateCap(t *testing.T, open Opener, caps Caps) {
	generationOnly(t, caps)
	e, _ := open(t, 1)
	for _, w := range []engine.Workload{
		withRate(rnd(70, 4096, 2, 8, 100, 3*time.Second), 3000, 0),
		// A bandwidth cap on a split, spread over three threads: 20
		// MB/s of a mean 34 KiB is 561 IOPS, 187 a thread.
		withRate(engine.Workload{Access: engine.Random, ReadPct: 100, TC: 3, QD: 4, ActiveRange: 100, Duration: 3 * time.Second,
			BlockSplit: []engine.BlockShare{{Bytes: 4096, Percent: 50}, {Bytes: 65536, Percent: 50}}}, 0, 20),
		// Both caps: the bandwidth binds (8 MB/s of 8 KiB is 977 IOPS).
		withRate(engine.Workload{Access: engine.Sequential, ReadPct: 0, BlockSize: 8192, TC: 1, QD: 4, ActiveRange: 100,
			Duration: 3 * time.Second}, 5000, 8),
		// One I/O at a time per thread, paced.
		withRate(rnd(50, 4096, 2, 1, 100, 3*time.Second), 2000, 0),
	} {
		m := run(t, e, w)
		checkRate(t, w, m, caps)
		if w.ReadPct > 0 && w.ReadPct < 100 {
			tot := m.Total()
			binomialOK(t, int(m.Read.IOs), int(tot.IOs), float64(w.ReadPct)/100, "%s: reads under a cap", w)
		}
	}
}

func ramp(t *testing.T, open Opener, caps Caps) {
	seriesOnly(t, caps)
	e, _ := open(t, 1)
	// Capped, so that the ramp's second and the rest hold known
	// counts: were the ramp in the totals, they would hold half as much
	// again, or take a second longer.
	w := withRate(rnd(50, 4096, 2, 4, 100, 3*time.Second), 2000, 0)
	w.Ramp = time.Second
	m := run(t, e, w)
	assert.GreaterOrEqual(t, m.Elapsed, 1950*time.Millisecond, "the totals' time is the duration less the ramp, at least")
	if caps.Virtual {
		assert.Equal(t, 2*time.Second, m.Elapsed, "the totals' time is the duration less the ramp")
	}
	tot := m.Total()
	require.NotNil(t, tot.Hist)
	assert.Equal(t, tot.IOs, tot.Hist.Count(), "the histogram leaves the ramp out too")
	ramps := 0
	var rampIOs int64
	for i, s := range m.Seconds {
		if s.Ramp {
			assert.Equal(t, ramps, i, "the ramp's seconds come first: second %d", i)
			ramps++
			rampIOs += s.ReadIOs + s.WriteIOs
		}
	}
	assert.Equal(t, w.RampSeconds(), ramps, "the ramp's seconds are in the series, marked")
	assert.Greater(t, len(m.Seconds), ramps, "and the others after them")
	assert.Positive(t, rampIOs, "the ramp's second holds its I/Os")
	var after int64
	for _, s := range m.Seconds[ramps:] {
		after += s.ReadIOs + s.WriteIOs
	}
	if caps.ExactSeries {
		assert.Equal(t, tot.IOs, after, "the totals are the seconds after the ramp's")
	} else {
		assert.InDelta(t, tot.IOs, after, 0.02*float64(tot.IOs), "the totals are the seconds after the ramp's")
	}
	// The cap holds over the whole run, ramp and all (a thread that fell
	// behind in the ramp may catch up after it).
	if caps.Virtual {
		checkRate(t, w, m, caps)
	} else {
		capped(t, w, tot.IOs+rampIOs, 0, m.Elapsed+w.Ramp)
	}
}

func randomShare(t *testing.T, open Opener, caps Caps) {
	generationOnly(t, caps)
	e, ts := open(t, 1)
	for _, w := range []engine.Workload{
		withRandom(rnd(100, 4096, 2, 4, 100, 0), 80),
		withRandom(rnd(0, 8192, 1, 8, 50, 0), 30),
		// A mix continues each direction where its own last I/O ended.
		withRandom(rnd(70, 4096, 2, 4, 100, 0), 50),
	} {
		w = ofIOs(w, 2*minTrace, ts[0].Capacity)
		m := run(t, e, w)
		checkRandomShare(t, w, ts[0], m)
	}
}

func writtenDataIncompressible(t *testing.T, open Opener, caps Caps) {
	if !caps.ReadBack {
		t.Skip("the engine's targets are not files whose written data can be read back")
	}
	// QD1: one I/O at a time, an engine's shortest path; few enough I/Os
	// that an engine's trace (Trace, 2 000 a thread) holds them all.
	for _, c := range []struct{ qd, ios int }{{8, 4096}, {1, 1500}} {
		e, ts := open(t, 1)
		w := ofIOs(rnd(0, 4096, 2, c.qd, 100, 0), c.ios, ts[0].Capacity) // 16 MiB and 6 MiB, however slow the host
		m := run(t, e, w)
		require.NotZero(t, m.Write.IOs, w.String())
		blocks := checkIncompressible(t, ts[0].Path)
		if int64(len(m.Trace)) == m.Total().IOs {
			// Every write landed where the engine said it went.
			traced := map[int64]bool{}
			for _, io := range m.Trace {
				traced[io.Offset] = true
			}
			require.Equal(t, traced, blocks, "%s: the written blocks are the traced writes'", w)
		}
	}
}

// checkIncompressible reads back the file at path and asserts that its
// written (non-zero) 4 KiB blocks are all different and do not compress.
// It returns their offsets.
func checkIncompressible(t *testing.T, path string) map[int64]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	zero := make([]byte, 4096)
	var written bytes.Buffer
	seen := map[[32]byte]int{}
	blocks := map[int64]bool{}
	for off := 0; off+4096 <= len(data); off += 4096 {
		blk := data[off : off+4096]
		if bytes.Equal(blk, zero) {
			continue
		}
		written.Write(blk)
		seen[sha256.Sum256(blk)]++
		blocks[int64(off)] = true
	}
	require.Greater(t, written.Len(), 1<<20, "at least 1 MiB written")
	for h, n := range seen {
		require.Equal(t, 1, n, "block %x appears %d times: a deduplicating device could exploit that", h[:6], n)
	}
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, flate.BestCompression)
	_, _ = io.Copy(fw, bytes.NewReader(written.Bytes()))
	fw.Close()
	ratio := float64(z.Len()) / float64(written.Len())
	assert.Greater(t, ratio, 0.99, "written data compresses to %.3f of its size", ratio)
	return blocks
}

// checkRate asserts that a capped workload kept its cap, counted against
// the engine's own clock: the engines keep each thread to a schedule (the
// k-th I/O is due k ÷ its share of the rate after the start), so by any
// time T at most cap × T I/Os (or bytes) were issued, plus the first I/O
// of each queue, which is due at once. A model's clock keeps the cap to
// 0.5 %. How close a real engine comes to its cap is a question for a
// benchmark: on a loaded host a thread that falls behind near the end has
// no time left to catch up, so the suite bounds it from above only. The
// schedule itself is unit-tested with the pacer. Where the engine paces
// the I/O itself on real targets, the I/O threads sleep between I/Os
// rather than spin: less than half a CPU of the process's own time. A
// loaded host does not add to the CPU time of a thread that sleeps.
func checkRate(t *testing.T, w engine.Workload, m engine.Measurement, caps Caps) {
	t.Helper()
	want := w.RateIOPSCap()
	if caps.Virtual {
		assert.InEpsilon(t, want, m.IOPS(), 0.005, "%s: IOPS under a cap of %.0f", w, want)
		return
	}
	tot := m.Total()
	capped(t, w, tot.IOs, tot.Bytes, m.Elapsed)
}

// PacedThreadsSleep checks that an engine keeping a rate cap itself sleeps
// between I/Os rather than spinning: under 0.5 CPUs busy at 3000 IOPS. An
// engine's CPU time is its process's, which the other checks' work would
// add to, so a test of its own runs it, not beside others (no t.Parallel).
func PacedThreadsSleep(t *testing.T, open Opener) {
	e, _ := open(t, 1)
	w := withRate(rnd(70, 4096, 2, 8, 100, 3*time.Second), 3000, 0)
	m := run(t, e, w)
	capped(t, w, m.Total().IOs, 0, m.Elapsed)
	busy := m.CPU.User + m.CPU.Sys
	if m.CPU.Of == engine.CPUOfHost {
		busy *= float64(runtime.NumCPU())
	}
	assert.Less(t, busy, 0.5, "%s: %.2f CPUs busy at %.0f IOPS: paced threads sleep", w, busy, w.RateIOPSCap())
}

// capped checks ios I/Os (and bytes, for a bandwidth cap; 0 leaves them
// out) in el of the engine's time against w's cap, from above.
func capped(t *testing.T, w engine.Workload, ios, bytes int64, el time.Duration) {
	t.Helper()
	slack := float64(w.OIO()) // the first I/O of each queue is due at once
	assert.Positive(t, ios, "%s: I/O under a cap", w)
	// Each cap as it is kept: a bandwidth cap on a split paces bytes, and
	// the I/O count of those bytes varies with the sizes drawn.
	if w.RateIOPS > 0 {
		assert.LessOrEqual(t, float64(ios), w.RateIOPS*el.Seconds()+slack, "%s: %d I/Os in %v under a cap of %.0f IOPS", w, ios, el, w.RateIOPS)
	}
	if w.RateMBps > 0 && bytes > 0 {
		maxBS := float64(w.BlockSize)
		for _, s := range w.BlockSplit {
			maxBS = max(maxBS, float64(s.Bytes))
		}
		assert.LessOrEqual(t, float64(bytes), w.RateMBps*1e6*el.Seconds()+slack*maxBS,
			"%s: %d bytes in %v under a cap of %v MB/s", w, bytes, el, w.RateMBps)
	}
}

// checkRandomShare checks a workload with a random share from the trace:
// within each thread, the share of I/Os that start where the thread's last
// I/O of the same direction ended is the sequential share, within
// binomial bounds, and every I/O is inside the active range.
func checkRandomShare(t *testing.T, w engine.Workload, tg Target, m engine.Measurement) {
	t.Helper()
	ar := w.RangeBytes(tg.Capacity)
	type stream struct{ target, thread int }
	last := map[stream]map[bool]int64{}
	seq, n := 0, 0
	for _, io := range m.Trace {
		require.GreaterOrEqual(t, io.Offset, int64(0))
		require.LessOrEqual(t, io.Offset+io.Size, ar, "%s: offset %d outside the active range", w, io.Offset)
		k := stream{io.Target, io.Thread}
		if last[k] == nil {
			last[k] = map[bool]int64{}
		}
		if end, ok := last[k][io.Read]; ok {
			n++
			if io.Offset == end {
				seq++
			}
		}
		last[k][io.Read] = io.Offset + io.Size
	}
	require.GreaterOrEqual(t, n, minTrace, "%s: too few traced I/Os", w)
	binomialOK(t, seq, n, 1-w.RandomPct/100, "%s: I/Os continuing their direction's last one", w)
}

// checkSeries checks a measurement's series against its totals: intervals
// of w's length, adding up to the totals, each direction's latency in
// order, and the targets' series adding up to the whole.
func checkSeries(t *testing.T, w engine.Workload, m engine.Measurement, caps Caps) {
	t.Helper()
	n := int(w.Duration / w.SeriesInterval())
	require.NotEmpty(t, m.Seconds)
	// fio does not log an interval that ends with the run; past the
	// duration are only the I/Os in flight at its end, whenever they come.
	assert.GreaterOrEqual(t, len(m.Seconds), n-1, "%v of %v intervals", w.Duration, w.SeriesInterval())
	if caps.ExactSeries {
		assert.LessOrEqual(t, lateIOs(w, m), int64(w.OIO()*max(len(m.Targets), 1)), "%s: after the duration, only the I/Os in flight at its end", w)
	}
	var r, wr int64
	var rMax, wMax int64
	for i, s := range m.Seconds {
		r += s.ReadIOs
		wr += s.WriteIOs
		for _, d := range []struct {
			name string
			ios  int64
			lat  *engine.IntervalLat
			max  *int64
		}{{"read", s.ReadIOs, s.Read, &rMax}, {"write", s.WriteIOs, s.Write, &wMax}} {
			if d.ios == 0 {
				assert.Nil(t, d.lat, "interval %d: no %s I/O, no %s latency", i, d.name, d.name)
				continue
			}
			if d.lat == nil && !caps.ExactSeries {
				// Unknown, not 0: fio's latency logs are stamped apart from
				// its iops log, and a loaded host may put an interval's
				// entries in different intervals of the two.
				continue
			}
			if !assert.NotNil(t, d.lat, "interval %d: %d %ss and their latency", i, d.ios, d.name) {
				continue
			}
			l := *d.lat
			assert.Greater(t, l.MeanNs, 0.0, "interval %d %s: mean", i, d.name)
			if l.P99Ns == 0 && !caps.ExactSeries {
				// The mean only: fio without a histogram of the interval
				// from every thread.
				assert.Zero(t, l.P999Ns+l.MaxNs, "interval %d %s: no p99, no p99.9 or max", i, d.name)
				continue
			}
			assert.True(t, l.P99Ns > 0 && l.P99Ns <= l.P999Ns && l.P999Ns <= l.MaxNs, "interval %d %s: 0 < p99 %d ≤ p99.9 %d ≤ max %d",
				i, d.name, l.P99Ns, l.P999Ns, l.MaxNs)
			if l.Of == "" {
				assert.LessOrEqual(t, l.MeanNs, float64(l.MaxNs), "interval %d %s: mean ≤ max", i, d.name)
				*d.max = max(*d.max, l.MaxNs)
			}
		}
	}
	tol := 0.02
	if caps.ExactSeries {
		tol = 0
	}
	assert.InDelta(t, m.Read.IOs, r, tol*float64(m.Read.IOs), "the series' reads add up to the totals")
	assert.InDelta(t, m.Write.IOs, wr, tol*float64(m.Write.IOs), "the series' writes add up to the totals")
	if caps.ExactSeries {
		assert.Equal(t, m.Read.LatMaxNs, rMax, "the highest interval's read maximum is the measurement's")
		assert.Equal(t, m.Write.LatMaxNs, wMax, "the highest interval's write maximum is the measurement's")
	}
	if len(m.Targets) < 2 {
		return
	}
	for ti, tg := range m.Targets {
		require.NotEmpty(t, tg.Seconds, "target %d has its series", ti)
		assert.LessOrEqual(t, len(tg.Seconds), len(m.Seconds), "target %d", ti)
	}
	for i, s := range m.Seconds {
		var rr, ww int64
		for _, tg := range m.Targets {
			if i < len(tg.Seconds) {
				rr += tg.Seconds[i].ReadIOs
				ww += tg.Seconds[i].WriteIOs
				// A maximum of 0 is unknown (the mean only): nothing to compare.
				if tg.Seconds[i].Read != nil && s.Read != nil && tg.Seconds[i].Read.Of == s.Read.Of && s.Read.MaxNs > 0 {
					assert.LessOrEqual(t, tg.Seconds[i].Read.MaxNs, s.Read.MaxNs, "interval %d: a target's maximum is within the whole's", i)
				}
			}
		}
		assert.Equal(t, s.ReadIOs, rr, "interval %d: the targets' reads add up to the whole's", i)
		assert.Equal(t, s.WriteIOs, ww, "interval %d: the targets' writes add up to the whole's", i)
	}
}
