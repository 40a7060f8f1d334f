package fio

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The logs of a user's job file: those ptsrun adds (its per-second
// series) and those the jobs ask for themselves, named as fio names them.

// LogPrefix is the name ptsrun's log files start with, in their directory:
// ptsrun_iops.N.log for thread N.
const LogPrefix = "ptsrun"

// avgWindow is the averaging ptsrun asks of fio's logs, in ms.
const avgWindow = 1000

// AllLogArgs are every log option ptsrun may add to a job file's fio,
// logging into dir: LogArgs gives some of them, or none. fio checks them
// with the job file before the gate reads it.
func AllLogArgs(dir string) []string {
	p := filepath.Join(dir, LogPrefix)
	return []string{"--write_iops_log=" + p, "--write_bw_log=" + p, "--write_lat_log=" + p, "--write_hist_log=" + p,
		"--log_avg_msec=" + strconv.Itoa(avgWindow), "--log_hist_msec=" + strconv.Itoa(avgWindow)}
}

// LogArgs are the log options ptsrun adds to a job file's fio, logging
// into dir, and why it adds none (a job logs every I/O itself).
func (jf *UserJobFile) LogArgs(dir string) ([]string, string) {
	for _, j := range jf.Jobs {
		for _, kind := range []string{"write_iops_log", "write_bw_log", "write_lat_log"} {
			if o, ok := j.Get(kind); ok && msec(j, "log_avg_msec") == 0 {
				return nil, fmt.Sprintf("job %s logs every I/O itself (%s, no log_avg_msec): ptsrun's one-second logs would change that, "+
					"so it adds none and reads the jobs' own logs", j.Name, o)
			}
		}
	}
	all := AllLogArgs(dir)
	// The histogram log gives each second's percentiles and maximum; a
	// job's own log_hist_msec or write_hist_log overrides these, as its
	// other log options do.
	if need, known := jf.histLogNeed(); known && need > histLogBudget {
		return []string{all[0], all[1], all[2], all[4]},
			fmt.Sprintf("no per-second percentiles: ptsrun adds no histogram log (--write_hist_log), for which fio would keep "+
				"about %d MiB in memory until the jobs end, over ptsrun's %d MiB", need>>20, histLogBudget>>20)
	}
	return all, ""
}

// msec is fio's number of a job's option of milliseconds, 0 when not set.
func msec(j JobDef, name string) int {
	if o, ok := j.Get(name); ok && len(o.Nums) == 1 && o.Nums[0] < 1<<31 {
		return int(o.Nums[0])
	}
	return 0
}

// histLogNeed estimates the memory fio keeps for the histogram logs
// ptsrun would add to jf's jobs (histLogBudget, which HistLogFits applies
// to ptsrun's own jobs): over the jobs that write no histogram log of
// their own, numjobs × windows × directions × 14.8 KB, the windows those
// of the job's log_hist_msec (ptsrun's second unless it sets its own)
// over its ramp_time and runtime, the directions 2 for a mix of reads
// and writes. known is false when a job's time is not known: not time
// based and without a runtime (it ends with its I/O); ptsrun then adds
// the log as it always did.
func (jf *UserJobFile) histLogNeed() (need int64, known bool) {
	for _, j := range jf.Jobs {
		if _, own := j.Get("write_hist_log"); own {
			continue
		}
		if _, ok := j.Get("runtime"); !ok {
			return 0, false
		}
		run, ok := JobTime(j)
		if !ok {
			return 0, false
		}
		win := time.Duration(avgWindow) * time.Millisecond
		if _, ok := j.Get("log_hist_msec"); ok {
			ms := msec(j, "log_hist_msec")
			if ms <= 0 {
				continue // no histogram log of ours for it
			}
			win = time.Duration(ms) * time.Millisecond
		}
		threads, err := j.count("numjobs", 1)
		if err != nil {
			return 0, false
		}
		dirs := int64(1)
		if o, ok := j.Get("rw"); ok {
			rw, _, _ := strings.Cut(strings.TrimSpace(o.Value), ":")
			switch rw {
			case "read", "randread", "write", "randwrite", "trim", "randtrim":
			default: // rw, randrw, trimwrite, randtrimwrite, or not known: two
				dirs = 2
			}
		}
		need += int64((run+win-1)/win) * int64(threads) * dirs * histWindowBytes
	}
	return need, true
}

// JobTime is a job's ramp_time + runtime as fio reads them (in
// microseconds); false when one is not a time fio made a number of.
func JobTime(j JobDef) (time.Duration, bool) {
	var d time.Duration
	for _, name := range []string{"runtime", "ramp_time"} {
		if o, ok := j.Get(name); ok {
			if len(o.Nums) != 1 || o.Nums[0] > 1<<50 {
				return 0, false
			}
			d += time.Duration(o.Nums[0]) * time.Microsecond
		}
	}
	return d, true
}

// ThreadLogs are the log files fio writes for a thread, and their
// averaging window.
type ThreadLogs struct {
	IOPS, BW, Lat string
	Clat          string // the completion latency's log, beside Lat (write_lat_log writes both)
	AvgMs         int    // 0: one line per I/O
	// Hist is the completion-latency histogram log (fio 3.18 and later;
	// before, with lat_percentiles=1, of total latency), HistMs its
	// window: only one-second windows make the series' percentiles.
	Hist   string
	HistMs int
	// Readable is false when fio writes them compressed (log_compression
	// with log_store_compressed).
	Readable bool
}

// Logs are where thread th's logs are: ptsrun's in dir (when ptsrun added
// its options: own is false), or the job's own, as init.c add_job names
// them (<prefix>_<kind>.<thread>.log, the prefix the option's value or the
// job's name, in fio's working directory cwd).
func (jf *UserJobFile) Logs(th Thread, dir, cwd string, ours bool) ThreadLogs {
	j := jf.Jobs[th.Job]
	l := ThreadLogs{AvgMs: avgWindow, Readable: true}
	if _, ok := j.Get("log_avg_msec"); ok {
		l.AvgMs = msec(j, "log_avg_msec")
	} else if !ours {
		l.AvgMs = 0
	}
	// ptsrun's histogram log, when LogArgs added it.
	_, ownHist := j.Get("write_hist_log")
	oursHist := false
	if ours && !ownHist {
		need, known := jf.histLogNeed()
		oursHist = !known || need <= histLogBudget
	}
	if _, ok := j.Get("log_hist_msec"); ok {
		l.HistMs = msec(j, "log_hist_msec")
	} else if oursHist {
		l.HistMs = avgWindow
	}
	if j.Flag("log_store_compressed") {
		l.Readable = false
	}
	path := func(option, kind string) string {
		if _, ok := j.Get(option); !ok && !ours {
			return ""
		}
		return j.logName(th, option, kind, filepath.Join(dir, LogPrefix), cwd)
	}
	l.IOPS, l.BW, l.Lat = path("write_iops_log", "iops"), path("write_bw_log", "bw"), path("write_lat_log", "lat")
	l.Clat = path("write_lat_log", "clat")
	if l.HistMs > 0 && (ownHist || oursHist) {
		l.Hist = path("write_hist_log", "clat_hist")
	}
	return l
}

// logName is the log of kind that option of j names for thread th (init.c
// add_job, gen_log_name): <prefix>_<kind>.<thread>.log, the prefix the
// option's value, else the job's name (ours when the job does not set the
// option), .log.fz when stored compressed, without the thread's number
// with per_job_logs=0; placed in cwd.
func (j JobDef) logName(th Thread, option, kind, ours, cwd string) string {
	prefix := ours
	if _, ok := j.Get(option); ok {
		// fio keeps the file a value named when the option comes again
		// bare (options.c str_write_bw_log_cb and its siblings set the
		// file only from a value): the last value given, inherited or
		// earlier in the section, else the job's name.
		prefix = ""
		for _, o := range j.All(option) {
			if o.HasValue && o.Value != "" {
				prefix = o.Value
			}
		}
		if prefix == "" {
			prefix = j.Name
			if n, ok := j.Get("name"); ok && n.HasValue {
				prefix = n.Value
			}
		}
		prefix = Place(cwd, prefix)
	}
	suf := "log"
	if j.Flag("log_store_compressed") {
		suf = "log.fz"
	}
	if o, ok := j.Get("per_job_logs"); ok && len(o.Nums) == 1 && o.Nums[0] == 0 {
		return fmt.Sprintf("%s_%s.%s", prefix, kind, suf)
	}
	return fmt.Sprintf("%s_%s.%d.%s", prefix, kind, th.Number, suf)
}

// LogFiles are the files fio writes here for thread th besides its I/O,
// which its options ask for: its own logs (write_*_log; write_lat_log
// writes three) and, but through fio servers (remote: the server writes
// it), its I/O log (write_iolog), placed in cwd. ptsrun's logs are not
// among them.
func (jf *UserJobFile) LogFiles(th Thread, cwd string, remote bool) []FileRef {
	j := jf.Jobs[th.Job]
	var out []FileRef
	for _, l := range []struct{ option, kinds string }{
		{"write_iops_log", "iops"}, {"write_bw_log", "bw"}, {"write_lat_log", "lat slat clat"}, {"write_hist_log", "clat_hist"},
	} {
		if o, ok := j.Get(l.option); ok {
			for _, kind := range strings.Fields(l.kinds) {
				out = append(out, FileRef{Name: j.logName(th, l.option, kind, "", cwd), At: o.At})
			}
		}
	}
	if o, ok := j.Get("write_iolog"); ok && !remote {
		out = append(out, FileRef{Name: Place(cwd, o.Value), At: o.At})
	}
	return out
}
