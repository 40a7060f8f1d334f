package replay

import (
	"slices"
	"time"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/cpuidle"
	"github.com/ptsrun/ptsrun/internal/engine"
)

// LatenessRule says what lateness is.
const LatenessRule = "issue lateness: the time an I/O was issued less its scheduled time (its captured time from the capture's first I/O, " +
	"divided by --speed), over every I/O issued"

// DelayedRule says what a delayed I/O is.
const DelayedRule = "an I/O whose time came while every slot held an I/O not yet completed: the target was slower than the capture"

// Result is a replay's figures: replay.json.
type Result struct {
	Capture   CaptureFigures `json:"capture"`
	Target    string         `json:"target"`
	Engine    string         `json:"engine"`
	Speed     float64        `json:"speed"`
	Depth     int            `json:"depth"`
	DepthRule string         `json:"depth_rule"`
	// CPUIdle is the host's idle states while the replay ran and what
	// was held of them (--cpu-idle).
	CPUIdle  *cpuidle.State `json:"cpu_idle,omitempty"`
	Mapping  string         `json:"mapping_rule"`
	Fidelity Fidelity       `json:"fidelity"`
	Totals   Totals         `json:"totals"`
	// Seconds are the replay's and the capture's IOPS and mean response
	// time per second of the replay (the capture's time divided by
	// --speed): the replay's I/Os by their completion, the capture's by
	// their start.
	Seconds []Second `json:"seconds"`
	// The same as engine series, for the CSV and the report.
	ReplaySeries  []engine.Second `json:"-"`
	CaptureSeries []engine.Second `json:"-"`
}

// CaptureFigures are the capture's, of the device replayed.
type CaptureFigures struct {
	File      string   `json:"file"`
	Format    string   `json:"format"`
	Device    string   `json:"device"`
	IOs       int      `json:"ios"`
	Reads     int      `json:"reads"`
	Writes    int      `json:"writes"`
	DurationS float64  `json:"duration_s"`
	IOPS      float64  `json:"iops"`
	LatMeanMs *float64 `json:"lat_mean_ms"` // nil without completions
}

// Fidelity is how faithfully the I/Os came at their times.
type Fidelity struct {
	LatenessRule  string  `json:"lateness_rule"`
	LatenessP50Ms float64 `json:"lateness_p50_ms"`
	LatenessP99Ms float64 `json:"lateness_p99_ms"`
	LatenessMaxMs float64 `json:"lateness_max_ms"`
	// ResolutionMs is how precise the issue times are: 0 for the
	// engine's own clock (nanoseconds).
	ResolutionMs float64 `json:"resolution_ms"`
	Measured     int     `json:"measured"` // the I/Os with an issue time
	// Delayed counts the I/Os delayed by a slower target (DelayedRule);
	// nil when the engine cannot tell.
	Delayed *int `json:"delayed"`
	// The lateness of the I/Os that found a slot free: the replay's own,
	// apart from the target's slowness; nil when the engine cannot tell.
	OwnP50Ms    *float64 `json:"own_lateness_p50_ms"`
	OwnP99Ms    *float64 `json:"own_lateness_p99_ms"`
	OwnMaxMs    *float64 `json:"own_lateness_max_ms"`
	DelayedRule string   `json:"delayed_rule"`
	Note        string   `json:"note,omitempty"`
}

// Totals are the replay's.
type Totals struct {
	Scheduled int `json:"scheduled"`
	Issued    int `json:"issued"`
	Completed int `json:"completed"`
	// WithLatency are the I/Os whose latency the engine gave: all of
	// them natively; those in fio's latency log through fio.
	WithLatency int     `json:"with_latency"`
	ElapsedS    float64 `json:"elapsed_s"`
	IOPS        float64 `json:"iops"`
	LatMeanMs   float64 `json:"lat_mean_ms"`
}

// Second is one second of the replay beside the capture's.
type Second struct {
	StartS           float64  `json:"start_s"`
	ReplayIOPS       float64  `json:"replay_iops"`
	ReplayLatMeanMs  *float64 `json:"replay_lat_mean_ms"`
	CaptureIOPS      float64  `json:"capture_iops"`
	CaptureLatMeanMs *float64 `json:"capture_lat_mean_ms"`
}

func ms(ns float64) float64 { return ns / 1e6 }

// quantiles are v's p50, p99 and maximum in milliseconds (v sorted here).
func quantiles(v []int64) (p50, p99, mx float64) {
	slices.Sort(v)
	n := len(v)
	if n == 0 {
		return 0, 0, 0
	}
	q := func(p float64) float64 { return ms(float64(v[min(n-1, int(p*float64(n)))])) }
	return q(0.50), q(0.99), ms(float64(v[n-1]))
}

// result makes the figures of what the engine measured.
func (p *Prepared) result(tr engine.TimedResult) *Result {
	c := p.Capture
	r := &Result{Target: p.Plan.Names()[0], Engine: tr.Engine, Speed: p.Options.Speed, Depth: p.Timed.Depth,
		DepthRule: p.Depth, Mapping: MappingRule}
	r.Capture = CaptureFigures{File: p.Name, Format: string(c.Format), Device: orAll(p.Options.Device), IOs: len(c.IOs)}
	var capLat, capDone float64
	for _, io := range c.IOs {
		if io.Dir == capture.Read {
			r.Capture.Reads++
		} else {
			r.Capture.Writes++
		}
		if l, ok := io.Latency(); ok {
			capLat += float64(l)
			capDone++
		}
	}
	r.Capture.DurationS = (c.IOs[len(c.IOs)-1].Start - c.IOs[0].Start).Seconds()
	if r.Capture.DurationS > 0 {
		r.Capture.IOPS = float64(len(c.IOs)) / r.Capture.DurationS
	}
	if capDone > 0 {
		v := ms(capLat / capDone)
		r.Capture.LatMeanMs = &v
	}

	// Fidelity.
	f := &r.Fidelity
	f.LatenessRule, f.DelayedRule, f.Note = LatenessRule, DelayedRule, tr.Note
	f.ResolutionMs = ms(float64(tr.Resolution))
	if tr.Delayed >= 0 {
		d := tr.Delayed
		f.Delayed = &d
	}
	late := make([]int64, 0, len(tr.Issue))
	var own []int64
	var latSum float64
	var lastDone int64
	for i, at := range tr.Issue {
		if at < 0 {
			continue
		}
		late = append(late, at-int64(p.Timed.IOs[i].At))
		if tr.Waited != nil && !tr.Waited[i] {
			own = append(own, at-int64(p.Timed.IOs[i].At))
		}
		if l := tr.Lat[i]; l >= 0 {
			r.Totals.WithLatency++
			latSum += float64(l)
			lastDone = max(lastDone, at+l)
		}
	}
	f.Measured = len(late)
	f.LatenessP50Ms, f.LatenessP99Ms, f.LatenessMaxMs = quantiles(late)
	if tr.Waited != nil && len(own) > 0 {
		a, b, c := quantiles(own)
		f.OwnP50Ms, f.OwnP99Ms, f.OwnMaxMs = &a, &b, &c
	}
	r.Totals.Scheduled, r.Totals.Issued = len(p.Timed.IOs), len(late)
	r.Totals.Completed = r.Totals.WithLatency
	if tr.Completed > 0 {
		r.Totals.Completed = tr.Completed
	}
	r.Totals.ElapsedS = max(tr.Elapsed, time.Duration(lastDone)).Seconds()
	if r.Totals.ElapsedS > 0 {
		r.Totals.IOPS = float64(r.Totals.Completed) / r.Totals.ElapsedS
	}
	if r.Totals.WithLatency > 0 {
		r.Totals.LatMeanMs = ms(latSum / float64(r.Totals.WithLatency))
	}

	// Per second: the replay's completions, the capture's starts.
	var rs, cs []engine.IntervalStats
	add := func(s *[]engine.IntervalStats, at int64, read bool, lat, size int64) {
		i := int(at / int64(time.Second))
		for len(*s) <= i {
			*s = append(*s, engine.IntervalStats{})
		}
		if lat >= 0 {
			(*s)[i].Record(read, lat, 1, size)
		} else {
			(*s)[i].Record(read, 0, 1, size)
		}
	}
	for i, at := range tr.Issue {
		if at >= 0 && tr.Lat[i] >= 0 {
			io := p.Timed.IOs[i]
			add(&rs, at+tr.Lat[i], io.Read, tr.Lat[i], io.Size)
		}
	}
	capLatOK := capDone == float64(len(c.IOs))
	for i, io := range c.IOs {
		l, _ := io.Latency()
		if !capLatOK {
			l = -1
		}
		add(&cs, int64(p.Timed.IOs[i].At), io.Dir == capture.Read, int64(l), io.Size)
	}
	r.ReplaySeries, r.CaptureSeries = seconds(rs, true), seconds(cs, capLatOK)
	for i := range max(len(rs), len(cs)) {
		s := Second{StartS: float64(i)}
		if i < len(rs) {
			s.ReplayIOPS, s.ReplayLatMeanMs = figures(r.ReplaySeries[i], true)
		}
		if i < len(cs) {
			s.CaptureIOPS, s.CaptureLatMeanMs = figures(r.CaptureSeries[i], capLatOK)
		}
		r.Seconds = append(r.Seconds, s)
	}
	return r
}

// seconds summarises per-second stats; without latencies (a capture
// without completions) the intervals carry counts only.
func seconds(st []engine.IntervalStats, lat bool) []engine.Second {
	out := make([]engine.Second, len(st))
	for i := range st {
		out[i] = st[i].Second(false)
		if !lat {
			out[i].Read, out[i].Write, out[i].LatMeanNs = nil, nil, 0
		}
	}
	return out
}

func figures(s engine.Second, lat bool) (float64, *float64) {
	iops := float64(s.ReadIOs + s.WriteIOs)
	if !lat || iops == 0 {
		return iops, nil
	}
	v := ms(s.LatMeanNs)
	return iops, &v
}

func orAll(d string) string {
	if d == "" {
		return "all"
	}
	return d
}
