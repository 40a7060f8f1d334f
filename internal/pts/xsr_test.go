package pts

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/stretchr/testify/require"
)

func TestXSRGroupsFlag(t *testing.T) {
	for _, tc := range []struct{ v, err string }{
		{"8h,6h,8h", ""}, {"30m, 0s, 1h", ""},
		{"8h,6h", "three durations"}, {"0s,0s,0s", "sum to 0"}, {"8h,x,8h", `"x": not a duration`}, {"8h,6,8h", `"6": a duration needs a unit`}, {"8h,-1h,8h", "not a duration"},
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
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	for model, groups := range map[string]string{"enterprise": xsrDefaultTime, "client": "4h,2h,4h"} {
		t.Run(model, func(t *testing.T) {
			t.Parallel()
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

// The recovery time is the first minute of access group 3 at group 1's
// mean; the sustained recovery that recovery held, five minutes in a row
// within 10 % of it from that minute on: never before the recovery time
// (issue 20: 13 min sustained against 14 min recovery).
func TestXSRRecoveryFigures(t *testing.T) {
	for _, tc := range []struct {
		name      string
		group3    []float64 // MB/s per minute; group 1's mean is 100
		rec, held float64   // minutes; NaN: not reached
	}{
		{"five near the mean before it is reached", []float64{50, 95, 96, 97, 98, 99, 100, 99, 98, 97, 96}, 7, 11},
		{"held from the first minute at the mean", []float64{50, 80, 100, 95, 92, 91, 93}, 3, 7},
		{"a dip starts the run again", []float64{100, 95, 80, 95, 95, 95, 95, 95}, 1, 8},
		{"recovered, never held", []float64{50, 100, 80, 100, 80}, 2, math.NaN()},
		{"never recovered", []float64{50, 95, 95, 95, 95, 95}, math.NaN(), math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var samples []Sample
			start := 0.0
			add := func(g int, mbps float64) {
				samples = append(samples, Sample{Step: len(samples), Group: g, Start: start, Seconds: 60, MBps: mbps, LatMeanMs: 1, LatMaxMs: 2})
				start += 60
			}
			for range 4 {
				add(1, 100)
			}
			add(2, 30)
			for _, v := range tc.group3 {
				add(3, v)
			}
			sum := xsrSummary(SummaryInput{Samples: samples})
			require.Len(t, sum.Figures, 2)
			rec, held := sum.Figures[0], sum.Figures[1]
			assert.Equal(t, "recovery time", rec.Name)
			assert.Equal(t, "sustained recovery", held.Name)
			for _, c := range []struct {
				f    Figure
				want float64
			}{{rec, tc.rec}, {held, tc.held}} {
				if math.IsNaN(c.want) {
					assert.True(t, math.IsNaN(c.f.Value), "%s: %v", c.f.Name, c.f.Value)
				} else {
					assert.Equal(t, c.want, c.f.Value, c.f.Name)
				}
			}
			if !math.IsNaN(held.Value) {
				assert.GreaterOrEqual(t, held.Value, rec.Value+4, "the recovery, held five minutes")
			}
		})
	}
}
