package fio

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// How a cell's series comes out of fio's logs (fio 3.33, measured).
//
// Every thread logs, per direction, with log_avg_msec and log_hist_msec
// the series' interval:
//
//   - its iops and bw logs: the rate over each interval (I/Os or KiB per
//     second), sampled by fio's helper thread on the clock, stamped at the
//     interval's end give or take a few ms. They give the interval's
//     counts: rate × interval.
//   - its clat and lat logs (write_lat_log, with a slat log ptsrun does
//     not read): the mean completion and total latency of the I/Os
//     completed in each window, stamped at the window's end rounded down
//     to a multiple of the interval; a last line at the thread's end
//     holds the few I/Os in flight when it ended, stamped as the window
//     before: the first line of a window is kept. A direction's mean in
//     an interval is the clat log's, of the same latency as the
//     histogram's percentiles (engine.IntervalLat.Of); the interval's
//     mean of both directions (engine.Second.LatMeanNs) is the lat log's.
//   - its histogram log: the window's completion-latency histogram (fio
//     logs io_u_plat[FIO_CLAT] since 3.18; before, with the job's
//     lat_percentiles=1, the total latency's). A window closes at the
//     first completion after it elapses, so its stamp is late by up to
//     one I/O's time; it is taken as the interval its stamp is nearest the
//     end of (as are the iops log's), which is right unless a direction
//     completes fewer than about two I/Os per interval.
//
// fio logs neither counts nor histograms for the last interval when the
// run ends with it, so that interval is each target's totals (fio's
// output, json+ bins included) less what its threads logged; its
// histogram only when every thread's histogram log was read to its end.
// An interval where a thread with I/Os has no histogram (no log asked
// for, histLogBudget; a log missing or cut short) has its mean but no
// percentiles or maximum: the others' alone would not be the interval's.
// Per interval and direction, the percentiles and maximum are of the
// target's threads' histograms added up (and of all targets' for the
// whole), the mean the threads' means weighted by their I/Os.
//
// Through a fio server the same logs come back to the client (measured
// on localhost), the histogram log mangled by the server, which
// serverFix undoes.

// threadLogs is one thread's logs, per direction (0 read, 1 write) and
// interval; its histogram log is read later, straight into its target's
// sums (addHist).
type threadLogs struct {
	ios   [2]map[int]int64
	bytes [2]map[int]int64
	lat   [2]map[int]float64 // mean total latency (lat log), ns
	clat  [2]map[int]float64 // mean completion latency (clat log), ns
	last  int                // the highest interval of its iops log, -1 without
	hist  []string           // its histogram log(s)
}

func newThreadLogs() *threadLogs {
	t := &threadLogs{last: -1}
	for d := range 2 {
		t.ios[d], t.bytes[d], t.lat[d], t.clat[d] = map[int]int64{}, map[int]int64{}, map[int]float64{}, map[int]float64{}
	}
	return t
}

// logFileRE matches the logs of one job file's prefix: <prefix>_<kind>.<thread>.log,
// and ".<host>" after it for the logs a fio server returned.
func logFileRE(prefix string) *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + `_(iops|bw|lat|clat|clat_hist)\.(\d+)\.log(?:\..+)?$`)
}

// intervalOf is the interval a log line stamped ms belongs to: the one
// whose end the stamp is nearest.
func intervalOf(ms, iv int64) int {
	return max(int((ms+iv/2)/iv)-1, 0)
}

// readThreadLogs reads the logs in dir named after prefix, by thread
// number, but for the histogram logs, whose paths it notes.
func readThreadLogs(dir, prefix string, iv int64) map[int]*threadLogs {
	re := logFileRE(prefix)
	ents, _ := os.ReadDir(dir)
	out := map[int]*threadLogs{}
	for _, de := range ents {
		m := re.FindStringSubmatch(de.Name())
		if m == nil {
			continue
		}
		num, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		t := out[num]
		if t == nil {
			t = newThreadLogs()
			out[num] = t
		}
		path := filepath.Join(dir, de.Name())
		if m[1] == "clat_hist" {
			t.hist = append(t.hist, path)
			continue
		}
		es, err := readLog(path)
		if err != nil {
			continue
		}
		seen := [2]map[int]bool{{}, {}}
		for _, e := range es {
			if e.dir < 0 || e.dir > 1 {
				continue
			}
			i := intervalOf(e.ms, iv)
			switch m[1] {
			case "iops":
				t.ios[e.dir][i] += int64(math.Round(e.val * float64(iv) / 1000))
				t.last = max(t.last, i)
			case "bw":
				t.bytes[e.dir][i] += int64(math.Round(e.val * 1024 * float64(iv) / 1000)) // KiB/s
			case "lat", "clat":
				if !seen[e.dir][i] { // a later line is the end's in-flight I/Os
					seen[e.dir][i] = true
					if m[1] == "lat" {
						t.lat[e.dir][i] = e.val
					} else {
						t.clat[e.dir][i] = e.val
					}
				}
			}
		}
	}
	return out
}

// addHist adds a thread's histogram log(s) into its target's series s
// of n intervals as it reads them, a window into the interval it is
// stamped in (the last for any beyond), and into logged those before
// the last interval. A log a fio server returned (server) is fixed as
// serverFix says. It reports, per direction, the intervals where the log
// had I/Os, and whether it read the whole of a log: one that is missing
// or has a line that is not fio's (a log cut short) is not, and only the
// lines before that line count.
func addHist(paths []string, server bool, s targetSeries, logged *[2][]int64, iv int64) (has [2][]bool, complete bool) {
	n := len(s)
	for d := range has {
		has[d] = make([]bool, n)
	}
	if n == 0 {
		return has, len(paths) > 0
	}
	complete = len(paths) > 0
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			complete = false
			continue
		}
		var fix serverFix
		err = scanHistLog(f, func(e histEntry) {
			if e.Dir > 1 {
				return
			}
			if server {
				fix.fix(e.Dir, e.Bins)
			}
			if binsCount(e.Bins) == 0 {
				return // nothing to add, nor to keep a histogram for
			}
			i := min(intervalOf(e.MS, iv), n-1)
			has[e.Dir][i] = true
			s[i][e.Dir].bins = addBins(s[i][e.Dir].bins, e.Bins)
			if i < n-1 {
				logged[e.Dir] = addBins(logged[e.Dir], e.Bins)
			}
		})
		f.Close()
		if err != nil {
			complete = false
		}
	}
	return has, complete
}

// addBins adds b into a, growing it.
func addBins(a, b []int64) []int64 {
	if len(a) < len(b) {
		a = append(a, make([]int64, len(b)-len(a))...)
	}
	for i, v := range b {
		a[i] += v
	}
	return a
}

// dirInterval is one direction of one interval of a target or the whole:
// I/Os and bytes, the latency sums for the means, the histogram.
type dirInterval struct {
	ios, bytes int64
	latSum     float64 // Σ thread mean total latency × its weight
	latW       float64
	clatSum    float64 // the same of completion latency
	clatW      float64
	bins       []int64
	maxNs      int64 // the histogram's latency is at most this (fio's total maximum); 0 for no bound
	// noHist: a thread with I/Os in the interval has no histogram of it
	// (fio was not asked for one, or its log is missing or cut short):
	// the histogram is some threads' only, so it gives no percentiles.
	noHist bool
}

type targetSeries [][2]dirInterval

// targetOf groups a host's threads by target: fio numbers threads in the
// order of the job file's sections, tc per target, so the k-th lowest
// number of a log prefix is thread k mod tc of the host's target k / tc.
func targetOf(nums []int, tc int) map[int]int {
	sort.Ints(nums)
	out := map[int]int{}
	for k, n := range nums {
		out[n] = k / max(tc, 1)
	}
	return out
}

// histKind is the latency fio's histogram log holds for ptsrun's jobs
// (lat_percentiles=1, clat_percentiles not set): completion latency from
// fio 3.18 (io_u_plat[FIO_CLAT]); before, lat_percentiles=1 switched
// clat_percentiles off and the one histogram held total latency.
func (e *Engine) histKind() string {
	if e.version.Major == 0 || e.version.AtLeast(3, 18) {
		return engine.LatCompletion
	}
	return engine.LatTotal
}

// finalBins are fio's json+ bins of a job's direction, of the latency the
// histogram log holds, indexed as the log's; and that latency's maximum.
func finalBins(d Dir, kind string, nr int) ([]int64, int64) {
	l := d.Clat
	if kind == engine.LatTotal {
		l = d.Lat
	}
	b := make([]int64, nr)
	for v, n := range l.Bins {
		b[platValToIdx(v, nr)] += n
	}
	return b, int64(l.Max)
}

// partSeries builds the series of one group of a cell's jobs (its ramp's
// or its measured jobs') from the logs in dir whose names start with
// prefix (then h<host>t): the whole's and each target's, of the same
// length. jobs are fio's results of the group, by target (group
// reporting: one per target). want is how many intervals the group runs
// for, 0 when that depends on its I/O (passes).
//
// Its memory is the targets' histograms per interval and direction (no
// more than fio's own, histLogBudget) and one log line at a time: each
// thread's histogram log is added into its target's as it is read.
func (e *Engine) partSeries(dir, prefix string, jobs []Job, w engine.Workload, want int) ([]engine.Second, [][]engine.Second) {
	iv := w.SeriesInterval().Milliseconds()
	nt := len(e.targets)
	type member struct {
		t      *threadLogs
		server bool // its logs came back from a fio server
	}
	threads := make([][]member, nt)
	logged := 0 // intervals the iops logs reach
	for hi, h := range e.hosts {
		logs := readThreadLogs(dir, fmt.Sprintf("%sh%dt", prefix, hi), iv)
		nums := make([]int, 0, len(logs))
		for n := range logs {
			nums = append(nums, n)
		}
		local := targetOf(nums, w.TC)
		var idx []int // the host's targets, by their index on the host
		for ti, t := range e.targets {
			if t.Server == h {
				idx = append(idx, ti)
			}
		}
		for _, n := range nums { // in order: the histograms add up alike every time
			if k := local[n]; k < len(idx) {
				t := logs[n]
				threads[idx[k]] = append(threads[idx[k]], member{t, h != ""})
				logged = max(logged, t.last+1)
			}
		}
	}
	n := logged
	if want == 0 || logged < want { // fio did not log the last interval
		n++
	}
	kind := e.histKind()
	per := make([]targetSeries, nt)
	for ti := range per {
		per[ti] = make(targetSeries, n)
		s := per[ti]
		var sum [2][]int64 // the histograms logged before the last interval
		complete := true   // every thread's histogram log read to its end
		for _, m := range threads[ti] {
			t := m.t
			has, whole := addHist(t.hist, m.server, s, &sum, iv)
			complete = complete && whole
			for d := range 2 {
				for i, v := range t.ios[d] {
					if i < logged {
						s[i][d].ios += v
					}
					// The last interval is the totals less the others,
					// whatever the threads logged of it: only an
					// incomplete log leaves its histogram unknown.
					if i < n-1 && v > 0 && !has[d][i] {
						s[i][d].noHist = true
					}
				}
				for i, v := range t.bytes[d] {
					if i < logged {
						s[i][d].bytes += v
					}
				}
				// Weighted by the thread's I/Os of the interval where its
				// iops log has them; in the last, unlogged one the
				// threads of a target count alike. A line after the last
				// interval is the in-flight I/Os at the end: left out.
				weight := func(i int) float64 {
					if wt := float64(t.ios[d][i]); i < logged && wt > 0 {
						return wt
					}
					return 1
				}
				for i, v := range t.lat[d] {
					if i < n {
						s[i][d].latSum += v * weight(i)
						s[i][d].latW += weight(i)
					}
				}
				for i, v := range t.clat[d] {
					if i < n {
						s[i][d].clatSum += v * weight(i)
						s[i][d].clatW += weight(i)
					}
				}
			}
		}
		j := jobs[ti]
		for d, jd := range []Dir{j.Read, j.Write} {
			nr := len(sum[d])
			for i := range s {
				nr = max(nr, len(s[i][d].bins))
			}
			if nr == 0 {
				nr = platVal * 29
			}
			final, maxNs := finalBins(jd, kind, nr)
			for i := range s {
				s[i][d].maxNs = maxNs
			}
			if n == 0 {
				continue
			}
			// The last interval is the target's totals less the others:
			// the threads that did not log it, and the I/Os in flight
			// when the run ended, are in it.
			last := &s[n-1][d]
			last.ios, last.bytes = jd.IOs, jd.Bytes
			for i := range s[:n-1] {
				last.ios -= s[i][d].ios
				last.bytes -= s[i][d].bytes
			}
			last.ios, last.bytes = max(last.ios, 0), max(last.bytes, 0)
			switch {
			case !complete:
				// A thread's histograms of it are in neither its log nor
				// the others': the totals less them would be too many.
				last.noHist = true
			case len(jd.Clat.Bins) > 0 || len(jd.Lat.Bins) > 0:
				for k, v := range sum[d] {
					final[k] -= v
				}
				for k := range final {
					final[k] = max(final[k], 0)
				}
				last.bins = final
			}
		}
	}
	whole := make(targetSeries, n) // all but the histograms: seconds adds them up
	for _, s := range per {
		for i := range s {
			for d := range 2 {
				a, b := &whole[i][d], s[i][d]
				a.ios += b.ios
				a.bytes += b.bytes
				a.maxNs = max(a.maxNs, b.maxNs)
				a.noHist = a.noHist || (b.noHist && b.ios > 0)
				// Targets weigh by their I/Os.
				if b.latW > 0 && b.ios > 0 {
					a.latSum += b.latSum / b.latW * float64(b.ios)
					a.latW += float64(b.ios)
				}
				if b.clatW > 0 && b.ios > 0 {
					a.clatSum += b.clatSum / b.clatW * float64(b.ios)
					a.clatW += float64(b.ios)
				}
			}
		}
	}
	if want == 0 && n > 0 && whole[n-1][0].ios+whole[n-1][1].ios == 0 {
		// A run of passes whose logs hold all of it.
		whole = whole[:n-1]
		for ti := range per {
			per[ti] = per[ti][:n-1]
		}
	}
	out := make([][]engine.Second, nt)
	for ti, s := range per {
		out[ti] = s.seconds(kind, nil)
	}
	return whole.seconds(kind, per), out
}

// seconds summarises a target's or the whole's intervals; the whole's
// histograms are those of its targets' series parts, added up one
// interval at a time.
func (s targetSeries) seconds(kind string, parts []targetSeries) []engine.Second {
	out := make([]engine.Second, len(s))
	var scratch [2][]int64
	for i, x := range s {
		if parts != nil {
			for d := range 2 {
				clear(scratch[d])
				for _, p := range parts {
					scratch[d] = addBins(scratch[d], p[i][d].bins)
				}
				x[d].bins = scratch[d]
			}
		}
		sec := &out[i]
		sec.ReadIOs, sec.ReadBytes = x[0].ios, x[0].bytes
		sec.WriteIOs, sec.WriteBytes = x[1].ios, x[1].bytes
		sec.Read, sec.Write = x[0].lat(kind), x[1].lat(kind)
		// Total latency, both directions, weighted by their I/Os.
		var sum, n float64
		for d := range 2 {
			if x[d].latW > 0 && x[d].ios > 0 {
				sum += x[d].latSum / x[d].latW * float64(x[d].ios)
				n += float64(x[d].ios)
			}
		}
		if n > 0 {
			sec.LatMeanNs = sum / n
		}
	}
	return out
}

// lat is the direction's latency over the interval, all of the latency
// fio's histogram log holds (kind): the mean from the clat log (the lat
// log's with fio before 3.18, whose histogram is of total latency), the
// percentiles and maximum from the histograms. It is nil without I/O or
// without a mean (a direction of less than about one I/O per interval,
// whose window fell into the next). Without every thread's histogram of
// the interval (noHist, or none logged) it has the mean only, the
// percentiles and maximum 0: unknown. The maximum is that of the highest
// non-empty bin (within 1/128 of the true one), never above fio's maximum
// of the whole run; the percentiles never above it.
func (d dirInterval) lat(kind string) *engine.IntervalLat {
	sum, w := d.clatSum, d.clatW
	if kind == engine.LatTotal {
		sum, w = d.latSum, d.latW
	}
	if d.ios <= 0 || w <= 0 {
		return nil
	}
	l := &engine.IntervalLat{MeanNs: sum / w, Of: kind}
	if kind == engine.LatTotal {
		l.Of = ""
	}
	if d.noHist || binsCount(d.bins) == 0 {
		return l
	}
	l.MaxNs = binsMax(d.bins)
	if d.maxNs > 0 {
		l.MaxNs = min(l.MaxNs, d.maxNs)
	}
	l.P99Ns = min(binsPercentile(d.bins, 99), l.MaxNs)
	l.P999Ns = min(binsPercentile(d.bins, 99.9), l.MaxNs)
	return l
}

// cellSeries is a cell's series from the logs in dir whose names start
// with prefix ("" for a cell's own fio, c<k> in a round's): the ramp's
// intervals, marked, then the others'; and each target's. jobs are the
// cell's jobs of fio's output, the ramp's included.
func (e *Engine) cellSeries(dir, prefix string, jobs []Job, w engine.Workload) ([]engine.Second, [][]engine.Second) {
	iv := w.SeriesInterval()
	byTarget := func(p string) []Job {
		out := make([]Job, len(e.targets))
		for _, j := range jobs {
			if ti := e.targetIndex(j, p); ti >= 0 {
				out[ti] = j
			}
		}
		return out
	}
	want := 0
	if w.Duration > 0 && w.Passes <= 0 {
		want = int((w.Measured() + iv - 1) / iv)
	}
	whole, per := e.partSeries(dir, prefix, byTarget("t"), w, want)
	if w.Ramp <= 0 {
		return whole, per
	}
	rw, rp := e.partSeries(dir, "ramp."+prefix, byTarget("r"), w, w.RampSeconds())
	mark := func(s []engine.Second) []engine.Second {
		for i := range s {
			s[i].Ramp = true
		}
		return s
	}
	whole = append(mark(rw), whole...)
	for ti := range per {
		per[ti] = append(mark(rp[ti]), per[ti]...)
	}
	return whole, per
}

// setSeries sets m's series, and its targets' when it has several.
func (e *Engine) setSeries(m *engine.Measurement, dir, prefix string, jobs []Job, w engine.Workload) {
	whole, per := e.cellSeries(dir, prefix, jobs, w)
	m.Seconds = whole
	if len(m.Targets) == len(per) && len(per) > 1 {
		for ti := range per {
			m.Targets[ti].Seconds = per[ti]
		}
	}
}
