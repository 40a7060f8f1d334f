package pdfreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/streams"
)

func ptr(v float64) *float64 { return &v }

// testCapture is a characterisation as `ptsrun streams --json` makes
// one: three streams over four one-second steps.
func testCapture() *streams.Report {
	return &streams.Report{Method: streams.Method, SequentialRule: streams.SequentialRule, Format: "blkparse", Device: "all", Timed: true, Step: 1,
		Totals: streams.Totals{IOs: 1000, ReadPct: 60, SequentialPct: 20, Duration: 4, Streams: 3, IOPS: ptr(250),
			DemandIntensity: ptr(6), DemandSource: "from completions"},
		Streams: []streams.StreamShare{
			{Stream: "RND 4KiB read", Access: "random", Dir: "read", Size: 4096, IOs: 600, Share: 60, Cumulative: 60},
			{Stream: "SEQ 64KiB write", Access: "sequential", Dir: "write", Size: 65536, IOs: 300, Share: 30, Cumulative: 90},
			{Stream: "RND 8KiB write", Access: "random", Dir: "write", Size: 8192, IOs: 100, Share: 10, Cumulative: 100},
		},
		Top: 3, TopShare: 100,
		Steps: []streams.Step{
			{Start: 0, End: 1, IOs: 250, IOPS: ptr(250), DemandIntensity: ptr(4), Shares: []float64{80, 20, 0}},
			{Start: 1, End: 2, IOs: 250, IOPS: ptr(250), DemandIntensity: ptr(6), Shares: []float64{60, 40, 0}},
			{Start: 2, End: 3, IOs: 250, IOPS: ptr(250), DemandIntensity: ptr(8), Shares: []float64{40, 40, 20}},
			{Start: 3, End: 4, IOs: 250, IOPS: ptr(250), DemandIntensity: ptr(6), Shares: []float64{60, 20, 20}},
		},
		Workload: streams.Workload{Covered: 90, Streams: []streams.WorkloadShare{
			{Stream: "RND 4KiB read", Access: "random", Dir: "read", Size: 4096, Share: 66.67, CaptureShare: 60},
			{Stream: "SEQ 64KiB write", Access: "sequential", Dir: "write", Size: 65536, Share: 33.33, CaptureShare: 30},
		}}}
}

// The rwsw report: the applied workload, the capture's streams pages,
// the steady state, then DIRTH's sweep pages; its words say "after the
// SNIA RWSW method" and claim no conformance.
func TestRWSWPages(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	rep, err := json.Marshal(testCapture())
	require.NoError(t, err)
	ri, res, _ := simRun(t, "enterprise", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.RWSW}
		c.RWSW = &pts.Applied{Capture: "server.blkparse", SHA256: "ab12", Format: "blkparse", Device: "all",
			Streams:       []engine.Stream{{Read: true, Access: engine.Random, Bytes: 4096, Percent: 66.67}, {Access: engine.Sequential, Bytes: 65536, Percent: 33.33}},
			CaptureShares: []float64{60, 30}, Covered: 90, SequentialRule: streams.SequentialRule, OIO: 6, OIOSource: "from completions",
			TC: 1, QD: 6, Characterisation: rep}
		c.Params = map[string]string{"rwsw-tc": "2,1", "rwsw-qd": "4,1", "rwsw-round-prewrite": "1m", "rwsw-prewrite": "1m", "rwsw-histogram": "1m"}
	})
	doc := Build(ri, res, Options{})
	marks := landmarks(doc)
	require.GreaterOrEqual(t, len(marks), 8)
	assert.Equal(t, []string{"rwsw-workload", "streams-map", "streams-demand", "streams-table", "rwsw-ss", "window", "rwsw-ss-figures"}, marks[:7])
	assert.Contains(t, marks, "rwsw-di")
	assert.Contains(t, marks, "rwsw-points")
	text := doc.Text()
	assert.Contains(t, text, "after the SNIA RWSW method")
	assert.NotContains(t, text, "RWSW compliant")
	assert.NotContains(t, text, "CONFORMS")
	assert.Contains(t, text, "RND 4 KiB read | 60.00 | 66.67")
	assert.Contains(t, text, "run as TC1/QD6")
	// The stream map: a row per stream, a column per step, the shares.
	assert.Contains(t, text, "RND 4KiB read | 80.00 | 60.00 | 40.00 | 60.00")
}

// ptsrun streams --pdf: the streams pages alone, rendered.
func TestStreamsDoc(t *testing.T) {
	doc := StreamsDoc(testCapture(), "server.blkparse", "")
	require.Len(t, doc.Pages, 3)
	text := doc.Text()
	assert.Contains(t, text, "I/O stream map")
	assert.Contains(t, text, "other | 0.00 | 0.00 | 0.00 | 0.00")
	assert.True(t, strings.Contains(text, "Demand intensity per step"), text)
	var b bytes.Buffer
	require.NoError(t, RenderStreams(&b, testCapture(), "server.blkparse", ""))
	assert.True(t, Produced(b.Bytes()))
}
