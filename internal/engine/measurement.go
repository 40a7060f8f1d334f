package engine

import (
	"context"
	"math"
	"time"
)

// What a direction's latency percentiles are of (DirStats.PctLat).
const (
	// LatTotal is submission to completion, the host's round trip: the PTS
	// response time. ptsrun's engines measure it; fio calls it "lat".
	LatTotal = "lat"
	// LatCompletion is fio's "clat": from the end of submission to
	// completion, without the submission time. fio prints percentiles of it
	// by default, of total latency only with lat_percentiles=1.
	LatCompletion = "clat"
	// LatMixed marks parts of different latencies merged: their percentiles
	// are no one latency's, so there are none.
	LatMixed = "mixed"
)

// PrintedPct is one percentile as another tool printed it, without the
// histogram behind it (fio's JSON without json+ bins).
type PrintedPct struct {
	P  float64 `json:"p"` // percent: 99.999
	Ns float64 `json:"ns"`
}

// DirStats is what one direction (read or write) did during a measurement.
// Counts and sums are exact; the histogram carries the distribution.
type DirStats struct {
	IOs      int64      `json:"ios"`
	Bytes    int64      `json:"bytes"`
	LatSumNs float64    `json:"lat_sum_ns"` // Σ latency, for the exact mean
	LatMinNs int64      `json:"lat_min_ns"`
	LatMaxNs int64      `json:"lat_max_ns"`
	Hist     *Histogram `json:"lat_hist,omitempty"`
	// PctLat is the latency the percentiles (of Hist, or Printed) are of:
	// LatTotal when empty.
	PctLat string `json:"pct_lat,omitempty"`
	// Printed are the percentiles fio printed, for a direction without a
	// histogram. Percentiles do not merge: a merge keeps those both sides
	// printed, at the larger value, which bounds the merged I/Os' percentile
	// from above (each part has at least p % of its I/Os at or under it),
	// and sets PrintedBound. Only interpolation could add the others.
	Printed      []PrintedPct `json:"printed_pct,omitempty"`
	PrintedBound bool         `json:"printed_bound,omitempty"`
}

// Record adds n I/Os of size bytes each with latency ns.
func (d *DirStats) Record(ns, n, bytes int64) {
	if n <= 0 {
		return
	}
	if d.Hist == nil {
		d.Hist = NewHistogram()
	}
	if d.IOs == 0 || ns < d.LatMinNs {
		d.LatMinNs = ns
	}
	d.LatMaxNs = max(d.LatMaxNs, ns)
	d.IOs += n
	d.Bytes += n * bytes
	d.LatSumNs += float64(ns) * float64(n)
	d.Hist.RecordN(ns, n)
}

// Merge adds o into d (another thread, target, host or round).
func (d *DirStats) Merge(o DirStats) {
	if o.IOs == 0 {
		return
	}
	d.mergePct(o)
	if d.IOs == 0 || o.LatMinNs < d.LatMinNs {
		d.LatMinNs = o.LatMinNs
	}
	d.LatMaxNs = max(d.LatMaxNs, o.LatMaxNs)
	d.IOs += o.IOs
	d.Bytes += o.Bytes
	d.LatSumNs += o.LatSumNs
	if o.Hist != nil {
		if d.Hist == nil {
			d.Hist = NewHistogram()
		}
		d.Hist.Merge(o.Hist)
	}
}

// mergePct merges the percentiles' kind and the printed percentiles of o
// into d, before the counts are added.
func (d *DirStats) mergePct(o DirStats) {
	if d.IOs == 0 {
		d.PctLat, d.Printed, d.PrintedBound = o.PctLat, append([]PrintedPct(nil), o.Printed...), o.PrintedBound
		return
	}
	if d.PctLat != o.PctLat {
		d.PctLat, d.Printed, d.PrintedBound = LatMixed, nil, false
		return
	}
	var both []PrintedPct
	for _, a := range d.Printed {
		for _, b := range o.Printed {
			if samePct(a.P, b.P) {
				both = append(both, PrintedPct{P: a.P, Ns: max(a.Ns, b.Ns)})
			}
		}
	}
	d.Printed, d.PrintedBound = both, len(both) > 0
}

// samePct compares percentiles parsed from fio's "99.999000" keys.
func samePct(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// PrintedNs is the printed percentile p, if it was printed.
func (d DirStats) PrintedNs(p float64) (float64, bool) {
	for _, x := range d.Printed {
		if samePct(x.P, p) {
			return x.Ns, true
		}
	}
	return 0, false
}

// IOPS over elapsed.
func (d DirStats) IOPS(elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(d.IOs) / elapsed.Seconds()
}

// MBps is decimal megabytes per second (PTS §2.4.1).
func (d DirStats) MBps(elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(d.Bytes) / 1e6 / elapsed.Seconds()
}

// MeanLatNs is the exact mean latency.
func (d DirStats) MeanLatNs() float64 {
	if d.IOs == 0 {
		return 0
	}
	return d.LatSumNs / float64(d.IOs)
}

// PercentileNs is the latency at percentile p from the histogram, never above
// the true maximum.
func (d DirStats) PercentileNs(p float64) int64 {
	if d.IOs == 0 || d.Hist == nil {
		return 0
	}
	return min(percentileOrZero(d.Hist, p), d.LatMaxNs)
}

// Second is one interval of a measurement's series: a second unless the
// workload's Interval says otherwise (Workload.SeriesInterval).
type Second struct {
	ReadIOs    int64 `json:"r_ios"`
	WriteIOs   int64 `json:"w_ios"`
	ReadBytes  int64 `json:"r_bytes"`
	WriteBytes int64 `json:"w_bytes"`
	// LatMeanNs is the mean latency of the I/Os completed in this interval.
	LatMeanNs float64 `json:"lat_mean_ns"`
	// Read and Write are each direction's latency in this interval: nil
	// for a direction without I/O, or when the engine could not tell.
	Read  *IntervalLat `json:"r_lat,omitempty"`
	Write *IntervalLat `json:"w_lat,omitempty"`
	// Ramp marks an interval of the workload's warm-up (Workload.Ramp): its
	// I/Os are in the series but not in the measurement's totals. The
	// series' first Workload.RampSeconds() intervals are the ramp's.
	Ramp bool `json:"ramp,omitempty"`
}

// IntervalLat is one direction's latency over one interval of a series,
// in nanoseconds. Percentiles do not merge, so an engine summarises an
// interval once it has every thread's and target's histogram of it.
type IntervalLat struct {
	MeanNs float64 `json:"mean_ns"`
	P99Ns  int64   `json:"p99_ns"`
	P999Ns int64   `json:"p99_9_ns"`
	MaxNs  int64   `json:"max_ns"`
	// Of is the latency all four are of: LatTotal when empty;
	// LatCompletion for fio's logs, whose histograms are of completion
	// latency (the mean then comes from its clat log). P99Ns, P999Ns and
	// MaxNs are 0 when the engine had the mean only (a fio thread's
	// histogram log missing for the interval). Second.LatMeanNs stays the
	// total latency.
	Of string `json:"of,omitempty"`
}

// IntervalOf summarises d as one interval's latency: nil without I/O.
func IntervalOf(d DirStats) *IntervalLat {
	if d.IOs == 0 {
		return nil
	}
	return &IntervalLat{MeanNs: d.MeanLatNs(), P99Ns: d.PercentileNs(99), P999Ns: d.PercentileNs(99.9), MaxNs: d.LatMaxNs}
}

// IntervalStats gathers one interval of a series as it is measured:
// each direction's counts and latency distribution, from any number of
// threads and targets, until Second summarises it.
type IntervalStats struct {
	Read, Write DirStats
}

// Record adds n I/Os of one direction.
func (a *IntervalStats) Record(read bool, ns, n, bytes int64) {
	if read {
		a.Read.Record(ns, n, bytes)
	} else {
		a.Write.Record(ns, n, bytes)
	}
}

// Merge adds o (another thread's or target's share of the interval).
func (a *IntervalStats) Merge(o *IntervalStats) {
	a.Read.Merge(o.Read)
	a.Write.Merge(o.Write)
}

// Empty says nothing was recorded.
func (a *IntervalStats) Empty() bool { return a.Read.IOs == 0 && a.Write.IOs == 0 }

// Reset empties a for the next interval, keeping its histograms' memory.
func (a *IntervalStats) Reset() {
	rh, wh := a.Read.Hist, a.Write.Hist
	*a = IntervalStats{}
	if rh != nil {
		rh.Reset()
		a.Read.Hist = rh
	}
	if wh != nil {
		wh.Reset()
		a.Write.Hist = wh
	}
}

// Second summarises the interval.
func (a *IntervalStats) Second(ramp bool) Second {
	s := Second{ReadIOs: a.Read.IOs, WriteIOs: a.Write.IOs, ReadBytes: a.Read.Bytes, WriteBytes: a.Write.Bytes,
		Read: IntervalOf(a.Read), Write: IntervalOf(a.Write), Ramp: ramp}
	if n := a.Read.IOs + a.Write.IOs; n > 0 {
		s.LatMeanNs = (a.Read.LatSumNs + a.Write.LatSumNs) / float64(n)
	}
	return s
}

// MergeCounts adds o's counts and bytes to s, weighting the mean latency
// by I/Os; the per-direction latencies, which do not merge, are left for
// the caller to set from the merged histograms.
func (s *Second) MergeCounts(o Second) {
	n0, n1 := float64(s.ReadIOs+s.WriteIOs), float64(o.ReadIOs+o.WriteIOs)
	if n0+n1 > 0 {
		s.LatMeanNs = (s.LatMeanNs*n0 + o.LatMeanNs*n1) / (n0 + n1)
	}
	s.ReadIOs += o.ReadIOs
	s.WriteIOs += o.WriteIOs
	s.ReadBytes += o.ReadBytes
	s.WriteBytes += o.WriteBytes
	s.Ramp = s.Ramp || o.Ramp
}

// IntervalFunc receives each interval of a running measurement as soon
// as the engine has all of it (for progress): its index from 0, and the
// interval merged over threads and targets.
type IntervalFunc func(i int, s Second)

type intervalKey struct{}

// WithIntervalFunc asks the engines running under ctx to report each
// interval to f as it completes. f must return quickly; engines call it
// from their measuring goroutines.
func WithIntervalFunc(ctx context.Context, f IntervalFunc) context.Context {
	return context.WithValue(ctx, intervalKey{}, f)
}

// WantsIntervals says whether ctx has an IntervalFunc: an engine that must
// do something of its own to report intervals live does it only then.
func WantsIntervals(ctx context.Context) bool {
	f, ok := ctx.Value(intervalKey{}).(IntervalFunc)
	return ok && f != nil
}

// ReportInterval passes interval i to ctx's IntervalFunc, if there is one.
func ReportInterval(ctx context.Context, i int, s Second) {
	if f, ok := ctx.Value(intervalKey{}).(IntervalFunc); ok && f != nil {
		f(i, s)
	}
}

// CPU is the CPU time a measurement took, per second of it, in user and
// system mode, as a fraction of what Of names.
type CPU struct {
	User float64 `json:"user"`
	Sys  float64 `json:"sys"`
	Of   string  `json:"of,omitempty"` // CPUOfHost or CPUOfOne
}

// What a CPU fraction is a fraction of.
const (
	// CPUOfHost: of all CPUs of this host (the engine's own process time,
	// from getrusage), so 1 is every CPU busy.
	CPUOfHost = ""
	// CPUOfOne: of one CPU, so 1.5 is one and a half CPUs busy. fio's
	// usr_cpu and sys_cpu of the job threads, which is all a fio server
	// returns: fio does not report its host's CPU count.
	CPUOfOne = "one_cpu"
)

// Zero says nothing was recorded.
func (c CPU) Zero() bool { return c.User == 0 && c.Sys == 0 }

// Unit names what 100 % of the fractions is, for labels.
func (c CPU) Unit() string {
	if c.Of == CPUOfOne {
		return "% of one CPU"
	}
	return "% of all host CPUs"
}

// Add sums c and o, which must be fractions of the same thing.
func (c CPU) Add(o CPU) CPU {
	return CPU{User: c.User + o.User, Sys: c.Sys + o.Sys, Of: c.Of}
}

// TargetStats is the share of one target in a multi-target measurement.
type TargetStats struct {
	Target string   `json:"target"`
	Host   string   `json:"host,omitempty"`
	Read   DirStats `json:"read"`
	Write  DirStats `json:"write"`
	// CPU is what the threads driving this target took (fio's usr_cpu
	// and sys_cpu of its jobs); nil when the engine cannot tell.
	CPU *CPU `json:"cpu,omitempty"`
	// Seconds is this target's share of the measurement's series.
	Seconds Series `json:"seconds,omitempty"`
}

// Measurement is the result of one Run.
type Measurement struct {
	Engine  string        `json:"engine"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Read    DirStats      `json:"read"`
	Write   DirStats      `json:"write"`
	Seconds Series        `json:"seconds,omitempty"`
	CPU     CPU           `json:"cpu"`
	Targets []TargetStats `json:"targets,omitempty"`
	// DeviceTime is the target's own clock when it has one (the simulated
	// drive's virtual clock at the end of the run, since its last power-on).
	DeviceTime time.Duration `json:"device_time_ns,omitempty"`
	// MaxDepth is the most I/Os one thread had in flight at once: the
	// queue depth the engine actually reached, counted by the engine (fio:
	// the lower bound of the highest of its iodepth_level buckets, 1, 2, 4
	// … 64). 0 when unknown.
	MaxDepth int `json:"max_depth,omitempty"`
	// Resubmitted counts the I/Os that the kernel's I/O machinery gave
	// back unstarted (io_uring's -ECANCELED, -EAGAIN, -EINTR) and that the
	// engine submitted again; each is counted once, its response time from
	// its first submission. 0 almost always.
	Resubmitted int64 `json:"resubmitted,omitempty"`
	// Relaunched counts the times the cell was run again, from its start,
	// because the engine's own process crashed (fio ended by a fault
	// signal nobody sent it); the measurement is the last run's.
	Relaunched int    `json:"relaunched,omitempty"`
	Error      string `json:"error,omitempty"`
	// Trace holds the first I/Os of each thread when an engine was asked to
	// trace them (the conformance suite does); normally empty.
	Trace []TraceIO `json:"trace,omitempty"`
}

// TraceIO is one traced I/O.
type TraceIO struct {
	Target int   `json:"target"`
	Thread int   `json:"thread"`
	Offset int64 `json:"off"`
	Size   int64 `json:"size"`
	Read   bool  `json:"read"`
}

// Total merges both directions.
func (m Measurement) Total() DirStats {
	var t DirStats
	t.Merge(m.Read)
	t.Merge(m.Write)
	return t
}

// Counts is Total without the histogram: rates, means and extremes, which
// do not need the bins (merging bins is most of the cost of reading a
// long journal).
func (m Measurement) Counts() DirStats {
	r, w := m.Read, m.Write
	r.Hist, w.Hist = nil, nil
	var t DirStats
	t.Merge(r)
	t.Merge(w)
	return t
}

// IOPS is read IOPS + write IOPS (PTS: mixed-cell IOPS is the sum).
func (m Measurement) IOPS() float64 { return m.Counts().IOPS(m.Elapsed) }

// MBps is total decimal MB/s.
func (m Measurement) MBps() float64 { return m.Counts().MBps(m.Elapsed) }
