package pts

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// testApplied is an applied workload as `run --capture` records one.
var testApplied = &Applied{Capture: "server.iolog", SHA256: "ab12", Format: "iolog", Device: "all",
	Streams: []engine.Stream{{Read: true, Access: engine.Random, Bytes: 8192, Percent: 50}, {Read: false, Access: engine.Random, Bytes: 8192, Percent: 30},
		{Read: false, Access: engine.Sequential, Bytes: 65536, Percent: 20}},
	CaptureShares: []float64{45, 27, 18}, Covered: 90, OIO: 40, OIOSource: "from completions", TC: 2, QD: 20}

func TestDemandOf(t *testing.T) {
	for _, tc := range []struct{ oio, tc, qd int }{{0, 1, 1}, {1, 1, 1}, {8, 1, 8}, {32, 1, 32}, {33, 2, 17}, {40, 2, 20}, {100, 4, 25}} {
		tcs, qds := DemandOf(tc.oio)
		assert.Equal(t, [2]int{tc.tc, tc.qd}, [2]int{tcs, qds}, "%d outstanding", tc.oio)
		assert.GreaterOrEqual(t, tcs*qds, max(tc.oio, 1))
		assert.LessOrEqual(t, qds, MaxQDPerThread)
	}
}

// rwsw is purge, WIPC and rounds of the applied workload at the capture's
// TC/QD, then DIRTH's demand sweep of it and its three points; it needs
// a capture, is not in --tests all, and its workload survives run.json.
func TestRWSWStages(t *testing.T) {
	c := DefaultConfig()
	c.Tests = []TestID{RWSW}
	_, err := c.Resolve()
	require.ErrorContains(t, err, "--tests rwsw needs a capture: --capture FILE")

	all, err := ParseTests("all")
	require.NoError(t, err)
	assert.NotContains(t, all, RWSW)

	c.RWSW = testApplied
	p, err := c.Resolve()
	require.NoError(t, err)
	st := c.Stages(p)
	require.Len(t, st, 5)
	ss := st[0]
	assert.Equal(t, KindRounds, ss.Procedure().Kind())
	assert.True(t, ss.Purge)
	require.NotNil(t, ss.Precondition)
	require.Len(t, ss.Cells, 1)
	w := ss.Cells[0].Workload
	assert.Equal(t, testApplied.Streams, w.Streams)
	assert.Equal(t, [2]int{2, 20}, [2]int{w.TC, w.QD})
	assert.Equal(t, "mix-50/50-tc2-qd20", ss.Cells[0].Key.String())
	assert.Equal(t, KindDemandSweep, st[1].Procedure().Kind())
	assert.Equal(t, "rwsw", st[1].ID)
	pre := st[1].Cells[0].Workload
	require.True(t, st[1].Cells[0].PreWrite)
	assert.Equal(t, []engine.Stream{{Access: engine.Random, Bytes: 8192, Percent: 60}, {Access: engine.Sequential, Bytes: 65536, Percent: 40}},
		pre.Streams, "the pre-write is the workload's writes, renormalised")
	assert.Len(t, st[1].Cells, 1+49)
	for _, s := range st[2:] {
		require.NotNil(t, s.Point)
	}

	b, err := json.Marshal(c)
	require.NoError(t, err)
	var back Config
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, c.RWSW, back.RWSW)

	require.NoError(t, testApplied.CheckCapture("server.iolog", "ab12"))
	assert.ErrorContains(t, testApplied.CheckCapture("other.iolog", "cd34"),
		"--capture other.iolog: its sha256 is cd34, but this run's applied workload was read from server.iolog, sha256 ab12")

	reads := rwswWrites([]engine.Stream{{Read: true, Access: engine.Random, Bytes: 4096, Percent: 100}})
	assert.Equal(t, []engine.Stream{{Access: engine.Random, Bytes: 4096, Percent: 100}}, reads, "reads only: pre-written as writes")
}
