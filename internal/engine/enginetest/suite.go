package enginetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Target is one target of the engine under test.
type Target struct {
	Name         string
	Path         string // a file to read back written data from; "" when there is none
	Capacity     int64
	LogicalBlock int64
}

// Opener opens the engine under test on n targets, tracing the first I/Os
// of every thread.
type Opener func(t *testing.T, n int) (engine.Engine, []Target)

// Caps says what an engine can be asked.
type Caps struct {
	// ReadBack: targets are files whose written data can be read back.
	ReadBack bool
	// MinIOs is the I/O count a 2-second 4 KiB random workload reaches at
	// least on this engine's targets (the mix assertion needs 10 000).
	MinIOs int64
	// Virtual: the engine's time is a model's (the simulated drive), so a
	// cell takes next to no wall time.
	Virtual bool
	// ForeignPacing: another program keeps the rate cap (fio), whose CPU
	// time is its own affair: fio 3.33 paces by sleeping, yet now and then
	// takes a whole CPU for a 3000 IOPS job (measured: 0.2 to 1.5 CPU
	// seconds in 3 s, for one and the same job file), so the suite does
	// not bound it.
	ForeignPacing bool
	// GenerationCovered: the engine's I/O generation (mixes, queue depth,
	// block-size splits, zones, rate caps, ramps, random shares) is checked
	// on another kind of target of the same engine, and this kind adds
	// nothing to it (files beside loop devices): those subtests skip, so
	// that the suite's time goes to what each kind of target changes.
	GenerationCovered bool
	// OwnSeries: on this kind of target the engine gathers its series its
	// own way (fio servers send their logs back, histograms included), so
	// the subtests of the series and the ramp run even where the I/O
	// generation is GenerationCovered.
	OwnSeries bool
	// LiveSeries: the engine reports each interval of its series as it
	// completes (engine.WithIntervalFunc), for progress.
	LiveSeries bool
	// ExactSeries: the series' intervals add up to the totals exactly
	// (the engine counts both itself); otherwise within 2 % (fio's logs).
	ExactSeries bool
	// DepthBuckets: the engine counts its queue depth in power-of-two
	// buckets (fio's iodepth_level: 1, 2, 4, … 64), so MaxDepth is the
	// lower bound of QD's bucket rather than QD itself.
	DepthBuckets bool
	// NoStreamMix: the engine cannot run a stream mix exactly
	// (engine.Workload.Streams: fio), and refuses it.
	NoStreamMix bool
}

// seriesOnly skips a subtest of the series (and the ramp's part in it) on
// a kind of target that adds nothing to how the engine gathers it.
func seriesOnly(t *testing.T, caps Caps) {
	if caps.GenerationCovered && !caps.OwnSeries {
		t.Skip("the engine's series is checked on its other kind of target")
	}
}

// generationOnly skips a subtest of the engine's I/O generation on a kind
// of target whose engine has it checked on another.
func generationOnly(t *testing.T, caps Caps) {
	if caps.GenerationCovered {
		t.Skip("the engine's I/O generation is checked on its other kind of target")
	}
}

// A check is one subtest of the suite, under its name: a backend runs one
// alone with -run, e.g. go test -run 'TestConformanceFiles/RateCap$'
// ./internal/engine/native.
type check struct {
	name string
	run  func(t *testing.T, open Opener, caps Caps)
}

// checks are the suite, in the order it runs them.
var checks = []check{
	{"CellsOneAfterTheOther", cellsOneAfterTheOther},
	{"BlockSizeAlignmentRange", blockSizeAlignmentRange},
	{"Mix", mix},
	{"SequentialStreams", sequentialStreams},
	{"InFlight", inFlight},
	{"Duration", duration},
	{"PercentilesOrdered", percentilesOrdered},
	{"TwoTargetsMergeExactly", twoTargetsMergeExactly},
	{"Series", series},
	{"Passes", passes},
	{"DurationAndPasses", durationAndPasses},
	{"BlockSplit", blockSplit},
	{"Zones", zones},
	{"BlockSplitAndZones", blockSplitAndZones},
	{"RateCap", rateCap},
	{"Ramp", ramp},
	{"RandomShare", randomShare},
	{"StreamMix", streamMix},
	{"WrittenDataIncompressible", writtenDataIncompressible},
}

// Run runs the suite, each check a subtest of its own name. The checks
// mostly wait on cells of real I/O of fixed times on targets of their own,
// (and fio servers, which serve one client at a time), and count what was
// done rather than time it: they run beside each other. The one figure another check's work would disturb,
// the CPU time of a paced engine, is PacedThreadsSleep's, a test of its own.
func Run(t *testing.T, open Opener, caps Caps) {
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, open, caps)
		})
	}
}

func cellsOneAfterTheOther(t *testing.T, open Opener, caps Caps) {
	e, _ := open(t, 1)
	cells := []engine.Cell{
		{Name: "reads", Workload: rnd(100, 4096, 1, 4, 100, 500*time.Millisecond)},
		{Name: "writes", Workload: rnd(0, 4096, 1, 4, 100, 500*time.Millisecond)},
		{Name: "mixed", Workload: rnd(50, 8192, 1, 4, 100, 500*time.Millisecond)},
	}
	for i := range cells {
		cells[i].Workload.Seed = uint64(i + 1)
	}
	var order []int
	var returned time.Time
	err := e.RunCells(context.Background(), "cells", cells, func(i int, m engine.Measurement, wall time.Duration) error {
		order = append(order, i)
		assert.NotZero(t, m.Total().IOs, "cell %d", i)
		assert.Positive(t, wall, "cell %d", i)
		switch i {
		case 0:
			assert.Zero(t, m.Write.IOs, "cell 0 reads only: done gets each cell's own measurement")
			// The next cell waits for this: a caller journals here.
			time.Sleep(300 * time.Millisecond)
		case 1:
			assert.Zero(t, m.Read.IOs, "cell 1 writes only")
		}
		if i > 0 && !caps.Virtual {
			assert.GreaterOrEqual(t, time.Since(returned), m.Elapsed*9/10,
				"cell %d did I/O before done had returned for cell %d", i, i-1)
		}
		returned = time.Now()
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, order)

	// An error from done stops the cells and comes back as it is.
	stop := errors.New("journal full")
	calls := 0
	err = e.RunCells(context.Background(), "cells", cells[:2], func(int, engine.Measurement, time.Duration) error {
		calls++
		return stop
	})
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 1, calls, "no cell after the one done refused")

	// Cancelled between cells: no further cell, ctx's error.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls = 0
	err = e.RunCells(ctx, "cells", cells[:2], func(int, engine.Measurement, time.Duration) error {
		calls++
		cancel()
		return nil
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, calls)
}

func blockSizeAlignmentRange(t *testing.T, open Opener, caps Caps) {
	e, ts := open(t, 1)
	for _, w := range []engine.Workload{
		rnd(50, 4096, 2, 4, 50, 0),
		rnd(30, 512, 1, 8, 100, 0),
		rnd(70, 64<<10, 2, 2, 25, 0),
		rnd(50, 4096, 2, 1, 50, 0), // QD1: one I/O at a time, an engine's shortest path
	} {
		w = ofIOs(w, 2*minTrace, ts[0].Capacity)
		m := run(t, e, w)
		tot := m.Total()
		require.NotZero(t, tot.IOs, w.String())
		assert.Equal(t, tot.IOs*w.BlockSize, tot.Bytes, "%s: every I/O is exactly the block size", w)
		ar := w.RangeBytes(ts[0].Capacity)
		require.NotEmpty(t, m.Trace, "%s: no trace", w)
		for _, io := range m.Trace {
			require.Equal(t, w.BlockSize, io.Size, w.String())
			require.Zero(t, io.Offset%w.BlockSize, "%s: offset %d not aligned", w, io.Offset)
			require.Zero(t, io.Offset%ts[0].LogicalBlock, w.String())
			require.GreaterOrEqual(t, io.Offset, int64(0))
			require.LessOrEqual(t, io.Offset+io.Size, ar, "%s: offset %d outside the active range %d", w, io.Offset, ar)
		}
		// Uniform over the range: half of the I/Os in each half of it.
		low := 0
		for _, io := range m.Trace {
			if io.Offset < ar/2 {
				low++
			}
		}
		require.GreaterOrEqual(t, len(m.Trace), minTrace, "%s: too few traced I/Os for the statistics", w)
		binomialOK(t, low, len(m.Trace), 0.5, "%s: I/Os in the lower half of the range", w)
	}
}

func mix(t *testing.T, open Opener, caps Caps) {
	generationOnly(t, caps)
	e, ts := open(t, 1)
	for _, read := range []int{70, 5, 100, 0} {
		w := ofIOs(rnd(read, 4096, 2, 16, 100, 0), 10000, ts[0].Capacity)
		m := run(t, e, w)
		tot := m.Total()
		// The volume is 10 000 I/Os, whole I/Os per thread.
		assert.InDelta(t, 10000, tot.IOs, float64(w.TC), "%s: the volume's I/Os", w)
		binomialOK(t, int(m.Read.IOs), int(tot.IOs), float64(read)/100, "%s: reads", w)
		if read == 100 {
			assert.Zero(t, m.Write.IOs)
		}
		if read == 0 {
			assert.Zero(t, m.Read.IOs)
		}
	}
}

func sequentialStreams(t *testing.T, open Opener, caps Caps) {
	e, ts := open(t, 1)
	for _, w := range []engine.Workload{
		{Access: engine.Sequential, ReadPct: 100, BlockSize: 64 << 10, TC: 2, QD: 4, ActiveRange: 100, Duration: time.Second},
		{Access: engine.Sequential, ReadPct: 0, BlockSize: 128 << 10, TC: 1, QD: 8, ActiveRange: 50, Duration: time.Second},
	} {
		m := run(t, e, w)
		ar := w.RangeBytes(ts[0].Capacity)
		region := ar / int64(w.TC) / w.BlockSize * w.BlockSize
		streams := map[int64][]int64{}
		for _, io := range m.Trace {
			r := io.Offset / region
			require.Less(t, r, int64(w.TC), "%s: offset %d beyond the streams' regions", w, io.Offset)
			streams[r] = append(streams[r], io.Offset)
		}
		require.Len(t, streams, w.TC, "%s: every thread is a stream of its own part of the range", w)
		for r, offs := range streams {
			for i := 1; i < len(offs); i++ {
				next := offs[i-1] + w.BlockSize
				if next+w.BlockSize > (r+1)*region {
					next = r * region // wrap to the start of the region
				}
				require.Equal(t, next, offs[i], "%s: stream %d is not sequential at I/O %d", w, r, i)
			}
		}
	}
}

func inFlight(t *testing.T, open Opener, caps Caps) {
	// The queue depth the engine reached, as it counted it: a loaded
	// host changes how long the I/Os stay in flight (and so the mean
	// in flight), not how many a thread keeps queued.
	generationOnly(t, caps)
	e, ts := open(t, 1)
	for _, w := range []engine.Workload{
		rnd(100, 4096, 2, 8, 100, 0),
		rnd(0, 4096, 1, 4, 100, 0),
		rnd(70, 4096, 1, 1, 100, 0),
		rnd(50, 8192, 2, 32, 100, 0),
	} {
		w = ofIOs(w, 4000, ts[0].Capacity)
		m := run(t, e, w)
		if caps.DepthBuckets {
			assert.True(t, m.MaxDepth <= w.QD && w.QD < 2*m.MaxDepth,
				"%s: the deepest queue, %d, is the bottom of QD's bucket", w, m.MaxDepth)
		} else {
			assert.Equal(t, w.QD, m.MaxDepth, "%s: the deepest queue of a thread", w)
		}
	}
}

func duration(t *testing.T, open Opener, caps Caps) {
	e, _ := open(t, 1)
	w := rnd(50, 4096, 1, 4, 100, 2*time.Second)
	m := run(t, e, w)
	// The engine does not stop early. How long after the duration its
	// last I/Os complete is the host's affair: the suite counts them.
	assert.GreaterOrEqual(t, m.Elapsed, 1950*time.Millisecond)
	if caps.ExactSeries {
		assert.LessOrEqual(t, lateIOs(w, m), int64(w.OIO()), "%s: after the duration, only the I/Os in flight at its end", w)
	}
	// The seconds add up to the total: exactly where the engine counts
	// both, within 2 % of fio's logs. (Which second holds how many is
	// the host's affair: on a loaded host a whole second may pass with
	// none completing.)
	require.GreaterOrEqual(t, len(m.Seconds), 1)
	var n int64
	for _, s := range m.Seconds {
		n += s.ReadIOs + s.WriteIOs
	}
	tot := m.Total().IOs
	if caps.ExactSeries {
		assert.Equal(t, tot, n, "the seconds add up to the total")
	} else {
		assert.InDelta(t, tot, n, float64(tot)/50, "the seconds add up to the total")
	}
}

func percentilesOrdered(t *testing.T, open Opener, caps Caps) {
	e, _ := open(t, 1)
	m := run(t, e, rnd(65, 8192, 2, 8, 100, 2*time.Second))
	for _, d := range []engine.DirStats{m.Read, m.Write, m.Total()} {
		prev := d.LatMinNs
		for _, p := range []float64{50, 90, 99, 99.9, 99.99, 99.999} {
			v := d.PercentileNs(p)
			assert.GreaterOrEqual(t, v, prev, "p%v", p)
			prev = v
		}
		assert.LessOrEqual(t, prev, d.LatMaxNs)
		assert.LessOrEqual(t, float64(d.LatMinNs), d.MeanLatNs())
		assert.LessOrEqual(t, d.MeanLatNs(), float64(d.LatMaxNs))
		require.NotNil(t, d.Hist)
		assert.Equal(t, d.IOs, d.Hist.Count(), "the histogram counts every I/O")
	}
}

func twoTargetsMergeExactly(t *testing.T, open Opener, caps Caps) {
	e, ts := open(t, 2)
	m := run(t, e, rnd(50, 4096, 1, 8, 100, time.Second))
	require.Len(t, m.Targets, 2)
	merged := engine.NewHistogram()
	var ios int64
	for i, tg := range m.Targets {
		assert.Equal(t, ts[i].Name, tg.Target)
		tot := engine.DirStats{}
		tot.Merge(tg.Read)
		tot.Merge(tg.Write)
		assert.NotZero(t, tot.IOs, "target %d did I/O", i)
		merged.Merge(tot.Hist)
		ios += tot.IOs
	}
	all := m.Total()
	assert.Equal(t, all.IOs, ios)
	assert.True(t, merged.Equal(all.Hist), "merging the targets' histograms gives the aggregate exactly")
	seen := map[int]bool{}
	for _, io := range m.Trace {
		seen[io.Target] = true
	}
	assert.Len(t, seen, 2, "both targets are loaded at once")
}

func series(t *testing.T, open Opener, caps Caps) {
	seriesOnly(t, caps)
	e, _ := open(t, 2)
	w := rnd(70, 4096, 2, 4, 100, 2*time.Second)
	w.Interval = 500 * time.Millisecond
	w.Seed = 42
	var live []engine.Second
	var liveIdx []int
	var mu sync.Mutex
	ctx := engine.WithIntervalFunc(context.Background(), func(i int, s engine.Second) {
		mu.Lock()
		defer mu.Unlock()
		live = append(live, s)
		liveIdx = append(liveIdx, i)
	})
	m, err := engine.RunCell(ctx, e, engine.Cell{Workload: w})
	require.NoError(t, err)
	checkSeries(t, w, m, caps)
	if caps.LiveSeries {
		mu.Lock()
		defer mu.Unlock()
		require.NotEmpty(t, live, "intervals are reported as they complete")
		for k, i := range liveIdx {
			require.Less(t, i, len(m.Seconds))
			if k > 0 {
				assert.Greater(t, i, liveIdx[k-1], "in order")
			}
			assert.Equal(t, m.Seconds[i].ReadIOs+m.Seconds[i].WriteIOs, live[k].ReadIOs+live[k].WriteIOs,
				"interval %d is reported as it is recorded", i)
		}
		assert.GreaterOrEqual(t, len(live), len(m.Seconds)-1, "every interval but perhaps the last, cut short, is reported")
	}
}

func passes(t *testing.T, open Opener, caps Caps) {
	e, ts := open(t, 1)
	w := engine.Workload{Access: engine.Sequential, BlockSize: 128 << 10, TC: 1, QD: 8, ActiveRange: 25, Passes: 1}
	m := run(t, e, w)
	assert.Equal(t, w.RangeBytes(ts[0].Capacity), m.Write.Bytes, "one pass writes the active range exactly once")
}
