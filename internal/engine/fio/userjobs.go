package fio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ptsrun/ptsrun/internal/confine"
	"github.com/ptsrun/ptsrun/internal/engine"
)

// Running a user's job file as it is (`ptsrun fio`): ptsrun adds only
// options of fio's command line, which set fio's defaults for the jobs of
// the first job file it is given (init.c parse_cmd_line: job options
// before any --name go to the global defaults; fill_def_thread resets them
// before every further job file). So each job file runs in a fio of its
// own, one after the other, which is how fio runs several anyway: a
// stonewall between them. fio runs the copy of the job file the gate
// judged (UserJobFile.Copy, saved in the run directory), never the
// user's file.
//
// The options ptsrun adds: --output-format=json+ and --output;
// --aux-path into the run directory, where fio writes the verify state
// and dump files it would write into its working directory; the
// per-second logs --write_iops_log, --write_bw_log, --write_lat_log and
// --write_hist_log into ptsrun's directory with --log_avg_msec=1000 and
// --log_hist_msec=1000, which a job's own log options override for that
// job (the histogram log only within fio's memory budget, histLogNeed);
// and --readonly when the gate found no job that writes. A job that asks
// for per-I/O logs of its own (a write_*_log and no log_avg_msec) would
// get one-second averages from ptsrun's --log_avg_msec: then ptsrun adds
// no log option to that job file at all and reads the per-second series
// from the logs the jobs write themselves, where they have some. Through
// fio servers, the command line's job options do not reach the servers
// (only the job files go): the series come from the jobs' own logs there,
// which fio returns to ptsrun's directory.

// Series is one thread's per-second figures read from its logs.
type Series struct {
	Seconds []engine.Second
	// Covered is how far the logs reach: fio does not log the last
	// interval of a thread when it ends before the interval does.
	Covered time.Duration
	// Per direction and second: the mean completion latency (0 for
	// none), of the latency of the histogram log, which MergeSeries reads
	// and adds up across threads before taking percentiles: histPath, ""
	// for none; histServer when a fio server returned it.
	mean       [2][]float64
	histPath   string
	histServer bool
}

// logEntry is one line of a log: the interval's end, the value, the
// direction (0 read, 1 write, 2 trim), the block size and, with
// log_offset=1, the offset (-1 without).
type logEntry struct {
	ms   int64
	val  float64
	dir  int
	size int64
	off  int64
}

func readLog(path string) ([]logEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []logEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), ",")
		if len(fs) < 3 {
			continue
		}
		ms, err1 := strconv.ParseInt(strings.TrimSpace(fs[0]), 10, 64)
		val, err2 := strconv.ParseFloat(strings.TrimSpace(fs[1]), 64)
		dir, err3 := strconv.Atoi(strings.TrimSpace(fs[2]))
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		e := logEntry{ms: ms, val: val, dir: dir, off: -1}
		if len(fs) > 3 {
			e.size, _ = strconv.ParseInt(strings.TrimSpace(fs[3]), 10, 64)
		}
		if len(fs) > 4 {
			if off, err := strconv.ParseInt(strings.TrimSpace(fs[4]), 10, 64); err == nil {
				e.off = off
			}
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// accum adds up one thread's figures per second, per direction.
type accum struct {
	ios, bytes [2][]float64
	latW       [2][]float64 // Σ mean total latency × weight
	latN       [2][]float64 // Σ weight
	clatW      [2][]float64 // the same of completion latency
	clatN      [2][]float64
}

func grow(s []float64, n int) []float64 {
	for len(s) < n {
		s = append(s, 0)
	}
	return s
}

// spread adds v over the interval (from, to] ms, to each second in
// proportion to its overlap.
func spread(dst *[]float64, from, to int64, v float64) {
	if to <= from {
		sec := int(max(to-1, 0) / 1000)
		*dst = grow(*dst, sec+1)
		(*dst)[sec] += v
		return
	}
	for s := from / 1000; s*1000 < to; s++ {
		lo, hi := max(from, s*1000), min(to, (s+1)*1000)
		if hi <= lo {
			continue
		}
		*dst = grow(*dst, int(s)+1)
		(*dst)[s] += v * float64(hi-lo) / float64(to-from)
	}
}

// ReadSeries reads a thread's logs into per-second figures. An averaged
// log's line is the rate over the interval that ends at its time (stat.c
// __add_samples: the I/Os since the last sample over the time since it,
// which is the averaging time: fio takes a sample once that much has
// passed, and stamps it with the time since the job began, its set-up
// included); a per-I/O log's line is one I/O. A missing log gives nothing
// of its kind. Each second's mean of both directions is of total latency
// (the lat log), each direction's of completion latency (the clat log),
// as the histogram log's percentiles, which MergeSeries reads.
func ReadSeries(l ThreadLogs) (Series, error) {
	var s Series
	if !l.Readable || l.IOPS == "" {
		return s, errors.New("no readable iops log")
	}
	iops, err := readLog(l.IOPS)
	if err != nil {
		return s, err
	}
	var a accum
	var covered int64
	prev := [3]int64{}
	for _, e := range iops {
		if e.dir < 0 || e.dir > 1 {
			continue
		}
		if l.AvgMs == 0 {
			spread(&a.ios[e.dir], e.ms, e.ms, 1)
			spread(&a.bytes[e.dir], e.ms, e.ms, float64(e.size))
		} else {
			from := max(prev[e.dir], e.ms-int64(l.AvgMs))
			spread(&a.ios[e.dir], from, e.ms, e.val*float64(e.ms-from)/1000)
			prev[e.dir] = e.ms
		}
		covered = max(covered, e.ms)
	}
	if l.AvgMs > 0 && l.BW != "" {
		if bw, err := readLog(l.BW); err == nil {
			prev = [3]int64{}
			for _, e := range bw {
				if e.dir < 0 || e.dir > 1 {
					continue
				}
				from := max(prev[e.dir], e.ms-int64(l.AvgMs))
				spread(&a.bytes[e.dir], from, e.ms, e.val*1024*float64(e.ms-from)/1000) // KiB/s
				prev[e.dir] = e.ms
			}
		}
	}
	readMeans(l.Lat, l.AvgMs, &a.latW, &a.latN)
	readMeans(l.Clat, l.AvgMs, &a.clatW, &a.clatN)
	s.Covered = time.Duration(covered) * time.Millisecond
	n := 0
	for d := 0; d < 2; d++ {
		n = max(n, len(a.ios[d]))
	}
	for i := 0; i < n; i++ {
		var sec engine.Second
		at := func(v []float64) float64 {
			if i < len(v) {
				return v[i]
			}
			return 0
		}
		sec.ReadIOs, sec.WriteIOs = int64(math.Round(at(a.ios[0]))), int64(math.Round(at(a.ios[1])))
		sec.ReadBytes, sec.WriteBytes = int64(math.Round(at(a.bytes[0]))), int64(math.Round(at(a.bytes[1])))
		// The second's mean latency: each direction's, weighted by its I/Os.
		var sum, w float64
		for d := 0; d < 2; d++ {
			if n := at(a.latN[d]); n > 0 {
				ios := at(a.ios[d])
				sum += at(a.latW[d]) / n * ios
				w += ios
			}
		}
		if w > 0 {
			sec.LatMeanNs = sum / w
		}
		for d := 0; d < 2; d++ {
			m := 0.0
			if n := at(a.clatN[d]); n > 0 {
				m = at(a.clatW[d]) / n
			}
			s.mean[d] = append(s.mean[d], m)
		}
		s.Seconds = append(s.Seconds, sec)
	}
	s.histPath, s.histServer = userHistPath(l)
	return s, nil
}

// readMeans adds a latency log's means per second into sum (mean ×
// weight) and weight: an averaged log's line weighs its time, a per-I/O
// log's line is one I/O. A log that does not read adds nothing.
func readMeans(path string, avgMs int, sum, weight *[2][]float64) {
	if path == "" {
		return
	}
	lat, err := readLog(path)
	if err != nil {
		return
	}
	prev := [3]int64{}
	last := [3]int64{-1, -1, -1}
	for _, e := range lat {
		if e.dir < 0 || e.dir > 1 {
			continue
		}
		if avgMs == 0 {
			spread(&sum[e.dir], e.ms, e.ms, e.val)
			spread(&weight[e.dir], e.ms, e.ms, 1)
			continue
		}
		// fio writes the last, partial interval again at the end,
		// stamped as the one before: keep the first.
		if e.ms == last[e.dir] {
			continue
		}
		last[e.dir] = e.ms
		from := max(prev[e.dir], e.ms-int64(avgMs))
		spread(&sum[e.dir], from, e.ms, e.val*float64(e.ms-from))
		spread(&weight[e.dir], from, e.ms, float64(e.ms-from))
		prev[e.dir] = e.ms
	}
}

// userHistPath is where a thread's histogram log is: "" without a log of
// one-second windows. A log a fio server returned (the client adds
// ".<host>" to its name) is fixed as serverFix says.
func userHistPath(l ThreadLogs) (path string, server bool) {
	if l.Hist == "" || l.HistMs != 1000 {
		return "", false
	}
	if _, err := os.Stat(l.Hist); err == nil {
		return l.Hist, false
	}
	m, _ := filepath.Glob(l.Hist + ".*")
	if len(m) != 1 {
		return "", false
	}
	return m[0], true
}

// MergeSeries adds threads' series into one: each second the sum of the
// threads' I/Os and bytes, its mean latency weighted by them. It ends at
// the last whole second every thread's logs cover. Each direction's
// percentiles and maximum are of the threads' histogram logs, read here
// line by line into one histogram per second and direction; a second
// where a thread with I/Os has no histogram (no log, or one cut short)
// has the direction's mean only.
func MergeSeries(ss []Series) []engine.Second {
	if len(ss) == 0 {
		return nil
	}
	covered := time.Duration(math.MaxInt64)
	for _, s := range ss {
		covered = min(covered, s.Covered)
	}
	n := int(covered / time.Second)
	out := make([]engine.Second, n)
	lat := make([]float64, n)
	acc := make([][2]dirInterval, n)
	for _, s := range ss {
		has := s.addHist(acc)
		for i := 0; i < n && i < len(s.Seconds); i++ {
			x := s.Seconds[i]
			o := &out[i]
			o.ReadIOs += x.ReadIOs
			o.WriteIOs += x.WriteIOs
			o.ReadBytes += x.ReadBytes
			o.WriteBytes += x.WriteBytes
			lat[i] += x.LatMeanNs * float64(x.ReadIOs+x.WriteIOs)
			for d, ios := range []int64{x.ReadIOs, x.WriteIOs} {
				a := &acc[i][d]
				a.ios += ios
				if i < len(s.mean[d]) && s.mean[d][i] > 0 && ios > 0 {
					a.clatSum += s.mean[d][i] * float64(ios)
					a.clatW += float64(ios)
				}
				if ios > 0 && !has[d][i] {
					a.noHist = true
				}
			}
		}
	}
	for i := range out {
		if ios := out[i].ReadIOs + out[i].WriteIOs; ios > 0 {
			out[i].LatMeanNs = lat[i] / float64(ios)
		}
		out[i].Read, out[i].Write = acc[i][0].lat(engine.LatCompletion), acc[i][1].lat(engine.LatCompletion)
	}
	return out
}

// addHist adds s's histogram log into acc, a second's window into that
// second (none beyond acc), as it reads it, and says per direction which
// seconds it had I/Os of: the lines before a bad one (a log cut short).
func (s Series) addHist(acc [][2]dirInterval) (has [2][]bool) {
	n := len(acc)
	for d := range has {
		has[d] = make([]bool, n)
	}
	if s.histPath == "" {
		return has
	}
	f, err := os.Open(s.histPath)
	if err != nil {
		return has
	}
	defer f.Close()
	var fix serverFix
	_ = scanHistLog(f, func(e histEntry) {
		if e.Dir > 1 {
			return
		}
		if s.histServer {
			fix.fix(e.Dir, e.Bins)
		}
		i := intervalOf(e.MS, 1000)
		if i >= n || binsCount(e.Bins) == 0 {
			return
		}
		has[e.Dir][i] = true
		acc[i][e.Dir].bins = addBins(acc[i][e.Dir].bins, e.Bins)
	})
	return has
}

// UserRun is how to run one of a user's job files.
type UserRun struct {
	Binary  string
	JobFile *UserJobFile
	// Path is the file fio runs: JobFile's copy, saved; Run refuses to run
	// it when it no longer holds the copy.
	Path    string
	Output  string   // fio's JSON output (--output)
	Cwd     string   // fio's working directory; "" for ptsrun's
	Args    []string // the options ptsrun adds besides the output's
	Servers []string // fio servers (HOST:PORT), each running the job file
	// Confine, when set, holds fio to writing only what the gate let it
	// (Landlock, internal/confine).
	Confine *confine.Pinned
}

// Command is the fio command line of r.
func (r UserRun) Command() []string {
	bin := r.Binary
	if bin == "" {
		bin = "fio"
	}
	args := []string{bin, "--output-format=json+", "--output=" + r.Output}
	args = append(args, r.Args...)
	if len(r.Servers) == 0 {
		return append(args, r.Path)
	}
	for _, s := range r.Servers {
		args = append(args, "--client="+clientAddr(s), r.Path)
	}
	return args
}

// Run runs fio and reads its output. stderr receives what fio prints
// there as it runs. fio's own failure after it wrote results comes back
// with them, as runErr.
func (r UserRun) Run(ctx context.Context, stderr *bytes.Buffer) (out *Output, runErr, err error) {
	// What runs is what the gate judged.
	if data, err := os.ReadFile(r.Path); err != nil || !bytes.Equal(data, r.JobFile.Copy) {
		return nil, nil, fmt.Errorf("%w: %s no longer holds the copy of %s the gate judged: ptsrun runs nothing of it", ErrCannotJudge, r.Path, r.JobFile.Path)
	}
	argv := r.Command()
	var live *liveFeed
	if engine.WantsIntervals(ctx) {
		// fio's status lines, for progress: they change nothing of what
		// it runs, so the command line recorded goes without them.
		live = newLiveFeed(ctx, engine.Workload{})
		argv = append(append([]string{argv[0]}, liveArgs(engine.Workload{})...), argv[1:]...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if r.Confine != nil {
		// Stopped by the signals below, not by a context.
		cmd, _ = r.Confine.Command(context.Background(), argv[0], argv[1:]...)
	}
	cmd.Dir = r.Cwd
	cmd.Stderr = stderr
	if live != nil {
		cmd.Stdout = live
		live.begin(time.Now())
	}
	cmd.SysProcAttr = childAttr()
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNoFio, err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			// fio stops its jobs on SIGTERM; a second one is not waited for.
			signalGroup(cmd, syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				signalGroup(cmd, syscall.SIGKILL)
			}
		case <-done:
		}
	}()
	waitErr := cmd.Wait()
	if live != nil {
		live.close()
	}
	close(done)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	data, readErr := os.ReadFile(r.Output)
	if waitErr != nil && (readErr != nil || len(bytes.TrimSpace(data)) == 0) {
		return nil, nil, fmt.Errorf("fio failed (%v): %s", waitErr, tail(stderr.String()))
	}
	out, err = Parse(bytes.NewReader(data))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w (fio said: %s)", r.Output, err, tail(stderr.String()))
	}
	if waitErr != nil {
		runErr = fmt.Errorf("fio failed (%v): %s", waitErr, tail(stderr.String()))
	}
	return out, runErr, nil
}

// JobResult is one entry of fio's output and the threads it covers: one
// thread, or with group_reporting the threads of a reporting group
// (stat.c __show_run_stats: a thread joins the entry before it when it
// has group_reporting and is in the same group).
type JobResult struct {
	Job     Job
	Threads []int // indexes into the threads matched
	Group   int   // fio's groupid
}

// MatchJobs matches fio's output to the threads of the job file it ran,
// on each host of out (one, or each fio server): entry k of a host is the
// k-th run of threads fio reports as one.
func MatchJobs(out *Output, jf *UserJobFile, threads []Thread) ([]JobResult, error) {
	// The entries fio makes of the threads.
	var entries [][]int
	last, idx := -1, 0
	for i, th := range threads {
		j := jf.Jobs[th.Job]
		if _, ok := j.Get("stats"); ok && !j.Flag("stats") {
			continue // no statistics: not in the output
		}
		if idx > 0 && (!j.Flag("group_reporting") || last != j.Group) {
			idx = 0
		}
		if idx == 0 {
			entries = append(entries, nil)
		}
		entries[len(entries)-1] = append(entries[len(entries)-1], i)
		last = j.Group
		idx++
	}
	byHost := map[string][]Job{}
	var hosts []string
	for _, j := range out.Jobs {
		if j.Name == "" && j.Read.IOs+j.Write.IOs+j.Trim.IOs == 0 {
			// fio 3.33 prints an empty entry, groupid 2^32-1, for each
			// thread left of its output by stats=0 (stat.c leaves its
			// thread_stat unfilled): not a job.
			continue
		}
		h := fmt.Sprintf("%s:%d", j.Host, j.Port)
		if _, ok := byHost[h]; !ok {
			hosts = append(hosts, h)
		}
		byHost[h] = append(byHost[h], j)
	}
	var res []JobResult
	for _, h := range hosts {
		jobs := byHost[h]
		if len(jobs) != len(entries) {
			return nil, fmt.Errorf("fio's output of %s has %d jobs%s, the job file makes %d: ptsrun cannot tell which is which",
				jf.Path, len(jobs), onHost(jobs[0]), len(entries))
		}
		for k, e := range entries {
			first := jf.Jobs[threads[e[0]].Job]
			name := first.Name
			if o, ok := first.Get("name"); ok && o.HasValue {
				name = o.Value
			}
			if jobs[k].Name != name || jobs[k].GroupID != first.Group-jf.Jobs[0].Group {
				return nil, fmt.Errorf("fio's output of %s: job %d is %s in group %d%s, the job file's %s in group %d",
					jf.Path, k+1, jobs[k].Name, jobs[k].GroupID, onHost(jobs[k]), name, first.Group-jf.Jobs[0].Group)
			}
			res = append(res, JobResult{Job: jobs[k], Threads: e, Group: first.Group})
		}
	}
	return res, nil
}

// UserCPU is the CPU a job's threads took per second of elapsed, in
// CPUs (fio's usr_cpu and sys_cpu, jobCPU).
func UserCPU(j Job, elapsed time.Duration) engine.CPU { return jobCPU(j, 1, elapsed) }
