package pdfreport

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The appendix shows the job files its caller hands in, one per stage,
// when fio ran; the report reads no run directory to find them.
func TestJobFilesComeFromOptions(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "client", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.LAT}
		c.CellTime = pts.Duration(10 * time.Second)
	})
	opt := Options{JobFiles: map[string]JobFile{
		ri.Stages[0].ID: {Name: "lat-r01-c01-rnd-8k-100_0.fio", Text: "[global]\nioengine=io_uring\n\n[job]\nrw=randread\n"},
		"no-such-stage": {Name: "x.fio", Text: "[x]\n"},
	}}
	ri.Config.Engine = pts.EngineFio
	text := Build(ri, res, opt).Text()
	assert.Contains(t, text, ": Report – Appendix A: fio job file, Latency, round 1, cell 1\n")
	assert.Contains(t, text, "# lat-r01-c01-rnd-8k-100_0.fio — every cell's job file is in fio/ beside run.json\n"+
		"[global]\nioengine=io_uring\n\n[job]\nrw=randread\n", "the text as handed in, after its name")
	assert.NotContains(t, text, "x.fio", "only the run's stages have job files")

	// Job files are fio's: another engine's report shows none.
	ri.Config.Engine = pts.EngineSim
	assert.NotContains(t, Build(ri, res, opt).Text(), "fio job file")
}

// A recorded workload's page plots the I/Os of every second from the
// results, which hold the series the journal recorded; the seconds after
// the workload's time, with the I/Os still in flight, are left out.
func TestWorkloadSecondsComeFromResults(t *testing.T) {
	w := engine.Workload{Access: engine.Random, BlockSize: 4096, ReadPct: 100, TC: 1, QD: 4, Duration: 3 * time.Second,
		ActiveRange: 100, Seed: 1}
	read := engine.DirStats{IOs: 335, Bytes: 335 * 4096, LatSumNs: 335 * 50_000, LatMinNs: 40_000, LatMaxNs: 90_000}
	m := engine.Measurement{Engine: "sim", Elapsed: 3 * time.Second, Read: read,
		Seconds: []engine.Second{{ReadIOs: 100}, {ReadIOs: 110}, {ReadIOs: 120}, {ReadIOs: 5}}}
	cfg := pts.DefaultConfig()
	cfg.Tests, cfg.Profile = nil, ""
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Spec: "PTS " + pts.SpecRevision, Created: start, Config: cfg,
		Engine: "sim", Targets: []device.Identity{{Spec: "sim", Kind: device.KindSim}},
		Stages: []pts.Stage{{ID: "custom", Test: pts.Custom, Title: "Workload", MaxRounds: 1,
			Cells: []pts.Cell{{Key: pts.KeyOf(w), Workload: w}}}}}
	dir := t.TempDir()
	require.NoError(t, pts.WriteWorkload(dir, ri, pts.ImportedCell{Workload: w, Measurement: m, Time: start}))
	res, ri, err := matrix.Load(dir)
	require.NoError(t, err)

	text := Build(ri, res, Options{}).Text()
	assert.Contains(t, text, "\nread: 100 110 125\nPlot 1 – IOPS in every second of the workload (seconds.csv)\n",
		"the I/Os counted after the workload's time, in flight at its end, are its last second's")
	assert.False(t, strings.Contains(text, "\nwrite: 0 0 0\n"), "a direction without I/O has no line")
}
