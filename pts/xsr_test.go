package pts

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ptsrun/ptsrun/engine"
	"github.com/stretchr/testify/require"
)

func TestXSRGroupsFlag(t *testing.T) {
	for _, tc := range []struct{ v, err string }{
		{"8h,6h,8h", ""}, {"30m, 0s, 1h", ""},
		{"8h,6h", "three durations"}, {"0s,0s,0s", "sum to 0"}, {"8h,x,8h", `"x" is not a duration`}, {"8h,-1h,8h", "not a duration"},
	} {
		c := DefaultConfig()
		c.Targets, c.Tests, c.Params = []string{"sim"}, []TestID{XSR}, map[string]string{"xsr-groups": tc.v}
		_, err := c.Resolve()
		if tc.err == "" {
			assert.NoError(t, err, tc.v)
		} else {
			assert.ErrorContains(t, err, tc.err, tc.v)
		}
	}
	c := DefaultConfig()
	c.Targets, c.Params = []string{"sim"}, map[string]string{"xsr-groups": "1h,1h,1h"}
	_, err := c.Resolve()
	assert.ErrorContains(t, err, "--xsr-groups: not a parameter of iops, tp, lat", "a flag of a test the run does not do")
}

// The simulated drive recovers from random writes as a real one does: the
// sequential writes of access group 3 start below group 1's mean, and come
// back to it.
func TestXSRShape(t *testing.T) {
	for model, groups := range map[string]string{"enterprise": xsrDefaultTime, "client": "4h,2h,4h"} {
		t.Run(model, func(t *testing.T) {
			s := newSetup(t, model, func(c *Config) {
				c.Tests, c.Params = []TestID{XSR}, map[string]string{"xsr-groups": groups}
			})
			r, _ := s.runner(t, s.eng)
			require.NoError(t, r.Run(context.Background(), nil))
			stage := s.info.Stages[0]
			ss := Replay(s.info.Stages, s.records(t)).Stages["xsr"]
			require.True(t, ss.Ended)
			require.Len(t, ss.Samples, len(stage.Steps()))
			var samples []Sample
			steps := stage.Steps()
			var start float64
			for k, m := range ss.Samples {
				g := stage.Timeline[steps[k].Segment].Group
				samples = append(samples, Sample{Step: k, Group: g, Start: start, Seconds: m.Elapsed.Seconds(), MBps: m.MBps(),
					LatMeanMs: m.Counts().MeanLatNs() / 1e6, LatMaxMs: float64(m.Counts().LatMaxNs) / 1e6})
				start += m.Elapsed.Seconds()
			}
			sum := xsrSummary(SummaryInput{Stage: stage, Samples: samples})
			require.Len(t, sum.Rows, 3)
			mean1 := sum.Rows[0][2]
			var first3 []float64
			for _, smp := range samples {
				if smp.Group == 3 && len(first3) < 10 {
					first3 = append(first3, smp.MBps)
				}
			}
			low := math.Inf(1)
			for _, v := range first3 {
				low = min(low, v)
			}
			assert.Less(t, low, 0.8*mean1, "group 3 starts well below group 1's mean (%v vs %.0f)", first3, mean1)
			rec := sum.Figures[0]
			assert.False(t, math.IsNaN(rec.Value), "and recovers")
			assert.Greater(t, rec.Value, 1.0)
			assert.Less(t, rec.Value, sum.Rows[2][1], "within the group")
			t.Logf("%s: group 1 mean %.0f MB/s, group 3 low %.0f, recovered after %.0f min", model, mean1, low, rec.Value)
		})
	}
}

// An I/O error in the middle of a time series stops it: every sample
// before it is in the journal, then the error, and no stage end.
func TestTimelineEngineErrorStopsCleanly(t *testing.T) {
	s := newSetup(t, "enterprise", func(c *Config) {
		c.Tests, c.Params = []TestID{XSR}, map[string]string{"xsr-groups": "10m,5m,10m"}
	})
	h := &hooked{Engine: s.eng, failAt: 8}
	r, _ := s.runner(t, h)
	err := r.Run(context.Background(), nil)
	require.ErrorIs(t, err, engine.ErrIO)
	assert.ErrorContains(t, err, "Cross Stimulus Recovery step 8")
	recs := s.records(t)
	st := Replay(s.info.Stages, recs)
	require.Len(t, st.Errors, 1)
	assert.Contains(t, st.Errors[0].Error, "input/output error")
	assert.Equal(t, "xsr", st.Errors[0].Stage)
	ss := Replay(s.info.Stages, recs).Stages["xsr"]
	assert.Len(t, ss.Samples, 7, "every sample before the error is kept")
	assert.False(t, ss.Ended)
}
