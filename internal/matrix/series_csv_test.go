package matrix

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// One writer for every series CSV: the columns that name the workload,
// then an interval of the set and one of each target; a latency the
// engine could not measure is empty, a direction without I/O 0 IOPS.
func TestWriteSeriesCSV(t *testing.T) {
	p99, p999, mx, mean := 0.2, 0.4, 0.9, 0.05
	in := []Interval{{StartS: 0, Seconds: 1, Ramp: true,
		Write:   &IntervalDir{IOs: 10, IOPS: 10, MBps: 0.04, MeanMs: &mean, P99Ms: &p99, P999Ms: &p999, MaxMs: &mx, Of: engine.LatCompletion},
		Targets: []TargetInterval{{Target: "/dev/a", Write: &IntervalDir{IOs: 10, IOPS: 10, MBps: 0.04}}}},
		{StartS: 1, Seconds: 0.5, Read: &IntervalDir{IOs: 4, IOPS: 8, MBps: 0.032, MeanMs: &mean, P99Ms: &p99, P999Ms: &p999, MaxMs: &mx}}}
	var b bytes.Buffer
	require.NoError(t, WriteSeriesCSV(&b, []string{"cell", "group"}, []SeriesPart{{Lead: []string{"1", "w0"}, Series: in}}))
	assert.Equal(t, "cell,group,target,interval,start_s,seconds,ramp,read_iops,read_mbps,read_mean_ms,read_p99_ms,read_p99_9_ms,read_max_ms,"+
		"write_iops,write_mbps,write_mean_ms,write_p99_ms,write_p99_9_ms,write_max_ms,lat_of\n"+
		"1,w0,all,1,0,1,1,0,0,,,,,10,0.04,0.05,0.2,0.4,0.9,clat\n"+
		"1,w0,/dev/a,1,0,1,1,0,0,,,,,10,0.04,,,,,\n"+
		"1,w0,all,2,1,0.5,0,8,0.032,0.05,0.2,0.4,0.9,0,0,,,,,lat\n", b.String())

	b.Reset()
	require.NoError(t, WriteSeriesCSV(&b, nil, nil))
	assert.Equal(t, "target,interval,start_s,seconds,ramp,read_iops,read_mbps,read_mean_ms,read_p99_ms,read_p99_9_ms,read_max_ms,"+
		"write_iops,write_mbps,write_mean_ms,write_p99_ms,write_p99_9_ms,write_max_ms,lat_of\n", b.String(), "one workload: no naming columns")
}
