package pts

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/units"
)

// Segment is a stretch of a timeline stage: one stimulus run for its
// workload's duration and sampled every Interval (one journal record per
// sample), possibly repeated with idle time after each run. Tests that
// follow one stimulus over time (WSAT, HIR, XSR) are made of these instead
// of rounds of cells.
type Segment struct {
	Name     string          `json:"name"`  // "access group 1: SEQ 1024 KiB W"
	Group    int             `json:"group"` // the report's grouping (XSR access group, HIR wait state)
	Workload engine.Workload `json:"workload"`
	Interval Duration        `json:"interval"` // one sample per interval; the last of a run may be shorter
	// Repeat runs the segment this many times (0 and 1: once), each run
	// followed by IdleAfter of no I/O at all (HIR's wait states).
	Repeat    int      `json:"repeat,omitempty"`
	IdleAfter Duration `json:"idle_after,omitempty"`
	// Histogram says the segment's samples merge into the stage's
	// response-time histogram (a demand-intensity operating point's
	// histogram run); without such a segment it is the last hour's.
	Histogram bool `json:"histogram,omitempty"`
}

// Step is one journaled step of a timeline stage: an interval of I/O, or an
// idle period.
type Step struct {
	Segment  int             // index into the stage's timeline
	Run      int             // repetition of the segment, from 0
	Idle     bool            // no I/O for Workload.Duration
	Workload engine.Workload // Duration is the step's
}

// Steps lays a timeline stage out as the steps it runs, in order: a
// resumed stage continues at the first step its journal lacks.
func (s Stage) Steps() []Step {
	var out []Step
	for gi, g := range s.Timeline {
		iv := time.Duration(g.Interval)
		for run := 0; run < max(1, g.Repeat); run++ {
			for left := g.Workload.Duration; left > 0; left -= iv {
				w := g.Workload
				w.Duration = left
				if iv > 0 && iv < left {
					w.Duration = iv
				}
				out = append(out, Step{Segment: gi, Run: run, Workload: w})
			}
			if g.IdleAfter > 0 {
				out = append(out, Step{Segment: gi, Run: run, Idle: true,
					Workload: engine.Workload{Idle: true, Duration: time.Duration(g.IdleAfter)}})
			}
		}
	}
	return out
}

// A timeline stage with Tracking is in rounds, judged for steady state as
// it runs (WSAT's optional steady-state method): its one segment repeats,
// Repeat being the round limit, each run is a round, and each tracking
// variable's Cell is the step of the run it tracks (the check minute). The
// stage stops at its first steady window.

// RoundSteps is the number of steps in a round of a timeline in rounds, 0
// for any other stage.
func (s Stage) RoundSteps() int {
	if len(s.Timeline) != 1 || len(s.Tracking) == 0 {
		return 0
	}
	return len(s.Steps()) / max(1, s.Timeline[0].Repeat)
}

// TimelineTracking is the tracking values of every complete round of a
// timeline in rounds, out[v][r] variable v in round r+1, read from its
// samples: what the runner judges and results show come from one place.
func (s Stage) TimelineTracking(samples []*engine.Measurement) [][]float64 {
	n := s.RoundSteps()
	if n == 0 {
		return nil
	}
	out := make([][]float64, len(s.Tracking))
	for r := 0; (r+1)*n <= len(samples); r++ {
		for v, t := range s.Tracking {
			if m := samples[r*n+t.Cell]; m != nil {
				out[v] = append(out[v], t.Metric.Value(*m))
			}
		}
	}
	return out
}

// ShortDuration writes a duration without its zero tail: 8h, 30m, 1h30m,
// 5s.
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// TimelineTime is the nominal length of a timeline stage, idle included.
func (s Stage) TimelineTime() time.Duration {
	var d time.Duration
	for _, st := range s.Steps() {
		d += st.Workload.Duration
	}
	return d
}

// checkTimeline checks a timeline stage's segments before anything runs.
func checkTimeline(s Stage) error {
	var total time.Duration
	for _, g := range s.Timeline {
		if g.Interval <= 0 {
			return fmt.Errorf("%s: %s has no sampling interval", s.Title, g.Name)
		}
		if g.Workload.Duration < 0 || g.IdleAfter < 0 || g.Repeat < 0 {
			return fmt.Errorf("%s: %s has a negative duration or repeat count", s.Title, g.Name)
		}
		total += g.Workload.Duration
	}
	if total <= 0 {
		return fmt.Errorf("%s: its segments' durations sum to 0", s.Title)
	}
	if len(s.Tracking) > 0 {
		if len(s.Timeline) != 1 || s.Timeline[0].Repeat < 1 {
			return fmt.Errorf("%s: a timeline in rounds has one segment, repeated", s.Title)
		}
		for _, t := range s.Tracking {
			if t.Cell < 0 || t.Cell >= s.RoundSteps() {
				return fmt.Errorf("%s: %s tracks step %d of a round of %d", s.Title, t.Name, t.Cell+1, s.RoundSteps())
			}
		}
	}
	return nil
}

// Timeline is the procedure of one stimulus or more followed over time
// (WSAT, HIR's wait states, XSR): the stage's segments in order, each run
// for its workload's duration (Repeat times, with IdleAfter of no I/O
// after each run) and sampled every Interval, a sample journaled per step;
// a resumed stage continues at the first step its journal lacks. It stops
// when its segments have run, at StopFills × the targets' capacity written,
// or after StopAfter. A timeline with Tracking is in rounds (WSAT's
// steady-state method): its one segment's runs are rounds, judged after
// each, and it stops at the first steady window too.
type Timeline struct{}

func (Timeline) Kind() Kind { return KindTimeline }

func (Timeline) Tables() []TableShape { return []TableShape{ShapeSamples, ShapeSummary, ShapeFigures} }

func (Timeline) check(s Stage) error { return checkTimeline(s) }

func (Timeline) begin(s *Stage, _ []Stage, _ *State, _ int) (*Stage, *OperatingPoint, error) {
	return s, nil, nil
}

func (Timeline) resume(s *Stage, ss *StageState) (Record, *StageState) {
	k := len(ss.Samples)
	return Record{Type: RecResume, Stage: s.ID, Cell: &k, Message: fmt.Sprintf("continues its time series at step %d of %d", k+1, len(s.Steps()))}, ss
}

func (Timeline) measure(ctx context.Context, r *Runner, s *Stage, ss *StageState) error {
	return r.runTimeline(ctx, s, ss)
}

func (Timeline) AsRan(s Stage, _ *OperatingPoint) Stage { return s }

// Outcome reads the stage's samples, its test's summary of them and,
// in rounds, its steady-state reading.
func (Timeline) Outcome(in OutcomeInput) Outcome {
	s, ss := in.Stage, in.State.Stages[in.Stage.ID]
	o := Outcome{Title: s.Title, Rounds: ss.Rounds()}
	timelineSeries(in, &o)
	if s.RoundSteps() > 0 {
		timelineRounds(in, &o)
	}
	return o
}

// timelineSeries gives a timeline stage's outcome its samples, one per
// step journaled, its histogram and the test's summary of them.
func timelineSeries(in OutcomeInput, out *Outcome) {
	s, ss := in.Stage, in.State.Stages[in.Stage.ID]
	out.Series, out.EndedBy, out.Capacity = true, ss.EndMessage, in.Capacity
	out.Samples = []Sample{}
	steps := s.Steps()
	var start float64
	var written int64
	scratch := engine.NewHistogram() // each step's bins, merged: one histogram's memory for all
	for k, m := range ss.Samples {
		if k >= len(steps) {
			break
		}
		st := steps[k]
		written += m.Write.Bytes
		t := m.Counts()
		smp := Sample{Step: k, Segment: st.Segment, Group: s.Timeline[st.Segment].Group, Run: st.Run,
			Start: start, Seconds: m.Elapsed.Seconds(), Idle: st.Idle, Written: written,
			IOPS: math.NaN(), MBps: math.NaN(), LatMeanMs: math.NaN(), LatP99999Ms: math.NaN(), LatMaxMs: math.NaN()}
		if !st.Idle && m.Elapsed > 0 {
			smp.IOPS, smp.MBps = m.IOPS(), m.MBps()
			smp.LatMeanMs, smp.LatMaxMs = t.MeanLatNs()/1e6, float64(t.LatMaxNs)/1e6
			scratch.Reset()
			all := engine.DirStats{Hist: scratch} // Counts leaves the bins out
			all.Merge(m.Read)
			all.Merge(m.Write)
			if all.Hist != nil && all.Hist.Count() > 0 {
				smp.LatP99999Ms = float64(all.PercentileNs(99.999)) / 1e6
			}
		}
		out.Samples = append(out.Samples, smp)
		start += smp.Seconds
	}
	// The last hour of I/O: the drive's state at the end of the series;
	// or the segments the test names for its histogram.
	out.TailFrom = max(0, start-3600) / 60
	inTail := func(k int) bool { return out.Samples[k].Start+out.Samples[k].Seconds > out.TailFrom*60 }
	if g := slices.IndexFunc(s.Timeline, func(g Segment) bool { return g.Histogram }); g >= 0 {
		out.TailFrom = math.NaN()
		inTail = func(k int) bool { return s.Timeline[out.Samples[k].Segment].Histogram }
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
		if k < len(out.Samples) && !out.Samples[k].Idle && inTail(k) {
			tail.Merge(m.Read)
			tail.Merge(m.Write)
		}
	}
	if tail.Hist != nil && tail.Hist.Count() > 0 {
		out.TailHist = tail.Hist
	}
	if td := Def(s.Test); td != nil && td.Summarize != nil && len(out.Samples) > 0 {
		out.Summary = td.Summarize(SummaryInput{Config: in.Config, Stage: *s, Samples: out.Samples, Earlier: in.Earlier, Hist: out.TailHist})
	}
}

// timelineRounds is the steady-state reading of a timeline in rounds: its
// rounds, tracking values and window from its samples, and the verdicts
// the runner journaled on them.
func timelineRounds(in OutcomeInput, out *Outcome) {
	s, ss, crit := in.Stage, in.State.Stages[in.Stage.ID], in.Config.SS
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
	values := make([][]float64, len(s.Tracking))
	for v := range s.Tracking {
		if v < len(vals) {
			values[v] = vals[v][:last]
		}
	}
	out.Judged = judged(crit, s.Tracking, values, n, ss.Judged)
	out.Tracking = tracked(crit, s.Tracking, values, last, out.Judged)
}

// Estimate is the segments' time, or StopAfter when that is shorter: a
// fills rule may end it sooner, known only as it runs. In rounds, it is
// steady at the window's last round at the soonest.
func (Timeline) Estimate(s Stage, c Costs) Estimate {
	e := wipcEstimate(s, c)
	e.Max = e.WIPCTime + s.TimelineTime()
	if s.StopAfter > 0 {
		e.Max = e.WIPCTime + min(s.TimelineTime(), time.Duration(s.StopAfter))
	}
	e.Min = e.Max
	if n := s.RoundSteps(); n > 0 {
		e.MinRounds, e.RoundTime = c.Window, s.TimelineTime()/time.Duration(s.Timeline[0].Repeat)
		e.Min = e.WIPCTime + time.Duration(e.MinRounds)*e.RoundTime
	}
	return e
}

// Plan lists the segments, the stop rule and the time.
func (Timeline) Plan(s Stage, e Estimate, in PlanInput) []string {
	var out []string
	for _, g := range s.Timeline {
		line := fmt.Sprintf("%s for %s, a sample every %v", g.Name, FormatETA(g.Workload.Duration), time.Duration(g.Interval))
		switch runs := s.Runs(g); {
		case runs.Rounds:
			line += fmt.Sprintf(", up to %d rounds", runs.Times)
		case runs.Idle > 0:
			line += fmt.Sprintf(", %d× with %v idle after each", runs.Times, runs.Idle)
		case runs.Times > 1:
			line += fmt.Sprintf(", %d×", runs.Times)
		}
		out = append(out, line)
	}
	if len(s.Tracking) > 0 {
		out = append(out, trackingLine(s.Tracking))
		if s.StopFills > 0 || s.StopAfter > 0 {
			out = append(out, fmt.Sprintf("or until %g × the capacity is written or %s have passed, whichever comes first",
				s.StopFills, FormatETA(time.Duration(s.StopAfter))))
		}
		return append(out, fmt.Sprintf("time: %s (steady at round %d) to at most %s (round limit %d)",
			FormatETA(e.Min), e.MinRounds, FormatETA(e.Max), s.Timeline[0].Repeat))
	}
	if s.StopFills > 0 {
		line := fmt.Sprintf("or until %g × the capacity is written", s.StopFills)
		if in.SetCapacity > 0 && e.Max > 0 {
			// The stop rule that comes first depends on the drive's
			// write rate; say the rate at which both come together.
			bytes := s.StopFills * float64(in.SetCapacity)
			mbps := bytes / e.Max.Seconds() / 1e6
			line += fmt.Sprintf(": %.1f GB, which takes %s at %.0f MB/s", bytes/1e9, FormatETA(e.Max), mbps)
			if bs := s.Timeline[0].Workload.BlockSize; bs > 0 {
				line += fmt.Sprintf(" (%.0f IOPS of %s)", mbps*1e6/float64(bs), units.FormatSize(bs))
			}
			line += ", less on a faster drive"
		}
		return append(out, line, "time: at most "+FormatETA(e.Max))
	}
	return append(out, "time: "+FormatETA(e.Max))
}

// Progress: the sample of the series, its segment (a wait state, an
// access group) or round, the bytes written (TGBW) and the drive fills
// they make, the sample's IOPS (none for an idle step), and the time left
// of the stage and the run, "at most" where a stop rule may come first.
func (Timeline) Progress(r Record, p Position) Progress {
	s := p.Stage
	done := *r.Cell + 1
	var b strings.Builder
	fmt.Fprintf(&b, "sample %d/%d", done, p.Steps)
	switch {
	case len(s.Timeline) > 1 && p.Step.Segment < len(s.Timeline):
		name, _, _ := strings.Cut(s.Timeline[p.Step.Segment].Name, ":")
		b.WriteString(", " + name)
	case len(s.Tracking) > 0:
		fmt.Fprintf(&b, ", round %d", p.Step.Run+1)
	}
	fmt.Fprintf(&b, ", TGBW %.1f GB", float64(p.Written)/1e9)
	if p.Capacity > 0 {
		fmt.Fprintf(&b, " (%.2f drive fills)", float64(p.Written)/float64(p.Capacity))
	}
	if m := r.Measurement; m != nil && r.Workload != nil && !r.Workload.Idle && m.Elapsed > 0 {
		fmt.Fprintf(&b, ", %.0f IOPS", m.IOPS())
	}
	fmt.Fprintf(&b, ", stage %s, %s", FormatLeft(p.StageLeftMin, p.StageLeftMax, p.AtMost), p.RunLeftWords())
	return Progress{Done: done, Of: p.Steps, Status: b.String(), Line: b.String(), Series: true}
}

func (Timeline) About(Stage) string {
	return "A test over time runs its segments once, in order, a sample journaled every interval; " +
		"each segment's time is all of it, idle time included, unless the test's stop rule ends it first."
}

// Runs is how a segment of a stage repeats: Times runs, with Idle of no
// I/O after each; or, in a timeline in rounds, up to Times rounds. Every
// description of a segment (plan, the report's parameters and its
// appendix) reads this one.
type Runs struct {
	Times  int
	Idle   time.Duration
	Rounds bool
}

// Runs is how segment g of the stage repeats.
func (s Stage) Runs(g Segment) Runs {
	switch {
	case len(s.Tracking) > 0:
		return Runs{Times: g.Repeat, Rounds: true}
	case g.IdleAfter > 0:
		return Runs{Times: max(1, g.Repeat), Idle: time.Duration(g.IdleAfter)}
	}
	return Runs{Times: max(1, g.Repeat)}
}

// View words a time series.
func (Timeline) View(st StageStatus) StageView {
	label := fmt.Sprintf("%d samples", st.Samples)
	series := label
	if st.Idle > 0 {
		label = fmt.Sprintf("%d samples and %d idle periods", st.Samples-st.Idle, st.Idle)
		series = fmt.Sprintf("%d samples, %d idle", st.Samples-st.Idle, st.Idle)
	}
	v := StageView{Empty: st.Samples == 0,
		NoResults: [2]string{st.Title + ": no sample of its time series, so there is nothing to report for this stage.",
			"It was interrupted before its first sample; `ptsrun resume` continues it."}}
	switch {
	case !st.Started:
		v.NoResults[1] = "The run ended before it started."
	case st.Error != "":
		v.NoResults[1] = "It was stopped by an error: " + st.Error + "."
	}
	switch {
	case !st.Started:
		v.State = "not run"
	case !st.Complete:
		v.State = fmt.Sprintf("unfinished after %d samples of its time series (ptsrun resume continues it)", st.Samples)
	default:
		v.State = fmt.Sprintf("a time series of %d samples", st.Samples-st.Idle)
		if st.Idle > 0 {
			v.State += fmt.Sprintf(" and %d idle periods", st.Idle)
		}
		switch {
		case st.SeeksSteady && st.Steady:
			v.State += fmt.Sprintf(", steady state at round %d, window %d–%d", st.SSRound, st.Window[0], st.Window[1])
		case st.SeeksSteady:
			v.State += fmt.Sprintf(", steady state NOT reached in %d rounds", st.Rounds)
		}
		switch {
		case st.Point != nil:
			v.State += "; " + st.Point.Words() // both measurements, as the report prints them
		default:
			for _, f := range st.Figures {
				v.State += fmt.Sprintf("; %s %s", f.Name, f)
			}
		}
	}
	switch {
	case !st.Complete:
		v.Brief = "incomplete (" + label + ")"
	case st.SeeksSteady && st.Steady:
		v.Brief = fmt.Sprintf("%s; steady at round %d (window %d–%d)", series, st.SSRound, st.Window[0], st.Window[1])
	case st.SeeksSteady:
		v.Brief = fmt.Sprintf("%s; NOT steady in %d rounds", series, st.Rounds)
	default:
		v.Brief = "time series: " + series
	}
	switch {
	case !st.Complete:
		v.Note = "stage incomplete"
	case st.SeeksSteady && st.Steady:
		v.Note = "a time series of " + label + " in rounds; SS achieved"
	case !st.SeeksSteady:
		v.Note = "a time series of " + label + "; no steady state is sought"
	default:
		v.Note = "SS NOT ACHIEVED"
	}
	switch {
	case st.Complete && st.SeeksSteady && !st.Steady:
		v.Code, v.Deviation = "not_steady", fmt.Sprintf("%s: steady state was not reached in %d rounds (the round limit); the time series is reported as it ran.",
			st.Title, st.Rounds)
	case st.Complete: // one stimulus over time: no steady-state verdict to miss
	case st.Started && st.Error != "":
		v.Code, v.Deviation = "error", fmt.Sprintf("%s: the time series was stopped by an error after %s: %s.", st.Title, plural(st.Samples, "step"),
			trimStop(st.Error))
	case st.Started:
		v.Code, v.Deviation = "incomplete", fmt.Sprintf("%s: the time series did not finish (%s).", st.Title, plural(st.Samples, "step"))
	default:
		v.Code, v.Deviation = "not_run", st.Title+": not run; the run stopped before it."
	}
	return v
}

// Resumed: the time series goes on after a gap, or starts again.
func (Timeline) Resumed(s Stage, rec Record, gap string) string {
	if rec.Cell != nil {
		return fmt.Sprintf("%s's time series continues at step %d after a gap of %s, in which the drive rested; "+
			"the samples on either side are not contiguous in time.", s.Title, *rec.Cell+1, gap)
	}
	return Rounds{}.Resumed(s, rec, gap)
}

// runTimeline runs a timeline stage's steps from the first its journal
// lacks, journaling each before the next starts, until the steps end, the
// stage has written StopFills times the targets' capacity, or it has run
// for StopAfter. Neither stop is run past: the step that would pass it is
// cut at what is left of it (budget).
func (r *Runner) runTimeline(ctx context.Context, s *Stage, ss *StageState) error {
	steps := s.Steps()
	var written int64
	var ran time.Duration
	for _, m := range ss.Samples {
		written += m.Write.Bytes
		ran += m.Elapsed
	}
	var capacity int64
	for _, t := range r.Info.Targets {
		capacity += t.CapacityBytes
	}
	stopAt := int64(s.StopFills * float64(capacity))
	filled := func() bool { return stopAt > 0 && written >= stopAt-r.fillSlack(steps) }
	fillsWhy := func() string {
		return fmt.Sprintf("%g × the capacity was written (%s GB, %.3f fills)", s.StopFills, FormatNumber(float64(written)/1e9),
			float64(written)/float64(capacity))
	}
	timed := func() bool { return s.StopAfter > 0 && ran >= time.Duration(s.StopAfter) }
	timeWhy := func() string {
		return fmt.Sprintf("its time limit (%s) had passed", ShortDuration(time.Duration(s.StopAfter)))
	}
	why := "its segments have run"
	// A timeline in rounds is judged after each; on resume, from the
	// rounds its samples hold.
	var judge *roundJudge
	perRound := s.RoundSteps()
	if perRound > 0 {
		why = fmt.Sprintf("the round limit (%d) was reached", s.Timeline[0].Repeat)
		judge = newJudge(s, r.Info.Config.SS, len(ss.Samples)/perRound, s.TimelineTracking(ss.Samples))
	}
	for k := len(ss.Samples); k < len(steps); k++ {
		if filled() || timed() || judge != nil && judge.steady() {
			break
		}
		if ctx.Err() != nil {
			return r.interrupted(s, 0, k)
		}
		st := steps[k]
		w := st.Workload
		if !st.Idle {
			w.Seed = CellSeed(r.Info.Config.Seed, s.ID, st.Segment+1, k)
			if stopAt > 0 {
				w = r.budget(w, stopAt-written)
			}
		}
		if s.StopAfter > 0 {
			w.Duration = min(w.Duration, time.Duration(s.StopAfter)-ran)
		}
		cell := engine.Cell{Name: fmt.Sprintf("%s-s%05d", s.ID, k+1), Workload: w}
		var journalErr error
		err := r.Engine.RunCells(ctx, cell.Name, []engine.Cell{cell}, func(_ int, m engine.Measurement, wall time.Duration) error {
			if m.Engine == "" {
				m.Engine = r.Engine.Describe()
			}
			// A time series keeps its figures and histogram, not its seconds.
			m.Seconds = nil
			idx := k
			written += m.Write.Bytes
			ran += m.Elapsed
			pos := r.timelinePosition(s, steps, k+1)
			pos.Written, pos.Capacity = written, capacity
			journalErr = r.emit(Record{Type: RecSample, Stage: s.ID, Cell: &idx, Workload: &cell.Workload, Measurement: &m,
				WallNs: int64(wall)}, pos)
			// Journaled: a long series keeps every step's bins compact
			// (35 KB each decoded, a few hundred bytes encoded), as a
			// round keeps its cells'.
			m.Compact()
			ss.Samples = append(ss.Samples, &m)
			return journalErr
		})
		switch {
		case journalErr != nil:
			return journalErr
		case err != nil && ctx.Err() != nil:
			return r.interrupted(s, 0, k)
		case err != nil:
			return fmt.Errorf("%s step %d (%s): %w", s.Title, k+1, w, err)
		}
		if judge != nil && len(ss.Samples)%perRound == 0 {
			row := make([]engine.Measurement, perRound)
			for i, m := range ss.Samples[len(ss.Samples)-perRound:] {
				row[i] = *m
			}
			if err := r.emit(judge.round(row), r.timelinePosition(s, steps, k+1)); err != nil {
				return err
			}
		}
	}
	switch {
	case filled():
		why = fillsWhy()
	case timed():
		why = timeWhy()
	}
	if judge != nil {
		if judge.steady() {
			why = fmt.Sprintf("steady state at round %d", judge.ssRound)
		}
		rec := judge.end("")
		rec.Message = fmt.Sprintf("%d of %d steps: stopped when %s", len(ss.Samples), len(steps), why)
		return r.emit(rec, Position{Stage: s})
	}
	f := false
	return r.emit(Record{Type: RecStageEnd, Stage: s.ID, Steady: &f,
		Message: fmt.Sprintf("%d of %d steps: stopped when %s", len(ss.Samples), len(steps), why)}, Position{Stage: s})
}

// budget cuts a timeline step at what is left of its stage's byte budget
// (left bytes written, over the target set): a volume as well as its time,
// whichever comes first (engine.Workload.Passes), so that the fills rule
// ends the series at its budget, never an interval past it. Passes are of
// each target's active range and count reads too: left is spread over
// the set's ranges and scaled by the workload's write share.
func (r *Runner) budget(w engine.Workload, left int64) engine.Workload {
	share := float64(100-w.ReadPct) / 100
	var ranges int64
	for _, t := range r.Info.Targets {
		ranges += w.RangeBytes(t.CapacityBytes)
	}
	if share <= 0 || ranges <= 0 || left <= 0 {
		return w
	}
	w.Passes = float64(left) / share / float64(ranges)
	return w
}

// fillSlack is how short of a byte budget a cut step may end: each thread
// of each target rounds its share of the volume to whole blocks. Within
// it, the budget is met; another step would write blocks, not the budget.
func (r *Runner) fillSlack(steps []Step) int64 {
	var most int64
	for _, st := range steps {
		w := st.Workload
		most = max(most, int64(max(w.TC, 1))*int64(w.MeanBlockSize()+0.5))
	}
	return most * int64(max(len(r.Info.Targets), 1))
}

// timelinePosition estimates what is left of a timeline stage from its
// steps' nominal durations.
func (r *Runner) timelinePosition(s *Stage, steps []Step, next int) Position {
	p := Position{Stage: s, Cell: next, Steps: len(steps), AtMost: s.StopFills > 0 || len(s.Tracking) > 0, estimated: true}
	if next > 0 && next <= len(steps) {
		p.Step = steps[next-1]
	}
	for _, st := range steps[min(next, len(steps)):] {
		p.RoundLeft += st.Workload.Duration
	}
	p.StageLeftMin, p.StageLeftMax = p.RoundLeft, p.RoundLeft
	return p
}
