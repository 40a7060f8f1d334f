package matrix

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Interval is one entry of a workload's time series, in the units people
// read: the whole set of targets, each direction, and each target's share.
// results.json carries it for workloads (custom cells), and seconds.csv
// is written from it.
type Interval struct {
	StartS  float64          `json:"start_s"` // from the start of the workload, its ramp included
	Seconds float64          `json:"seconds"` // how long it lasted: the interval, or less for the last
	Ramp    bool             `json:"ramp,omitempty"`
	Read    *IntervalDir     `json:"read,omitempty"`
	Write   *IntervalDir     `json:"write,omitempty"`
	Targets []TargetInterval `json:"targets,omitempty"`
}

// IntervalDir is one direction over one interval. The latencies are nil
// where the engine could not measure them (never 0: a latency is above 0).
type IntervalDir struct {
	IOs    int64    `json:"ios"`
	IOPS   float64  `json:"iops"`
	MBps   float64  `json:"mbps"`
	MeanMs *float64 `json:"lat_mean_ms,omitempty"`
	P99Ms  *float64 `json:"lat_p99_ms,omitempty"`
	P999Ms *float64 `json:"lat_p99_9_ms,omitempty"`
	MaxMs  *float64 `json:"lat_max_ms,omitempty"`
	// Of is the latency the percentiles and maximum are of:
	// engine.LatCompletion for fio's histogram logs, else total latency.
	Of string `json:"lat_of,omitempty"`
}

// TargetInterval is one target's share of an interval.
type TargetInterval struct {
	Target string       `json:"target"`
	Read   *IntervalDir `json:"read,omitempty"`
	Write  *IntervalDir `json:"write,omitempty"`
}

// SeriesOf is m's series as Intervals of w's interval length. The last
// interval runs to the end of the workload's duration, and takes the I/Os
// an engine counted after it: those in flight at the end, which complete
// after it.
func SeriesOf(w engine.Workload, m *engine.Measurement) []Interval {
	if m == nil || len(m.Seconds) == 0 {
		return nil
	}
	iv := w.SeriesInterval()
	secs := m.Seconds
	if n := int((w.Duration + iv - 1) / iv); w.Duration > 0 && w.Passes <= 0 && n >= 1 && len(secs) > n {
		secs = append([]engine.Second(nil), secs[:n]...)
		for _, s := range m.Seconds[n:] {
			foldInto(&secs[n-1], s)
		}
	}
	out := make([]Interval, len(secs))
	for i, s := range secs {
		start := time.Duration(i) * iv
		length := iv
		if w.Duration > 0 && start+iv > w.Duration && w.Duration > start {
			length = w.Duration - start
		}
		sec := length.Seconds()
		out[i] = Interval{StartS: start.Seconds(), Seconds: sec, Ramp: s.Ramp,
			Read: dirOf(s.ReadIOs, s.ReadBytes, s.Read, sec), Write: dirOf(s.WriteIOs, s.WriteBytes, s.Write, sec)}
		if s.Read == nil && s.Write == nil && s.LatMeanNs > 0 && (s.ReadIOs == 0) != (s.WriteIOs == 0) {
			// An engine with only the interval's mean of both directions
			// (a journal from before per-direction latency): it is the
			// one direction's when only one did I/O.
			mean := s.LatMeanNs / 1e6
			if out[i].Read != nil {
				out[i].Read.MeanMs = &mean
			} else {
				out[i].Write.MeanMs = &mean
			}
		}
		for _, t := range m.Targets {
			if i < len(t.Seconds) {
				ts := t.Seconds[i]
				if i == len(secs)-1 {
					for _, after := range t.Seconds[min(len(secs), len(t.Seconds)):] {
						foldInto(&ts, after)
					}
				}
				out[i].Targets = append(out[i].Targets, TargetInterval{Target: t.Target,
					Read: dirOf(ts.ReadIOs, ts.ReadBytes, ts.Read, sec), Write: dirOf(ts.WriteIOs, ts.WriteBytes, ts.Write, sec)})
			}
		}
	}
	return out
}

func dirOf(ios, bytes int64, lat *engine.IntervalLat, sec float64) *IntervalDir {
	if ios == 0 || sec <= 0 {
		return nil
	}
	d := &IntervalDir{IOs: ios, IOPS: float64(ios) / sec, MBps: float64(bytes) / 1e6 / sec}
	if lat == nil {
		return d
	}
	d.Of = lat.Of
	if lat.MeanNs > 0 {
		mean := ms(lat.MeanNs)
		d.MeanMs = &mean
	}
	if lat.P99Ns > 0 { // an engine with the mean only leaves them 0
		p99, p999, mx := ms(float64(lat.P99Ns)), ms(float64(lat.P999Ns)), ms(float64(lat.MaxNs))
		d.P99Ms, d.P999Ms, d.MaxMs = &p99, &p999, &mx
	}
	return d
}

// foldInto adds o, I/Os counted after the workload's end, to its last
// interval s: counts, the mean and the maximum; its percentiles stay
// those of the I/Os within it (a few in-flight I/Os cannot move them
// by more than their share).
func foldInto(s *engine.Second, o engine.Second) {
	for _, d := range []struct {
		to, from   **engine.IntervalLat
		nTo, nFrom int64
	}{{&s.Read, &o.Read, s.ReadIOs, o.ReadIOs}, {&s.Write, &o.Write, s.WriteIOs, o.WriteIOs}} {
		if *d.from == nil {
			continue
		}
		if *d.to == nil {
			c := **d.from
			*d.to = &c
			continue
		}
		c := **d.to
		if n := d.nTo + d.nFrom; n > 0 {
			c.MeanNs = (c.MeanNs*float64(d.nTo) + (*d.from).MeanNs*float64(d.nFrom)) / float64(n)
		}
		c.MaxNs = max(c.MaxNs, (*d.from).MaxNs)
		*d.to = &c
	}
	s.MergeCounts(o)
}

// SeriesHead is the head of a series CSV (seconds.csv, fio-seconds.csv)
// after the columns that name the workload: an interval of the whole set
// (target "all") or of one target, each direction's figures, and what the
// percentiles and maximum are of ("clat" for fio's histogram logs, else
// total latency, "lat").
var SeriesHead = []string{"target", "interval", "start_s", "seconds", "ramp",
	"read_iops", "read_mbps", "read_mean_ms", "read_p99_ms", "read_p99_9_ms", "read_max_ms",
	"write_iops", "write_mbps", "write_mean_ms", "write_p99_ms", "write_p99_9_ms", "write_max_ms", "lat_of"}

// SeriesPart is one workload's series in a series CSV, and the values of
// the columns that name it.
type SeriesPart struct {
	Lead   []string
	Series []Interval
}

// WriteSeriesCSV writes workloads' series as one CSV: lead names the
// columns before SeriesHead that tell the workloads apart (none for one),
// every part a row per interval of the set and one per target. A latency
// the engine could not measure is an empty field; a direction without I/O
// has 0 IOPS and MB/s.
func WriteSeriesCSV(w io.Writer, lead []string, parts []SeriesPart) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(append(slices.Clone(lead), SeriesHead...))
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	opt := func(v *float64) string {
		if v == nil {
			return ""
		}
		return f(*v)
	}
	dir := func(d *IntervalDir) []string {
		if d == nil {
			return []string{"0", "0", "", "", "", ""}
		}
		return []string{f(d.IOPS), f(d.MBps), opt(d.MeanMs), opt(d.P99Ms), opt(d.P999Ms), opt(d.MaxMs)}
	}
	of := func(ds ...*IntervalDir) string {
		for _, d := range ds {
			if d != nil && d.P99Ms != nil {
				if d.Of == "" {
					return engine.LatTotal
				}
				return d.Of
			}
		}
		return ""
	}
	for _, p := range parts {
		for i, in := range p.Series {
			ramp := "0"
			if in.Ramp {
				ramp = "1"
			}
			row := func(target string, r, w *IntervalDir) {
				out := append(slices.Clone(p.Lead), target, strconv.Itoa(i+1), f(in.StartS), f(in.Seconds), ramp)
				_ = cw.Write(append(append(append(out, dir(r)...), dir(w)...), of(r, w)))
			}
			row("all", in.Read, in.Write)
			for _, t := range in.Targets {
				row(t.Target, t.Read, t.Write)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
