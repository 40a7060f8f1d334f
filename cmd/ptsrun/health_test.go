package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// A simulated drive cooled too weakly throttles in WSAT: its telemetry is
// journaled at every sample, the run's summary and results list a thermal
// deviation naming the samples, and check --strict-health fails on it
// (exit 3) where check alone passes.
func TestWeakCoolingDeviation(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "hot")
	code, stdout, stderr := ptsrun("run", "--target", "sim:enterprise?cooling=weak", "--tests", "wsat", "--wsat-time", "30m", "--out", dir)
	require.Contains(t, []int{0, 3}, code, stderr)
	assert.Contains(t, stdout, "HEALTH: Write Saturation: 1 transition into thermal management, throttled for")
	assert.Contains(t, stdout, "in the measurement window: samples 14–30.")

	recs, _, err := pts.LoadJournal(dir)
	require.NoError(t, err)
	samples, readings := 0, 0
	for _, r := range recs {
		switch {
		case r.Type == pts.RecSample:
			samples++
		case r.Type == pts.RecTelemetry && r.Telemetry.At == pts.AtSample:
			readings++
		}
	}
	assert.Equal(t, 30, samples)
	assert.Equal(t, samples, readings, "a reading at every sample")

	res, _, err := matrix.Load(dir)
	require.NoError(t, err)
	require.NotEmpty(t, res.HealthDeviations)
	d := res.HealthDeviations[0]
	assert.Equal(t, matrix.HealthThermal, d.Code)
	assert.Contains(t, d.Cells, "sample 30")
	assert.Len(t, res.Tests[0].Stages[0].Health.Temps, 30)

	code, _, stderr = ptsrun("check", "--golden", dir, dir)
	assert.Equal(t, 0, code, stderr)
	code, out, _ := ptsrun("check", "--golden", dir, dir, "--strict-health")
	assert.Equal(t, 3, code)
	assert.Contains(t, out, "HEALTH DEVIATIONS (--strict-health)")
}
