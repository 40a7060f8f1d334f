package steadystate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A series is numbers a line, or a CSV column by its header; an error
// names the line.
func TestReadSeries(t *testing.T) {
	for _, c := range []struct {
		name, in, column string
		want             []float64
		err              string
	}{
		{"lines", "# IOPS\n100\n\n 101.5 \n99\n", "", []float64{100, 101.5, 99}, ""},
		{"a column", "round,iops\n1,100\n2,98\n", "iops", []float64{100, 98}, ""},
		{"not a number", "100\nabc\n", "", nil, `line 2: "abc" is not a finite number`},
		{"not finite", "NaN\n", "", nil, `line 1: "NaN" is not a finite number`},
		{"no column", "round,mbps\n1,2\n", "iops", nil, `line 1: no column "iops" (columns: round, mbps)`},
		{"a short row", "round,iops\n1\n", "iops", nil, `line 2: no value in column "iops"`},
		{"empty", "# nothing\n", "", nil, "no values"},
		{"empty CSV", "", "iops", nil, "empty CSV: no header"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadSeries(strings.NewReader(c.in), c.column)
			if c.err != "" {
				assert.EqualError(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

// The verdict as --json gives it, and in words.
func TestAnalyze(t *testing.T) {
	vals := []float64{50, 100, 101, 99, 100, 100}
	a := Default().Analyze(vals)
	assert.True(t, a.Steady)
	assert.Equal(t, [2]int{2, 6}, a.Window)
	require.NotNil(t, a.FirstSteadyRound)
	assert.Equal(t, 6, *a.FirstSteadyRound)
	text := Default().Text(vals)
	assert.Contains(t, text, fmt.Sprintf("%5d  %14.6g  %s\n%5d  %14.6g  %s\n", 5, 100.0, "not steady", 6, 100.0, "steady"))
	assert.Contains(t, text, "STEADY over rounds 2–6; first steady at round 6 (window 2–6)\n")
}
