package sim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

func TestConformance(t *testing.T) {
	enginetest.Run(t, func(t *testing.T, n int) (engine.Engine, []enginetest.Target) {
		m, err := Lookup("client")
		require.NoError(t, err)
		var ts []Target
		var out []enginetest.Target
		for i := 0; i < n; i++ {
			ts = append(ts, Target{Name: "sim:client", Model: m})
		}
		e, err := Open(ts)
		require.NoError(t, err)
		e.SetTrace(2000)
		t.Cleanup(func() { e.Close() })
		for i := 0; i < n; i++ {
			out = append(out, enginetest.Target{Name: "sim:client#" + e.Identity(i).Serial, Capacity: m.UserBytes, LogicalBlock: 512})
		}
		return e, out
	}, enginetest.Caps{Virtual: true, LiveSeries: true, ExactSeries: true})
}
