package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/matrix"
)

// rawFioJobs reads fio's own JSON output as fio wrote it, without ptsrun's
// parser: every entry's name, group, and per direction its iops, I/Os and
// run time, and its filename option.
type rawFioJob struct {
	JobName string            `json:"jobname"`
	GroupID int               `json:"groupid"`
	Options map[string]string `json:"job options"`
	Read    rawFioDir         `json:"read"`
	Write   rawFioDir         `json:"write"`
}

type rawFioDir struct {
	IOPS     float64 `json:"iops"`
	TotalIOs int64   `json:"total_ios"`
	Runtime  int64   `json:"runtime"`
}

func rawFioJobs(t *testing.T, path string) []rawFioJob {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Jobs []rawFioJob `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(data[strings.IndexByte(string(data), '{'):], &doc))
	return doc.Jobs
}

func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-9) }

// The done-when of issue 14, part 1: a job file with a global section,
// one job per loop device, numjobs=2 and two reporting groups runs through
// `ptsrun fio` with per-second logs; every job's IOPS as ptsrun records
// them agrees with fio's own JSON within 1 %, and every target's figure in
// results.json with the sum of fio's figures of the jobs on it.
func TestFioJobFileOnLoopDevices(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel() // mostly waiting on I/O, on devices of its own
	dev0 := enginetest.LoopDevice(t, 128<<20, "")
	dev1 := enginetest.LoopDevice(t, 128<<20, "")
	work := t.TempDir()
	job := filepath.Join(work, "two-devices.fio")
	text := fmt.Sprintf(`; two groups: random writes on both devices, then random reads
[global]
ioengine=libaio
direct=1
bs=4k
iodepth=4
time_based=1
runtime=3
numjobs=2

[w0]
rw=randwrite
filename=%s

[w1]
rw=randwrite
filename=%s

[r0]
stonewall
rw=randread
filename=%s

[r1]
rw=randread
filename=%s
; the job's own log, which ptsrun leaves where fio puts it (in the run directory)
write_bw_log=%s
log_avg_msec=1000
`, dev0, dev1, dev0, dev1, filepath.Join(work, "run", "own"))
	require.NoError(t, os.WriteFile(job, []byte(text), 0o644))
	dir := filepath.Join(work, "run")

	// Unconfirmed: refused before anything is made or written.
	code, _, stderr := ptsrun("fio", job, "--out", dir, "--destroy-data", dev0)
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, fmt.Sprintf("two-devices.fio:17: %s is a block device, written by job w1: rw=randwrite (%s:16): "+
		"writing destroys its data: confirm with --destroy-data %s", dev1, job, dev1))
	assert.NoDirExists(t, dir)

	code, stdout, stderr := ptsrun("fio", job, "--out", dir, "--destroy-data", dev0, "--destroy-data", dev1)
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `two-devices.fio \d+\.\ds/6\.0s \| (read|write) [0-9.]+k? IOPS`, stderr, "fio's status line on the progress as it runs")
	assert.Contains(t, stdout, "group 1 (w0+w1)")
	assert.Contains(t, stdout, "group 2 (r0+r1)")

	// ptsrun's per-job figures beside fio's own, entry by entry.
	raw := rawFioJobs(t, filepath.Join(dir, "fio", "01-two-devices.fio.json"))
	require.Len(t, raw, 8, "2 groups × 2 jobs × numjobs=2, no group_reporting")
	f, err := os.Open(filepath.Join(dir, fioJobsCSV))
	require.NoError(t, err)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	require.NoError(t, err)
	require.Len(t, rows, 9)
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	worst := 0.0
	for i, r := range raw {
		row := rows[i+1]
		assert.Equal(t, r.JobName, row[col["job"]])
		ours := func(name string) float64 { v, _ := strconv.ParseFloat(row[col[name]], 64); return v }
		// Counts, not rates: fio's I/Os and figure passed on as they are,
		// and ptsrun's IOPS those I/Os over the direction's run time.
		for _, d := range []struct {
			dir string
			fio rawFioDir
		}{{"read", r.Read}, {"write", r.Write}} {
			if d.fio.TotalIOs == 0 {
				continue
			}
			assert.Equal(t, float64(d.fio.TotalIOs), ours(d.dir+"_ios"), "job %s: fio's I/Os", r.JobName)
			assert.Equal(t, d.fio.IOPS, ours(d.dir+"_fio_iops"), "job %s: fio's own IOPS, beside ptsrun's", r.JobName)
			assert.InEpsilon(t, float64(d.fio.TotalIOs)*1000/float64(d.fio.Runtime), ours(d.dir+"_iops"), 1e-9,
				"job %s: ptsrun's IOPS are fio's I/Os over fio's run time of the direction", r.JobName)
			worst = math.Max(worst, relDiff(ours(d.dir+"_iops"), d.fio.IOPS))
		}
	}
	t.Logf("per job: ptsrun's IOPS (I/Os over run time, fio-jobs.csv) against fio's iops: largest difference %.2g %%", worst*100)

	// Each group a cell, each target's figures in results.json.
	res, ri, err := matrix.Load(dir)
	require.NoError(t, err)
	assert.True(t, ri.Workload)
	assert.Equal(t, "ptsrun fio: two-devices.fio", ri.Source)
	cells := res.Tests[0].Stages[0].Cells
	require.Len(t, cells, 2)
	worstTarget := 0.0
	for gi, c := range cells {
		require.Len(t, c.Targets, 2, c.Key.String())
		// Each target's share of the group's IOPS is its jobs' share of the
		// group's I/Os (one time, the group's, for all): counted exactly,
		// whatever the host did to the jobs' run times.
		var group int64
		for _, r := range raw {
			if r.GroupID == gi {
				group += r.Read.TotalIOs + r.Write.TotalIOs
			}
		}
		for _, tc := range c.Targets {
			var ios int64
			sum := 0.0
			for _, r := range raw {
				if r.GroupID == gi && r.Options["filename"] == tc.Target {
					ios += r.Read.TotalIOs + r.Write.TotalIOs
					sum += r.Read.IOPS + r.Write.IOPS
				}
			}
			require.Positive(t, ios, "%s on %s", c.Key, tc.Target)
			assert.InEpsilon(t, float64(ios)/float64(group), tc.IOPS/c.IOPS, 1e-9, "%s on %s: its share of the group's I/Os", c.Key, tc.Target)
			worstTarget = math.Max(worstTarget, relDiff(tc.IOPS, sum))
		}
		// The per-second series, from the logs: within a few per cent of
		// the whole (fio does not log the last, partial second).
		secs := c.PerRound[0].Seconds
		require.NotEmpty(t, secs, c.Key.String())
		var ios int64
		tails := 0
		for _, s := range secs {
			ios += s.ReadIOs + s.WriteIOs
			if s.ReadIOs+s.WriteIOs > 0 { // a loaded host may let a second pass without any
				assert.Positive(t, s.LatMeanNs)
			}
			for _, l := range []*engine.IntervalLat{s.Read, s.Write} {
				if l == nil {
					continue
				}
				assert.Equal(t, engine.LatCompletion, l.Of)
				// A loaded host may leave a thread's histogram log without
				// the second: then the mean only, the tails 0 (unknown).
				if l.MaxNs == 0 {
					assert.Zero(t, l.P99Ns+l.P999Ns, "%+v: no tails without a maximum", *l)
					continue
				}
				tails++
				assert.True(t, l.P99Ns > 0 && l.P99Ns <= l.P999Ns && l.P999Ns <= l.MaxNs, "%+v", *l)
			}
		}
		assert.Positive(t, tails, "%s: seconds with fio's histogram logs' percentiles", c.Key)
		t.Logf("%s: %d seconds logged, %.0f IOPS on average in them, %.0f over the group", c.Key, len(secs), float64(ios)/float64(len(secs)), c.IOPS)
	}
	t.Logf("per target: results.json's IOPS (the jobs' I/Os over the group's time) against the sum of fio's iops: largest difference %.2g %%", worstTarget*100)
	assert.Equal(t, "w0+w1", cells[0].Key.String())
	assert.Equal(t, "r0+r1", cells[1].Key.String())

	logs, _ := filepath.Glob(filepath.Join(dir, "fio", "logs", "01", "ptsrun_iops.*.log"))
	assert.Len(t, logs, 8, "ptsrun's per-second iops logs, one per thread")
	own, _ := filepath.Glob(filepath.Join(dir, "own_bw.*.log"))
	assert.Len(t, own, 2, "the job's own bw logs, where its option says (threads 7 and 8)")
	seconds, err := os.ReadFile(filepath.Join(dir, fioSecondsCSV))
	require.NoError(t, err)
	assert.Contains(t, string(seconds), "1,w0+w1,all,1,0,")
	assert.Contains(t, string(seconds), "1,w0+w1,"+dev0+",1,0,", "each target's seconds too")
	assert.Contains(t, string(seconds), "1,w0+w1,"+dev1+",1,0,")
	assert.Contains(t, string(seconds), ",write_p99_ms,write_p99_9_ms,write_max_ms,lat_of\n")
	assert.Contains(t, string(seconds), ",clat\n", "per-second percentiles from the histogram logs")
	saved, err := os.ReadFile(filepath.Join(dir, "fio", "jobs", "01-two-devices.fio"))
	require.NoError(t, err)
	assert.Equal(t, text, string(saved), "the copy fio ran")

	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", filepath.Join(dir, "report.pdf"), "-").Output()
		require.NoError(t, err)
		pdf := strings.Join(strings.Fields(string(out)), " ")
		for _, want := range []string{"Group 1: w0+w1", "Group 2: r0+r1", "IOPS in every second of group 1",
			"Every job as fio reports it", "Every target of the group", "Appendix: fio job file " + job,
			"two groups: random writes on both devices, then random reads", "confirmed by --destroy-data",
			"The fio job files two-devices.fio ran as written with `ptsrun fio`"} {
			assert.Contains(t, pdf, want)
		}
	}
	// The report is rebuilt from the run directory alone.
	code, _, stderr = ptsrun("report", dir)
	require.Equal(t, 0, code, stderr)
}

// A job file fio cannot parse is reported in fio's words with the line,
// exit 1, nothing run and no directory made; so are the other bad inputs.
func TestFioBadInput(t *testing.T) {
	t.Parallel() // devices and directories of its own: beside the other device tests
	enginetest.NeedFio(t)
	work := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(work, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	data := filepath.Join(work, "data.bin")
	require.NoError(t, os.WriteFile(data, make([]byte, 1<<20), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown option", []string{write("bad.fio", "[global]\nrw=read\n[j]\nfilename="+data+"\nbogus_option=3\n")}, 1,
			"fio rejects the job file " + work + "/bad.fio: " + work + "/bad.fio:5: Bad option <bogus_option=3>"},
		{"bad value", []string{write("rw.fio", "[j]\nrw=randreadx\n")}, 1, "rw.fio:2: fio: failed parsing rw=randreadx"},
		{"option outside a section", []string{write("out.fio", "rw=read\n[j]\n")}, 1, "out.fio:1: option <rw=read> outside of [] job section"},
		{"missing include", []string{write("inc.fio", "[j]\ninclude nope.fio\n")}, 1, `inc.fio:2: unable to open include file "nope.fio": it is neither in fio's working directory nor beside `},
		{"no such job file", []string{filepath.Join(work, "nope.fio")}, 1, "no such file or directory"},
		{"no job file", nil, 1, "fio needs at least one job file"},
		{"a command", []string{write("cmd.fio", "[j]\nfilename="+data+"\nexec_prerun=touch /tmp/x\n")}, 4,
			"cmd.fio:3: exec_prerun=touch /tmp/x: runs a command, which no gate can check"},
		{"a write through a fio server", []string{write("sub.fio", "[j]\nrw=write\nsize=64k\nfilename=/etc/ptsrun-test-never\n"),
			"--fio-server", "h1:8765"}, 4, "--destroy-data h1:8765=/etc/ptsrun-test-never"},
		{"a server with a target", []string{write("srv.fio", "[j]\n"), "--fio-server", "h1:8765=/dev/sdb"}, 1,
			`--fio-server "h1:8765=/dev/sdb": want HOST:PORT (the job files name the targets)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(work, "run-"+strings.ReplaceAll(tc.name, " ", "-"))
			args := append([]string{"fio", "--out", dir}, tc.args...)
			code, _, stderr := ptsrun(args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.msg)
			if tc.code == 1 {
				assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %s", stderr)
			}
			assert.NoDirExists(t, dir)
		})
	}
	code, _, stderr := ptsrun("fio", write("ok.fio", "[j]\nfilename="+data+"\nsize=64k\n"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--out: name the directory to record the run in (or --plan to run nothing)")
}

// A job that only reads needs no confirmation, and fio runs it with
// --readonly; --plan runs nothing and says what the gate would refuse.
func TestFioReadOnlyAndPlan(t *testing.T) {
	t.Parallel() // devices and directories of its own: beside the other device tests
	enginetest.NeedFio(t)
	work := t.TempDir()
	data := filepath.Join(work, "data.bin")
	require.NoError(t, os.WriteFile(data, make([]byte, 1<<20), 0o644))
	job := filepath.Join(work, "read.fio")
	require.NoError(t, os.WriteFile(job, []byte("[global]\nrw=randread\nbs=4k\nsize=1m\nnumjobs=2\ngroup_reporting\n[r]\nfilename="+data+"\n"), 0o644))
	dir := filepath.Join(work, "run")
	second := filepath.Join(work, "second.fio")
	require.NoError(t, os.WriteFile(second, []byte("[s]\nrw=read\nsize=64k\nfilename="+data+"\n"), 0o644))
	code, stdout, stderr := ptsrun("fio", job, second, "--out", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "no job writes: fio runs with --readonly")
	assert.Contains(t, stdout, "group 2 (s): ")
	assert.Contains(t, stdout, "s (threads [1]) on "+data, "the second job file's fio numbers its threads from 1")
	assert.Contains(t, stdout, "r (threads [1 2]) on "+data)
	var rec fioRecord
	b, err := os.ReadFile(filepath.Join(dir, fioRunFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rec))
	assert.True(t, rec.ReadOnly)
	assert.Contains(t, rec.JobFiles[0].Command, "--readonly")
	require.Len(t, rec.JobFiles, 2)
	assert.Equal(t, filepath.Join("fio", "02-second.fio.json"), rec.JobFiles[1].Output)
	require.Len(t, rec.Groups, 2)
	assert.Equal(t, second, rec.Groups[1].JobFile)
	assert.Equal(t, 0, rec.Groups[1].Group, "fio's groupid in its own run")
	require.Len(t, rec.Groups[0].Jobs, 1, "group_reporting: one entry for both threads")
	assert.Equal(t, []int{1, 2}, rec.Groups[0].Jobs[0].Threads)

	other := filepath.Join(work, "other.bin")
	require.NoError(t, os.WriteFile(other, make([]byte, 1<<20), 0o644))
	wjob := filepath.Join(work, "write.fio")
	require.NoError(t, os.WriteFile(wjob, []byte("[w]\nrw=write\nsize=64k\nfilename=/var/tmp/ptsrun-never/x.dat:"+other+"\n"), 0o644))
	code, stdout, stderr = ptsrun("fio", wjob, "--plan")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "/var/tmp/ptsrun-never/x.dat (new file): written by job w: rw=write")
	assert.Contains(t, stdout, "the gate would refuse:\n  "+wjob+":4: /var/tmp/ptsrun-never/x.dat is a new file, written by job w: rw=write ("+wjob+
		":2): fio would make it (and any directory missing above it) outside the run directory and the job file's directory: "+
		"confirm with --destroy-data /var/tmp/ptsrun-never (or a directory above it)")
	assert.Contains(t, stdout, "$ fio --output-format=json+ --output=DIR/fio/01-write.fio.json --write_iops_log=DIR/fio/logs/01/ptsrun")
	assert.Contains(t, stdout, " DIR/fio/jobs/01-write.fio\n", "fio runs the copy")
	code, stdout, stderr = ptsrun("fio", wjob, "--plan", "--destroy-data", "/var/tmp/ptsrun-never")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "the gate would refuse", "the new file confirmed; the other the job's own file, beside its job file")
	// A link beside the job file to a file elsewhere is that file.
	elsewhere := filepath.Join(t.TempDir(), "precious.db")
	require.NoError(t, os.WriteFile(elsewhere, []byte("data"), 0o644))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(work, "link.db")))
	ljob := filepath.Join(work, "link.fio")
	link := filepath.Join(work, "link.db")
	require.NoError(t, os.WriteFile(ljob, []byte("[w]\nrw=write\nsize=4k\nfilename="+link+"\n"), 0o644))
	code, stdout, stderr = ptsrun("fio", ljob, "--plan")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "the gate would refuse:\n  "+ljob+":4: "+link+" is a file, written by job w: rw=write ("+ljob+":2): "+
		"writing overwrites it: confirm with --destroy-data "+elsewhere)
	code, _, stderr = ptsrun("fio", ljob, "--out", filepath.Join(work, "l"))
	assert.Equal(t, 4, code, stderr)
	got, err := os.ReadFile(elsewhere)
	require.NoError(t, err)
	assert.Equal(t, "data", string(got))

	code, stdout, stderr = ptsrun("fio", wjob, "--plan", "--json", "--destroy-data", "/var/tmp/ptsrun-never")
	require.Equal(t, 0, code, stderr)
	var plan fioPlanJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &plan))
	assert.False(t, plan.ReadOnly)
	require.Len(t, plan.Targets, 2)
	assert.Equal(t, "new file", plan.Targets[0].Kind)
	assert.Equal(t, "the job's own file (beside its job file or in the run directory)", plan.Targets[1].Verdict)
}

// Through fio servers every server runs the job files; a path a job
// writes there needs HOST:PORT=PATH for each; fio's entries of every host
// are matched to the threads, and each host's target is a target of the
// group.
func TestFioJobFilesOnFioServers(t *testing.T) {
	enginetest.NeedRoot(t, "fio")
	t.Parallel() // mostly waiting on fio
	servers := enginetest.FioServers(t, 2)
	work := t.TempDir()
	data := filepath.Join(work, "remote.dat")
	job := filepath.Join(work, "remote.fio")
	require.NoError(t, os.WriteFile(job, []byte("[global]\nbs=4k\nsize=1m\ntime_based=1\nruntime=1\n"+
		"[w]\nrw=randwrite\nfilename="+data+"\n[r]\nstonewall\nrw=randread\nfilename="+data+"\nnumjobs=2\n"), 0o644))
	dir := filepath.Join(work, "run")
	args := []string{"fio", job, "--out", dir, "--fio-server", servers[0], "--fio-server", servers[1]}
	code, _, stderr := ptsrun(append(args, "--destroy-data", servers[0]+"="+data)...)
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, "--destroy-data "+servers[1]+"="+data)
	assert.NoDirExists(t, dir)
	code, stdout, stderr := ptsrun(append(args, "--destroy-data", servers[0]+"="+data, "--destroy-data", servers[1]+"="+data)...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "through fio servers ptsrun's log options do not reach the jobs")
	assert.Contains(t, stdout, "r on "+servers[1]+" (threads [3])")
	res, _, err := matrix.Load(dir)
	require.NoError(t, err)
	cells := res.Tests[0].Stages[0].Cells
	require.Len(t, cells, 2)
	for _, c := range cells {
		require.Len(t, c.Targets, 2, "a target per server: %s", c.Key)
		assert.NotEqual(t, c.Targets[0].Host, c.Targets[1].Host)
		assert.Equal(t, c.Targets[0].Host+"="+data, c.Targets[0].Target)
		assert.InEpsilon(t, c.IOPS, c.Targets[0].IOPS+c.Targets[1].IOPS, 0.001)
	}
	var rec fioRecord
	b, err := os.ReadFile(filepath.Join(dir, fioRunFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rec))
	require.Len(t, rec.Groups[1].Jobs, 4, "2 threads × 2 servers")
}

// fio failing as it runs ends the run, exit 1, with fio's words; what it
// wrote is kept in DIR/fio, and DIR is no run directory.
func TestFioFailsAsItRuns(t *testing.T) {
	enginetest.NeedFio(t)
	work := t.TempDir()
	job := filepath.Join(work, "fails.fio")
	// fio makes a new file's directories too, but not in /proc.
	missing := "/proc/ptsrun-test-never/x.dat"
	require.NoError(t, os.WriteFile(job, []byte("[r]\nrw=read\nsize=64k\nfilename="+missing+"\n"), 0o644))
	dir := filepath.Join(work, "run")
	code, _, stderr := ptsrun("fio", job, "--out", dir, "--destroy-data", "/proc")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "fio failed (exit status 1): fio: failed to create dir (/proc/ptsrun-test-never)")
	assert.Contains(t, stderr, "fio's output of the 1 job file(s) that ran is kept in "+filepath.Join(dir, "fio")+" (not a run directory)")
	assert.FileExists(t, filepath.Join(dir, "fio", "01-fails.fio.stderr"))
	assert.NoFileExists(t, filepath.Join(dir, "run.json"))
}

// Each job file is recorded before the next runs: a later one that fails,
// or is stopped, leaves the run directory of those before it, which report
// takes like any run.
func TestFioKeepsTheJobFilesThatRan(t *testing.T) {
	t.Parallel() // devices and directories of its own: beside the other device tests
	enginetest.NeedFio(t)
	work := t.TempDir()
	first := filepath.Join(work, "first.fio")
	require.NoError(t, os.WriteFile(first, []byte("[r]\nrw=randread\nsize=4m\nfilename="+filepath.Join(work, "first.dat")+"\ntime_based=1\nruntime=1\n"), 0o644))

	t.Run("a later one fails", func(t *testing.T) {
		fails := filepath.Join(work, "fails.fio")
		require.NoError(t, os.WriteFile(fails, []byte("[r]\nrw=read\nsize=64k\nfilename=/proc/ptsrun-test-never/x.dat\n"), 0o644))
		dir := filepath.Join(work, "run-fails")
		code, _, stderr := ptsrun("fio", first, fails, "--out", dir, "--destroy-data", "/proc")
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, fails+": fio failed (exit status 1)")
		assert.Contains(t, stderr, "(the 1 job file(s) before it are recorded in "+dir+")")
		res, _, err := matrix.Load(dir)
		require.NoError(t, err)
		require.Len(t, res.Tests[0].Stages[0].Cells, 1)
		assert.Positive(t, res.Tests[0].Stages[0].Cells[0].IOPS)
		code, _, stderr = ptsrun("report", dir)
		assert.Equal(t, 0, code, stderr)
	})

	t.Run("stopped during a later one", func(t *testing.T) {
		long := filepath.Join(work, "long.fio")
		require.NoError(t, os.WriteFile(long, []byte("[w]\nrw=randwrite\nsize=4m\nfilename="+filepath.Join(work, "long.dat")+"\ntime_based=1\nruntime=30\n"), 0o644))
		dir := filepath.Join(work, "run-stopped")
		cmd := exec.Command(binary, "fio", first, long, "--out", dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		// The first job file recorded, then the second's fio under way
		// (it runs for 30 s: the signal lands inside it).
		deadline := time.Now().Add(90 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(filepath.Join(dir, "results.json")); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		isFio := func(p string) bool { _, cmdline, _ := strings.Cut(p, ": "); return strings.HasPrefix(cmdline, "fio ") }
		for time.Now().Before(deadline) && !slices.ContainsFunc(liveProcesses(dir), isFio) {
			time.Sleep(20 * time.Millisecond)
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
		err := cmd.Wait()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, stderr.String())
		assert.Equal(t, 130, ee.ExitCode(), stderr.String())
		assert.Contains(t, stderr.String(), "fio was stopped during "+long+"; the 1 job file(s) before it are recorded in "+dir)
		res, _, err := matrix.Load(dir)
		require.NoError(t, err)
		require.Len(t, res.Tests[0].Stages[0].Cells, 1, "the first job file's group")
		assert.FileExists(t, filepath.Join(dir, "report.pdf"))
	})
}
