package enginetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// The workloads the suite runs, and how it runs them.

func run(t *testing.T, e engine.Engine, w engine.Workload) engine.Measurement {
	t.Helper()
	if w.Seed == 0 {
		w.Seed = 42
	}
	m, err := engine.RunCell(context.Background(), e, engine.Cell{Workload: w})
	require.NoError(t, err, w.String())
	return m
}

func rnd(read int, bs int64, tc, qd int, ar float64, d time.Duration) engine.Workload {
	return engine.Workload{Access: engine.Random, ReadPct: read, BlockSize: bs, TC: tc, QD: qd, ActiveRange: ar, Duration: d}
}

// ofIOs makes w end after about n I/Os on a target of the given capacity
// instead of after a time (a volume: Passes). The suite's statistical
// checks then rest on a known number of draws, however slow a loaded host
// makes the engine: the same workload on a busy machine takes longer, not
// fewer I/Os.
func ofIOs(w engine.Workload, n int, capacity int64) engine.Workload {
	w.Duration = 0
	w.Passes = float64(n) * w.MeanBlockSize() / float64(w.RangeBytes(capacity))
	return w
}

// lateIOs is the number of I/Os in the intervals that start at or after
// w's duration. An engine issues nothing after the duration, so where it
// bins each I/O by its completion on its own clock (ExactSeries), those
// are the I/Os that were in flight at its end: at most one queue per
// thread and target. How long they take to complete depends on the host,
// so the suite counts them instead of timing the run. fio stamps each log
// entry when it writes it, which a loaded host delays: its entries drift
// into later intervals, and only their sum is checked.
func lateIOs(w engine.Workload, m engine.Measurement) int64 {
	n := int(w.Duration / w.SeriesInterval())
	var late int64
	for i, s := range m.Seconds {
		if i >= n {
			late += s.ReadIOs + s.WriteIOs
		}
	}
	return late
}

func withRate(w engine.Workload, iops, mbps float64) engine.Workload {
	w.RateIOPS, w.RateMBps = iops, mbps
	return w
}

func withRandom(w engine.Workload, pct float64) engine.Workload {
	w.RandomPct = pct
	return w
}
