package matrix

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/sim"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// failing is the simulated drive with an I/O error at its n-th workload.
type failing struct {
	engine.Engine
	runs, at int
}

func (f *failing) RunCells(ctx context.Context, _ string, cells []engine.Cell, done func(int, engine.Measurement, time.Duration) error) error {
	return engine.RunEach(ctx, cells, done, func(ctx context.Context, w engine.Workload) (engine.Measurement, error) {
		if f.runs++; f.runs == f.at {
			return engine.Measurement{}, errors.Join(engine.ErrIO, errors.New("pwrite: input/output error"))
		}
		return engine.RunCell(ctx, f.Engine, engine.Cell{Workload: w})
	})
}

// A time series stopped by an I/O error keeps what it measured: the
// results have its samples and summary, and the verdict says the error
// stopped it after that many steps.
func TestTimelineStoppedByAnError(t *testing.T) {
	dir := t.TempDir()
	c := pts.DefaultConfig()
	c.Targets, c.Tests, c.Params = []string{"sim:enterprise"}, []pts.TestID{pts.XSR}, map[string]string{"xsr-groups": "10m,5m,10m"}
	p, err := c.Resolve()
	require.NoError(t, err)
	m, _ := sim.Lookup("enterprise")
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: "test", Config: c, Profile: p, Stages: c.Stages(p),
		Targets: []device.Identity{{Spec: "sim:enterprise", Kind: device.KindSim, CapacityBytes: m.UserBytes}}}
	ri.Stages[0].Purge = false // matrix reads records; the purge is not what this is about
	require.NoError(t, pts.WriteRunInfo(dir, ri))
	eng, err := sim.Open([]sim.Target{{Name: "sim:enterprise", Model: m}})
	require.NoError(t, err)
	defer eng.Close()
	j, err := pts.OpenJournal(dir)
	require.NoError(t, err)
	r := &pts.Runner{Info: ri, Engine: &failing{Engine: eng, at: 8}, Journal: j, Cache: eng}
	require.ErrorIs(t, r.Run(context.Background(), nil), engine.ErrIO)
	require.NoError(t, j.Close())

	recs, cut, err := pts.LoadJournal(dir)
	require.NoError(t, err)
	res := Build(ri, recs, cut)
	st := res.Tests[0].Stages[0]
	assert.False(t, st.Complete)
	assert.Len(t, st.Samples, 7)
	require.NotNil(t, st.Summary, "what was measured is summarized")
	assert.Contains(t, st.Error, "input/output error")
	found := false
	for _, d := range res.Deviations {
		if d.Code == "error" {
			found = true
			assert.Contains(t, d.Text, "Cross Stimulus Recovery: the time series was stopped by an error after 7 steps")
		}
	}
	assert.True(t, found, "%v", res.Deviations)
}
