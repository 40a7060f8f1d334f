package pdfreport

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A long per-second series is drawn as its envelope: every bucket's lowest
// and highest value in order, NaN gaps kept; a short one as it is.
func TestThinSeries(t *testing.T) {
	short := series{name: "s", xs: []float64{1, 2, 3}, ys: []float64{5, 1, 9}}
	assert.Equal(t, []series{short}, thinSeries([]series{short}, 2))

	long := series{name: "l"}
	for i := 0; i < 3600; i++ {
		y := 100.0
		switch {
		case i == 1234:
			y = 1 // a dip
		case i == 2000:
			y = 900 // a spike
		case i >= 3000 && i < 3100:
			y = math.NaN() // a gap
		}
		long.xs, long.ys = append(long.xs, float64(i+1)), append(long.ys, y)
	}
	got := thinSeries([]series{long}, 100)[0]
	require.LessOrEqual(t, len(got.xs), 200)
	assert.Contains(t, got.ys, 1.0, "the dip stays")
	assert.Contains(t, got.ys, 900.0, "the spike stays")
	var nan bool
	for i, y := range got.ys {
		nan = nan || math.IsNaN(y)
		if i > 0 {
			assert.Less(t, got.xs[i-1], got.xs[i], "in the order they came")
		}
	}
	assert.True(t, nan, "the gap still breaks the line")
	assert.Len(t, long.xs, 3600, "the input is left as it was")
}

// A line plot of a long series draws its envelope on the axes of all of
// it: the same ranges, so the same ticks, as every point would give.
func TestLinePlotEnvelopeAxes(t *testing.T) {
	long := series{name: "l"}
	for i := 0; i < 1320; i++ {
		y := 100 + []float64{1, 0, 2}[i%3] // the first and last minutes fall between their buckets' extremes
		if i == 700 {
			y = 5
		}
		long.xs, long.ys = append(long.xs, float64(i+1)), append(long.ys, y)
	}
	thin := thinSeries([]series{long}, maxSecondsBuckets)[0]
	require.Less(t, len(thin.xs), len(long.xs), "drawn as its envelope")
	for _, logY := range []bool{false, true} {
		got := linePlot("t", "Minute", "IOPS", []series{long}, logY)
		all := newPlot("t", "Minute", "IOPS")
		addLines(all, []series{long}, logY)
		assert.Equal(t, all.X.Min, got.X.Min, "log %v", logY)
		assert.Equal(t, all.X.Max, got.X.Max, "log %v", logY)
		assert.Equal(t, all.Y.Max, got.Y.Max, "log %v", logY)
		if logY {
			assert.Equal(t, all.Y.Min, got.Y.Min)
		}
	}
}
