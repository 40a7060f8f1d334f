package native

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPollerBudget(t *testing.T) {
	const base = 50_000
	for _, tc := range []struct {
		name  string
		auto  bool
		waits []int64
		n     int // completions per wait; 0: 1
		want  int64
	}{
		{"no waits yet", true, nil, 0, base},
		{"completions within the base", true, []int64{10_000, 20_000}, 0, base},
		{"1 MiB writes every 130 us", true, []int64{130_000, 130_000, 130_000}, 0, 260_000},
		{"at the stretch's bound", true, []int64{MaxAutoPoll / 2}, 0, MaxAutoPoll},
		{"just past the stretch's bound", true, []int64{MaxAutoPoll/2 + 1}, 0, base},
		// An average, not the last wait: one slow wait (900 us, which
		// alone would be slept through) moves it by an eighth.
		{"one slow wait among fast ones", true, []int64{100_000, 900_000}, 0, 2 * (100_000 + 800_000/8)},
		{"a slow device: slept through", true, []int64{5_000_000}, 0, base},
		{"fixed budget does not stretch", false, []int64{130_000}, 0, base},
		// A negative wait (a clock step) counts as 0, a completion that
		// was there already: below the floor.
		{"negative wait counts as 0", true, []int64{-5}, 0, 0},
		{"negative wait, fixed budget", false, []int64{-5}, 0, base},
		// The average follows a change: after the slow waits, fast ones
		// bring the budget back within the bound.
		{"slow then fast", true, append([]int64{5_000_000}, repeat(100_000, 80)...), 0, 200_000},
		// Completions closer together than MinPollGap apiece are slept
		// for: one every 5 us polled, or four after a 20 us sleep.
		{"a completion every 5 us", true, repeat(5_000, 4), 1, 0},
		{"four completions after a 20 us sleep", true, repeat(20_000, 4), 4, 0},
		{"one completion after a 20 us sleep", true, repeat(20_000, 4), 1, base},
		{"two completions after a 20 us sleep: at the floor", true, repeat(20_000, 4), 2, base},
		{"a fixed budget polls however close", false, repeat(5_000, 4), 1, base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPoller(base, tc.auto, 32)
			for _, w := range tc.waits {
				p.waited(w, tc.n)
			}
			got := p.budget()
			if tc.name == "slow then fast" {
				// The slow wait's share decays: near 2 x 100 us.
				require.InDelta(t, tc.want, got, 5_000)
				return
			}
			require.Equal(t, tc.want, got)
		})
	}
	// Polling off stays off, whatever the waits.
	p := newPoller(0, true, 32)
	p.waited(100_000, 1)
	require.Zero(t, p.budget())
}

// The floor holds through a sleeping thread's slow wake-ups: waits of
// 12 us for 3 completions, then two of 40 us for one. The averages'
// quotient stays at 7.4 us a completion, below the floor; a mean of each
// wait's quotient would have reached 12 and polled.
func TestPollerFloorHolds(t *testing.T) {
	p := newPoller(50_000, true, 32)
	for range 8 {
		p.waited(12_000, 3)
	}
	require.Zero(t, p.budget())
	p.waited(40_000, 1)
	p.waited(40_000, 1)
	require.Zero(t, p.budget(), "gap %d ns over %.2f completions", p.gap, p.reaped)
	// A thread whose completions come apart (QD1, or a slow device)
	// polls again within a few waits.
	for range 8 {
		p.waited(16_000, 1)
	}
	require.Equal(t, int64(50_000), p.budget())
}

// At a depth of 1 there is no batch to wake to: the floor does not
// apply, and a device faster than it is polled, its waits 7 us polled or
// 18 us woken alike.
func TestPollerNoFloorAtDepthOne(t *testing.T) {
	p := newPoller(50_000, true, 1)
	for _, w := range []int64{7_000, 18_000, 7_000, 7_000, 18_000, 7_000, 7_000, 7_000} {
		p.waited(w, 1)
		require.Equal(t, int64(50_000), p.budget(), "after a wait of %d ns", w)
	}
	q := newPoller(50_000, true, 2)
	for range 8 {
		q.waited(7_000, 1)
	}
	require.Zero(t, q.budget(), "from a depth of 2 the floor applies")
}

func repeat(v int64, n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// close follows the wait per completion, whether or not the budget is the
// automatic one: the eager submission asks it at any polling setting.
func TestPollerClose(t *testing.T) {
	for _, tc := range []struct {
		name string
		auto bool
		wait int64
		n    int
		want bool
	}{
		{"no waits yet", true, -1, 0, false},
		{"a completion every 5 us", true, 5_000, 1, true},
		{"a completion every 5 us, polling off", false, 5_000, 1, true},
		{"four after a 20 us sleep", false, 20_000, 4, true},
		{"one every 20 us", false, 20_000, 1, false},
		{"one every 10 us: at the floor", true, 10_000, 1, false},
	} {
		p := newPoller(0, tc.auto, 32)
		if tc.auto {
			p = newPoller(50_000, true, 32)
		}
		for range 16 {
			if tc.wait >= 0 {
				p.waited(tc.wait, tc.n)
			}
		}
		require.Equal(t, tc.want, p.close(), tc.name)
	}
}
