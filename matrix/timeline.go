package matrix

import (
	"math"
	"slices"

	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/pts"
	"github.com/ptsrun/ptsrun/steadystate"
)

// The results of a timeline stage (WSAT, HIR, XSR, an operating point's
// runs): its samples, its histogram and its test's summary, and for a
// timeline in rounds its steady-state reading.

// timelineRounds is the steady-state reading of a timeline in rounds
// (WSAT's steady-state method): its rounds, tracking values and window,
// from its samples as the runner judged them.
func timelineRounds(s *pts.Stage, ss *pts.StageState, crit steadystate.Criteria, out *StageResult) {
	vals := s.TimelineTracking(ss.Samples)
	n := 0
	if len(vals) > 0 {
		n = len(vals[0])
	}
	last := n
	if ss.Ended && len(ss.Window) == 2 {
		last = min(ss.Window[1], n)
	}
	out.Rounds = n
	out.Window = [2]int{max(1, last-crit.Window+1), last}
	out.Steady, out.SSRound = ss.Ended && ss.Steady, ss.SSRound
	for v, t := range s.Tracking {
		tr := TrackingResult{Name: t.Name, Cell: t.Cell, Metric: t.Metric, Unit: t.Metric.Unit()}
		if v < len(vals) {
			tr.Values = vals[v][:last]
		}
		tr.Verdict = crit.CheckAt(tr.Values, last)
		out.Tracking = append(out.Tracking, tr)
	}
}

// buildTimeline gives a timeline stage its samples, one per step journaled,
// its histogram and the test's summary of them.
func buildTimeline(ri pts.RunInfo, s *pts.Stage, ss *pts.StageState, before []pts.Earlier, out *StageResult) {
	out.Timeline, out.EndedBy = true, ss.EndMessage
	out.Samples = []pts.Sample{}
	for _, t := range ri.Targets {
		out.Capacity += t.CapacityBytes
	}
	steps := s.Steps()
	var start float64
	var written int64
	for k, m := range ss.Samples {
		if k >= len(steps) {
			break
		}
		st := steps[k]
		written += m.Write.Bytes
		t := m.Counts()
		smp := pts.Sample{Step: k, Segment: st.Segment, Group: s.Timeline[st.Segment].Group, Run: st.Run,
			Start: start, Seconds: m.Elapsed.Seconds(), Idle: st.Idle, Written: written,
			IOPS: math.NaN(), MBps: math.NaN(), LatMeanMs: math.NaN(), LatP99999Ms: math.NaN(), LatMaxMs: math.NaN()}
		if !st.Idle && m.Elapsed > 0 {
			smp.IOPS, smp.MBps = m.IOPS(), m.MBps()
			smp.LatMeanMs, smp.LatMaxMs = ms(t.MeanLatNs()), ms(float64(t.LatMaxNs))
			var all engine.DirStats // Counts leaves the bins out
			all.Merge(m.Read)
			all.Merge(m.Write)
			if all.Hist != nil && all.Hist.Count() > 0 {
				smp.LatP99999Ms = ms(float64(all.PercentileNs(99.999)))
			}
		}
		out.Samples = append(out.Samples, smp)
		start += smp.Seconds
	}
	// The last hour of I/O: the drive's state at the end of the series;
	// or the segments the test names for its histogram.
	out.TailFrom = max(0, start-3600) / 60
	in := func(k int) bool { return out.Samples[k].Start+out.Samples[k].Seconds > out.TailFrom*60 }
	if g := slices.IndexFunc(s.Timeline, func(g pts.Segment) bool { return g.Histogram }); g >= 0 {
		out.TailFrom = math.NaN()
		in = func(k int) bool { return s.Timeline[out.Samples[k].Segment].Histogram }
		for _, smp := range out.Samples {
			if s.Timeline[smp.Segment].Histogram {
				out.TailFrom = smp.Start / 60
				break
			}
		}
		if math.IsNaN(out.TailFrom) {
			out.TailFrom = 0
		}
	}
	var tail engine.DirStats
	for k, m := range ss.Samples {
		if k < len(out.Samples) && !out.Samples[k].Idle && in(k) {
			tail.Merge(m.Read)
			tail.Merge(m.Write)
		}
	}
	if tail.Hist != nil && tail.Hist.Count() > 0 {
		out.TailHist = tail.Hist
	}
	if td := pts.Def(s.Test); td != nil && td.Summarize != nil && len(out.Samples) > 0 {
		out.Summary = td.Summarize(pts.SummaryInput{Config: ri.Config, Stage: *s, Samples: out.Samples, Earlier: before, Hist: out.TailHist})
	}
}
