package fio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

func parseFile(t *testing.T, name string) *Output {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	require.NoError(t, err)
	defer f.Close()
	out, err := Parse(f)
	require.NoError(t, err, name)
	return out
}

// rawTotals reads the reference numbers straight from the JSON.
func rawTotals(t *testing.T, name string) (ios, size int64, meanNs float64) {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var doc struct {
		Jobs []struct {
			Read struct {
				TotalIOs int64 `json:"total_ios"`
				IOBytes  int64 `json:"io_bytes"`
				LatNs    struct {
					Mean float64 `json:"mean"`
				} `json:"lat_ns"`
			} `json:"read"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(data[bytes.IndexByte(data, '{'):], &doc))
	r := doc.Jobs[0].Read
	return r.TotalIOs, r.IOBytes, r.LatNs.Mean
}

func TestParseLocal(t *testing.T) {
	out := parseFile(t, "local-3.33.json")
	assert.Equal(t, 3, out.Version.Major)
	assert.Equal(t, 33, out.Version.Minor)
	assert.False(t, out.ClientServer)
	require.Len(t, out.Jobs, 1, "group_reporting: one entry")
	j := out.Jobs[0]
	assert.Equal(t, "cell", j.Name)
	assert.Equal(t, "randrw", j.Options["rw"])
	ios, by, mean := rawTotals(t, "local-3.33.json")
	assert.Equal(t, ios, j.Read.IOs)
	assert.Equal(t, by, j.Read.Bytes)
	assert.True(t, j.Read.HasLat)
	assert.InDelta(t, mean, j.Read.Lat.Mean, 1e-6)
	assert.Equal(t, time.Second+time.Millisecond, j.Elapsed().Round(time.Millisecond))
	s := j.Read.Stats()
	assert.Equal(t, ios, s.IOs)
	require.NotNil(t, s.Hist)
	assert.Equal(t, ios, s.Hist.Count(), "json+ bins count every I/O")
	assert.InDelta(t, mean, s.MeanLatNs(), 1e-6)
	assert.LessOrEqual(t, s.PercentileNs(99.999), s.LatMaxNs)
	// The percentile from the bins agrees with fio's own within its 1/64 bin width.
	p := j.Read.Lat.Percentiles[99.0]
	assert.InEpsilon(t, p, float64(s.PercentileNs(99)), 0.03)
	w := j.Write.Stats()
	assert.NotZero(t, w.IOs)
	share := float64(s.IOs) / float64(s.IOs+w.IOs)
	assert.InDelta(t, 0.65, share, 0.02)
}

func TestParseSurvivesTextNanAndSeveralDocuments(t *testing.T) {
	ref := parseFile(t, "local-3.33.json")
	for _, name := range []string{"prefixed-nan-3.33.json", "two-docs-3.33.json"} {
		out := parseFile(t, name)
		require.Len(t, out.Jobs, 1, name)
		assert.Equal(t, ref.Jobs[0].Read.IOs, out.Jobs[0].Read.IOs, "%s: the last document counts", name)
		assert.Equal(t, ref.Jobs[0].Write.Bytes, out.Jobs[0].Write.Bytes, name)
	}
}

func TestParseOldUnits(t *testing.T) {
	ref := parseFile(t, "local-3.33.json").Jobs[0]
	old := parseFile(t, "old-2.20.json")
	assert.Equal(t, 2, old.Version.Major)
	j := old.Jobs[0]
	// fio 2.20 wrote io_bytes in KiB and latencies in µs.
	assert.InDelta(t, float64(ref.Read.Bytes), float64(j.Read.Bytes), 1024)
	assert.InDelta(t, ref.Read.Lat.Mean, j.Read.Lat.Mean, 1)
	assert.InDelta(t, ref.Read.Lat.Max, j.Read.Lat.Max, 1)
	assert.Equal(t, ref.Read.IOs, j.Read.IOs, "without total_ios the latency N counts the I/Os")
	s := j.Read.Stats()
	require.NotNil(t, s.Hist)
	assert.Equal(t, ref.Read.IOs, s.Hist.Count())
	assert.InEpsilon(t, float64(ref.Read.Stats().PercentileNs(99)), float64(s.PercentileNs(99)), 0.02)
}

func TestParseClientServer(t *testing.T) {
	out := parseFile(t, "clients-3.33.json")
	assert.True(t, out.ClientServer)
	require.Len(t, out.Jobs, 2, "the All clients aggregate is left out")
	ports := map[int]bool{}
	for _, j := range out.Jobs {
		assert.Equal(t, "127.0.0.1", j.Host)
		ports[j.Port] = true
		s := j.Read.Stats()
		assert.Equal(t, s.IOs, s.Hist.Count())
	}
	assert.Len(t, ports, 2)
}

func TestParseErrors(t *testing.T) {
	_, err := Parse(strings.NewReader("fio: failed to open /dev/nope: No such file\n"))
	assert.ErrorIs(t, err, ErrNoJSON)
	_, err = Parse(strings.NewReader("warning\n{\"fio version\": \"fio-3.33\", \"jobs\": [ {\"jobname\": \n"))
	assert.ErrorContains(t, err, "JSON from line 2")
	_, err = Parse(strings.NewReader(`{"fio version":"fio-3.33","jobs":[{"jobname":"x","read":{"lat_ns":{"bins":{"abc":3}}}}]}`))
	assert.ErrorContains(t, err, `histogram bin "abc"`)
	out := parseFile(t, "error-3.33.json")
	assert.Equal(t, 5, out.Jobs[0].Error)
	e := &Engine{targets: []Target{{Name: "/dev/loop0", Path: "/dev/loop0"}}, hosts: []string{""}}
	_, err = e.measurement(out, engine.Workload{})
	assert.ErrorIs(t, err, engine.ErrIO)
	assert.ErrorContains(t, err, "error 5 (input/output error)")
}

func TestSanitize(t *testing.T) {
	in := `{"a": -nan, "b": nan, "c": inf, "d": -inf, "s": "-nan inf", "e": 1e-3, "n": null, "info": 2}`
	got := string(sanitize([]byte(in)))
	assert.Equal(t, `{"a": null, "b": null, "c": null, "d": null, "s": "-nan inf", "e": 1e-3, "n": null, "info": 2}`, got)
	var v map[string]any
	assert.NoError(t, json.Unmarshal([]byte(got), &v))
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string][3]int{"fio-3.33": {3, 33, 0}, "fio-2.2.10\n": {2, 2, 10}, "3.36-23-gabcdef": {3, 36, 0}} {
		v, err := ParseVersion(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, [3]int{v.Major, v.Minor, v.Patch}, in)
	}
	_, err := ParseVersion("fio")
	assert.Error(t, err)
	v, _ := ParseVersion("fio-3.13")
	assert.True(t, v.AtLeast(3, 13))
	assert.False(t, v.AtLeast(3, 14))
	assert.True(t, v.AtLeast(2, 99))
}

func FuzzParse(f *testing.F) {
	for _, n := range []string{"local-3.33.json", "clients-3.33.json", "old-2.20.json"} {
		b, _ := os.ReadFile(filepath.Join("testdata", n))
		f.Add(b[:min(len(b), 4000)])
	}
	f.Add([]byte("text {\"jobs\":[{\"read\":{\"lat_ns\":{\"bins\":{\"1\":-5}}}}]} {"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Parse(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, j := range out.Jobs {
			for _, d := range []Dir{j.Read, j.Write, j.Trim} {
				s := d.Stats()
				if s.Hist != nil && s.Hist.Count() < 0 {
					t.Fatal("negative histogram count")
				}
			}
		}
	})
}

// reshape parses a fixture after edit changed each latency object of its
// jobs' read and write ("lat_ns", "clat", …).
func reshape(t *testing.T, name string, edit func(name string, lat map[string]any)) *Output {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	for _, j := range doc["jobs"].([]any) {
		for _, d := range []string{"read", "write"} {
			dir := j.(map[string]any)[d].(map[string]any)
			for k, v := range dir {
				if lat, ok := v.(map[string]any); ok && strings.Contains(k, "lat") {
					edit(k, lat)
				}
			}
		}
	}
	b, err = json.Marshal(doc)
	require.NoError(t, err)
	out, err := Parse(bytes.NewReader(b))
	require.NoError(t, err)
	return out
}

// TestStatsPercentileSource: the percentiles of the total latency when fio
// gave them (lat_percentiles=1), else of the completion latency; from the
// json+ bins, else as fio printed them, in ns whatever fio's version.
func TestStatsPercentileSource(t *testing.T) {
	noBins := func(_ string, l map[string]any) { delete(l, "bins") }
	for _, c := range []struct {
		name, file string
		edit       func(string, map[string]any)
		kind       string
		hist       bool
		from       string // the latency object the printed values are of
		scale      float64
	}{
		{"json+, lat_percentiles=1: total latency bins", "local-3.33.json", func(string, map[string]any) {}, "", true, "", 0},
		{"json+ without lat_percentiles: completion latency bins", "local-3.33.json", func(k string, l map[string]any) {
			if k == "lat_ns" {
				delete(l, "bins")
				delete(l, "percentile")
			}
		}, engine.LatCompletion, true, "", 0},
		{"json, lat_percentiles=1: total latency as printed", "local-3.33.json", noBins, "", false, "lat_ns", 1},
		{"json: completion latency as printed", "local-3.33.json", func(k string, l map[string]any) {
			delete(l, "bins")
			if k == "lat_ns" {
				delete(l, "percentile")
			}
		}, engine.LatCompletion, false, "clat_ns", 1},
		{"fio 2 json: µs made ns", "old-2.20.json", noBins, "", false, "lat", 1000},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw := map[string]map[string]any{}
			out := reshape(t, c.file, func(k string, l map[string]any) {
				c.edit(k, l)
				if raw[k] == nil {
					raw[k] = l // job 0's read comes first
				}
			})
			s := out.Jobs[0].Read.Stats()
			assert.Equal(t, c.kind, s.PctLat)
			if c.hist {
				require.NotNil(t, s.Hist)
				assert.Equal(t, s.IOs, s.Hist.Count())
				assert.Empty(t, s.Printed)
				return
			}
			assert.Nil(t, s.Hist, "no bins, no histogram")
			want := raw[c.from]["percentile"].(map[string]any)
			require.Len(t, s.Printed, len(want))
			for i, p := range s.Printed {
				if i > 0 {
					assert.Greater(t, p.P, s.Printed[i-1].P, "in increasing order")
				}
				assert.Equal(t, want[fmt.Sprintf("%.6f", p.P)].(float64)*c.scale, p.Ns, "%v", p.P)
			}
			_, ok := s.PrintedNs(99.999)
			assert.True(t, ok)
			_, ok = s.PrintedNs(99.9999)
			assert.False(t, ok, "never one fio did not print")
		})
	}
}

// Through fio servers the host CPU is fio's usr_cpu and sys_cpu of each
// target's job threads: percent of their summed run time (job_runtime), so
// per second of the cell they are CPUs busy. The fixture's hosts ran one
// thread each for 1000 ms of a 1001 ms cell.
func TestRemoteCPUFromFioJobs(t *testing.T) {
	out := parseFile(t, "clients-3.33.json")
	e := &Engine{targets: []Target{
		{Name: "a", Path: "/dev/loop0", Server: "127.0.0.1:8767"},
		{Name: "b", Path: "/dev/loop1", Server: "127.0.0.1:8766"},
	}, hosts: []string{"127.0.0.1:8767", "127.0.0.1:8766"}}
	m, err := e.measurement(out, engine.Workload{TC: 1})
	require.NoError(t, err)
	require.Len(t, m.Targets, 2)
	share := 1000.0 / 1001
	for _, tc := range []struct {
		target   int
		usr, sys float64
	}{{0, 3.9, 29.5}, {1, 6.3, 31.2}} {
		c := m.Targets[tc.target].CPU
		require.NotNil(t, c)
		assert.Equal(t, engine.CPUOfOne, c.Of)
		assert.InDelta(t, tc.usr/100*share, c.User, 1e-9)
		assert.InDelta(t, tc.sys/100*share, c.Sys, 1e-9)
	}
	assert.Equal(t, engine.CPUOfOne, m.CPU.Of, "fio does not report a server host's CPU count")
	assert.InDelta(t, (3.9+6.3)/100*share, m.CPU.User, 1e-9, "the set's CPU is the sum over the hosts")
	assert.InDelta(t, (29.5+31.2)/100*share, m.CPU.Sys, 1e-9)
	assert.Equal(t, "% of one CPU", m.CPU.Unit())

	// Two threads in a group: job_runtime is their sum, usr_cpu their mean.
	local := parseFile(t, "local-3.33.json").Jobs[0]
	c := jobCPU(local, 2, local.Elapsed())
	assert.InDelta(t, 5.35/100*2000/1001, c.User, 1e-9)
	assert.InDelta(t, 33.65/100*2000/1001, c.Sys, 1e-9)
	// fio before job_runtime: the threads ran about the elapsed time.
	local.JobRuntime = 0
	c = jobCPU(local, 2, local.Elapsed())
	assert.InDelta(t, 5.35/100*2, c.User, 1e-9)
}
