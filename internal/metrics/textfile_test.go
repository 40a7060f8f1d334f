package metrics

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/steadystate"
	"github.com/ptsrun/ptsrun/internal/telemetry"
)

// read parses the textfile at path as node_exporter does.
func read(t *testing.T, path string) map[string]*dto.MetricFamily {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	p := expfmt.NewTextParser(model.LegacyValidation) // node_exporter's names: ptsrun_* are legacy-valid
	fams, err := p.TextToMetricFamilies(f)
	require.NoError(t, err)
	return fams
}

// value is the one sample of family name whose labels include want.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	fam, ok := fams[name]
	require.True(t, ok, "no %s", name)
	var found []float64
	for _, m := range fam.GetMetric() {
		got := map[string]string{}
		for _, lp := range m.GetLabel() {
			got[lp.GetName()] = lp.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && got[k] == v
		}
		if match {
			found = append(found, m.GetGauge().GetValue())
		}
	}
	require.Len(t, found, 1, "%s%v", name, want)
	return found[0]
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	theirs := filepath.Join(dir, "theirs.prom")
	require.NoError(t, os.WriteFile(theirs, []byte("node_foo 1\n"), 0o644))
	ours := filepath.Join(dir, "ours.prom")
	require.NoError(t, os.WriteFile(ours, []byte("# HELP ptsrun_iops x\n# TYPE ptsrun_iops gauge\nptsrun_iops{run=\"r\"} 1\n"), 0o644))
	link := filepath.Join(dir, "link.prom")
	require.NoError(t, os.Symlink(ours, link))
	for _, c := range []struct {
		name, path, want string
	}{
		{"a directory", dir, "it is a directory"},
		{"a device", "/dev/null", "it is a"},
		{"a link", link, "symbolic link"},
		{"a file ptsrun did not write", theirs, "ptsrun did not write it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tf, err := Open(c.path, "0.1.0", &bytes.Buffer{})
			require.Error(t, err)
			assert.Nil(t, tf)
			assert.ErrorIs(t, err, device.ErrUnsafe)
			assert.Contains(t, err.Error(), "--metrics-textfile "+c.path)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	for _, p := range []string{ours, filepath.Join(dir, "new.prom")} {
		tf, err := Open(p, "0.1.0", &bytes.Buffer{})
		require.NoError(t, err, p)
		assert.NotNil(t, tf)
	}
	tf, err := Open("", "0.1.0", &bytes.Buffer{})
	assert.NoError(t, err)
	assert.Nil(t, tf)
}

func TestOurs(t *testing.T) {
	for _, c := range []struct {
		data string
		want bool
	}{
		{"", false},
		{"\n", false},
		{"# HELP ptsrun_iops x\n# TYPE ptsrun_iops gauge\nptsrun_iops 1\n", true},
		{"ptsrun_iops 1\nnode_load1 2\n", false},
		{"# a comment\nptsrun_iops 1\n", false},
	} {
		assert.Equal(t, c.want, Ours([]byte(c.data)), "%q", c.data)
	}
}

// TestObserve writes a stage's records and reads the file back.
func TestObserve(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ptsrun.prom")
	var warn bytes.Buffer
	tf, err := Open(path, "0.1.0", &warn)
	require.NoError(t, err)
	stage := &pts.Stage{ID: "iops", Test: "iops", Tracking: []pts.Tracking{{Name: "IOPS RND 4 KiB 0/100"}}}
	ri := pts.RunInfo{Config: pts.Config{Targets: []string{"sim"}}}
	var obs Observer = tf
	obs.Begin(ri, "/runs/r1")
	m := engine.Measurement{Elapsed: time.Second, Write: engine.DirStats{IOs: 1000, Bytes: 4096000, LatSumNs: 1000 * 2e5}}
	cell := 3
	obs.Observe(pts.Record{Type: pts.RecCell, Stage: "iops", Round: 2, Cell: &cell, Measurement: &m},
		pts.Position{Stage: stage, Round: 2, RunLeftMin: 90 * time.Second, RunLeftMax: 10 * time.Minute})
	obs.Observe(pts.Record{Type: pts.RecRoundEnd, Stage: "iops", Round: 5, Verdict: verdict(0.1, 0.2, 0.05, 0.1, false)},
		pts.Position{Stage: stage, Round: 5, RunLeftMin: 60 * time.Second, RunLeftMax: 9 * time.Minute})
	// A drive that reports its temperature and media errors, and one
	// that reports nothing: no series for it rather than 0.
	hot := telemetry.Reading{Device: "/dev/nvme0n1", Sources: []string{telemetry.SourceHwmon},
		Temperature: telemetry.Field[float64]{Value: 51.5, Source: telemetry.SourceHwmon},
		MediaErrors: telemetry.Field[uint64]{Value: 2, Source: telemetry.SourceNVMe}}
	obs.Observe(pts.Record{Type: pts.RecTelemetry, Stage: "iops", Round: 5, Telemetry: &pts.TelemetryRecord{At: pts.AtRound,
		Readings: []telemetry.Reading{hot, {Device: "/dev/loop0"}}}}, pts.Position{Stage: stage, Round: 5, RunLeftMin: 60 * time.Second, RunLeftMax: 9 * time.Minute})
	obs.Finish()
	assert.Empty(t, warn.String())

	fams := read(t, path)
	l := map[string]string{"run": "r1", "test": "iops", "stage": "iops", "target": "sim"}
	assert.InDelta(t, 1000, value(t, fams, "ptsrun_iops", l), 1e-9)
	assert.InDelta(t, 4096000, value(t, fams, "ptsrun_throughput_bytes_per_second", l), 1e-6)
	assert.InDelta(t, 2e-4, value(t, fams, "ptsrun_response_time_mean_seconds", l), 1e-12)
	assert.Equal(t, 5.0, value(t, fams, "ptsrun_round", l))
	assert.Equal(t, 0.0, value(t, fams, "ptsrun_steady_state", l))
	vl := map[string]string{"run": "r1", "stage": "iops", "variable": "IOPS RND 4 KiB 0/100"}
	assert.InDelta(t, 0.5, value(t, fams, "ptsrun_steady_state_range_ratio", vl), 1e-12)
	assert.InDelta(t, 0.5, value(t, fams, "ptsrun_steady_state_slope_excursion_ratio", vl), 1e-12)
	assert.Equal(t, 60.0, value(t, fams, "ptsrun_time_left_min_seconds", l))
	assert.Equal(t, 540.0, value(t, fams, "ptsrun_time_left_max_seconds", l))
	assert.Equal(t, 1.0, value(t, fams, "ptsrun_run_info", map[string]string{"run": "r1", "version": "0.1.0"}))
	dl := map[string]string{"run": "r1", "device": "/dev/nvme0n1"}
	assert.Equal(t, 51.5, value(t, fams, "ptsrun_drive_temperature_celsius", dl))
	assert.Equal(t, 2.0, value(t, fams, "ptsrun_drive_media_errors", dl))
	assert.NotContains(t, fams, "ptsrun_drive_percentage_used", "not reported: left out, never 0")
	for _, m := range fams["ptsrun_drive_temperature_celsius"].GetMetric() {
		for _, lp := range m.GetLabel() {
			assert.NotEqual(t, "/dev/loop0", lp.GetValue(), "a drive without telemetry has no series")
		}
	}
	for name := range fams {
		assert.Contains(t, Names(), name)
		assert.NotEmpty(t, fams[name].GetHelp(), name)
	}
	assert.NotContains(t, fams, "go_goroutines", "a registry of its own")
	// No temporary file is left beside it.
	left, err := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	require.NoError(t, err)
	assert.Equal(t, []string{path}, left)
}

func verdict(rng, maxRange, slope, maxSlope float64, steady bool) *steadystate.Joint {
	return &steadystate.Joint{Steady: steady, Verdicts: []steadystate.Verdict{{Range: rng, MaxRange: maxRange, SlopeExcursion: slope, MaxSlopeExcursion: maxSlope}}}
}

// TestWorkload writes a workload's intervals.
func TestWorkload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.prom")
	tf, err := Open(path, "0.1.0", &bytes.Buffer{})
	require.NoError(t, err)
	w := engine.Workload{Duration: 3 * time.Second}
	tf.BeginWorkloads("", []string{"sim"}, 2*w.Duration)
	var p Progress = tf
	p.Running("rnd 4k", w)
	for i := range 3 {
		p.Interval(i, engine.Second{ReadIOs: int64(100 * (i + 1)), ReadBytes: int64(409600 * (i + 1)), LatMeanNs: 1e6})
	}
	p.Done()
	fams := read(t, path)
	l := map[string]string{"run": "workload", "test": "workload", "stage": "rnd 4k", "target": "sim"}
	assert.Equal(t, 300.0, value(t, fams, "ptsrun_iops", l))
	assert.Equal(t, 1228800.0, value(t, fams, "ptsrun_throughput_bytes_per_second", l))
	assert.Equal(t, 1e-3, value(t, fams, "ptsrun_response_time_mean_seconds", l))
	assert.Equal(t, 3.0, value(t, fams, "ptsrun_sample", l))
	assert.Equal(t, 3.0, value(t, fams, "ptsrun_time_left_min_seconds", l), "the second workload's time")
	assert.Equal(t, 3.0, value(t, fams, "ptsrun_time_left_max_seconds", l))
	assert.True(t, strings.HasPrefix(string(must(os.ReadFile(path))), "# HELP ptsrun_"))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
