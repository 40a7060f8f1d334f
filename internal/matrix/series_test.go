package matrix

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

func TestSeriesOf(t *testing.T) {
	w := engine.Workload{Duration: 1500 * time.Millisecond, Interval: 500 * time.Millisecond, Ramp: 500 * time.Millisecond}
	lat := func(mean float64, p99, p999, mx int64) *engine.IntervalLat {
		return &engine.IntervalLat{MeanNs: mean, P99Ns: p99, P999Ns: p999, MaxNs: mx}
	}
	m := &engine.Measurement{Seconds: []engine.Second{
		{ReadIOs: 100, ReadBytes: 100 * 4096, Read: lat(1e5, 2e5, 3e5, 4e5), Ramp: true},
		{ReadIOs: 200, ReadBytes: 200 * 4096, WriteIOs: 50, WriteBytes: 50 * 8192, Read: lat(1e5, 2e5, 3e5, 4e5), Write: lat(2e5, 3e5, 4e5, 5e5)},
		{ReadIOs: 300, ReadBytes: 300 * 4096, Read: lat(1e5, 2e5, 3e5, 4e5)},
		// In flight at the end: the last interval's.
		{ReadIOs: 100, ReadBytes: 100 * 4096, Read: lat(3e5, 9e5, 9e5, 9e5)},
	}, Targets: []engine.TargetStats{
		{Target: "a", Seconds: []engine.Second{{ReadIOs: 60, Ramp: true}, {ReadIOs: 120}, {ReadIOs: 100}, {ReadIOs: 100, Read: lat(1, 1, 1, 1)}}},
		{Target: "b", Seconds: []engine.Second{{ReadIOs: 40, Ramp: true}, {ReadIOs: 80, WriteIOs: 50}, {ReadIOs: 200}}},
	}}
	in := SeriesOf(w, m)
	require.Len(t, in, 3)
	assert.True(t, in[0].Ramp)
	assert.False(t, in[1].Ramp)
	assert.Equal(t, []float64{0, 0.5, 1}, []float64{in[0].StartS, in[1].StartS, in[2].StartS})
	assert.InDelta(t, 400.0, in[1].Read.IOPS, 1e-9, "200 reads in half a second")
	assert.InDelta(t, 100.0*8192/1e6, in[1].Write.MBps, 1e-9)
	assert.Nil(t, in[0].Write, "no writes, no write figures")
	assert.InDelta(t, 0.3, *in[1].Write.P99Ms, 1e-12)
	assert.Equal(t, int64(400), in[2].Read.IOs, "the in-flight I/Os counted after the end are the last interval's")
	assert.InDelta(t, (300*0.1+100*0.3)/400, *in[2].Read.MeanMs, 1e-12, "the mean weighs them in")
	assert.InDelta(t, 0.9, *in[2].Read.MaxMs, 1e-12, "and the maximum")
	assert.InDelta(t, 0.2, *in[2].Read.P99Ms, 1e-12, "the percentiles stay the interval's")
	require.Len(t, in[2].Targets, 2)
	assert.Equal(t, int64(200), in[2].Targets[0].Read.IOs, "a target's in-flight I/Os too")
	assert.Equal(t, int64(200), in[2].Targets[1].Read.IOs)
	assert.Equal(t, "b", in[1].Targets[1].Target)

	assert.Nil(t, SeriesOf(w, &engine.Measurement{}))
	// A workload of passes has no time to fold into.
	p := SeriesOf(engine.Workload{Passes: 1}, m)
	assert.Len(t, p, 4)

	// Latency an engine could not measure is unknown, never 0: a direction
	// with I/O and no latency; a mean without percentiles.
	u := SeriesOf(engine.Workload{Duration: 2 * time.Second}, &engine.Measurement{Seconds: []engine.Second{
		{ReadIOs: 10, WriteIOs: 5, LatMeanNs: 1e5},
		{ReadIOs: 10, Read: &engine.IntervalLat{MeanNs: 2e5, Of: engine.LatCompletion}},
	}})
	assert.Nil(t, u[0].Read.MeanMs, "both directions did I/O: the combined mean is neither's")
	assert.Nil(t, u[0].Write.P99Ms)
	require.NotNil(t, u[1].Read.MeanMs)
	assert.InDelta(t, 0.2, *u[1].Read.MeanMs, 1e-12)
	assert.Nil(t, u[1].Read.P99Ms, "no histogram, no percentiles")
	assert.Nil(t, u[1].Read.MaxMs)
	old := SeriesOf(engine.Workload{Duration: time.Second}, &engine.Measurement{Seconds: []engine.Second{{WriteIOs: 5, LatMeanNs: 3e5}}})
	assert.InDelta(t, 0.3, *old[0].Write.MeanMs, 1e-12, "an old journal's mean of one direction is that direction's")
}
