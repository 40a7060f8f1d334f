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
		want  int64
	}{
		{"no waits yet", true, nil, base},
		{"completions within the base", true, []int64{10_000, 20_000}, base},
		{"1 MiB writes every 130 us", true, []int64{130_000, 130_000, 130_000}, 260_000},
		{"at the stretch's bound", true, []int64{MaxAutoPoll / 2}, MaxAutoPoll},
		{"just past the stretch's bound", true, []int64{MaxAutoPoll/2 + 1}, base},
		// An average, not the last wait: one slow wait (900 us, which
		// alone would be slept through) moves it by an eighth.
		{"one slow wait among fast ones", true, []int64{100_000, 900_000}, 2 * (100_000 + 800_000/8)},
		{"a slow device: slept through", true, []int64{5_000_000}, base},
		{"fixed budget does not stretch", false, []int64{130_000}, base},
		{"negative wait counts as none", true, []int64{-5}, base},
		// The average follows a change: after the slow waits, fast ones
		// bring the budget back within the bound.
		{"slow then fast", true, append([]int64{5_000_000}, repeat(100_000, 80)...), 200_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPoller(base, tc.auto)
			for _, w := range tc.waits {
				p.waited(w)
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
	p := newPoller(0, true)
	p.waited(100_000)
	require.Zero(t, p.budget())
}

func repeat(v int64, n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = v
	}
	return s
}
