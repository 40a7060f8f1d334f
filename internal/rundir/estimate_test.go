package rundir

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/sim"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// A run's costs are its targets': a simulated drive's capacity and its
// model's sequential speed, a file's capacity at the speed assumed; the
// estimate plan prints and a run counts its time left from is its
// stages' at them.
func TestCosts(t *testing.T) {
	ctx := context.Background()
	m, _ := sim.Lookup("enterprise")
	file := "file:" + filepath.Join(t.TempDir(), "t.img") + ":64M"
	for _, tc := range []struct {
		target   string
		capacity int64
		source   string
	}{
		{"sim", m.UserBytes, "the simulated drive's model"},
		{file, 64 << 20, "assumed 1000 MB/s (the device's speed is known only when it runs)"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			cfg := pts.DefaultConfig()
			cfg.Targets, cfg.Tests, cfg.Engine = []string{tc.target}, []pts.TestID{pts.IOPS, pts.WSAT}, ""
			c, err := CheckRun(ctx, cfg, false)
			require.NoError(t, err)
			costs := c.Costs(ctx)
			assert.Equal(t, tc.capacity, costs.Capacity)
			assert.Equal(t, tc.capacity, costs.SetCapacity)
			assert.Equal(t, tc.source, costs.SeqSource)
			assert.Positive(t, costs.SeqMBps)
			assert.Equal(t, cfg.SS.Window, costs.Window)
			e := c.Estimate(ctx)
			assert.Equal(t, pts.EstimateRun(c.Config.Stages(c.Profile), costs), e)
			require.Len(t, e.Stages, 2)
			assert.Equal(t, e.Stages[0].Min+e.Stages[1].Min, e.Min)
			assert.Equal(t, e.Stages[0].Max+e.Stages[1].Max, e.Max)
		})
	}
}
