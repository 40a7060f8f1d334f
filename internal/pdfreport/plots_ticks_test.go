package pdfreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Linear axes are ticked at round values from a multiple of the step: not
// at 40, 120 and 200 minutes or 0.5, 2 and 3.5 drive fills (issue 20).
func TestNumTicksAreRound(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     []string
	}{
		{0, 210, []string{"0", "50", "100", "150", "200"}}, // a WSAT's minutes
		{0.013, 4.1, []string{"1", "2", "3", "4"}},         // drive fills
		{0, 7000, []string{"0", "1,000", "2,000", "3,000", "4,000", "5,000", "6,000", "7,000"}},
		{10, 13, []string{"10", "10.5", "11", "11.5", "12", "12.5", "13"}},
		{-1, 1, []string{"-1", "-0.5", "0", "0.5", "1"}},
	} {
		var got []string
		for _, tk := range (numTicks{}).Ticks(tc.min, tc.max) {
			got = append(got, tk.Label)
		}
		assert.Equal(t, tc.want, got, "%g–%g", tc.min, tc.max)
	}
	assert.Equal(t, 7000.0, niceTop(6622*1.02), "the tallest throughput bar under a labelled line")
	assert.Equal(t, 200.0, niceTop(199))
	assert.Equal(t, 5.0, niceTop(5))
}

// A bar plot's top is a labelled grid line above its tallest bar: bars
// stayed above the grid, and the labels stopped below them.
func TestBarsUnderALabelledGridLine(t *testing.T) {
	p := barPlot("Throughput", "MB/s", []string{"1024 KiB", "128 KiB"},
		[]series{{name: "read", ys: []float64{6622, 6611}}, {name: "write", ys: []float64{2007, 2000}}})
	ticks := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)
	require.NotEmpty(t, ticks)
	top := ticks[len(ticks)-1]
	assert.Equal(t, p.Y.Max, top.Value, "the axis ends at a tick")
	assert.GreaterOrEqual(t, top.Value, 6622.0)
	assert.NotEmpty(t, top.Label)
}

// An operating point is marked by its glyph and named in the legend only:
// a label beside the mark lay over the curves (issue 20).
func TestMarksNamedInTheLegendOnly(t *testing.T) {
	p := linePlot("Demand intensity", "IOPS", "ms", []series{{name: "TC 1", xs: []float64{1, 2, 3}, ys: []float64{1, 2, 3}}}, false)
	addMarks(p, []mark{{legend: "MaxIOPS TC1/QD4: 3 IOPS", x: 3, y: 3}, {legend: "MinIOPS TC1/QD1: 1 IOPS", x: 1, y: 1}})
	c := vgsvg.New(10*vg.Centimeter, 8*vg.Centimeter)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	_, err := c.WriteTo(&b)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(b.String(), "MaxIOPS"), "once, in the legend")
	assert.Equal(t, 1, strings.Count(b.String(), "MinIOPS"), "once, in the legend")
}
