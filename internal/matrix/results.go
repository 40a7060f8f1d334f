package matrix

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// Schema is the version of results.json.
const Schema = 1

// Results is results.json.
type Results struct {
	Schema     int    `json:"schema"`
	Tool       string `json:"tool"`
	Version    string `json:"version"`
	Spec       string `json:"spec"`    // "PTS 2.0.2"
	Profile    string `json:"profile"` // enterprise, client
	Engine     string `json:"engine"`
	Conforming bool   `json:"conforming"`
	// Verdict is the compliance verdict in words, naming the tests it
	// covers; Scope says what the results are of when that is not one
	// device (a target set loaded at once).
	Verdict    string       `json:"verdict"`
	Scope      string       `json:"scope,omitempty"`
	Deviations []Deviation  `json:"deviations"`
	WriteCache string       `json:"write_cache"` // during the run: enabled, disabled or unknown
	Start      time.Time    `json:"start"`
	Finish     time.Time    `json:"finish"`
	Complete   bool         `json:"complete"`
	Tests      []TestResult `json:"tests"`
	// Telemetry is the drives' telemetry sources, or why there were none;
	// HealthDeviations the drives' health going wrong in a measurement
	// window (health.go): not deviations from the PTS, but what
	// `check --strict-health` fails on.
	Telemetry        *Telemetry        `json:"telemetry,omitempty"`
	HealthDeviations []HealthDeviation `json:"health_deviations,omitempty"`
}

// Deviation is one way the run departs from the PTS, in plain words.
type Deviation struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// TestResult is one test with its stages (throughput has one per block size).
type TestResult struct {
	Test   pts.TestID    `json:"test"`
	Name   string        `json:"name"`
	Stages []StageResult `json:"stages"`
	// OperatingPoints are a demand-intensity test's MaxIOPS, MidIOPS and
	// MinIOPS points, chosen from its demand-variation window.
	OperatingPoints []pts.OperatingPoint `json:"operating_points,omitempty"`
}

// StageResult is one stage's results.
type StageResult struct {
	// Kind is the stage's procedure, for results built from its journal
	// (Build, Load); results.json does not record it.
	Kind         pts.Kind         `json:"-"`
	ID           string           `json:"id"`
	Title        string           `json:"title"`
	Started      bool             `json:"started"`
	Complete     bool             `json:"complete"`
	Steady       bool             `json:"steady"`
	SSRound      int              `json:"ss_round,omitempty"`
	Window       [2]int           `json:"window"` // first and last round of the measurement window
	Rounds       int              `json:"rounds"`
	Error        string           `json:"error,omitempty"` // what stopped an unfinished stage
	Purge        *pts.PurgeResult `json:"purge,omitempty"`
	Precondition *Precondition    `json:"precondition,omitempty"`
	Tracking     []TrackingResult `json:"tracking"`
	// Judged is the steady-state verdict of the window ending at each
	// complete round, Judged[r-1] for round r, as the runner journaled
	// it; nil before the window is full. results.json does not hold it.
	Judged []*steadystate.Joint `json:"-"`
	Cells  []CellResult         `json:"cells"`
	// A timeline stage (WSAT, HIR, XSR) has no rounds: every step's
	// figures, the test's summary of them, why it stopped, and the target
	// set's capacity its drive fills count in.
	Timeline bool         `json:"timeline,omitempty"`
	Samples  []pts.Sample `json:"samples,omitempty"`
	Summary  *pts.Summary `json:"summary,omitempty"`
	EndedBy  string       `json:"ended_by,omitempty"`
	Capacity int64        `json:"capacity_bytes,omitempty"`
	// TailHist merges the response times of a timeline's last hour of I/O
	// (TailFrom: the minute it starts), for its histogram page.
	TailHist *engine.Histogram `json:"tail_hist,omitempty"`
	TailFrom float64           `json:"tail_from_min,omitempty"`
	// Point is the operating point a demand-intensity stage ran at (its
	// TC/QD, and the figures it was chosen by); nil for other stages and
	// while the rounds it is chosen from have not ended.
	Point *pts.OperatingPoint `json:"operating_point,omitempty"`
	// Health is the drives' telemetry through the stage (health.go); nil
	// without any.
	Health *StageHealth `json:"health,omitempty"`
}

// Precondition summarises the workload-independent preconditioning.
type Precondition struct {
	Workload engine.Workload `json:"workload"`
	Bytes    int64           `json:"bytes_written"`
	Seconds  float64         `json:"seconds"`
	MBps     float64         `json:"mbps"`
}

// SeeksSteady says the stage is judged for steady state: rounds, or a
// timeline in rounds (WSAT's steady-state method).
func (s StageResult) SeeksSteady() bool { return !s.Timeline || len(s.Tracking) > 0 }

// Status is where the stage, of test, stands.
func (s StageResult) Status(test pts.TestID) pts.StageStatus {
	st := pts.StageStatus{Title: s.Title, Custom: test == pts.Custom, Started: s.Started, Complete: s.Complete,
		Published: s.Published(), SeeksSteady: s.SeeksSteady(), Steady: s.Steady, Rounds: s.Rounds, SSRound: s.SSRound,
		Window: s.Window, Series: s.Timeline, Samples: len(s.Samples), Error: s.Error, Point: s.Point}
	for _, x := range s.Samples {
		if x.Idle {
			st.Idle++
		}
	}
	if s.Summary != nil {
		st.Figures = s.Summary.Figures
	}
	return st
}

// View is the stage's standing in its procedure's words.
func (s StageResult) View(test pts.TestID) pts.StageView {
	return pts.ProcedureOf(s.Kind).View(s.Status(test))
}

// TrackingResult is a tracking variable: its value every round and the
// verdict on the measurement window.
type TrackingResult struct {
	Name    string              `json:"name"`
	Cell    int                 `json:"cell"`
	Metric  pts.Metric          `json:"metric"`
	Unit    string              `json:"unit"`
	Values  []float64           `json:"values"` // round 1 first
	Verdict steadystate.Verdict `json:"verdict"`
}

// CellResult is one cell's window aggregate.
type CellResult struct {
	Index     int         `json:"index"`
	Key       pts.CellKey `json:"key"`
	Access    string      `json:"access"`
	BlockSize int64       `json:"bs_bytes"`
	ReadPct   int         `json:"read_pct"`
	TC        int         `json:"tc"`
	QD        int         `json:"qd"`
	// PreWrite marks a demand-intensity round's between-round pre-write,
	// not a cell of its TC × QD matrix.
	PreWrite bool `json:"prewrite,omitempty"`
	// BlockSplit and Zones are a composite workload's (ECW's): BlockSize
	// is then 0, the split's sizes being many.
	BlockSplit []engine.BlockShare `json:"bs_split,omitempty"`
	Zones      []engine.Zone       `json:"zones,omitempty"`
	IOPS       float64             `json:"iops"`
	ReadIOPS   float64             `json:"read_iops"`
	WriteIOPS  float64             `json:"write_iops"`
	MBps       float64             `json:"mbps"`
	ReadMBps   float64             `json:"read_mbps"`
	WriteMBps  float64             `json:"write_mbps"`
	LatMeanMs  float64             `json:"lat_mean_ms"`
	LatMaxMs   float64             `json:"lat_max_ms"`
	// LatMaxMeanMs is the mean of the per-round maxima, which other tools
	// report; LatMaxMs is the true maximum over the window.
	LatMaxMeanMs  float64 `json:"lat_max_mean_ms"`
	LatP99Ms      float64 `json:"lat_p99_ms"`
	LatP9999Ms    float64 `json:"lat_p99_99_ms"`
	LatP99999Ms   float64 `json:"lat_p99_999_ms"`
	ReadLatMeanMs float64 `json:"read_lat_mean_ms"`
	WriteLatMean  float64 `json:"write_lat_mean_ms"`
	// LatPctLatency is the latency the percentiles are of: "lat" (total,
	// submission to completion: the PTS response time) or "clat" (fio's
	// completion latency, when fio printed no other). Empty when absent.
	LatPctLatency string `json:"lat_pct_latency,omitempty"`
	// LatPctSource is where the percentiles come from: PctHistogram or
	// PctPrinted.
	LatPctSource string `json:"lat_pct_source,omitempty"`
	// LatPctUpperBound says printed percentiles of several parts (rounds,
	// jobs, hosts, read and write) were combined by their maximum: an upper
	// bound on the percentile of all their I/Os, not that percentile.
	LatPctUpperBound bool `json:"lat_pct_upper_bound,omitempty"`
	// Hist is the window's merged response-time histogram.
	Hist     *engine.Histogram `json:"lat_hist,omitempty"`
	PerRound []RoundValue      `json:"rounds"` // the measurement window's rounds
	// AllRounds is every complete round, for convergence plots.
	AllRounds []RoundValue `json:"all_rounds"`
	Targets   []TargetCell `json:"targets,omitempty"`
	// CPU is the host CPU the cell took, the window's mean; nil when the
	// engine measured none (the simulated drive, imports).
	CPU *CPUResult `json:"host_cpu,omitempty"`
	// Published marks values imported from a table: one value per cell, no
	// rounds.
	Published bool `json:"published,omitempty"`
}

// Where a cell's percentiles come from (CellResult.LatPctSource).
const (
	// PctHistogram: the window's merged latency histograms, exact to a bin.
	PctHistogram = "histogram"
	// PctPrinted: the percentiles fio printed (its JSON without json+
	// bins); only those it printed, never interpolated.
	PctPrinted = "fio_printed"
)

// RoundValue is one cell in one round.
type RoundValue struct {
	Round     int     `json:"round"`
	IOPS      float64 `json:"iops"`
	MBps      float64 `json:"mbps"`
	LatMeanMs float64 `json:"lat_mean_ms"`
	LatMaxMs  float64 `json:"lat_max_ms"`
	// Seconds is the round's per-second series (window rounds only), as the
	// engine measured it. It stays out of results.json: the journal holds
	// it, and results are rebuilt from the journal.
	Seconds []engine.Second `json:"-"`
	// Series is the same series in people's units, with each target's
	// share: for workloads (custom cells) only, whose time series is what
	// they are run for.
	Series []Interval `json:"series,omitempty"`
}

// TargetCell is one target's share of a cell in a multi-target run.
type TargetCell struct {
	Target    string  `json:"target"`
	Host      string  `json:"host,omitempty"`
	IOPS      float64 `json:"iops"`
	MBps      float64 `json:"mbps"`
	LatMeanMs float64 `json:"lat_mean_ms"`
	LatMaxMs  float64 `json:"lat_max_ms"`
	// CPU is what the threads driving this target took (fio's usr_cpu and
	// sys_cpu of its jobs), the window's mean; nil when not measured.
	CPU *CPUResult `json:"host_cpu,omitempty"`
}

// CPUResult is host CPU time per second of a cell, in percent of what Of
// names: engine.CPUOfHost ("") all CPUs of the host that ran ptsrun;
// engine.CPUOfOne ("one_cpu") one CPU, so 150 is one and a half CPUs busy
// (fio servers: fio does not report their hosts' CPU counts, and for a set
// on several hosts it is the sum over them).
type CPUResult struct {
	UserPct float64 `json:"user_pct"`
	SysPct  float64 `json:"sys_pct"`
	Of      string  `json:"of,omitempty"`
}

// Pct is user plus system time.
func (c CPUResult) Pct() float64 { return c.UserPct + c.SysPct }

// Unit names what 100 % is.
func (c CPUResult) Unit() string { return engine.CPU{Of: c.Of}.Unit() }

// cpuAcc averages CPU over a window's rounds.
type cpuAcc struct {
	sum engine.CPU
	n   int
}

func (a *cpuAcc) add(c *engine.CPU) {
	if c == nil || c.Zero() {
		return
	}
	a.sum = engine.CPU{User: a.sum.User + c.User, Sys: a.sum.Sys + c.Sys, Of: c.Of}
	a.n++
}

func (a *cpuAcc) result() *CPUResult {
	if a.n == 0 {
		return nil
	}
	f := float64(a.n)
	return &CPUResult{UserPct: 100 * a.sum.User / f, SysPct: 100 * a.sum.Sys / f, Of: a.sum.Of}
}

// Build derives the results of a run from its run.json and journal.
// cut says the journal's last line was cut short by a kill.
func Build(ri pts.RunInfo, recs []pts.Record, cut bool) *Results {
	st := pts.Replay(ri.Stages, recs)
	st.Cut = cut
	return BuildState(ri, st)
}

// BuildState derives the results of a run from its run.json and the
// state its journal replays to (pts.Replayer).
func BuildState(ri pts.RunInfo, st *pts.State) *Results {
	res := &Results{Schema: Schema, Tool: "ptsrun", Version: ri.Version,
		Spec: "PTS " + pts.SpecRevision, Profile: ri.Profile.Name, Engine: ri.Engine,
		Start: st.First.Time, Finish: st.Last.Time, Complete: st.Ended}
	crit := ri.Config.SS
	for _, td := range pts.Tests {
		if !slices.Contains(ri.Config.Tests, td.ID) {
			continue
		}
		tr := TestResult{Test: td.ID, Name: td.Name}
		for i := range ri.Stages {
			s := &ri.Stages[i]
			if s.Test == td.ID {
				tr.Stages = append(tr.Stages, buildStage(ri, s, st, earlier(tr.Stages, crit.Window)))
			}
		}
		for i := range tr.Stages {
			if p := tr.Stages[i].Point; p != nil {
				tr.OperatingPoints = append(tr.OperatingPoints, *p)
			}
		}
		res.Tests = append(res.Tests, tr)
	}
	// Imported workloads that are not PTS cells.
	custom := TestResult{Test: pts.Custom, Name: "Custom workloads"}
	for i := range ri.Stages {
		if s := &ri.Stages[i]; s.Test == pts.Custom {
			sr := buildStage(ri, s, st, nil)
			withSeries(&sr, s, st.Stages[s.ID])
			custom.Stages = append(custom.Stages, sr)
		}
	}
	if len(custom.Stages) > 0 {
		res.Tests = append(res.Tests, custom)
	}
	res.WriteCache = "unknown"
	for _, wc := range st.WriteCache {
		if wc.WriteCache != nil && !wc.WriteCache.Restore {
			res.WriteCache = wc.WriteCache.After
		}
	}
	withTelemetry(st.Telemetry, res)
	res.Deviations = deviations(ri, st, res)
	res.Conforming = len(res.Deviations) == 0
	res.Verdict = verdict(ri, res)
	res.Scope = scope(ri)
	return res
}

// verdict says whether the run conforms, and for which tests: a run of
// some of the PTS's tests conforms for those only.
func verdict(ri pts.RunInfo, res *Results) (v string) {
	spec := "SNIA SSS " + ri.Profile.Short + " " + pts.SpecRevision
	var tests, outside []string
	for _, t := range res.Tests {
		td := pts.Def(t.Test)
		switch {
		case t.Test == pts.Custom:
		case td != nil && !td.InPTS():
			// A test after another method (rwsw): no conformance claimed.
			outside = append(outside, fmt.Sprintf("the %s test ran %s, and no conformance to it is claimed", t.Name, td.Reference()))
		default:
			tests = append(tests, t.Name)
		}
	}
	if len(outside) > 0 {
		note := strings.Join(outside, "; ")
		note = strings.ToUpper(note[:1]) + note[1:] + "."
		if len(tests) == 0 {
			return fmt.Sprintf("%s Its PTS methodology, as read in appendix %s: %s.", note, pts.ReadingsAppendix,
				plural(len(res.Deviations), "deviation"))
		}
		defer func() { v += " " + note }()
	}
	what := "for the " + pts.JoinAnd(tests) + " test"
	if len(tests) > 1 {
		what += "s"
	}
	if len(tests) == 0 {
		what = "(no PTS test was run)"
	}
	// What the tests rest on that is not verified spec text is in the
	// report's readings appendix: the verdict names it.
	read := ""
	if len(tests) > 0 && len(pts.ReadingsOf(ri.Config)) > 0 {
		read = ", as read in appendix " + pts.ReadingsAppendix
	}
	if res.Conforming {
		return fmt.Sprintf("CONFORMS to %s %s%s: the run followed the specification with no deviation.", spec, what, read)
	}
	return fmt.Sprintf("Does NOT conform to %s %s%s: %s.", spec, what, read, plural(len(res.Deviations), "deviation"))
}

// scope says, for a run of several targets at once, that the results are of
// the set: the PTS is written for one device, and an array is measured as
// one.
func scope(ri pts.RunInfo) string {
	if len(ri.Targets) < 2 {
		return ""
	}
	var names []string
	for _, t := range ri.Targets {
		names = append(names, t.Spec)
	}
	return fmt.Sprintf("The results are of a target set of %d targets loaded at once (%s), not of any one device: "+
		"IOPS and MB/s are the set's sums, response times the I/O-weighted means over all targets, and the verdict is the set's. "+
		"Each target's own figures are on the per-target page and in tables/targets_*.csv.", len(ri.Targets), strings.Join(names, ", "))
}

// earlier is what a test's later stages may read of its stages so far; a
// window shorter than the rule's has no average.
func earlier(done []StageResult, window int) []pts.Earlier {
	var out []pts.Earlier
	for _, s := range done {
		e := pts.Earlier{Stage: s.ID, Steady: s.Steady}
		for _, t := range s.Tracking {
			avg := math.NaN()
			if len(t.Verdict.Values) >= window {
				avg = t.Verdict.Average
			}
			e.WindowAverage = append(e.WindowAverage, avg)
		}
		out = append(out, e)
	}
	return out
}

// buildStage is a stage's results: what every stage has (its purge,
// preconditioning, error), what its procedure reads of its journal, and
// its cells' window aggregates over the window the procedure names.
func buildStage(ri pts.RunInfo, s *pts.Stage, st *pts.State, before []pts.Earlier) StageResult {
	ss := st.Stages[s.ID]
	var capacity int64
	for _, t := range ri.Targets {
		capacity += t.CapacityBytes
	}
	proc := s.Procedure()
	o := proc.Outcome(pts.OutcomeInput{Config: ri.Config, Stage: s, State: st, Stages: ri.Stages, Earlier: before, Capacity: capacity})
	out := StageResult{Kind: proc.Kind(), ID: s.ID, Title: o.Title, Started: ss.Started, Complete: ss.Ended, Rounds: o.Rounds,
		Window: o.Window, Steady: o.Steady, SSRound: o.SSRound, Judged: o.Judged,
		Timeline: o.Series, Samples: o.Samples, Summary: o.Summary, EndedBy: o.EndedBy, Capacity: o.Capacity,
		TailHist: o.TailHist, TailFrom: o.TailFrom, Point: o.Point}
	if !ss.Ended {
		for _, e := range st.Errors {
			if e.Stage == s.ID {
				out.Error = e.Error // the last one stopped the run
			}
		}
	}
	if p := st.Purges[s.ID]; p != nil {
		out.Purge = p.Purge
	}
	if w := st.WIPC[s.ID]; w != nil && w.Measurement != nil && w.Workload != nil {
		m := w.Measurement
		out.Precondition = &Precondition{Workload: *w.Workload, Bytes: m.Write.Bytes,
			Seconds: m.Elapsed.Seconds(), MBps: m.Write.MBps(m.Elapsed)}
	}
	for _, t := range o.Tracking {
		out.Tracking = append(out.Tracking, TrackingResult{Name: t.Name, Cell: t.Cell, Metric: t.Metric, Unit: t.Metric.Unit(),
			Values: t.Values, Verdict: t.Verdict})
	}
	for _, c := range s.Cells {
		out.Cells = append(out.Cells, buildCell(c, ss, o.Window[0], o.Window[1]))
	}
	return out
}

type targetAcc struct {
	host     string
	iops, mb float64
	lat      engine.DirStats
	cpu      cpuAcc
	n        int
}

func ms(ns float64) float64 { return ns / 1e6 }

func buildCell(c pts.Cell, ss *pts.StageState, first, last int) CellResult {
	w := c.Workload
	cr := CellResult{Index: c.Index, Key: c.Key, Access: w.Access.String(), BlockSize: w.BlockSize,
		ReadPct: w.ReadPct, TC: w.TC, QD: w.QD, PreWrite: c.PreWrite, BlockSplit: w.BlockSplit, Zones: w.Zones}
	var read, write, total engine.DirStats
	var k int
	var withHist, withPrinted int // rounds whose percentiles are in bins, or printed
	for r := 1; r <= len(ss.Cells); r++ {
		if m := ss.Cells[r-1][c.Index]; m != nil {
			t := m.Counts()
			cr.AllRounds = append(cr.AllRounds, RoundValue{Round: r, IOPS: m.IOPS(), MBps: m.MBps(),
				LatMeanMs: ms(t.MeanLatNs()), LatMaxMs: ms(float64(t.LatMaxNs))})
		}
	}
	targets := map[string]*targetAcc{}
	var order []string
	var cpu cpuAcc
	for r := first; r <= last && r >= 1; r++ {
		m := ss.Cells[r-1][c.Index]
		if m == nil {
			continue
		}
		k++
		t := m.Counts() // the bins are merged once, from read and write, below
		switch {
		case m.Read.Hist != nil || m.Write.Hist != nil:
			withHist++
		case len(t.Printed) > 0:
			withPrinted++
		}
		cr.IOPS += m.IOPS()
		cr.ReadIOPS += m.Read.IOPS(m.Elapsed)
		cr.WriteIOPS += m.Write.IOPS(m.Elapsed)
		cr.MBps += m.MBps()
		cr.ReadMBps += m.Read.MBps(m.Elapsed)
		cr.WriteMBps += m.Write.MBps(m.Elapsed)
		cr.LatMaxMeanMs += ms(float64(t.LatMaxNs))
		read.Merge(m.Read)
		write.Merge(m.Write)
		total.Merge(t)
		cr.PerRound = append(cr.PerRound, RoundValue{Round: r, IOPS: m.IOPS(), MBps: m.MBps(),
			LatMeanMs: ms(t.MeanLatNs()), LatMaxMs: ms(float64(t.LatMaxNs)), Seconds: m.Seconds})
		cpu.add(&m.CPU)
		for _, ts := range m.Targets {
			e := targets[ts.Target]
			if e == nil {
				e = &targetAcc{host: ts.Host}
				targets[ts.Target] = e
				order = append(order, ts.Target)
			}
			var tt engine.DirStats
			r, w := ts.Read, ts.Write
			r.Hist, w.Hist = nil, nil // per target: rates and means only
			tt.Merge(r)
			tt.Merge(w)
			e.iops += tt.IOPS(m.Elapsed)
			e.mb += tt.MBps(m.Elapsed)
			e.lat.Merge(tt)
			e.cpu.add(ts.CPU)
			e.n++
		}
	}
	if k == 0 {
		return cr // no rounds: absent, and PerRound says so
	}
	f := float64(k)
	cr.IOPS /= f
	cr.ReadIOPS /= f
	cr.WriteIOPS /= f
	cr.MBps /= f
	cr.ReadMBps /= f
	cr.WriteMBps /= f
	cr.LatMaxMeanMs /= f
	var bins engine.DirStats
	bins.Merge(read)
	bins.Merge(write)
	total.Hist = bins.Hist
	cr.LatMeanMs = ms(total.MeanLatNs())
	cr.LatMaxMs = ms(float64(total.LatMaxNs))
	cr.LatP99Ms, cr.LatP9999Ms, cr.LatP99999Ms = math.NaN(), math.NaN(), math.NaN()
	kind := total.PctLat
	if kind == "" {
		kind = engine.LatTotal
	}
	switch {
	case kind == engine.LatMixed:
		// Parts of different latencies: no percentile is of one of them.
	case withHist == k && total.Hist != nil && total.Hist.Count() > 0:
		cr.LatP99Ms = ms(float64(total.PercentileNs(99)))
		cr.LatP9999Ms = ms(float64(total.PercentileNs(99.99)))
		cr.LatP99999Ms = ms(float64(total.PercentileNs(99.999)))
		cr.LatPctLatency, cr.LatPctSource = kind, PctHistogram
	case withPrinted == k && len(total.Printed) > 0:
		// fio output without json+ bins: what fio printed, the maximum
		// over the parts when there are several (see engine.DirStats).
		for _, p := range []struct {
			pct float64
			dst *float64
		}{{99, &cr.LatP99Ms}, {99.99, &cr.LatP9999Ms}, {99.999, &cr.LatP99999Ms}} {
			if ns, ok := total.PrintedNs(p.pct); ok {
				*p.dst = ms(ns)
			}
		}
		if !math.IsNaN(cr.LatP99Ms) || !math.IsNaN(cr.LatP9999Ms) || !math.IsNaN(cr.LatP99999Ms) {
			cr.LatPctLatency, cr.LatPctSource, cr.LatPctUpperBound = kind, PctPrinted, total.PrintedBound
		}
	}
	// Otherwise some rounds have bins and others not (or nothing): the
	// percentiles are absent, rather than zeros or those of a part.
	cr.ReadLatMeanMs = ms(read.MeanLatNs())
	cr.WriteLatMean = ms(write.MeanLatNs())
	cr.Hist = total.Hist
	cr.CPU = cpu.result()
	for _, name := range order {
		e := targets[name]
		cr.Targets = append(cr.Targets, TargetCell{Target: name, Host: e.host, IOPS: e.iops / float64(e.n),
			MBps: e.mb / float64(e.n), LatMeanMs: ms(e.lat.MeanLatNs()), LatMaxMs: ms(float64(e.lat.LatMaxNs)),
			CPU: e.cpu.result()})
	}
	return cr
}

// stage is the result of the stage with that ID, or nil.
func (r *Results) stage(id string) *StageResult {
	for i := range r.Tests {
		for j := range r.Tests[i].Stages {
			if s := &r.Tests[i].Stages[j]; s.ID == id {
				return s
			}
		}
	}
	return nil
}

// plural writes n thing or n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func stageTitle(ri pts.RunInfo, id string) string { return stageOf(ri, id).Title }

// stageOf is the run's stage of that ID, or one of rounds titled id.
func stageOf(ri pts.RunInfo, id string) pts.Stage {
	for _, s := range ri.Stages {
		if s.ID == id {
			return s
		}
	}
	return pts.Stage{ID: id, Title: id}
}

func label(enabled bool) string {
	if enabled {
		return "enabled"
	}
	return "disabled"
}

// withSeries adds each workload round's series to a custom stage's cells.
func withSeries(sr *StageResult, s *pts.Stage, ss *pts.StageState) {
	if ss == nil {
		return
	}
	for ci := range sr.Cells {
		c := &sr.Cells[ci]
		if c.Index >= len(s.Cells) {
			continue
		}
		w := s.Cells[c.Index].Workload
		for k := range c.PerRound {
			r := c.PerRound[k].Round
			if r < 1 || r > len(ss.Cells) || c.Index >= len(ss.Cells[r-1]) {
				continue
			}
			c.PerRound[k].Series = SeriesOf(w, ss.Cells[r-1][c.Index])
		}
	}
}
