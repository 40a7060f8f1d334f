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

// A `ptsrun fio` run's pages: one per reporting group from the results
// (its figures, per target, its series) and from the input (every job as
// fio reports it), and the job files and the gate's verdicts in the
// appendix, all handed in: the report reads no file.
func TestFioGroupPages(t *testing.T) {
	w := engine.Workload{Access: engine.Random, BlockSize: 4096, ReadPct: 0, TC: 2, QD: 4, Duration: 3 * time.Second, ActiveRange: 100}
	dir := func(ios int64) engine.DirStats {
		return engine.DirStats{IOs: ios, Bytes: ios * 4096, LatSumNs: float64(ios) * 60_000, LatMinNs: 20_000, LatMaxNs: 900_000}
	}
	write := engine.Measurement{Engine: "fio 3.33", Elapsed: 3 * time.Second, Write: dir(600_000),
		Targets: []engine.TargetStats{{Target: "/dev/loop1", Write: dir(310_000)}, {Target: "/dev/loop2", Write: dir(290_000)}},
		Seconds: []engine.Second{{WriteIOs: 190_000, WriteBytes: 190_000 * 4096, LatMeanNs: 61_000,
			Write: &engine.IntervalLat{MeanNs: 61_000, P99Ns: 120_000, P999Ns: 400_000, MaxNs: 900_000, Of: engine.LatCompletion}},
			{WriteIOs: 205_000, WriteBytes: 205_000 * 4096, LatMeanNs: 59_000}}}
	r := w
	r.ReadPct = 100
	read := engine.Measurement{Engine: "fio 3.33", Elapsed: 3 * time.Second, Read: dir(700_000)}
	cfg := pts.DefaultConfig()
	cfg.Tests, cfg.Profile, cfg.Engine = nil, "", pts.EngineFio
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Spec: "PTS " + pts.SpecRevision, Created: start, Config: cfg,
		Engine: "fio 3.33", Source: "ptsrun fio: two.fio", Targets: []device.Identity{{Spec: "/dev/loop1", Kind: device.KindBlock}, {Spec: "/dev/loop2", Kind: device.KindBlock}},
		Stages: []pts.Stage{{ID: "custom", Test: pts.Custom, Title: "Workload", MaxRounds: 1,
			Cells: []pts.Cell{{Index: 0, Key: pts.Named("w0+w1"), Workload: w}, {Index: 1, Key: pts.Named("r0"), Workload: r}}}}}
	d := t.TempDir()
	require.NoError(t, pts.WriteWorkload(d, ri, pts.ImportedCell{Workload: w, Measurement: write, Time: start},
		pts.ImportedCell{Workload: r, Measurement: read, Time: start.Add(3 * time.Second)}))
	res, ri, err := matrix.Load(d)
	require.NoError(t, err)
	run := &FioRun{
		JobFiles: []JobFile{{Name: "two.fio", Text: "; both devices\n[global]\nrw=randwrite\n[w0]\nfilename=/dev/loop1\n"},
			{Name: "inc.fio (included by two.fio)", Text: "iodepth=4\n"}},
		Commands: []string{"fio --output-format=json+ --output=DIR/fio/01-two.fio.json two.fio"},
		Targets:  []FioTarget{{Path: "/dev/loop1", Kind: "block device", Use: "written by job w0: rw=randwrite (two.fio:3)", Verdict: "confirmed by --destroy-data"}},
		Notes:    []string{"fio ran in /work: relative paths of the job files are there."},
		Groups: []FioGroup{
			{Cell: 0, Name: "w0+w1", JobFile: "two.fio", Series: "The per-second figures are fio's logs.",
				Jobs: []FioJob{{Name: "w0", Threads: 2, Targets: "/dev/loop1", WriteIOPS: 103_333, MBps: 423.2, LatMeanMs: 0.06, RuntimeS: 3.001},
					{Name: "w1", Threads: 2, Host: "h1:8765", Targets: "/dev/loop2", WriteIOPS: 96_667, MBps: 395.9, LatMeanMs: 0.06, RuntimeS: 3.002}}},
			{Cell: 1, Name: "r0", JobFile: "two.fio", Series: "No per-second figures: 2 of the group's 2 threads left no log ptsrun can read.",
				Jobs: []FioJob{{Name: "r0", Threads: 1, Targets: "/dev/loop1", ReadIOPS: 233_333}}},
		}}
	text := Build(ri, res, Options{Fio: run}).Text()
	for _, want := range []string{
		"section 2 of 8: fio Test – Group 1: w0+w1\n",
		"setup Recorded by: ptsrun fio\nsetup Job file: two.fio\n",
		"param Jobs: w0, w1\nparam Threads: 4\n",
		"The per-second figures are fio's logs.",
		"w0 (2 threads) | /dev/loop1 | 0 | 103,333 | 423 | 0.0600 | 3.001\n",
		"w1 (2 threads) on h1:8765 | /dev/loop2 |",
		"Table 4 – Every job as fio reports it",
		"/dev/loop1 | 103,333 |",
		"write: 190,000 205,000\nPlot 1 – IOPS in every second of group 1 (fio-seconds.csv)\n",
		"write: 778 840\nPlot 2 – MB/s in every second of group 1\n",
		"average: 0.0610 0.0590\n99 % (completion): 0.120 –\n",
		": fio Test – Group 2: r0\n",
		"No per-second figures: 2 of the group's 2 threads left no log ptsrun can read.",
		"The fio job files two.fio ran as written with `ptsrun fio`",
		"param Job files: two.fio\nparam Groups: 2\nparam Targets: 1\n",
		"Report – Appendix: the safety gate's verdicts and the fio command lines\n",
		"/dev/loop1 | block device | written by job w0: rw=randwrite (two.fio:3) | confirmed by --destroy-data",
		"$ fio --output-format=json+ --output=DIR/fio/01-two.fio.json two.fio\n",
		"Report – Appendix: fio job file two.fio\n", "# two.fio\n; both devices\n[global]\n",
		"Report – Appendix: fio job file inc.fio (included by two.fio)\n",
		"Each reporting group of the fio job files is a cell",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report's text lacks %q", want)
		}
	}
	assert.Contains(t, text, "Plot 3 – Write response times in every second of group 1: average; 99 %, 99.9 % and maximum of "+
		"completion latency (fio's histogram logs); log scale\n", "each direction's tail where the histogram logs gave it, a gap where not")
	assert.NotContains(t, text, "Plot 4 –", "a group without a series has no plots, a direction without tails none of them")
	assert.NotContains(t, text, "ptsrun workload ran")
	assert.NotContains(t, text, "Written data is incompressible random data")
}
