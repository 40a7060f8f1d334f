package fio

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// fio's entries are matched to the threads the way fio reports them: one
// per thread, a run of threads of one group with group_reporting as one,
// jobs with stats=0 not at all, on every host.
func TestMatchJobs(t *testing.T) {
	jf := parseOne(t, `[global]
numjobs=2
[a]
[b]
group_reporting
[c]
stonewall
group_reporting
[d]
group_reporting
name=renamed
[e]
stats=0
`, nil, nil)
	threads := jf.Threads(1, fakeStat{})
	require.Len(t, threads, 10)
	// A thread joins the entry before it when it has group_reporting of
	// its own and is in the same group (stat.c): b's threads join a's
	// second thread's entry; c's and d's (renamed) are one entry of group 1;
	// e's are not reported.
	out := &Output{Jobs: []Job{{Name: "a"}, {Name: "a"}, {Name: "c", GroupID: 1}, {GroupID: 1<<32 - 1}}}
	res, err := MatchJobs(out, jf, threads)
	require.NoError(t, err)
	var got [][]int
	for _, r := range res {
		got = append(got, r.Threads)
	}
	assert.Equal(t, [][]int{{0}, {1, 2, 3}, {4, 5, 6, 7}}, got)
	assert.Equal(t, 1, res[2].Group)
	out.Jobs = []Job{{Name: "a"}, {Name: "a"}, {Name: "x"}}
	_, err = MatchJobs(out, jf, threads)
	assert.ErrorContains(t, err, "job 3 is x in group 0, the job file's c in group 1")

	// Two fio servers: each host's entries are the threads' again.
	jf = parseOne(t, "[a]\nnumjobs=2\n", nil, nil)
	threads = jf.Threads(1, fakeStat{})
	out = &Output{ClientServer: true, Jobs: []Job{{Name: "a", Host: "h1", Port: 1}, {Name: "a", Host: "h1", Port: 1},
		{Name: "a", Host: "h2", Port: 1}, {Name: "a", Host: "h2", Port: 1}}}
	res, err = MatchJobs(out, jf, threads)
	require.NoError(t, err)
	require.Len(t, res, 4)
	assert.Equal(t, []int{1}, res[3].Threads)
	out.Jobs = out.Jobs[:3]
	_, err = MatchJobs(out, jf, threads)
	assert.ErrorContains(t, err, "has 1 jobs on h2:1, the job file makes 2")
}

func writeLog(t *testing.T, dir, name, text string) string {
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// A thread's per-second figures from its logs: averaged logs are rates
// over the interval before each line, per-I/O logs one line per I/O.
func TestReadSeries(t *testing.T) {
	dir := t.TempDir()
	l := ThreadLogs{AvgMs: 1000, Readable: true,
		IOPS: writeLog(t, dir, "a_iops.1.log", "1000, 100, 0, 0, 0\n1000, 50, 1, 0, 0\n2000, 200, 0, 0, 0\n2000, 50, 1, 0, 0\n"),
		BW:   writeLog(t, dir, "a_bw.1.log", "1000, 400, 0, 0, 0\n1000, 200, 1, 0, 0\n2000, 800, 0, 0, 0\n2000, 200, 1, 0, 0\n"),
		Lat: writeLog(t, dir, "a_lat.1.log", "1000, 1000, 0, 0, 0\n1000, 4000, 1, 0, 0\n2000, 2000, 0, 0, 0\n2000, 4000, 1, 0, 0\n"+
			"2000, 9999999, 0, 0, 0\n")}
	s, err := ReadSeries(l)
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, s.Covered)
	require.Len(t, s.Seconds, 2)
	assert.Equal(t, engine.Second{ReadIOs: 100, WriteIOs: 50, ReadBytes: 400 * 1024, WriteBytes: 200 * 1024, LatMeanNs: 2000}, s.Seconds[0])
	assert.Equal(t, int64(200), s.Seconds[1].ReadIOs)
	assert.InDelta(t, (200*2000.0+50*4000)/250, s.Seconds[1].LatMeanNs, 1e-9, "the last, partial interval written again is left out")

	// An interval stamped late (the job's set-up before it) is the second
	// before its stamp.
	l.IOPS = writeLog(t, dir, "b_iops.1.log", "1125, 1000, 0, 0, 0\n2125, 1000, 0, 0, 0\n")
	l.BW, l.Lat = "", ""
	s, err = ReadSeries(l)
	require.NoError(t, err)
	require.Len(t, s.Seconds, 3)
	assert.Equal(t, []int64{875, 1000, 125}, []int64{s.Seconds[0].ReadIOs, s.Seconds[1].ReadIOs, s.Seconds[2].ReadIOs})

	// Per-I/O logs.
	l = ThreadLogs{Readable: true, IOPS: writeLog(t, dir, "c_iops.1.log", "10, 1, 0, 4096, 0\n20, 1, 1, 8192, 0\n1500, 1, 0, 4096, 0\n"),
		Lat: writeLog(t, dir, "c_lat.1.log", "10, 100, 0, 4096, 0\n20, 300, 1, 8192, 0\n1500, 500, 0, 4096, 0\n")}
	s, err = ReadSeries(l)
	require.NoError(t, err)
	require.Len(t, s.Seconds, 2)
	assert.Equal(t, engine.Second{ReadIOs: 1, WriteIOs: 1, ReadBytes: 4096, WriteBytes: 8192, LatMeanNs: 200}, s.Seconds[0])

	_, err = ReadSeries(ThreadLogs{IOPS: filepath.Join(dir, "none"), Readable: true})
	assert.Error(t, err)
	_, err = ReadSeries(ThreadLogs{IOPS: l.IOPS})
	assert.ErrorContains(t, err, "no readable iops log")
}

func TestMergeSeries(t *testing.T) {
	a := Series{Covered: 2500 * time.Millisecond, Seconds: []engine.Second{{ReadIOs: 10, LatMeanNs: 100}, {ReadIOs: 20, LatMeanNs: 100}, {ReadIOs: 5}}}
	b := Series{Covered: 3 * time.Second, Seconds: []engine.Second{{WriteIOs: 30, LatMeanNs: 500}, {WriteIOs: 20, LatMeanNs: 300}, {WriteIOs: 7}}}
	got := MergeSeries([]Series{a, b})
	require.Len(t, got, 2, "up to the last second every thread covers")
	assert.Equal(t, engine.Second{ReadIOs: 10, WriteIOs: 30, LatMeanNs: (10*100 + 30*500) / 40.0}, got[0])
	assert.Nil(t, MergeSeries(nil))
}

// ptsrun's log options, unless a job logs every I/O itself; a thread's
// logs are where fio names them.
func TestLogArgsAndPaths(t *testing.T) {
	jf := parseOne(t, "[a]\n[b]\nwrite_bw_log=own\nlog_avg_msec=500\n[c]\nwrite_iops_log\nper_job_logs=0\nname=cee\nlog_avg_msec=1000\n", nil, nil)
	args, note := jf.LogArgs("/run/fio/logs/01")
	assert.Empty(t, note)
	assert.Equal(t, []string{"--write_iops_log=/run/fio/logs/01/ptsrun", "--write_bw_log=/run/fio/logs/01/ptsrun",
		"--write_lat_log=/run/fio/logs/01/ptsrun", "--write_hist_log=/run/fio/logs/01/ptsrun", "--log_avg_msec=1000", "--log_hist_msec=1000"}, args)
	th := jf.Threads(1, fakeStat{})
	l := jf.Logs(th[1], "/run/fio/logs/01", "/work", true)
	assert.Equal(t, ThreadLogs{IOPS: "/run/fio/logs/01/ptsrun_iops.2.log", BW: "/work/own_bw.2.log", Lat: "/run/fio/logs/01/ptsrun_lat.2.log",
		Clat: "/run/fio/logs/01/ptsrun_clat.2.log", AvgMs: 500, Hist: "/run/fio/logs/01/ptsrun_clat_hist.2.log", HistMs: 1000, Readable: true}, l)
	l = jf.Logs(th[2], "/run/fio/logs/01", "/work", true)
	assert.Equal(t, "/work/cee_iops.log", l.IOPS, "a bare write_iops_log is the job's name; per_job_logs=0 drops the thread")

	// A bare option after a value keeps the value's file (fio sets the
	// file only from a value), inherited or in the section.
	jf = parseOne(t, "[global]\nwrite_bw_log=/var/app/app\n[r]\nname=/run/mine\nwrite_bw_log\n[s]\nwrite_bw_log=x\nwrite_bw_log\n", nil, nil)
	th = jf.Threads(1, fakeStat{})
	assert.Equal(t, "/var/app/app_bw.1.log", jf.Jobs[0].logName(th[0], "write_bw_log", "bw", "", "/work"))
	assert.Equal(t, "/work/x_bw.2.log", jf.Jobs[1].logName(th[1], "write_bw_log", "bw", "", "/work"))

	jf = parseOne(t, "[a]\n[b]\nwrite_lat_log=mine\n", nil, nil)
	args, note = jf.LogArgs("/run")
	assert.Nil(t, args)
	assert.True(t, strings.HasPrefix(note, "job b logs every I/O itself (job.fio:3: write_lat_log=mine, no log_avg_msec)"), note)
	th = jf.Threads(1, fakeStat{})
	assert.Equal(t, ThreadLogs{Lat: "/work/mine_lat.2.log", Clat: "/work/mine_clat.2.log", Readable: true}, jf.Logs(th[1], "/run", "/work", false))
	assert.Equal(t, ThreadLogs{Readable: true}, jf.Logs(th[0], "/run", "/work", false))

	// A job's own histogram log of one-second windows is read; of others
	// it is not (HistMs says which).
	jf = parseOne(t, "[a]\nwrite_hist_log=h\nlog_hist_msec=1000\n[b]\nwrite_hist_log=h\nlog_hist_msec=250\n", nil, nil)
	th = jf.Threads(1, fakeStat{})
	assert.Equal(t, ThreadLogs{Hist: "/work/h_clat_hist.1.log", HistMs: 1000, Readable: true}, jf.Logs(th[0], "/run", "/work", false))
	assert.Equal(t, 250, jf.Logs(th[1], "/run", "/work", false).HistMs)
}

func TestUserRunCommand(t *testing.T) {
	jf := &UserJobFile{Path: "job.fio", Copy: []byte("[j]\n")}
	r := UserRun{JobFile: jf, Path: "/run/fio/jobs/01-job.fio", Output: "/run/fio/01-job.fio.json", Args: []string{"--readonly"}}
	assert.Equal(t, []string{"fio", "--output-format=json+", "--output=/run/fio/01-job.fio.json", "--readonly", "/run/fio/jobs/01-job.fio"},
		r.Command(), "fio runs the copy")
	r = UserRun{Binary: "/opt/fio", JobFile: jf, Path: "c.fio", Output: "o.json", Servers: []string{"h1:8765", "h2:8765"}}
	assert.Equal(t, []string{"/opt/fio", "--output-format=json+", "--output=o.json", "--client=ip:h1,8765", "c.fio",
		"--client=ip:h2,8765", "c.fio"}, r.Command())
}

// What runs is what the gate judged: a copy that changed since is not
// run.
func TestUserRunRefusesAChangedCopy(t *testing.T) {
	dir := t.TempDir()
	jf := &UserJobFile{Path: "job.fio", Copy: []byte("[j]\nrw=read\n")}
	p := filepath.Join(dir, "01-job.fio")
	require.NoError(t, os.WriteFile(p, []byte("[j]\nrw=write\n"), 0o644))
	r := UserRun{Binary: "/nonexistent/fio", JobFile: jf, Path: p, Output: filepath.Join(dir, "o.json")}
	_, _, err := r.Run(context.Background(), &bytes.Buffer{})
	assert.ErrorIs(t, err, ErrCannotJudge)
	assert.ErrorContains(t, err, p+" no longer holds the copy of job.fio the gate judged")
	require.NoError(t, os.Remove(p))
	_, _, err = r.Run(context.Background(), &bytes.Buffer{})
	assert.ErrorIs(t, err, ErrCannotJudge)
}

// With histogram logs of one-second windows, each second carries each
// direction's percentiles and maximum of the threads' bins added up, and
// its mean of their means weighted by I/Os.
func TestMergeSeriesLatency(t *testing.T) {
	dir := t.TempDir()
	hist := func(ms int64, idx int, n int64) string {
		b := make([]string, 1856)
		for i := range b {
			b[i] = "0"
		}
		b[idx] = strconv.FormatInt(n, 10)
		return fmt.Sprintf("%d, 0, 4096, %s\n", ms, strings.Join(b, ", "))
	}
	thread := func(name string, ios int64, lat int64, bin int) Series {
		l := ThreadLogs{AvgMs: 1000, HistMs: 1000, Readable: true,
			IOPS: writeLog(t, dir, name+"_iops.1.log", fmt.Sprintf("1000, %d, 0, 0, 0\n2000, %d, 0, 0, 0\n", ios, ios)),
			Clat: writeLog(t, dir, name+"_clat.1.log", fmt.Sprintf("1000, %d, 0, 0, 0\n2000, %d, 0, 0, 0\n", lat, lat)),
			Lat:  writeLog(t, dir, name+"_lat.1.log", fmt.Sprintf("1000, %d, 0, 0, 0\n2000, %d, 0, 0, 0\n", lat+500, lat+500)),
			Hist: writeLog(t, dir, name+"_clat_hist.1.log", hist(1003, bin, ios)+hist(2001, bin, ios))}
		s, err := ReadSeries(l)
		require.NoError(t, err)
		return s
	}
	got := MergeSeries([]Series{thread("a", 990, 1000, 200), thread("b", 10, 5000, 600)})
	require.Len(t, got, 2)
	r := got[0].Read
	require.NotNil(t, r)
	assert.Nil(t, got[0].Write)
	assert.Equal(t, engine.LatCompletion, r.Of)
	assert.InDelta(t, (990*1000+10*5000)/1000.0, r.MeanNs, 1e-9, "the clat log's, as the percentiles")
	assert.InDelta(t, (990*1500+10*5500)/1000.0, got[0].LatMeanNs, 1e-9, "the lat log's: total latency")
	assert.Equal(t, platIdxToVal(200), r.P99Ns, "990 of 1000 in the lower bin")
	assert.Equal(t, platIdxToVal(600), r.P999Ns)
	assert.Equal(t, platIdxToVal(600), r.MaxNs)

	// A thread without a histogram of the second leaves its direction's
	// percentiles out, 0: they would be the other threads'. The mean
	// stays.
	meanOnly := &engine.IntervalLat{MeanNs: 1000, Of: engine.LatCompletion}
	noHist := thread("d", 10, 1000, 200)
	noHist.histPath = ""
	assert.Equal(t, meanOnly, MergeSeries([]Series{thread("e", 10, 1000, 200), noHist})[0].Read)

	// A log of other windows, or none, leaves them out too.
	s := thread("c", 10, 1000, 200)
	s.histPath = ""
	assert.Equal(t, meanOnly, MergeSeries([]Series{s})[0].Read)

	// A log cut short: the seconds before the cut keep their percentiles.
	cut := hist(1003, 200, 10) + hist(2001, 200, 10)
	writeLog(t, dir, "f_clat_hist.1.log", cut[:len(cut)-30])
	l := ThreadLogs{AvgMs: 1000, HistMs: 1000, Readable: true, IOPS: filepath.Join(dir, "e_iops.1.log"), Clat: filepath.Join(dir, "e_clat.1.log"),
		Hist: filepath.Join(dir, "f_clat_hist.1.log")}
	f, err := ReadSeries(l)
	require.NoError(t, err)
	got = MergeSeries([]Series{thread("g", 10, 1000, 600), f})
	require.Len(t, got, 2)
	assert.Equal(t, platIdxToVal(600), got[0].Read.MaxNs)
	assert.Equal(t, meanOnly, got[1].Read)
}

// ptsrun adds its histogram log to a user's job file only within fio's
// memory budget, when it can tell the jobs' time; and reads it only then.
func TestLogArgsHistBudget(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
		need int64
		hist bool
	}{
		{"a minute of four mixed threads", "[a]\nrw=randrw\ntime_based\nruntime=1m\nnumjobs=4\n", 60 * 4 * 2 * histWindowBytes, true},
		{"75 minutes of 16", "[global]\nrw=randrw\ntime_based\nruntime=75m\n[a]\nnumjobs=16\n", 4500 * 16 * 2 * histWindowBytes, false},
		{"with a ramp, and reads", "[a]\nrw=randread:8\nruntime=3600\nramp_time=60s\nnumjobs=4\n[b]\nrw=write\nruntime=4000ms\n",
			(3660*4 + 4) * histWindowBytes, true},
		{"a job's own histogram log is its own", "[a]\nrw=randread\nruntime=10h\nnumjobs=64\nwrite_hist_log=x\n[b]\nruntime=10\n",
			10 * histWindowBytes, true},
		{"its own windows", "[a]\nrw=randrw\ntime_based\nruntime=75m\nnumjobs=16\nlog_hist_msec=10000\n", 450 * 16 * 2 * histWindowBytes, true},
		{"no runtime: not known", "[a]\nrw=randrw\nsize=1g\nnumjobs=1000\n", 0, true},
	} {
		jf := parseOne(t, c.text, nil, nil)
		need, known := jf.histLogNeed()
		if c.need > 0 {
			assert.True(t, known, c.name)
			assert.Equal(t, c.need, need, c.name)
		} else {
			assert.False(t, known, c.name)
		}
		args, note := jf.LogArgs("/run")
		assert.Equal(t, c.hist, slices.Contains(args, "--write_hist_log=/run/ptsrun"), c.name)
		assert.Equal(t, c.hist, slices.Contains(args, "--log_hist_msec=1000"), c.name)
		assert.Contains(t, args, "--write_lat_log=/run/ptsrun", c.name)
		th := jf.Threads(1, fakeStat{})
		l := jf.Logs(th[len(th)-1], "/run", "/work", true)
		if c.hist {
			assert.Empty(t, note, c.name)
			assert.NotEmpty(t, l.Hist, c.name)
		} else {
			assert.Contains(t, note, "no per-second percentiles", c.name)
			assert.Empty(t, l.Hist, c.name)
			assert.Equal(t, fmt.Sprintf("/run/ptsrun_clat.%d.log", len(th)), l.Clat, c.name)
		}
	}
}
