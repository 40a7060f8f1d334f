package fio

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

func TestParseStatus(t *testing.T) {
	for _, tc := range []struct {
		line string
		iv   time.Duration
		want engine.Second
		ok   bool
	}{
		{"Jobs: 1 (f=1): [m(1)][40.0%][r=150MiB/s,w=64.5MiB/s][r=38.3k,w=16.5k IOPS][eta 00m:03s]", time.Second,
			engine.Second{ReadIOs: 38300, WriteIOs: 16500, ReadBytes: 150 << 20, WriteBytes: 67633152}, true},
		{"Jobs: 1 (f=1): [r(1)][-.-%][r=266MiB/s][r=68.1k IOPS][eta 00m:00s]", 500 * time.Millisecond,
			engine.Second{ReadIOs: 34050, ReadBytes: 133 << 20}, true},
		{"Jobs: 1 (f=1): [w(1)][-.-%][w=980KiB/s][w=245 IOPS][eta 00m:00s] ", time.Second,
			engine.Second{WriteIOs: 245, WriteBytes: 980 << 10}, true},
		{"Jobs: 2 (f=2): [m(2)][10.0%][r=1.2GB/s,w=0KB/s][r=1.05M,w=0 IOPS][eta 01m:30s]", time.Second,
			engine.Second{ReadIOs: 1_050_000, ReadBytes: 1_200_000_000}, true},
		{"Jobs: 1 (f=1)", time.Second, engine.Second{}, false},
		{"Jobs: 1 (f=1): [m(1)][-.-%][r=0KiB/s,w=0KiB/s][r=0,w=0 IOPS][eta 00m:00s]", time.Second, engine.Second{}, false},
		{"random text [r=5] IOPS", time.Second, engine.Second{}, false},
	} {
		got, ok := parseStatus(tc.line, tc.iv)
		assert.Equal(t, tc.ok, ok, tc.line)
		assert.Equal(t, tc.want, got, tc.line)
	}
}

// The feed reports each interval once, from the first status line in it,
// and nothing while its fio is held; a line after the cell's time is its
// last interval's. Reports come from the reporter's goroutine: all are in
// once the feed is closed.
func TestLiveFeed(t *testing.T) {
	var mu sync.Mutex
	var got []int
	ctx := engine.WithIntervalFunc(context.Background(), func(i int, s engine.Second) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, i)
	})
	f := newLiveFeed(ctx, engine.Workload{Duration: 10 * time.Second, Ramp: time.Second})
	line := "Jobs: 1 (f=1): [r(1)][-.-%][r=266MiB/s][r=68.1k IOPS][eta 00m:00s]\r"
	_, _ = f.Write([]byte(line)) // held: no interval has begun
	f.begin(time.Now().Add(-2500 * time.Millisecond))
	_, _ = f.Write([]byte(line[:20]))
	_, _ = f.Write([]byte(line[20:] + line)) // a line split over writes; the interval once
	f.begin(time.Now().Add(-11 * time.Second))
	_, _ = f.Write([]byte(line))
	_, _ = f.Write([]byte(strings.Repeat("x", 5000)))
	assert.Empty(t, f.buf, "what is not a status line is not kept")
	f.close()
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []int{2, 9}, got)
}

// Through a real fio, the status lines reach the progress while the cell
// runs, with the cell's mix.
func TestLiveFeedFromFio(t *testing.T) {
	t.Parallel() // fio processes on targets of its own: beside the others
	enginetest.NeedFio(t)
	path := enginetest.TempFile(t, 64<<20)
	e, err := Open([]Target{{Name: path, Path: path, Size: 64 << 20, LogicalBlock: 512}}, Options{WorkDir: t.TempDir()})
	require.NoError(t, err)
	defer e.Close()
	var mu sync.Mutex
	var got []engine.Second
	var at []int
	ctx := engine.WithIntervalFunc(context.Background(), func(i int, s engine.Second) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, s)
		at = append(at, i)
	})
	w := engine.Workload{Access: engine.Random, ReadPct: 70, BlockSize: 4096, TC: 1, QD: 4, ActiveRange: 100, Duration: 5 * time.Second, Seed: 1}
	m, err := engine.RunCell(ctx, e, engine.Cell{Workload: w})
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, got, "fio's status lines, reported while it ran")
	assert.Positive(t, m.Total().IOs)
	last := got[len(got)-1]
	assert.Positive(t, last.ReadIOs)
	assert.Positive(t, last.WriteIOs)
	// What a loaded host cannot change: each of the cell's intervals is
	// reported at most once, in order, and none past the cell's; and each
	// line's figures are one measurement of fio's, its bytes per I/O the
	// block size but for the rounding of fio's display (two significant
	// digits at least: within 5 %, counted from a hundred I/Os up).
	for k, i := range at {
		assert.GreaterOrEqual(t, i, 0)
		assert.Less(t, i, int(w.Duration/w.SeriesInterval()), "interval %d of a %v cell", i, w.Duration)
		if k > 0 {
			assert.Greater(t, i, at[k-1], "intervals in order, each once")
		}
	}
	for k, s := range got {
		for _, d := range []struct {
			ios, bytes int64
		}{{s.ReadIOs, s.ReadBytes}, {s.WriteIOs, s.WriteBytes}} {
			if d.ios >= 100 {
				assert.InEpsilon(t, float64(w.BlockSize), float64(d.bytes)/float64(d.ios), 0.05,
					"status line %d: %d bytes for %d I/Os", k, d.bytes, d.ios)
			}
		}
	}
	// The lines carry the cell's mix. Their rates are fio's display over
	// its own status periods, so how many I/Os they stand for depends on
	// the host; the mix does not. The bound: five standard deviations of a
	// binomial share of the I/Os reported, counted as if the periods were
	// half as long as the interval (a late status line covers less), plus
	// one point for fio's three significant digits.
	var r, n float64
	for _, s := range got {
		r += float64(s.ReadIOs)
		n += float64(s.ReadIOs + s.WriteIOs)
	}
	require.Positive(t, n)
	bound := 100*5*math.Sqrt(0.7*0.3/(n/2)) + 1
	assert.InDelta(t, 70, 100*r/n, bound, "the read share of %.0f I/Os in %d status lines", n, len(got))
}
