package rundir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/fiojobs"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/targets"
	"github.com/ptsrun/ptsrun/internal/vdbench"
)

var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// measured is a workload of 2 s and what it measured: reads of 4 KiB,
// a latency each, and its two seconds.
func measured(t *testing.T, ios int64) (engine.Workload, engine.Measurement) {
	t.Helper()
	w := engine.Workload{Access: engine.Random, BlockSize: 4096, ReadPct: 100, TC: 1, QD: 1, ActiveRange: 100, Duration: 2 * time.Second, Seed: 1}
	m := engine.Measurement{Engine: engine.Sim, Elapsed: 2 * time.Second}
	var secs [2]engine.DirStats
	for i := int64(0); i < ios; i++ {
		ns := 50_000 + i*37%20_000
		m.Read.Record(ns, 1, 4096)
		secs[i%2].Record(ns, 1, 4096)
	}
	for _, d := range secs {
		m.Seconds = append(m.Seconds, engine.Second{ReadIOs: d.IOs, ReadBytes: d.Bytes, LatMeanNs: d.MeanLatNs(), Read: engine.IntervalOf(d)})
	}
	return w, m
}

func simPlan(t *testing.T) *targets.Plan {
	t.Helper()
	tp, err := targets.Check(targets.Options{Specs: []string{"sim"}})
	require.NoError(t, err)
	return tp
}

// recording is one of each command's recordings of two workloads.
func recording(t *testing.T, dir, by string) Recording {
	t.Helper()
	w1, m1 := measured(t, 400)
	w2, m2 := measured(t, 300)
	w2.ReadPct, w2.BlockSize = 70, 8192
	r := Recording{Dir: dir, Targets: simPlan(t), Engine: "simulated SSD", Started: start, Version: "0.0.0-test",
		Cells: []Cell{{Key: pts.WorkloadKey(w1), Workload: w1, Measurement: m1, Started: start},
			{Key: pts.WorkloadKey(w2), Workload: w2, Measurement: m2, Started: start.Add(2 * time.Second)}}}
	switch by {
	case byWorkload:
		r.Presets = []string{"a", "b"}
		r.Cells[0].Key, r.Cells[1].Key = pts.Named("a"), pts.Named("b")
	case byVdbench:
		r.Cells[0].Key, r.Cells[1].Key = pts.Named("rd1"), pts.Named("rd2")
		r.Vdbench = &VdbenchRecord{File: &vdbench.File{Name: "p.parm", Sources: []vdbench.Source{{Name: "p.parm", Text: []byte("sd=sd1,lun=sim\n")}}},
			Plan: &vdbench.Plan{File: "p.parm", Runs: []vdbench.Run{{Name: "rd1", Workload: w1}, {Name: "rd2", Workload: w2}}},
			Runs: []VdbenchRun{{Name: "rd1", Engine: "simulated SSD", Targets: []string{"sim"}}, {Name: "rd2", Engine: "simulated SSD", Targets: []string{"sim"}}}}
	case byFio:
		r.Cells[0].Key, r.Cells[1].Key = pts.Named("w0"), pts.Named("r0")
		r.Fio = &FioRecord{Schema: 1, Tool: "ptsrun", Version: "0.0.0-test", Fio: "fio-3.33", Cwd: "/work",
			JobFiles: []FioRecordFile{{JobFile: fiojobs.JobFile{Path: "/work/j.fio", Command: []string{"fio", "j.fio"}}, Saved: "fio/jobs/01-j.fio"}},
			Groups: []FioRecordGroup{{Cell: 0, Key: pts.Named("w0"), JobFile: "/work/j.fio", Jobs: []fiojobs.JobResult{{Name: "w0", Threads: []int{1},
				Targets: []string{"/dev/x"}, Read: fiojobs.Dir{IOs: 400, IOPS: 200, FioIOPS: 199.5, RuntimeMs: 2000}}}},
				{Cell: 1, Key: pts.Named("r0"), JobFile: "/work/j.fio", Group: 1}}}
		require.NoError(t, os.MkdirAll(filepath.Join(dir, FioDir, "jobs"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, FioDir, "jobs", "01-j.fio"), []byte("[w0]\nrw=randread\n"), 0o644))
	}
	return r
}

// Every file a command that records workloads writes is rebuilt by
// Report, from run.json and the journal alone, as it was written.
func TestReportRebuildsTheRecordersFiles(t *testing.T) {
	for _, c := range []struct {
		by    string
		files []string
	}{
		{byWorkload, []string{WorkloadFile, SecondsFile}},
		{byVdbench, []string{VdbenchFile, filepath.Join(VdbenchDir, "p.parm")}},
		{byFio, []string{FioRunFile, FioJobsFile, FioSecondsFile}},
	} {
		t.Run(c.by, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			b, err := Record(recording(t, dir, c.by))
			require.NoError(t, err)
			assert.Len(t, b.Results.Tests[0].Stages[0].Cells, 2)
			want := map[string][]byte{}
			for _, f := range append(c.files, ResultsFile, ReportFile) {
				data, err := os.ReadFile(filepath.Join(dir, f))
				require.NoError(t, err, f)
				want[f] = data
			}
			for _, f := range append(c.files[:len(c.files):len(c.files)], ResultsFile, ReportFile, TablesDir) {
				if f != filepath.Join(VdbenchDir, "p.parm") { // an input kept, not derived
					require.NoError(t, os.RemoveAll(filepath.Join(dir, f)))
				}
			}
			b, err = Report(dir, ReportOptions{})
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(dir, ReportFile), b.PDF)
			for f, data := range want {
				got, err := os.ReadFile(filepath.Join(dir, f))
				require.NoError(t, err, f)
				assert.Equal(t, string(data), string(got), "%s rebuilt", f)
			}
		})
	}
}

// The series of a recording, as seconds.csv writes it: the preset first,
// an interval a row, the latencies of each direction.
func TestSecondsCSV(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	_, err := Record(recording(t, dir, byWorkload))
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(dir, SecondsFile))
	require.NoError(t, err)
	lines := splitLines(string(data))
	require.Len(t, lines, 5)
	assert.Equal(t, "workload,target,interval,start_s,seconds,ramp,read_iops,read_mbps,read_mean_ms,read_p99_ms,read_p99_9_ms,read_max_ms,"+
		"write_iops,write_mbps,write_mean_ms,write_p99_ms,write_p99_9_ms,write_max_ms,lat_of", lines[0])
	assert.Regexp(t, `^a,all,1,0,1,0,200,0\.8192,0\.0[0-9.]+,0\.0[0-9.]+,0\.0[0-9.]+,0\.0[0-9.]+,0,0,,,,,lat$`, lines[1])
	assert.Regexp(t, `^b,all,2,1,1,0,150,`, lines[4])
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}

// run.json is outside input: a recorded copy of a job file that is not
// the run directory's own is refused before the report reads it, and so
// is a record that does not fit the run's cells.
func TestRecordedPathsAreChecked(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(*FioRecord)
		error string
	}{
		{"outside", func(r *FioRecord) { r.JobFiles[0].Saved = "../../etc/shadow" }, `the copy "../../etc/shadow" of /work/j.fio is not in the run directory's fio/jobs`},
		{"absolute", func(r *FioRecord) { r.JobFiles[0].Saved = "/etc/shadow" }, `the copy "/etc/shadow"`},
		{"another folder", func(r *FioRecord) { r.JobFiles[0].Saved = "sim/0/snapshot" }, `the copy "sim/0/snapshot"`},
		{"an include", func(r *FioRecord) { r.JobFiles[0].Includes = []FioSource{{Path: "i.fio", Saved: "../i.fio"}} }, `the copy "../i.fio"`},
		{"a group too few", func(r *FioRecord) { r.Groups = r.Groups[:1] }, "1 groups for 2 cells"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			r := recording(t, dir, byFio)
			c.edit(r.Fio)
			_, err := Record(r)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "run.json: recorded: fio: "+c.error)
		})
	}
	// A run recorded before run.json kept the record has it in
	// fio-run.json alone: read for the report, checked alike.
	dir := filepath.Join(t.TempDir(), "old")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	r := recording(t, dir, byWorkload)
	r.Presets = nil
	_, err := Record(r)
	require.NoError(t, err)
	ri, err := pts.LoadRunInfo(dir)
	require.NoError(t, err)
	ri.Recorded = nil
	require.NoError(t, pts.WriteRunInfo(dir, ri))
	require.NoError(t, writeJSON(filepath.Join(dir, FioRunFile), FioRecord{JobFiles: []FioRecordFile{{Saved: "../x"}}}))
	_, err = Report(dir, ReportOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, FioRunFile)+`: the copy "../x" of  is not in the run directory's fio/jobs: refused`)
}

// A directory for a new run is absent or empty; one that holds a run is
// named with how to resume it.
func TestCheckNew(t *testing.T) {
	base := t.TempDir()
	assert.NoError(t, CheckNew(filepath.Join(base, "new")))
	full := filepath.Join(base, "full")
	require.NoError(t, os.MkdirAll(full, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(full, "x"), nil, 0o644))
	assert.EqualError(t, CheckNew(full), "run directory "+full+" is not empty")
	run := filepath.Join(base, "run")
	require.NoError(t, os.MkdirAll(run, 0o755))
	_, err := Record(recording(t, run, byWorkload))
	require.NoError(t, err)
	assert.ErrorContains(t, CheckNew(run), "run directory "+run+" already holds a run (a workload on sim, started 2026-01-02T03:04:05Z): "+
		"resume it with `ptsrun resume "+run+"` or choose another --out")

	undo, err := Make(filepath.Join(base, "made", "deep"))
	require.NoError(t, err)
	assert.DirExists(t, filepath.Join(base, "made", "deep"))
	undo()
	assert.NoDirExists(t, filepath.Join(base, "made"), "what Make made, and only that, goes")
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{"/srv/run-1": "/srv/run-1", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "h:1=/dev/x": "h:1=/dev/x"} {
		assert.Equal(t, want, shellWord(in), in)
	}
}
