package matrix

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/telemetry"
)

// reading is a simulated drive's reading: temperature, thermal
// transitions, media errors and host and NAND bytes written.
func reading(c float64, tmt, media, host, nand uint64) telemetry.Reading {
	const s = telemetry.SourceSim
	u := func(v uint64) telemetry.Field[uint64] { return telemetry.Field[uint64]{Value: v, Source: s} }
	return telemetry.Reading{Device: "sim#ESIM-0001", Sources: []string{s},
		Temperature:             telemetry.Field[float64]{Value: c, Source: s},
		WarningTemp:             telemetry.Field[float64]{Value: 80, Source: s},
		ThermalMgmt1Transitions: u(tmt), ThermalMgmt1Seconds: u(tmt * 10),
		MediaErrors: u(media), BytesWritten: u(host), NANDBytesWritten: u(nand)}
}

// A stage's readings become its health: before and after, a temperature
// per round, the write amplification after preconditioning; a thermal
// transition in a round of the window and media errors that grew are
// health deviations naming those rounds, one outside the window is not;
// none of them makes the run non-conforming.
func TestStageHealth(t *testing.T) {
	ri := info(t, func(c *pts.Config) { c.Tests = []pts.TestID{"iops"} })
	s := ri.Stages[0]
	var b journalBuilder
	b.stage(s, 6, 5, func(round, idx int) *engine.Measurement { return meas(1000, 1000, 1e5, 1e5, 4096) })
	// Readings before each record they close, as the runner journals them.
	var recs []pts.Record
	tel := func(at string, round int, r telemetry.Reading) pts.Record {
		return pts.Record{Type: pts.RecTelemetry, Stage: s.ID, Round: round, Telemetry: &pts.TelemetryRecord{At: at, Readings: []telemetry.Reading{r}}}
	}
	for _, r := range b.recs {
		switch r.Type {
		case pts.RecStageStart:
			recs = append(recs, tel(pts.AtStageStart, 0, reading(30, 0, 0, 0, 0)))
		case pts.RecPrecondition:
			recs = append(recs, tel(pts.AtPrecond, 0, reading(45, 0, 0, 1000, 1000)))
		case pts.RecRoundEnd:
			tmt, media := uint64(1), uint64(0) // a transition in round 1, outside the window
			if r.Round >= 4 {
				tmt = 2 // and one in round 4
			}
			if r.Round >= 6 {
				media = 3
			}
			recs = append(recs, tel(pts.AtRound, r.Round, reading(50+float64(r.Round), tmt, media, 1000+uint64(r.Round)*100, 1000+uint64(r.Round)*300)))
		}
		recs = append(recs, r)
	}
	res := Build(ri, recs, false)
	require.NotNil(t, res.Telemetry)
	assert.Equal(t, "sim", res.Telemetry.Source())
	sr := res.Tests[0].Stages[0]
	require.NotNil(t, sr.Health)
	assert.Equal(t, 30.0, sr.Health.Before[0].Temperature.Value)
	assert.Equal(t, 56.0, sr.Health.After[0].Temperature.Value)
	require.Len(t, sr.Health.Temps, 6)
	assert.Equal(t, TempPoint{Round: 4, Celsius: 54, Throttled: true}, sr.Health.Temps[3])
	assert.InDelta(t, 3.0, sr.Health.WriteAmplification[0], 1e-9, "NAND ÷ host bytes after preconditioning")
	require.Len(t, res.HealthDeviations, 2)
	assert.Equal(t, HealthDeviation{Code: HealthThermal, Stage: s.ID, Cells: []string{"round 4"},
		Text: "IOPS: 1 transition into thermal management, throttled for 10 s on sim#ESIM-0001 in the measurement window: round 4 (56 cells each)."},
		res.HealthDeviations[0])
	assert.Equal(t, HealthMediaErrors, res.HealthDeviations[1].Code)
	assert.Contains(t, res.HealthDeviations[1].Text, "3 media or data integrity errors more")
	assert.Equal(t, []string{"round 6"}, res.HealthDeviations[1].Cells)
	assert.True(t, res.Conforming || len(res.Deviations) > 0, "health deviations are not the PTS's")
	for _, d := range res.Deviations {
		assert.NotEqual(t, HealthThermal, d.Code)
	}
}

func TestTelemetryNotAvailable(t *testing.T) {
	ri := info(t, func(c *pts.Config) { c.Tests = []pts.TestID{"iops"} })
	var b journalBuilder
	b.stage(ri.Stages[0], 5, 5, func(round, idx int) *engine.Measurement { return meas(1000, 1000, 1e5, 1e5, 4096) })
	old := Build(ri, b.recs, false)
	assert.Nil(t, old.Telemetry, "a journal older than telemetry")
	assert.Equal(t, "not available", old.Telemetry.Source())
	assert.Nil(t, old.Tests[0].Stages[0].Health)

	why := "no telemetry source: the targets are files or block devices without SMART or hwmon (loop, device-mapper, md, virtio)"
	recs := append([]pts.Record{{Type: pts.RecTelemetry, Telemetry: &pts.TelemetryRecord{At: pts.AtRun, Unavailable: why}}}, b.recs...)
	res := Build(ri, recs, false)
	require.NotNil(t, res.Telemetry)
	assert.Equal(t, why, res.Telemetry.Unavailable)
	assert.Equal(t, "not available", res.Telemetry.Source())
	assert.Empty(t, res.HealthDeviations)
}

func TestCellList(t *testing.T) {
	assert.Equal(t, "samples 1–3, 5, 7–8", cellList([]string{"sample 1", "sample 2", "sample 3", "sample 5", "sample 7", "sample 8"}))
	assert.Equal(t, "round 4", cellList([]string{"round 4"}))
}
