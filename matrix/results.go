package matrix

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/pts"
	"github.com/ptsrun/ptsrun/steadystate"
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

// StageResult is one purge → precondition → rounds unit.
type StageResult struct {
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
	Cells        []CellResult     `json:"cells"`
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
				tr.Stages = append(tr.Stages, buildStage(ri, s, st, crit, earlier(tr.Stages, crit.Window)))
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
			sr := buildStage(ri, s, st, crit, nil)
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
	res.Deviations = deviations(ri, st, res)
	res.Conforming = len(res.Deviations) == 0
	res.Verdict = verdict(ri, res)
	res.Scope = scope(ri)
	return res
}

// verdict says whether the run conforms, and for which tests: a run of
// some of the PTS's tests conforms for those only.
func verdict(ri pts.RunInfo, res *Results) string {
	spec := "SNIA SSS " + ri.Profile.Short + " " + pts.SpecRevision
	var tests []string
	for _, t := range res.Tests {
		if t.Test != pts.Custom {
			tests = append(tests, t.Name)
		}
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

func buildStage(ri pts.RunInfo, s *pts.Stage, st *pts.State, crit steadystate.Criteria, before []pts.Earlier) StageResult {
	ss := st.Stages[s.ID]
	out := StageResult{ID: s.ID, Title: s.Title, Started: ss.Started, Complete: ss.Ended, Rounds: ss.Rounds()}
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
	if s.IsTimeline() {
		if s.Point != nil {
			// The point the stage ran at, as its start journaled it; a
			// journal from before that was journaled: the same choice the
			// runner made, from the same rounds.
			p := ss.Point
			if from := st.Stages[s.Point.From]; p == nil && from != nil && from.Ended {
				if _, q, err := pts.ResolvePoint(*s, ri.Stages, st.Stages, crit.Window); err == nil {
					p = &q
				}
			}
			if p != nil {
				q := *p // the journal's record stays as journaled
				out.Point = &q
				out.Title = fmt.Sprintf("%s (TC%d/QD%d)", s.Title, p.TC, p.QD)
				at := s.AtPoint(p.TC, p.QD)
				s = &at
			}
		}
		buildTimeline(ri, s, ss, before, &out)
		if out.Point != nil {
			out.Point.Run = pts.PointRunOf(out.Summary)
		}
		if s.RoundSteps() > 0 {
			timelineRounds(s, ss, crit, &out)
		}
		return out
	}
	n := ss.Rounds()
	last := n
	if ss.Ended && len(ss.Window) == 2 {
		last = min(ss.Window[1], n)
	}
	first := max(1, last-crit.Window+1)
	out.Window = [2]int{first, last}
	out.Steady = ss.Ended && ss.Steady
	out.SSRound = ss.SSRound
	if !ss.Ended && last >= crit.Window {
		// An unfinished stage: say how its last window looks, never steady.
		out.Steady = false
	}
	for v, t := range s.Tracking {
		tr := TrackingResult{Name: t.Name, Cell: t.Cell, Metric: t.Metric, Unit: t.Metric.Unit()}
		if v < len(ss.Tracking) {
			tr.Values = ss.Tracking[v][:n]
		}
		tr.Verdict = crit.CheckAt(tr.Values, last)
		out.Tracking = append(out.Tracking, tr)
	}
	for _, c := range s.Cells {
		out.Cells = append(out.Cells, buildCell(c, ss, first, last))
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

// stageActiveRange is the active range the cells of a test's stages ran
// with; ok is false when the test has no cells in the run.
func stageActiveRange(ri pts.RunInfo, test pts.TestID) (float64, bool) {
	for _, s := range ri.Stages {
		if s.Test == test && len(s.Cells) > 0 {
			return s.Cells[0].Workload.ActiveRange, true
		}
	}
	return 0, false
}

// rangeNotRecorded says that imported results do not record the active
// range of a stage of the test.
func rangeNotRecorded(ri pts.RunInfo, test pts.TestID) bool {
	for _, s := range ri.Stages {
		if s.Test == test && ri.ActiveRangeNotRecorded(s.ID) {
			return true
		}
	}
	return false
}

// SubsetDeviations say what a quick look (--block-sizes, --mixes) left out
// of each test's matrix, one line per test that lost anything; plan shows
// them before the run.
func SubsetDeviations(cfg pts.Config, p pts.Profile) []Deviation {
	var out []Deviation
	for _, td := range pts.Tests {
		if !slices.Contains(cfg.Tests, td.ID) {
			continue
		}
		allSizes, allMixes := pts.TestMatrix(td.ID, p)
		sizes, mixes := cfg.Subset(td.ID, p)
		var goneSizes []string
		for _, bs := range allSizes {
			if !slices.Contains(sizes, bs) {
				goneSizes = append(goneSizes, strings.TrimSuffix(engine.FormatSize(bs), " KiB"))
			}
		}
		var goneMixes []string
		for _, m := range allMixes {
			if !slices.Contains(mixes, m) {
				goneMixes = append(goneMixes, MixLabel(m))
			}
		}
		if len(goneSizes)+len(goneMixes) == 0 {
			continue
		}
		run := 0
		for _, bs := range sizes {
			if cfg.Runnable(bs) {
				run += len(mixes)
			}
		}
		var gone, flags []string
		if len(goneSizes) > 0 {
			flags = append(flags, "--block-sizes")
			what := "block size"
			if td.ID == "tp" {
				what = "the stage of block size" // its purge and preconditioning go with it
			}
			if len(goneSizes) > 1 {
				what += "s"
			}
			gone = append(gone, what+" "+pts.JoinAnd(goneSizes)+" KiB")
		}
		if len(goneMixes) > 0 {
			flags = append(flags, "--mixes")
			what := "R/W mix"
			if len(goneMixes) > 1 {
				what += "es"
			}
			gone = append(gone, what+" "+pts.JoinAnd(goneMixes))
		}
		out = append(out, Deviation{Code: "subset", Text: fmt.Sprintf("%s: a quick look at %d of the matrix's %d cells (%s); left out: %s.",
			td.Name, run, len(allSizes)*len(allMixes), strings.Join(flags, ", "), strings.Join(gone, "; "))})
	}
	return out
}

// purgeDev is a deviation of one kind and text, and the stages it touched.
type purgeDev struct {
	code, text string
	stages     []string
}

// cacheSatisfies reports whether a write-cache record ends in the state the
// profile asks for; a drive without a volatile cache satisfies WCD.
func cacheSatisfies(w *pts.WriteCacheResult) bool {
	return w.After == label(w.Requested) || w.After == pts.NoWriteCache && !w.Requested
}

// deviations lists every departure from PTS 2.0.2, in plain words.
func deviations(ri pts.RunInfo, st *pts.State, res *Results) []Deviation {
	var out []Deviation
	add := func(code, format string, a ...any) {
		d := Deviation{Code: code, Text: fmt.Sprintf(format, a...)}
		if !slices.Contains(out, d) { // a resumed run meets the same failure again: say it once
			out = append(out, d)
		}
	}
	cfg := ri.Config
	if ri.Imported {
		add("imported", "The results were imported (%s): ptsrun did not run these workloads, nor the purge and "+
			"preconditioning the PTS requires, and cannot vouch for how they were measured.", ri.Source)
		if ri.Import != nil {
			// What the source itself shows departing from the profile.
			for _, d := range ri.Import.Departures {
				add("imported_departure", "%s", d)
			}
		}
	}
	if ri.Config.Engine == engine.Sim || strings.HasPrefix(ri.Engine, engine.Sim) {
		add("simulated", "The device is ptsrun's simulated SSD: the results describe a model, not hardware.")
	}
	if ri.Workload {
		// Nothing of the PTS was asked for: the rest does not apply.
		if files, ok := strings.CutPrefix(ri.Source, "ptsrun fio: "); ok && len(ri.Stages) == 1 {
			add("workload", "The fio job files %s ran as written with `ptsrun fio`, outside the PTS: no purge, no preconditioning, "+
				"no steady state; each of their %d reporting groups is a cell.", files, len(ri.Stages[0].Cells))
			return out
		}
		if n := len(ri.Stages[0].Cells); len(ri.Stages) == 1 && n > 1 {
			add("workload", "%d workloads run one after the other with `ptsrun workload`, outside the PTS: no purge, no preconditioning, no steady state.", n)
			return out
		}
		add("workload", "One workload run with `ptsrun workload`, outside the PTS: no purge, no preconditioning, "+
			"one measurement of %v, no steady state.", time.Duration(cfg.CellTime))
		return out
	}
	if ct := time.Duration(cfg.CellTime); ct != pts.DefaultCellTime {
		add("cell_time", "Each cell ran %v instead of the PTS's %v.", ct, pts.DefaultCellTime)
	}
	// Each test's active range against the profile's, from the cells as
	// they ran; above is a departure as much as below.
	for _, td := range pts.Tests {
		ar, ok := stageActiveRange(ri, td.ID)
		want := ri.Profile.ActiveRangeOf(td.ID)
		switch {
		case !ok || ar == want || rangeNotRecorded(ri, td.ID):
			// An import that does not record it says so itself.
		case ar < want:
			add("active_range", "%s: the active range was %g %%, below the %s profile's %g %%.", td.Name, ar, ri.Profile.Short, want)
		default:
			add("active_range", "%s: the active range was %g %%, above the %s profile's %g %%.", td.Name, ar, ri.Profile.Short, want)
		}
	}
	// A test's own parameters set otherwise than their defaults; another
	// harness's reading of the PTS is not a deviation: the readings
	// appendix says which the run read.
	for _, t := range pts.Tests {
		for _, p := range t.Params {
			v, ok := cfg.Params[p.Flag]
			if _, another := p.Another(v); ok && v != p.Default && !p.Method && !another && slices.Contains(cfg.Tests, t.ID) {
				add("param", "%s: --%s %s instead of %s.", t.Name, p.Flag, v, p.Default)
			}
		}
	}
	for _, t := range pts.Tests {
		if t.Departures != nil && slices.Contains(cfg.Tests, t.ID) {
			for _, d := range t.Departures(cfg) {
				add("test", "%s", d)
			}
		}
	}
	if pc := cfg.PCActiveRange; pc > 0 && pc != 100 {
		add("pc_active_range", "The workload-independent preconditioning covered %g %% of the device, not all of it.", pc)
	}
	out = append(out, SubsetDeviations(cfg, ri.Profile)...)
	// Of the block sizes asked for, those the targets cannot do.
	var left []string
	var planned []int64
	for _, t := range cfg.Tests {
		sizes, _ := cfg.Subset(t, ri.Profile)
		planned = append(planned, sizes...)
	}
	for _, bs := range planned {
		if l := engine.FormatSize(bs); !cfg.Runnable(bs) && !slices.Contains(left, l) {
			left = append(left, l)
		}
	}
	if len(left) > 0 {
		add("block_sizes", "The %s cells were left out: the target's logical block size is %d bytes, and no I/O can be smaller.",
			pts.JoinAnd(left), cfg.MinBlock)
	}
	def := steadystate.Default()
	if cfg.SS != def {
		add("ss_criteria", "Steady state was judged on a %d-round window, range ≤ %g %%, slope excursion ≤ %g %% instead of the PTS's 5 rounds, 20 %%, 10 %%.",
			cfg.SS.Window, cfg.SS.MaxRange*100, cfg.SS.MaxSlope*100)
	}
	if cfg.MaxRounds < pts.DefaultMaxRounds {
		add("max_rounds", "The round limit was %d instead of the PTS's %d.", cfg.MaxRounds, pts.DefaultMaxRounds)
	}
	// One line per kind of purge deviation, naming every stage it touched.
	var purges []*purgeDev
	addPurge := func(code, text, stage string) {
		for _, p := range purges {
			if p.code == code && p.text == text {
				p.stages = append(p.stages, stage)
				return
			}
		}
		purges = append(purges, &purgeDev{code, text, []string{stage}})
	}
	for _, s := range ri.Stages {
		if !s.Purge {
			continue
		}
		p := st.Purges[s.ID]
		switch {
		case p == nil || p.Purge == nil:
			if st.Stages[s.ID].Started {
				addPurge("purge_missing", "no purge is recorded.", s.Title)
			}
		case p.Purge.Skipped:
			addPurge("purge_none", "the device was not purged (--purge none).", s.Title)
		case !p.Purge.Compliant:
			addPurge("purge_substitute", fmt.Sprintf("the device was prepared with %s, a substitute that is not a PTS purge.", p.Purge.Method), s.Title)
		}
	}
	for _, p := range purges {
		add(p.code, "%s: %s", pts.JoinAnd(p.stages), p.text)
	}
	// The setting at the start, then each stage's checks: one line per
	// reason, naming the stages where a check found the cache wrong and
	// could not put it right.
	var first string
	var checks []*purgeDev
	for _, wc := range st.WriteCache {
		w := wc.WriteCache
		if w == nil || w.Restore || cacheSatisfies(w) {
			continue
		}
		why := w.Error
		switch {
		case w.After == pts.NoWriteCache:
			why = "the drive has no volatile write cache"
		case why == "":
			why = "state after setting: " + w.After
		}
		want := strings.ToUpper(label(w.Requested)[:1]) + label(w.Requested)[1:]
		if w.Check == "" {
			first = why
			add("write_cache", "The write cache could not be set to %s as the %s profile asks (%s).", want, ri.Profile.Short, why)
			continue
		}
		if first != "" {
			continue // the setting at the start failed already, which says it all
		}
		text := fmt.Sprintf("the write cache was %s %s and could not be set back to %s (%s).", w.Before, w.Check, want, why)
		found := false
		for _, c := range checks {
			if c.text == text {
				c.stages, found = append(c.stages, stageTitle(ri, wc.Stage)), true
			}
		}
		if !found {
			checks = append(checks, &purgeDev{"write_cache", text, []string{stageTitle(ri, wc.Stage)}})
		}
	}
	for _, c := range checks {
		add(c.code, "%s: %s", pts.JoinAnd(slices.Compact(c.stages)), c.text)
	}
	for _, t := range res.Tests {
		if t.Test == pts.Custom {
			continue // outside the PTS: no steady-state verdict to miss
		}
		for _, s := range t.Stages {
			switch {
			case s.Timeline && s.Complete && s.SeeksSteady() && !s.Steady:
				add("not_steady", "%s: steady state was not reached in %d rounds (the round limit); the time series is reported as it ran.",
					s.Title, s.Rounds)
			case s.Timeline && s.Complete:
				// One stimulus over time: no steady-state verdict to miss.
			case s.Timeline && !s.Complete && s.Started:
				if s.Error != "" {
					add("error", "%s: the time series was stopped by an error after %s: %s.", s.Title, plural(len(s.Samples), "step"),
						strings.TrimSuffix(s.Error, "."))
				} else {
					add("incomplete", "%s: the time series did not finish (%s).", s.Title, plural(len(s.Samples), "step"))
				}
			case s.Complete && !s.Steady:
				add("not_steady", "%s: steady state was not reached in %d rounds; results are from the last %d rounds (%d–%d).",
					s.Title, s.Rounds, s.Window[1]-s.Window[0]+1, s.Window[0], s.Window[1])
			case !s.Started && !s.Published():
				add("not_run", "%s: not run; the run stopped before it.", s.Title)
			case !s.Complete && s.Error != "":
				add("error", "%s: stopped by an error after %s: %s.", s.Title, plural(s.Rounds, "complete round"), strings.TrimSuffix(s.Error, "."))
			case !s.Complete:
				add("incomplete", "%s: the stage did not finish (%s).", s.Title, plural(s.Rounds, "complete round"))
			}
		}
	}
	for _, e := range st.Errors {
		why := strings.TrimSuffix(e.Error, ".")
		switch s := res.stage(e.Stage); {
		case s != nil && s.Complete:
			// The run went on after it (resume): say that it happened.
			add("error_resumed", "%s: an error stopped the run, which was then resumed: %s.", s.Title, why)
		case s == nil && !st.Ended:
			add("error", "The run was stopped by an error: %s.", why)
		}
	}
	for i, r := range st.Resumes {
		if rs := res.stage(r.Stage); rs != nil && rs.Timeline && r.Cell != nil {
			rest := "a gap ptsrun did not time"
			if i < len(st.ResumeGaps) {
				rest = st.ResumeGaps[i].Round(time.Second).String()
			}
			add("resumed", "The run was interrupted and resumed: %s's time series continues at step %d after a gap of %s, "+
				"in which the drive rested; the samples on either side are not contiguous in time.", stageTitle(ri, r.Stage), *r.Cell+1, rest)
			continue
		}
		if r.Round > 0 {
			add("resumed", "The run was interrupted and resumed: %s round %d was re-run from its first cell.", stageTitle(ri, r.Stage), r.Round)
		} else {
			from := "its purge"
			if rs := res.stage(r.Stage); rs != nil && rs.Point != nil {
				from = "its pre-write (the samples before the interruption are discarded)"
			}
			add("resumed", "The run was interrupted and resumed: %s was restarted from %s.", stageTitle(ri, r.Stage), from)
		}
	}
	if len(st.Resumes) == 0 && len(st.Interrupts) > 0 {
		add("interrupted", "The run was interrupted and has not been resumed.")
	}
	if st.Cut {
		add("journal_cut", "The journal's last line was cut short (the process was killed); that record is ignored.")
	}
	return out
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

func stageTitle(ri pts.RunInfo, id string) string {
	for _, s := range ri.Stages {
		if s.ID == id {
			return s.Title
		}
	}
	return id
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
