package native

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// reports collects what a series reports live.
type reports struct {
	mu  sync.Mutex
	idx []int
	sec []engine.Second
}

func (r *reports) ctx() context.Context {
	return engine.WithIntervalFunc(context.Background(), func(i int, s engine.Second) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.idx = append(r.idx, i)
		r.sec = append(r.sec, s)
	})
}

// check: intervals reported once each, in order, as they ended up in the
// series. A receiver more than the reporter's backlog behind misses some
// (engine.IntervalReporter: progress may skip, the series keeps them all);
// one that keeps up, as these do with a series this short, misses none.
func (r *reports) check(t *testing.T, all []engine.Second) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(all) <= 64 {
		require.Len(t, r.idx, len(all))
	}
	require.NotEmpty(t, r.idx)
	for k, i := range r.idx {
		if k > 0 {
			assert.Greater(t, i, r.idx[k-1], "reported in order, once each")
		}
		assert.Equal(t, all[i], r.sec[k])
	}
}

func TestSeriesOutOfStep(t *testing.T) {
	var rep reports
	// Producers 0 and 1 drive target 0, producer 2 target 1.
	s := newSeries(rep.ctx(), 2, 1, []int{0, 0, 1})
	rec := make([]*recorder, 3)
	for p := range rec {
		rec[p] = &recorder{ser: s, p: p}
	}
	// Summarised, and so queued for the receiver, which reports them
	// from a goroutine of its own (checked once the series is whole).
	reported := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.all)
	}

	rec[0].record(true, 100, 4096)
	rec[1].record(false, 200, 8192)
	rec[2].record(true, 300, 4096)
	rec[0].at(1)
	rec[0].record(true, 110, 4096)
	rec[0].at(2)
	assert.Zero(t, reported(), "interval 0 waits for producers 1 and 2")
	rec[1].at(1)
	assert.Zero(t, reported())
	// Producer 2 slept through intervals 1 to 3: it passes them as empty.
	rec[2].at(4)
	assert.Equal(t, 1, reported(), "interval 0 is whole; 1 waits for producer 1")
	rec[2].record(false, 900, 4096)
	rec[1].record(true, 120, 4096)
	rec[1].at(3)
	assert.Equal(t, 2, reported(), "interval 1 is whole; 2 waits for producer 0")
	rec[0].done()
	assert.Equal(t, 3, reported())
	rec[1].done()
	assert.Equal(t, 4, reported(), "interval 3: producer 2 passed it, producer 1 finished")
	rec[2].done()

	all, per := s.result()
	check := func(s engine.Second, r, w int64) {
		t.Helper()
		assert.Equal(t, r, s.ReadIOs)
		assert.Equal(t, w, s.WriteIOs)
		assert.Equal(t, r*4096, s.ReadBytes)
		assert.Equal(t, r > 0, s.Read != nil)
		assert.Equal(t, w > 0, s.Write != nil)
	}
	require.Len(t, all, 5, "to producer 2's last interval")
	check(all[0], 2, 1)
	check(all[1], 2, 0)
	check(all[2], 0, 0)
	check(all[3], 0, 0)
	check(all[4], 0, 1)
	assert.True(t, all[0].Ramp)
	assert.False(t, all[1].Ramp)
	assert.InDelta(t, 200.0, all[0].LatMeanNs, 0.01)
	require.NotNil(t, all[0].Write)
	assert.Equal(t, int64(200), all[0].Write.MaxNs)
	assert.Equal(t, int64(300), all[0].Read.MaxNs)
	assert.Equal(t, int64(900), all[4].Write.MaxNs)

	require.Len(t, per, 2)
	require.Len(t, per[0], 5)
	require.Len(t, per[1], 5)
	check(per[0][0], 1, 1)
	check(per[1][0], 1, 0)
	check(per[0][1], 2, 0)
	check(per[1][4], 0, 1)
	assert.Equal(t, int64(100), per[0][0].Read.MaxNs)
	assert.True(t, per[1][0].Ramp)
	rep.check(t, all)
	assert.LessOrEqual(t, s.made, 3)
}

// TestSeriesBounded: a long run of threads in loose step holds only the
// intervals between the slowest and the fastest, and reuses their slots.
func TestSeriesBounded(t *testing.T) {
	var rep reports
	const producers, intervals = 4, 1000
	s := newSeries(rep.ctx(), 1, 0, make([]int, producers))
	rec := make([]*recorder, producers)
	for p := range rec {
		rec[p] = &recorder{ser: s, p: p}
	}
	for i := 0; i < intervals; i++ {
		for p, r := range rec {
			// Producer p runs p intervals ahead of producer 0.
			r.at(i + p)
			r.record(i%2 == 0, int64(1000+i), 512)
		}
		assert.LessOrEqual(t, len(s.open), producers, "interval %d", i)
	}
	for _, r := range rec {
		r.done()
	}
	all, per := s.result()
	assert.Nil(t, per, "one target: no per-target series")
	require.Len(t, all, intervals+producers-1)
	var ios int64
	for _, sec := range all {
		ios += sec.ReadIOs + sec.WriteIOs
	}
	assert.Equal(t, int64(producers*intervals), ios)
	assert.LessOrEqual(t, s.made, producers+1, "slots are reused, not one per interval")
	rep.check(t, all)
}

// TestSeriesConcurrent: producers on their own goroutines, out of step and
// skipping intervals, give every I/O to its interval and every interval to
// the report once, in order (run with -race).
func TestSeriesConcurrent(t *testing.T) {
	var rep reports
	const producers, intervals = 6, 400
	of := []int{0, 1, 2, 0, 1, 2}
	s := newSeries(rep.ctx(), 3, 10, of)
	want := make([][3]int64, intervals+3) // per interval, per target: I/Os
	var wantMu sync.Mutex
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(p), 1))
			r := &recorder{ser: s, p: p}
			for i := 0; i < intervals; i++ {
				if rng.IntN(5) == 0 {
					i += rng.IntN(4) // skips intervals
				}
				r.at(i)
				n := rng.IntN(3)
				for range n {
					r.record(rng.IntN(2) == 0, int64(1+rng.IntN(1e6)), 4096)
				}
				wantMu.Lock()
				want[r.cur][of[p]] += int64(n)
				wantMu.Unlock()
			}
			r.done()
		}()
	}
	wg.Wait()
	all, per := s.result()
	require.LessOrEqual(t, len(all), len(want))
	require.Len(t, per, 3)
	for i, sec := range all {
		var sum int64
		for k := range 3 {
			require.Len(t, per[k], len(all))
			assert.Equal(t, want[i][k], per[k][i].ReadIOs+per[k][i].WriteIOs, "interval %d target %d", i, k)
			sum += want[i][k]
		}
		assert.Equal(t, sum, sec.ReadIOs+sec.WriteIOs, "interval %d", i)
		assert.Equal(t, i < 10, sec.Ramp)
	}
	rep.check(t, all)
}
