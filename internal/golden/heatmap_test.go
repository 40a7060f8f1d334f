package golden

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pdfreport"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// presetRun records a workload run of presets as `ptsrun workload` does,
// each preset measured at iops[preset] IOPS of 4 KiB reads with every
// I/O taking latMs, for ten seconds.
func presetRun(t *testing.T, name string, iops map[string]float64, latMs float64, order ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	cfg := pts.DefaultConfig()
	cfg.Tests, cfg.Profile, cfg.Purge = nil, "", "none"
	cfg.Targets, cfg.Engine = []string{"sim"}, "sim"
	stage := pts.Stage{ID: "custom", Test: "custom", Title: "Workload", MaxRounds: 1}
	var cells []pts.ImportedCell
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, p := range order {
		w := engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: 1, QD: 4, ActiveRange: 100, Duration: 10 * time.Second}
		var m engine.Measurement
		m.Elapsed = 10 * time.Second
		m.Read.Record(int64(latMs*1e6), int64(iops[p]*10), 4096)
		stage.Cells = append(stage.Cells, pts.Cell{Index: i, Key: pts.Named(p), Workload: w})
		cells = append(cells, pts.ImportedCell{Workload: w, Measurement: m, Time: start})
	}
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: "test", Created: start, Config: cfg, Stages: []pts.Stage{stage},
		Engine: "sim", Source: "ptsrun workload"}
	require.NoError(t, pts.WriteWorkload(dir, ri, cells...))
	return dir
}

// Two runs of a preset suite (two transports, say) compare into a ratio
// heat-map: run ÷ reference per preset and metric, each metric's
// geometric mean over the presets both have; in the PDF, a CSV and the
// JSON summary.
func TestCompareHeatMap(t *testing.T) {
	a := presetRun(t, "tcp", map[string]float64{"hci-4k-read": 100000, "hci-4k-70/30": 50000, "dbms": 20000}, 0.1,
		"hci-4k-read", "hci-4k-70/30", "dbms")
	b := presetRun(t, "rdma", map[string]float64{"hci-4k-read": 150000, "hci-4k-70/30": 40000, "oltp": 1000}, 0.05,
		"hci-4k-read", "hci-4k-70/30", "oltp")
	runs, err := LoadAll([]string{a, b})
	require.NoError(t, err)
	cmp, err := Compare(runs)
	require.NoError(t, err)
	hm := cmp.HeatMap
	require.NotNil(t, hm)
	assert.Equal(t, []string{"hci-4k-read", "hci-4k-70/30", "dbms", "oltp"}, hm.Workloads)
	assert.Equal(t, []pts.Metric{pts.MetricIOPS, pts.MetricMBps, pts.MetricLatMean, pts.MetricLatP99999, pts.MetricLatMax}, hm.Metrics)
	require.Len(t, hm.Ratios, 1)
	r := hm.Ratios[0]
	assert.InDelta(t, 1.5, r[0][0], 1e-9, "IOPS")
	assert.InDelta(t, 1.5, r[0][1], 1e-9, "MB/s")
	assert.InDelta(t, 0.5, r[0][2], 0.01, "average response time")
	assert.InDelta(t, 0.8, r[1][0], 1e-9)
	assert.True(t, math.IsNaN(r[2][0]), "dbms: only the reference has it")
	assert.True(t, math.IsNaN(r[3][0]), "oltp: only the run has it")
	assert.InDelta(t, math.Sqrt(1.5*0.8), hm.Mean[0][0], 1e-9, "the geometric mean of the presets both have")

	out := t.TempDir()
	require.NoError(t, cmp.WriteCSV(out, false))
	assert.Contains(t, cmp.CSVFiles(), "compare_heatmap.csv")
	csv, err := os.ReadFile(filepath.Join(out, "compare_heatmap.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	assert.Equal(t, "workload,rdma / tcp iops,rdma / tcp mbps,rdma / tcp lat_mean_ms,rdma / tcp lat_p99_999_ms,rdma / tcp lat_max_ms", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "hci-4k-read,1.5,1.49999"), lines[1])
	assert.Equal(t, "dbms,,,,,", lines[3])
	assert.True(t, strings.HasPrefix(lines[5], "geometric mean,1.095"), lines[5])

	js, err := json.Marshal(cmp.Summary())
	require.NoError(t, err)
	assert.Contains(t, string(js), `"heatmap":{"workloads":["hci-4k-read","hci-4k-70/30","dbms","oltp"]`)

	var pdf bytes.Buffer
	require.NoError(t, pdfreport.RenderComparison(&pdf, cmp.Model(), "a4"))
	if _, err := exec.LookPath("pdftotext"); err == nil {
		f := filepath.Join(t.TempDir(), "c.pdf")
		require.NoError(t, os.WriteFile(f, pdf.Bytes(), 0o644))
		txt, err := exec.Command("pdftotext", f, "-").Output()
		require.NoError(t, err)
		text := strings.Join(strings.Fields(string(txt)), " ")
		assert.Contains(t, text, "Comparison: ratio heat-map of the workloads")
		assert.Contains(t, text, "B ÷ A: rdma ÷ tcp, per workload and metric")
		assert.Contains(t, text, "Workload IOPS MB/s Average ms 99.999 % ms Maximum ms")
		assert.Contains(t, text, "hci-4k-read 1.500 1.500")
		assert.Contains(t, text, "geometric mean 1.095")
	}

	// PTS runs alone have no heat-map.
	assert.Nil(t, heatMap(nil))
}
