package precondition

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/engine/sim"
)

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		req, kind, want, err string
	}{
		{"auto", device.KindSim, SimFormat, ""},
		{"", device.KindSim, SimFormat, ""},
		{"sim-format", device.KindSim, SimFormat, ""},
		{"none", device.KindSim, None, ""},
		{"NONE", device.KindBlock, None, ""},
		{"trim", device.KindSim, "", `unknown purge method "trim"`},
		{"sim-format", device.KindBlock, "", "no purge method for block targets"},
	} {
		got, err := Choose(tc.req, tc.kind)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.req)
			continue
		}
		require.NoError(t, err, tc.req)
		assert.Equal(t, tc.want, got)
	}
}

func TestSimPurge(t *testing.T) {
	m, _ := sim.Lookup("client")
	e, err := sim.Open([]sim.Target{{Name: "sim", Model: m}})
	require.NoError(t, err)
	res, err := Purger{Method: SimFormat, Engine: e}.Purge(context.Background())
	require.NoError(t, err)
	assert.True(t, res.Compliant)
	assert.Positive(t, res.Duration)
	res, err = Purger{Method: None}.Purge(context.Background())
	require.NoError(t, err)
	assert.True(t, res.Skipped)
	assert.False(t, res.Compliant)
}
