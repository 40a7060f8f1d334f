package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

func TestLookupOptions(t *testing.T) {
	for _, tc := range []struct {
		spec, err string
		check     func(t *testing.T, m Model)
	}{
		{spec: "enterprise?cooling=weak", check: func(t *testing.T, m Model) {
			assert.Equal(t, "weak", m.Thermal.Cooling)
			assert.InDelta(t, 1.8*2.5, m.Thermal.CelsiusPerW, 1e-9)
		}},
		{spec: "client?cooling=none&media-errors=2&ambient=40", check: func(t *testing.T, m Model) {
			assert.Equal(t, "none", m.Thermal.Cooling)
			assert.InDelta(t, 2, m.Thermal.MediaErrorsPerTB, 1e-9)
			assert.InDelta(t, 40, m.Thermal.AmbientC, 1e-9)
		}},
		{spec: "?cooling=normal", check: func(t *testing.T, m Model) { assert.Equal(t, DefaultModel, m.Name) }},
		{spec: "enterprise?cooling=arctic", err: "cooling=arctic: want one of normal, weak, none"},
		{spec: "enterprise?fan", err: "want NAME=VALUE"},
		{spec: "enterprise?colour=red", err: `unknown simulated drive option "colour"`},
		{spec: "enterprise?media-errors=-1", err: "0 or more"},
		{spec: "enterprise?ambient=300", err: "-20 to 60"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			m, err := Lookup(tc.spec)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			tc.check(t, m)
		})
	}
}

// The drive heats under writes towards ambient plus power × resistance
// and cools back at idle; weak cooling makes it throttle (slower, counted
// as thermal-management transitions and seconds), normal cooling never
// does, the same seed giving the same temperatures.
func TestThermalModel(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: preconditions two simulated drives")
	}
	heat := func(cooling string) (*Engine, []float64) {
		m, err := Lookup("enterprise?cooling=" + cooling)
		require.NoError(t, err)
		e, err := Open([]Target{{Name: "sim:enterprise", Model: m}})
		require.NoError(t, err)
		t.Cleanup(func() { e.Close() })
		run(t, e, wipc(m))
		var iops []float64
		for i := range 8 {
			ms := run(t, e, rnd(0, 4096, 4, 32, 5*time.Minute, uint64(i+1)))
			iops = append(iops, ms.Write.IOPS(ms.Elapsed))
		}
		return e, iops
	}
	normal, nIOPS := heat("normal")
	t.Logf("normal: %.1f °C, IOPS %.0f", normal.Health(0).TempC, nIOPS)
	weak, wIOPS := heat("weak")
	rn, rw := normal.Health(0), weak.Health(0)
	t.Logf("weak: %.1f °C, IOPS %.0f, %d transitions", rw.TempC, wIOPS, rw.TMT1Count)
	assert.Greater(t, rn.TempC, 40.0, "writes heat the drive")
	assert.Less(t, rn.TempC, 78.0, "normal cooling stays below the throttle")
	assert.Greater(t, rw.TempC, 70.0)
	assert.Zero(t, rn.TMT1Count)
	assert.Positive(t, rw.TMT1Count, "weak cooling throttles")
	assert.Positive(t, rw.TMT1Sec)
	assert.Less(t, wIOPS[len(wIOPS)-1], nIOPS[len(nIOPS)-1], "a throttled drive is slower")
	assert.Greater(t, rn.NANDWritten, rn.HostWritten, "random writes after a fill amplify")

	// Idle: it cools towards ambient with a time constant of minutes.
	run(t, normal, idleFor(30*time.Minute))
	cool := normal.Health(0).TempC
	assert.Less(t, cool, rn.TempC)
	th := normal.drives[0].t.Model.Thermal
	assert.InDelta(t, th.AmbientC+th.IdleW*th.CelsiusPerW, cool, 2, "idle power over the cooling")

	// Deterministic: another drive of the same model and workloads reads the same.
	again, _ := heat("weak")
	assert.Equal(t, rw, again.Health(0))
}

func TestWearAndMediaErrors(t *testing.T) {
	m, err := Lookup("client?media-errors=1000")
	require.NoError(t, err)
	d := newDrive(m)
	d.heat(1, 0, 100, 4096, 0, 2e12)
	h := d.health()
	assert.Equal(t, uint64(2000), h.MediaErrors)
	flash := float64(m.UserBytes) * (1 + m.OP)
	assert.Equal(t, uint64(2e12/(flash*m.Thermal.PECycles)*100), h.PercentUsed)
	clean := newDrive(mustLookup(t, "client"))
	clean.heat(1, 0, 100, 4096, 0, 2e12)
	assert.Zero(t, clean.health().MediaErrors, "no media errors unless asked for")
}

func mustLookup(t *testing.T, name string) Model {
	m, err := Lookup(name)
	require.NoError(t, err)
	return m
}

func idleFor(d time.Duration) engine.Workload { return engine.Workload{Idle: true, Duration: d} }
