package fio

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A job's time is fio's reading of runtime= and ramp_time=, the one
// grammar ptsrun takes (the gate's estimate, the series' length): parse.c
// get_mult_time reads no unit as seconds, and only the suffixes us/usec,
// ms/msec, s, m, h and d; any other ("sec", "min", "30s" after "2m") is a
// count of microseconds. ptsrun reads the numbers fio made, never the text.
func TestJobTimeIsFios(t *testing.T) {
	t.Parallel() // fio processes on targets of its own: beside the others
	for _, c := range []struct {
		value string
		want  time.Duration
	}{
		{"60", time.Minute},
		{"60s", time.Minute},
		{"1m", time.Minute},
		{"2h", 2 * time.Hour},
		{"1d", 24 * time.Hour},
		{"500ms", 500 * time.Millisecond},
		{"250msec", 250 * time.Millisecond},
		{"90us", 90 * time.Microsecond},
		{"60sec", 60 * time.Microsecond},
		{"1min", time.Microsecond},
		{"2m30s", 2 * time.Microsecond},
	} {
		t.Run(c.value, func(t *testing.T) {
			jf := parseOne(t, "[j]\nfilename=/dev/null\nsize=1m\ntime_based\nruntime="+c.value+"\nramp_time="+c.value+"\n", nil, nil)
			require.Len(t, jf.Jobs, 1)
			got, ok := JobTime(jf.Jobs[0])
			require.True(t, ok)
			assert.Equal(t, 2*c.want, got, "runtime=%s ramp_time=%s as fio reads them", c.value, c.value)
		})
	}
}
