package engine

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seriesCases are series whose JSON must read back to the same figures.
var seriesCases = []struct {
	name string
	s    Series
}{
	{"nil", nil},
	{"empty", Series{}},
	{"reads", Series{
		{ReadIOs: 6242, ReadBytes: 6545211392, LatMeanNs: 20503773.171739828, Read: &IntervalLat{MeanNs: 20503773.171739828, P99Ns: 62785342, P999Ns: 62785342, MaxNs: 62785342}},
		{ReadIOs: 6243, ReadBytes: 6546259968, LatMeanNs: 1.5e-7, Read: &IntervalLat{MeanNs: 1e22, P99Ns: 1, P999Ns: 2, MaxNs: 3}},
	}},
	{"mixed, a gap and a ramp", Series{
		{ReadIOs: 10, WriteIOs: 5, ReadBytes: 40960, WriteBytes: 20480, LatMeanNs: 101.25, Read: &IntervalLat{MeanNs: 99.5, P99Ns: 200, P999Ns: 300, MaxNs: 400},
			Write: &IntervalLat{MeanNs: 105, P99Ns: 210, P999Ns: 310, MaxNs: 410}, Ramp: true},
		{},
		{WriteIOs: 7, WriteBytes: 28672, LatMeanNs: 88, Write: &IntervalLat{MeanNs: 88, Of: LatCompletion}},
		{ReadIOs: 3, ReadBytes: 12288, LatMeanNs: 0, Read: &IntervalLat{}},
	}},
}

func TestSeriesJSONRoundTrip(t *testing.T) {
	for _, c := range seriesCases {
		t.Run(c.name, func(t *testing.T) {
			m := Measurement{Engine: "x", Seconds: c.s, Targets: []TargetStats{{Target: "a", Seconds: c.s}}}
			b, err := json.Marshal(m)
			require.NoError(t, err)
			var back Measurement
			require.NoError(t, json.Unmarshal(b, &back), "%s", b)
			if len(c.s) == 0 {
				assert.Empty(t, back.Seconds)
				assert.NotContains(t, string(b), `"seconds"`, "an empty series is left out, as before")
				return
			}
			assert.Equal(t, c.s, back.Seconds)
			assert.Equal(t, c.s, back.Targets[0].Seconds)
		})
	}
}

// TestSeriesReadsRows: journals written before the columns hold a series
// as an array of intervals.
func TestSeriesReadsRows(t *testing.T) {
	s := seriesCases[3].s
	rows, err := json.Marshal([]Second(s))
	require.NoError(t, err)
	var back Series
	require.NoError(t, json.Unmarshal(rows, &back))
	assert.Equal(t, s, back)
	assert.NoError(t, json.Unmarshal([]byte(" null"), &back))
	assert.Nil(t, back)
}

// TestSeriesIsSmaller: the point of the columns.
func TestSeriesIsSmaller(t *testing.T) {
	s := make(Series, 60)
	for i := range s {
		s[i] = Second{ReadIOs: 6242, WriteIOs: 3361, ReadBytes: 6545211392, WriteBytes: 3524263936, LatMeanNs: 20503773.171739828,
			Read:  &IntervalLat{MeanNs: 20503773.171739828, P99Ns: 62785342, P999Ns: 62785342, MaxNs: 62785342},
			Write: &IntervalLat{MeanNs: 20503773.171739828, P99Ns: 62785342, P999Ns: 62785342, MaxNs: 62785342}}
	}
	cols, err := json.Marshal(s)
	require.NoError(t, err)
	rows, err := json.Marshal([]Second(s))
	require.NoError(t, err)
	assert.Less(t, float64(len(cols)), 0.7*float64(len(rows)), "columns %d bytes, rows %d", len(cols), len(rows))
}

func TestSeriesJSONErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"n":2,"r_ios":[1],"w_ios":[1,2],"r_bytes":[1,2],"w_bytes":[1,2],"lat_mean_ns":[1,2]}`, "r_ios has 1 intervals, not n 2"},
		{`{"n":-1}`, "n -1"},
		{`{"n":1,"r_ios":[1],"w_ios":[1],"r_bytes":[1],"w_bytes":[1],"lat_mean_ns":[1],"r_lat":{"mean_ns":[1],"p99_ns":[],"p99_9_ns":[1],"max_ns":[1]}}`, "r_lat's columns are not all 1 intervals long"},
		{`{"n":1,"r_ios":[1],"w_ios":[1],"r_bytes":[1],"w_bytes":[1],"lat_mean_ns":[1],"ramp":[1]}`, "ramp interval 1 of 1"},
		{`{"n":1,"r_ios":["x"]}`, "cannot unmarshal"},
		{`7`, "cannot unmarshal"},
	} {
		var s Series
		err := json.Unmarshal([]byte(c.in), &s)
		require.Error(t, err, c.in)
		assert.Contains(t, err.Error(), c.want)
	}
	_, err := json.Marshal(Series{{LatMeanNs: math.NaN()}})
	assert.ErrorContains(t, err, "unsupported value NaN")
}

// FuzzSeriesJSON: whatever a journal line holds, reading it does not
// panic, and what reads writes back to the same series.
func FuzzSeriesJSON(f *testing.F) {
	for _, c := range seriesCases {
		b, _ := json.Marshal(c.s)
		f.Add(b)
		rows, _ := json.Marshal([]Second(c.s))
		f.Add(rows)
	}
	f.Add([]byte(`{"n":1,"r_ios":[1],"w_ios":[0],"r_bytes":[4096],"w_bytes":[0],"lat_mean_ns":[5],"r_lat":{"mean_ns":[null],"p99_ns":[0],"p99_9_ns":[0],"max_ns":[0],"of":[""]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Series
		if json.Unmarshal(data, &s) != nil {
			return
		}
		b, err := json.Marshal(s)
		if err != nil {
			// Only a value JSON cannot hold stops it; json.Unmarshal
			// never makes one.
			t.Fatalf("%s read, and does not write: %v", data, err)
		}
		var again Series
		require.NoError(t, json.Unmarshal(b, &again), "%s", b)
		if len(s) == 0 {
			assert.Empty(t, again)
			return
		}
		assert.Equal(t, s, again, "%s", strings.TrimSpace(string(b)))
	})
}
