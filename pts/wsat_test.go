package pts

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWSATParams(t *testing.T) {
	for _, tc := range []struct{ flag, v, err string }{
		{"wsat-workload", "oltp", ""}, {"wsat-workload", "composite", "arrives with the ECW test"}, {"wsat-workload", "x", "want one of"},
		{"wsat-fills", "0", "not a number above zero"}, {"wsat-fills", "-1", "above zero"}, {"wsat-time", "0s", "above zero"},
		{"wsat-time", "2m", ""}, {"wsat-interval", "-1m", "above zero"},
	} {
		c := DefaultConfig()
		c.Targets, c.Tests, c.Params = []string{"sim"}, []TestID{WSAT}, map[string]string{tc.flag: tc.v}
		_, err := c.Resolve()
		if tc.err == "" {
			assert.NoError(t, err, tc.flag+" "+tc.v)
		} else {
			assert.ErrorContains(t, err, tc.err, tc.flag+" "+tc.v)
		}
	}
}

// The simulated drive saturates as real ones do: fresh-out-of-box IOPS
// several times the steady level until about a capacity is written, then
// a cliff.
func TestWSATShape(t *testing.T) {
	for _, model := range []string{"enterprise", "client"} {
		t.Run(model, func(t *testing.T) {
			s := newSetup(t, model, func(c *Config) { c.Tests = []TestID{WSAT} })
			r, _ := s.runner(t, s.eng)
			require.NoError(t, r.Run(context.Background(), nil))
			stage := s.info.Stages[0]
			ss := Replay(s.info.Stages, s.records(t)).Stages["wsat"]
			require.True(t, ss.Ended)
			var samples []Sample
			var start float64
			var written int64
			for _, m := range ss.Samples {
				written += m.Write.Bytes
				samples = append(samples, Sample{Start: start, Seconds: m.Elapsed.Seconds(), IOPS: m.IOPS(), Written: written})
				start += m.Elapsed.Seconds()
			}
			capacity := float64(s.info.Targets[0].CapacityBytes)
			assert.GreaterOrEqual(t, float64(written), 4*capacity, "stopped at 4 fills")
			assert.Less(t, float64(written), 4*capacity*1.01, "and not much after")
			var first, last float64
			var nf, nl float64
			for _, x := range samples {
				if x.Minute() <= 60 {
					first += x.IOPS
					nf++
				}
				if x.Minute() > samples[len(samples)-1].Minute()-60 {
					last += x.IOPS
					nl++
				}
			}
			first, last = first/nf, last/nl
			assert.GreaterOrEqual(t, first, 2*last, "first hour %.0f IOPS, last hour %.0f", first, last)
			sum := wsatSummary(stage, samples)
			cliff := sum.Figures[2].Value * 1e9 / capacity
			assert.True(t, cliff >= 0.5 && cliff <= 2, "the cliff at %.2f fills", cliff)
			t.Logf("%s: FOB %.0f IOPS, steady %.0f, first hour %.0f, last hour %.0f, cliff at %.2f fills, %d samples, %.1f h",
				model, sum.Figures[0].Value, sum.Figures[1].Value, first, last, cliff, len(samples), start/3600)
		})
	}
}
