package pts

import (
	"context"
	"testing"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHIRParams(t *testing.T) {
	for _, tc := range []struct{ flag, v, err string }{
		{"hir-wait-states", "1,2,3,5,10", ""}, {"hir-wait-states", "2, 4", ""}, {"hir-wait-states", "1,1", "must increase"},
		{"hir-wait-states", "3,2", "must increase"}, {"hir-wait-states", "0", "above zero"}, {"hir-wait-states", "", "above zero"},
		{"hir-cycles", "10", ""}, {"hir-cycles", "0", "above zero"}, {"hir-cycles", "x", "above zero"},
		{"hir-baseline", "5m", ""}, {"hir-baseline", "0s", "above zero"},
		{"hir-pc-round", "1m", "longer than its tracked end"}, {"hir-pc-round", "10m", ""},
		{"hir-pc-track", "0s", "above zero"},
	} {
		c := DefaultConfig()
		c.Targets, c.Tests, c.Params = []string{"sim"}, []TestID{HIR}, map[string]string{tc.flag: tc.v}
		_, err := c.Resolve()
		if tc.err == "" {
			assert.NoError(t, err, tc.flag+" "+tc.v)
		} else {
			assert.ErrorContains(t, err, tc.err, tc.flag+" "+tc.v)
		}
	}
}

// HIR's stages are what ptsrun reads in PTS 2.0.2 §11 (docs/readings.md): preconditioning rounds of
// writes whose last minute is tracked, then per wait state 360 bursts of
// 5 s each followed by its idle time, then 30 min back to the baseline.
func TestHIRStages(t *testing.T) {
	c := DefaultConfig()
	c.Targets, c.Tests = []string{"sim"}, []TestID{HIR}
	p, err := c.Resolve()
	require.NoError(t, err)
	st := c.Stages(p)
	require.Len(t, st, 2)
	pc, tl := st[0], st[1]
	assert.True(t, pc.Purge)
	assert.Nil(t, pc.Precondition, "no workload-independent preconditioning")
	require.Len(t, pc.Cells, 2)
	assert.Equal(t, 29*time.Minute, pc.Cells[0].Workload.Duration)
	assert.Equal(t, time.Minute, pc.Cells[1].Workload.Duration)
	assert.Equal(t, 1, pc.Tracking[0].Cell, "the last minute is tracked")
	for _, cell := range pc.Cells {
		w := cell.Workload
		assert.Equal(t, int64(4*KiB), w.BlockSize)
		assert.Equal(t, 0, w.ReadPct)
		assert.Equal(t, 100.0, w.ActiveRange)
	}
	assert.False(t, tl.Purge, "the timeline goes on from the preconditioned drive")
	require.Len(t, tl.Timeline, 10)
	for i, ws := range []int{1, 2, 3, 5, 10} {
		burst, base := tl.Timeline[2*i], tl.Timeline[2*i+1]
		assert.Equal(t, ws, burst.Group)
		assert.Equal(t, 360, burst.Repeat)
		assert.Equal(t, 5*time.Second, burst.Workload.Duration)
		assert.Equal(t, time.Duration(ws)*5*time.Second, time.Duration(burst.IdleAfter))
		assert.Equal(t, 0, base.Group)
		assert.Equal(t, 30*time.Minute, base.Workload.Duration)
	}
	// 360 × (5 s + idle) per wait state plus 30 min after each.
	var want time.Duration
	for _, ws := range []int{1, 2, 3, 5, 10} {
		want += 360*(5*time.Second+time.Duration(ws)*5*time.Second) + 30*time.Minute
	}
	assert.Equal(t, want, tl.TimelineTime())
}

// The simulated drive recovers in idle time as real ones do: after the
// preconditioning reaches steady state, bursts after longer idle times
// are faster, and every wait state's bursts are at least the baseline.
func TestHIRShape(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	enginetest.Long(t, "a whole simulated HIR: 1,800 bursts, each with its idle period")
	s := newSetup(t, "enterprise", func(c *Config) { c.Tests = []TestID{HIR} })
	r, _ := s.runner(t, s.eng)
	require.NoError(t, r.Run(context.Background(), nil))
	st := Replay(s.info.Stages, s.records(t))
	pc := st.Stages["hir-pc"]
	require.True(t, pc.Steady, "preconditioning reaches steady state")
	tl := s.info.Stages[1]
	ss := st.Stages["hir"]
	require.True(t, ss.Ended)
	steps := tl.Steps()
	require.Len(t, ss.Samples, len(steps))
	var samples []Sample
	var start float64
	for k, m := range ss.Samples {
		g := tl.Timeline[steps[k].Segment].Group
		samples = append(samples, Sample{Step: k, Group: g, Idle: steps[k].Workload.Idle, Start: start, Seconds: m.Elapsed.Seconds(), IOPS: m.IOPS()})
		start += m.Elapsed.Seconds()
	}
	window := pc.Tracking[0][pc.Window[0]-1 : pc.Window[1]]
	var avg float64
	for _, v := range window {
		avg += v / float64(len(window))
	}
	sum := hirSummary(SummaryInput{Stage: tl, Samples: samples, Earlier: []Earlier{{Stage: "hir-pc", Steady: true, WindowAverage: []float64{avg}}}})
	require.Len(t, sum.Rows, 5)
	baseline := sum.Figures[0].Value
	assert.Equal(t, avg, baseline, "the baseline is the preconditioning's steady state")
	assert.Equal(t, HIRBaseline, sum.Figures[0].Definition)
	assert.InEpsilon(t, baseline, sum.Figures[1].Value, 0.1, "the returns come back to it")
	alone := hirSummary(SummaryInput{Stage: tl, Samples: samples})
	assert.Equal(t, sum.Figures[1].Value, alone.Figures[0].Value, "without the preconditioning, the returns stand in")
	assert.Contains(t, alone.Figures[0].Definition, "not in these results")
	prev := 0.0
	for _, r := range sum.Rows {
		assert.Equal(t, 360.0, r[2], "360 bursts in wait state %.0f", r[0])
		assert.Greater(t, r[3], prev, "wait state %.0f's bursts are faster than the last's", r[0])
		assert.GreaterOrEqual(t, r[4], 1.0, "wait state %.0f at least the baseline", r[0])
		prev = r[3]
	}
	assert.Greater(t, sum.Rows[4][4], 1.3, "50 s of idle recovers a visible share")

	// The client model, with less over-provisioning and more of its idle
	// time given to garbage collection, recovers more (enterprise drives
	// recover less).
	cs := newSetup(t, "client", func(c *Config) { c.Tests = []TestID{HIR} })
	cr, _ := cs.runner(t, cs.eng)
	require.NoError(t, cr.Run(context.Background(), nil))
	cst := Replay(cs.info.Stages, cs.records(t))
	ctl := cs.info.Stages[1]
	csteps := ctl.Steps()
	var csamples []Sample
	start = 0
	for k, m := range cst.Stages["hir"].Samples {
		csamples = append(csamples, Sample{Step: k, Group: ctl.Timeline[csteps[k].Segment].Group, Idle: csteps[k].Workload.Idle,
			Start: start, Seconds: m.Elapsed.Seconds(), IOPS: m.IOPS()})
		start += m.Elapsed.Seconds()
	}
	client := hirSummary(SummaryInput{Stage: ctl, Samples: csamples})
	require.Len(t, client.Rows, 5)
	alone = hirSummary(SummaryInput{Stage: tl, Samples: samples})
	assert.Greater(t, client.Rows[4][4], alone.Rows[4][4], "after 50 s idle the client recovers more than the enterprise drive")
	t.Logf("client: ratios to its returns %.2f … %.2f; enterprise %.2f … %.2f", client.Rows[0][4], client.Rows[4][4], alone.Rows[0][4], alone.Rows[4][4])
	t.Logf("baseline %.0f IOPS; ratios %.2f %.2f %.2f %.2f %.2f", baseline, sum.Rows[0][4], sum.Rows[1][4], sum.Rows[2][4], sum.Rows[3][4], sum.Rows[4][4])
}

func TestHIRQuickLookRounds(t *testing.T) {
	c := DefaultConfig()
	c.Targets, c.Tests = []string{"sim"}, []TestID{HIR}
	c.Params = map[string]string{"hir-pc-round": "4s", "hir-pc-track": "2s"}
	p, err := c.Resolve()
	require.NoError(t, err)
	pc := c.Stages(p)[0]
	assert.Equal(t, 2*time.Second, pc.Cells[0].Workload.Duration)
	assert.Equal(t, 2*time.Second, pc.Cells[1].Workload.Duration)
	assert.Equal(t, "IOPS RND 4 KiB 0/100, last 2s of the round", pc.Tracking[0].Name)
	c.Params = map[string]string{"hir-pc-round": "4s", "hir-pc-track": "4s"}
	_, err = c.Resolve()
	assert.ErrorContains(t, err, "longer than its tracked end (--hir-pc-track 4s)")
}

// The tests over time cover the whole device in either profile (the
// client's 75 % is the IOPS test's), unless --active-range says otherwise.
func TestTimelineActiveRange(t *testing.T) {
	for _, profile := range []string{"enterprise", "client"} {
		c := DefaultConfig()
		c.Targets, c.Tests, c.Profile = []string{"sim"}, []TestID{IOPS, WSAT, HIR, XSR}, profile
		p, err := c.Resolve()
		require.NoError(t, err)
		for _, id := range []TestID{WSAT, HIR, XSR} {
			assert.Equal(t, 100.0, c.ActiveRangeOf(id), "%s %s", profile, id)
			assert.Equal(t, 100.0, p.ActiveRangeOf(id), "%s %s: what a deviation is measured against", profile, id)
		}
		assert.Equal(t, p.ActiveRange, c.ActiveRangeOf(IOPS))
		c.TimelineActiveRange = 50
		assert.Equal(t, 50.0, c.ActiveRangeOf(HIR))
	}
}
