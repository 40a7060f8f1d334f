package steadystate

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A worked example of the rule: IOPS in rounds 6–10.
func TestWorkedExample(t *testing.T) {
	v := Default().CheckWindow(6, []float64{10100, 9800, 10300, 9900, 10200})
	assert.True(t, v.Steady, v.Reason)
	assert.Equal(t, 6, v.FirstRound)
	assert.Equal(t, 10, v.LastRound)
	assert.InDelta(t, 10060, v.Average, 1e-9)
	assert.InDelta(t, 500, v.Range, 1e-9)
	assert.InDelta(t, 2012, v.MaxRange, 1e-9)
	assert.InDelta(t, 30, v.Slope, 1e-9)
	assert.InDelta(t, 120, v.SlopeExcursion, 1e-9)
	assert.InDelta(t, 1006, v.MaxSlopeExcursion, 1e-9)
	// y = m·R + b passes through (mean round, mean value): 8·30 + b = 10060.
	assert.InDelta(t, 10060-8*30, v.Intercept, 1e-9)
	assert.Empty(t, v.Reason)
}

// The numbering of the rounds moves the intercept but not the verdict (§2.2).
func TestRoundNumberingOnlyMovesIntercept(t *testing.T) {
	vals := []float64{10100, 9800, 10300, 9900, 10200}
	a := Default().CheckWindow(1, vals)
	b := Default().CheckWindow(21, vals)
	assert.Equal(t, a.Steady, b.Steady)
	assert.InDelta(t, a.Slope, b.Slope, 1e-9)
	assert.InDelta(t, a.SlopeExcursion, b.SlopeExcursion, 1e-9)
	assert.NotEqual(t, a.Intercept, b.Intercept)
	assert.InDelta(t, a.Intercept, b.Intercept+20*b.Slope, 1e-9)
}

// Sample window of a published cloudharmony report: avg 11726, excursion 300,
// slope −6.4, slope excursion 25.6.
func TestPublishedSample(t *testing.T) {
	// Values chosen to reproduce the published statistics exactly.
	v := Default().CheckWindow(1, []float64{11790, 11800, 11500, 11764, 11776})
	assert.InDelta(t, 11726, v.Average, 1e-9)
	assert.InDelta(t, 300, v.Range, 1e-9)
	assert.InDelta(t, -6.4, v.Slope, 1e-9)
	assert.InDelta(t, 25.6, v.SlopeExcursion, 1e-9)
	assert.True(t, v.Steady)
}

func TestBoundaries(t *testing.T) {
	c := Default()
	tests := []struct {
		name            string
		vals            []float64
		rangeOK, slopOK bool
	}{
		// avg 100, range exactly 20 % — inclusive.
		{"range exactly 20%", []float64{90, 110, 100, 100, 100}, true, true},
		{"range just over 20%", []float64{90, 110.0001, 100, 100, 99.9999}, false, true},
		// slope 2.5 per round → excursion 10 = 10 % of avg 100 — inclusive.
		{"slope exactly 10%", []float64{95, 97.5, 100, 102.5, 105}, true, true},
		{"slope just over 10%", []float64{94.999, 97.5, 100, 102.5, 105.001}, true, false},
		{"falling slope exactly 10%", []float64{105, 102.5, 100, 97.5, 95}, true, true},
		{"both fail", []float64{50, 75, 100, 125, 150}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := c.CheckWindow(1, tt.vals)
			assert.Equal(t, tt.rangeOK, v.RangeOK, "range %v allowed %v", v.Range, v.MaxRange)
			assert.Equal(t, tt.slopOK, v.SlopeOK, "slope exc %v allowed %v", v.SlopeExcursion, v.MaxSlopeExcursion)
			assert.Equal(t, tt.rangeOK && tt.slopOK, v.Steady)
			if v.Steady {
				assert.Empty(t, v.Reason)
			} else {
				assert.NotEmpty(t, v.Reason)
			}
		})
	}
}

// The excursion is |m|×(n−1), not |m|×n: a slope of 2.2 per round on an average
// of 100 is 8.8 % over the window (steady) but would be 11 % with ×n.
func TestSlopeTimesWindowMinusOne(t *testing.T) {
	v := Default().CheckWindow(1, []float64{95.6, 97.8, 100, 102.2, 104.4})
	assert.InDelta(t, 2.2, v.Slope, 1e-9)
	assert.InDelta(t, 8.8, v.SlopeExcursion, 1e-9)
	assert.True(t, v.Steady)
}

func TestConfigurableLimits(t *testing.T) {
	vals := []float64{10100, 9800, 10300, 9900, 10200} // range 4.97 %, slope 1.19 %
	tight := Criteria{Window: 5, MaxRange: 0.04, MaxSlope: 0.10}
	assert.False(t, tight.CheckWindow(1, vals).RangeOK)
	tight = Criteria{Window: 5, MaxRange: 0.20, MaxSlope: 0.01}
	assert.False(t, tight.CheckWindow(1, vals).SlopeOK)
	three := Criteria{Window: 3, MaxRange: 0.2, MaxSlope: 0.1}
	v := three.Last(vals)
	assert.Equal(t, 3, v.FirstRound)
	assert.Equal(t, []float64{10300, 9900, 10200}, v.Values)
}

func TestBadInput(t *testing.T) {
	c := Default()
	tests := []struct {
		name   string
		vals   []float64
		reason string
	}{
		{"too few", []float64{1, 2, 3}, "only 3 of the 5 rounds"},
		{"nan", []float64{1, 2, math.NaN(), 4, 5}, "round 3 has no finite value"},
		{"inf", []float64{1, 2, 3, 4, math.Inf(1)}, "round 5 has no finite value"},
		{"zero average", []float64{0, 0, 0, 0, 0}, "not positive"},
		{"negative average", []float64{-5, -5, -5, -5, -5}, "not positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := c.CheckWindow(1, tt.vals)
			assert.False(t, v.Steady)
			assert.Contains(t, v.Reason, tt.reason)
		})
	}
	bad := Criteria{Window: 1, MaxRange: 0.2, MaxSlope: 0.1}
	assert.Contains(t, bad.CheckWindow(1, []float64{1}).Reason, "window is at least 2 rounds, got 1")
	assert.Error(t, Criteria{Window: 5, MaxRange: 0, MaxSlope: 0.1}.Validate())
	assert.Error(t, Criteria{Window: 5, MaxRange: 0.2, MaxSlope: math.NaN()}.Validate())
	assert.NoError(t, Default().Validate())
}

// A fresh-out-of-box curve: IOPS fall after the purge, then settle. The first
// steady window must not include the fall.
func TestScanFallingFOB(t *testing.T) {
	series := []float64{410000, 260000, 150000, 104000, 91000, 86500, 85200, 84900, 85300, 84800, 85100}
	round, v := Default().Scan(series)
	require.NotZero(t, round)
	assert.True(t, v.Steady)
	assert.Equal(t, round, v.LastRound)
	for r := 5; r < round; r++ {
		assert.False(t, Default().CheckAt(series, r).Steady, "round %d", r)
	}
	assert.Greater(t, v.FirstRound, 3, "window must start after the fall")
}

func TestScanNeverSteady(t *testing.T) {
	series := []float64{100, 80, 64, 51, 41, 33, 26}
	round, v := Default().Scan(series)
	assert.Zero(t, round)
	assert.False(t, v.Steady)
	assert.Equal(t, 3, v.FirstRound)
	assert.Equal(t, 7, v.LastRound)
	round, v = Default().Scan([]float64{1, 2})
	assert.Zero(t, round)
	assert.Contains(t, v.Reason, "only 2 of the 5")
}

// Latency-like values: small numbers in ms, same rule.
func TestLatencyValues(t *testing.T) {
	series := []float64{0.0121, 0.0189, 0.0236, 0.0241, 0.0238, 0.0243, 0.0240, 0.0239}
	round, v := Default().Scan(series)
	assert.Equal(t, 7, round)
	assert.InDelta(t, 0.02396, v.Average, 1e-12)
	assert.True(t, v.Steady)
}

func TestJoint(t *testing.T) {
	steady := []float64{100, 101, 99, 100, 100, 100, 99, 101, 100}
	late := []float64{300, 200, 150, 110, 100, 100, 101, 99, 100}
	round, j := Default().ScanAll([]Series{{"a", steady}, {"b", late}})
	require.True(t, j.Steady, j.Reason)
	assert.Equal(t, 8, round, "a is steady from round 5, b only from 8")
	for _, v := range j.Verdicts {
		assert.True(t, v.Steady)
		assert.Equal(t, 4, v.FirstRound)
	}

	j = Default().CheckAllAt([]Series{{"a", steady}, {"b", late}}, 5)
	assert.False(t, j.Steady)
	assert.Contains(t, j.Reason, "b:")
	assert.NotContains(t, j.Reason, "a:")

	// Only rounds every variable has are considered.
	round, j = Default().ScanAll([]Series{{"a", steady[:6]}, {"b", late}})
	assert.Zero(t, round)
	assert.Equal(t, 6, j.Round)
	assert.False(t, Default().CheckAllAt(nil, 5).Steady)
}

func FuzzCheckWindow(f *testing.F) {
	f.Add(10100.0, 9800.0, 10300.0, 9900.0, 10200.0, 6)
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, 1)
	f.Add(-1.0, 1e308, -1e308, 5.0, math.NaN(), 1)
	f.Fuzz(func(t *testing.T, a, b, c, d, e float64, first int) {
		if first < -1e6 || first > 1e6 {
			return
		}
		vals := []float64{a, b, c, d, e}
		v := Default().CheckWindow(first, vals)
		if v.Steady {
			if v.Reason != "" || !v.RangeOK || !v.SlopeOK {
				t.Fatalf("steady with reason %q or failed criterion: %+v", v.Reason, v)
			}
			if !(v.Range <= v.MaxRange) || !(v.SlopeExcursion <= v.MaxSlopeExcursion) || !(v.Average > 0) {
				t.Fatalf("steady but limits exceeded: %+v", v)
			}
		} else if v.Reason == "" {
			t.Fatalf("not steady without a reason: %+v", v)
		}
		// Reversing the window keeps the range and the slope excursion.
		r := slices.Clone(vals)
		slices.Reverse(r)
		w := Default().CheckWindow(first, r)
		if v.Steady && allFinite(vals) && math.Abs(v.Range-w.Range) > 1e-9*math.Abs(v.Range) {
			t.Fatalf("reversal changed the range: %v vs %v", v.Range, w.Range)
		}
	})
}

func allFinite(vs []float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
