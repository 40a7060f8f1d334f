package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/metrics"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// readTextfile parses a textfile as node_exporter's collector does.
func readTextfile(t *testing.T, path string) map[string]*dto.MetricFamily {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(f)
	require.NoError(t, err)
	return fams
}

// gaugeOf is the one sample of family name whose labels include want.
func gaugeOf(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	require.Contains(t, fams, name)
	var found []float64
	for _, m := range fams[name].GetMetric() {
		ok := true
		for k, v := range want {
			ok = ok && slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == k && l.GetValue() == v })
		}
		if ok {
			found = append(found, m.GetGauge().GetValue())
		}
	}
	require.Len(t, found, 1, "%s%v", name, want)
	return found[0]
}

// TestMetricsTextfile runs a quick look on the simulated drive with
// --metrics-textfile and reads the file back: the last cell's figures and
// the last verdict's distances as the journal has them, the run's labels,
// no time left at the end; a second run replaces the file ptsrun wrote.
func TestMetricsTextfile(t *testing.T) {
	prom := filepath.Join(t.TempDir(), "ptsrun.prom")
	for _, name := range []string{"first", "second"} {
		dir := filepath.Join(t.TempDir(), name)
		code, _, stderr := ptsrun("run", "--target", "sim", "--tests", "iops", "--block-sizes", "4k,64k,1024k", "--mixes", "100/0,65/35,0/100",
			"--cell-time", "1s", "--out", dir, "--metrics-textfile", prom)
		require.Equal(t, 0, code, stderr)
		assert.NotContains(t, stderr, "--metrics-textfile")

		recs, _, err := pts.LoadJournal(dir)
		require.NoError(t, err)
		var cell, round *pts.Record
		for i := range recs {
			switch recs[i].Type {
			case pts.RecCell:
				cell = &recs[i]
			case pts.RecRoundEnd:
				round = &recs[i]
			}
		}
		require.NotNil(t, cell)
		require.NotNil(t, round)
		require.NotNil(t, round.Verdict)

		fams := readTextfile(t, prom)
		l := map[string]string{"run": name, "test": "iops", "stage": "iops", "target": "sim"}
		m := cell.Measurement
		assert.InEpsilon(t, m.IOPS(), gaugeOf(t, fams, "ptsrun_iops", l), 1e-12)
		assert.InEpsilon(t, m.MBps()*1e6, gaugeOf(t, fams, "ptsrun_throughput_bytes_per_second", l), 1e-12)
		assert.InEpsilon(t, m.Counts().MeanLatNs()/1e9, gaugeOf(t, fams, "ptsrun_response_time_mean_seconds", l), 1e-12)
		assert.Equal(t, float64(round.Round), gaugeOf(t, fams, "ptsrun_round", l))
		assert.Equal(t, 1.0, gaugeOf(t, fams, "ptsrun_steady_state", l))
		for i, v := range round.Verdict.Verdicts {
			vl := map[string]string{"run": name, "stage": "iops", "variable": runStage(t, dir).Tracking[i].Name}
			assert.InEpsilon(t, v.Range/v.MaxRange, gaugeOf(t, fams, "ptsrun_steady_state_range_ratio", vl), 1e-12)
			assert.InEpsilon(t, v.SlopeExcursion/v.MaxSlopeExcursion, gaugeOf(t, fams, "ptsrun_steady_state_slope_excursion_ratio", vl), 1e-12)
		}
		assert.Equal(t, 0.0, gaugeOf(t, fams, "ptsrun_time_left_min_seconds", l), "the run has ended")
		assert.Equal(t, 0.0, gaugeOf(t, fams, "ptsrun_time_left_max_seconds", l))
		assert.Equal(t, 1.0, gaugeOf(t, fams, "ptsrun_run_info", map[string]string{"run": name, "version": version}))
		assert.NotContains(t, fams, "ptsrun_sample", "a matrix of cells has rounds, not samples")
		assert.NotContains(t, fams, "go_goroutines", "a registry of its own")
		for n := range fams {
			assert.Contains(t, metrics.Names(), n)
		}
	}
}

// runStage is the one stage of the run in dir.
func runStage(t *testing.T, dir string) pts.Stage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	require.NoError(t, err)
	var ri pts.RunInfo
	require.NoError(t, json.Unmarshal(b, &ri))
	require.Len(t, ri.Stages, 1)
	return ri.Stages[0]
}

// TestMetricsTextfileWorkload records a workload's intervals.
func TestMetricsTextfileWorkload(t *testing.T) {
	prom := filepath.Join(t.TempDir(), "w.prom")
	code, _, stderr := ptsrun("workload", "--target", "sim", "--time", "3s", "--metrics-textfile", prom)
	require.Equal(t, 0, code, stderr)
	fams := readTextfile(t, prom)
	l := map[string]string{"run": "workload", "test": "workload", "target": "sim"}
	assert.Positive(t, gaugeOf(t, fams, "ptsrun_iops", l))
	assert.Equal(t, 3.0, gaugeOf(t, fams, "ptsrun_sample", l))
	assert.Equal(t, 0.0, gaugeOf(t, fams, "ptsrun_time_left_max_seconds", l))
}

// TestMetricsTextfileRefused: a path ptsrun may not write is refused
// before anything runs (exit 4), naming the flag and the path.
func TestMetricsTextfileRefused(t *testing.T) {
	tmp := t.TempDir()
	theirs := filepath.Join(tmp, "node.prom")
	require.NoError(t, os.WriteFile(theirs, []byte("node_foo 1\n"), 0o644))
	for _, c := range []struct{ name, path, why string }{
		{"a directory", tmp, "it is a directory"},
		{"a device", "/dev/null", "/dev/null: it is a"},
		{"a file ptsrun did not write", theirs, "ptsrun did not write it"},
	} {
		for _, cmd := range []string{"run", "resume", "workload"} {
			t.Run(c.name+" "+cmd, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "run")
				args := map[string][]string{
					"run":      {"run", "--target", "sim", "--tests", "iops", "--out", dir},
					"resume":   {"resume", dir},
					"workload": {"workload", "--target", "sim", "--time", "1s", "--out", dir},
				}[cmd]
				code, _, stderr := ptsrun(append(args, "--metrics-textfile", c.path)...)
				assert.Equal(t, exitRefused, code, stderr)
				assert.Contains(t, stderr, "--metrics-textfile "+c.path)
				assert.Contains(t, stderr, c.why)
				assert.NoDirExists(t, dir, "refused before the run starts")
			})
		}
	}
	b, err := os.ReadFile(theirs)
	require.NoError(t, err)
	assert.Equal(t, "node_foo 1\n", string(b), "left as it was")
}
