package pts

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A journal read as a stream is the journal read whole: lines longer than
// the reader's buffer, blank lines, a last line cut short; with
// ScanOptions.Series, the stages it does not name are read without their
// series and nothing else differs.
func TestScanJournal(t *testing.T) {
	cell := func(stage string, n int) Record {
		m := &engine.Measurement{Engine: "sim", Seconds: make([]engine.Second, n),
			Targets: []engine.TargetStats{{Target: "a", Seconds: make([]engine.Second, n)}}}
		for i := range m.Seconds {
			m.Seconds[i] = engine.Second{ReadIOs: int64(i), Read: &engine.IntervalLat{MeanNs: 1, P99Ns: 2, P999Ns: 3, MaxNs: 4}}
		}
		m.Read.Record(1000, 5, 4096)
		c := 0
		return Record{Type: RecCell, Stage: stage, Round: 1, Cell: &c, Measurement: m}
	}
	recs := []Record{{Type: RecStart, Message: strings.Repeat("long ", 80_000)}, cell("iops", 10000), cell("custom", 5),
		{Type: RecEnd}}
	var buf bytes.Buffer
	for i, r := range recs {
		j := encodeLine(t, r)
		buf.Write(j)
		if i == 1 {
			buf.WriteString("\n  \n")
		}
	}
	full := buf.Bytes()
	require.Greater(t, len(encodeLine(t, recs[1])), 256<<10, "a line longer than the reader's buffer")

	whole, cut, err := ReadJournal(bytes.NewReader(full))
	require.NoError(t, err)
	assert.False(t, cut)
	require.Len(t, whole, len(recs))
	for i := range recs {
		assert.Equal(t, string(encodeLine(t, recs[i])), string(encodeLine(t, whole[i])), "record %d", i+1)
	}

	var lean []Record
	cut, err = ScanJournal(bytes.NewReader(full), ScanOptions{Series: func(s string) bool { return s == "custom" }},
		func(r *Record) error { lean = append(lean, *r); return nil })
	require.NoError(t, err)
	assert.False(t, cut)
	require.Len(t, lean, len(recs))
	assert.Nil(t, lean[1].Measurement.Seconds, "a stage whose series nobody reads")
	assert.Nil(t, lean[1].Measurement.Targets[0].Seconds)
	want := *whole[1].Measurement
	want.Seconds, want.Targets = nil, []engine.TargetStats{want.Targets[0]}
	want.Targets[0].Seconds = nil
	assert.Equal(t, string(mustJSON(t, want)), string(mustJSON(t, *lean[1].Measurement)), "the rest as read whole")
	assert.Len(t, lean[2].Measurement.Seconds, 5, "the custom stage keeps its series")
	assert.Equal(t, whole[0].Message, lean[0].Message)

	_, cut, err = ReadJournal(bytes.NewReader(append(full, `{"type":"cell","stage":"io`...)))
	require.NoError(t, err)
	assert.True(t, cut, "a last line without its newline is cut")
}

func encodeLine(t *testing.T, r Record) []byte { return append(mustJSON(t, r), '\n') }

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// A journal read without its series reads as it reads whole, or fails
// where it fails.
func FuzzScanJournalLean(f *testing.F) {
	f.Add([]byte("{\"type\":\"start\"}\n{\"type\":\"cell\",\"stage\":\"iops\",\"measurement\":{\"seconds\":[{\"r_ios\":1}]}}\n"))
	f.Add([]byte("{\"type\":\"sample\",\"stage\":\"x\",\"measurement\":{\"seconds\":{\"a\":[1,2]},\"read\":{\"ios\":3}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, wcut, werr := ReadJournal(bytes.NewReader(data))
		var lean []Record
		lcut, lerr := ScanJournal(bytes.NewReader(data), ScanOptions{Series: func(s string) bool { return s == "x" }},
			func(r *Record) error { lean = append(lean, *r); return nil })
		if werr != nil {
			return // the lean read may accept a series it does not read
		}
		require.NoError(t, lerr)
		assert.Equal(t, wcut, lcut)
		require.Len(t, lean, len(whole))
		for i := range whole {
			if m := whole[i].Measurement; m != nil && whole[i].Stage != "x" {
				m.Seconds = nil
				for k := range m.Targets {
					m.Targets[k].Seconds = nil
				}
			}
			assert.Equal(t, string(mustJSON(t, whole[i])), string(mustJSON(t, lean[i])), "record %d", i+1)
		}
	})
}

// Records reach f in the journal's order across the decoders' batches; a
// bad line past the first batch is named by its number, after f has had
// every record before it; f's error stops the scan.
func TestScanJournalInOrder(t *testing.T) {
	var buf bytes.Buffer
	const n = 3*scanBatch + 17
	for i := range n {
		buf.Write(encodeLine(t, Record{Type: RecRoundStart, Round: i + 1}))
	}
	full := buf.Bytes()
	var rounds []int
	cut, err := ScanJournal(bytes.NewReader(full), ScanOptions{}, func(r *Record) error { rounds = append(rounds, r.Round); return nil })
	require.NoError(t, err)
	assert.False(t, cut)
	require.Len(t, rounds, n)
	for i, r := range rounds {
		require.Equal(t, i+1, r, "record %d", i+1)
	}

	bad := bytes.Replace(full, []byte(`"round":300`), []byte(`"round":"x"`), 1)
	require.NotEqual(t, full, bad)
	rounds = rounds[:0]
	_, err = ScanJournal(bytes.NewReader(bad), ScanOptions{}, func(r *Record) error { rounds = append(rounds, r.Round); return nil })
	assert.ErrorContains(t, err, "line 300: ")
	assert.Len(t, rounds, 299, "every record before the bad line")

	stopped := errors.New("enough")
	rounds = rounds[:0]
	_, err = ScanJournal(bytes.NewReader(full), ScanOptions{}, func(r *Record) error {
		if rounds = append(rounds, r.Round); r.Round == 10 {
			return stopped
		}
		return nil
	})
	assert.ErrorIs(t, err, stopped)
	assert.Len(t, rounds, 10)

	cut, err = ScanJournal(bytes.NewReader(full[:len(full)-5]), ScanOptions{}, func(*Record) error { return nil })
	require.NoError(t, err)
	assert.True(t, cut, "a last line cut short")
}

// A journal written before series were kept by column (an array of
// intervals) reads as it did, and is written back by column.
func TestJournalReadsSeriesRows(t *testing.T) {
	line := `{"type":"cell","time":"2026-11-01T10:00:00Z","stage":"iops","round":1,"cell":0,"measurement":{"engine":"sim","elapsed_ns":1000000000,"read":{"ios":5},"write":{},` +
		`"seconds":[{"r_ios":5,"w_ios":0,"r_bytes":20480,"w_bytes":0,"lat_mean_ns":1000.5,"r_lat":{"mean_ns":1000.5,"p99_ns":2000,"p99_9_ns":2100,"max_ns":2200},"ramp":true}],"cpu":{"user":0,"sys":0}}}` + "\n"
	recs, cut, err := ReadJournal(strings.NewReader(line))
	require.NoError(t, err)
	assert.False(t, cut)
	require.Len(t, recs, 1)
	want := engine.Series{{ReadIOs: 5, ReadBytes: 20480, LatMeanNs: 1000.5, Ramp: true,
		Read: &engine.IntervalLat{MeanNs: 1000.5, P99Ns: 2000, P999Ns: 2100, MaxNs: 2200}}}
	assert.Equal(t, want, recs[0].Measurement.Seconds)
	assert.Contains(t, string(encodeLine(t, recs[0])), `"seconds":{"n":1,"r_ios":[5],`)
}
