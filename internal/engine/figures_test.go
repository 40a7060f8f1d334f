package engine

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One direction's figures, as workload.json and fio-run.json write them:
// rates over the time given, latencies in ms, the percentiles from the
// histogram; fio's own figures only where fio gave them.
func TestFiguresOf(t *testing.T) {
	var d DirStats
	for i := int64(1); i <= 1000; i++ {
		d.Record(i*1000, 1, 4096) // 1 µs … 1 ms
	}
	f := FiguresOf(d, 2*time.Second)
	assert.Equal(t, int64(1000), f.IOs)
	assert.Equal(t, 500.0, f.IOPS)
	assert.InDelta(t, 2.048, f.MBps, 1e-12)
	assert.InDelta(t, 0.5005, f.LatMeanMs, 1e-12)
	assert.Equal(t, 0.001, f.LatMinMs)
	assert.Equal(t, 1.0, f.LatMaxMs)
	assert.InDelta(t, 0.99, f.Percentile(99), 0.01)
	assert.Equal(t, f.Percentiles["99.999"], f.Percentile(99.999))
	assert.Zero(t, f.Percentile(42), "not one of FigurePercentiles")

	b, err := json.Marshal(FiguresOf(DirStats{}, time.Second))
	require.NoError(t, err)
	assert.JSONEq(t, `{"ios":0,"bytes":0,"iops":0,"mbps":0,"lat_mean_ms":0}`, string(b), "a direction without I/O")
	b, err = json.Marshal(Figures{IOs: 3, RuntimeMs: 1500, IOPS: 2, FioIOPS: 2.1})
	require.NoError(t, err)
	assert.JSONEq(t, `{"ios":3,"bytes":0,"runtime_ms":1500,"iops":2,"fio_iops":2.1,"mbps":0,"lat_mean_ms":0}`, string(b), "a fio job's")
}
