package pts

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// The demand-intensity procedure DIRTH and ECW share (PTS 2.0.2 §13–14):
//
//  1. purge, then precondition with the stimulus's writes at the highest
//     TC/QD until steady state (rounds of --X-pc-round, the last
//     --X-pc-track of each tracked, as HIR's preconditioning);
//  2. demand-variation rounds: a between-round pre-write, then the test
//     stimulus at every TC (outer) × QD (inner), high to low, the highest
//     TC/QD's IOPS tracked, until steady state;
//  3. from the window, the MaxIOPS, MidIOPS and MinIOPS operating points
//     (PickPoints); each gets a pre-write and a histogram run at its TC/QD,
//     a timeline stage whose TC/QD the runner fills in when it gets there.
//
// Its constants (the ceiling, the durations, the loops) are readings of
// the PTS (Readings), hence each a flag of each test.

// The operating points, as Stage.Point names them.
const (
	PointMax = "max"
	PointMid = "mid"
	PointMin = "min"
)

// DemandPoints are the operating points in the order they run.
var DemandPoints = []string{PointMax, PointMid, PointMin}

// PointLabel names an operating point the PTS way: "MaxIOPS".
func PointLabel(p string) string {
	switch p {
	case PointMax:
		return "MaxIOPS"
	case PointMid:
		return "MidIOPS"
	case PointMin:
		return "MinIOPS"
	}
	return p
}

// The ways an operating point is read from the demand-variation window
// (--X-pick).
const (
	// PickWindow: each cell's average over the measurement window, the
	// values the tables show.
	PickWindow = "window"
	// PickLast: each cell's values in the window's last round (the open
	// harnesses' reading of "from the final round").
	PickLast = "last"
)

// What a demand-intensity test's tracking variable and its operating
// points' choice read of each cell (--X-io).
const (
	// IOAll: every I/O, reads and writes: the IOPS of the cell and the
	// mean response time of all its I/Os.
	IOAll = "all"
	// IOWrites: the writes only (ADATA's DIRTH and CBW).
	IOWrites = "writes"
)

// Where a demand-intensity test's preconditioning round is tracked
// (--X-pc-track-at).
const (
	TrackLast  = "last"  // its last --X-pc-track
	TrackFirst = "first" // its first (ADATA's DIRTH and CBW)
)

// PointRef makes a timeline stage one at an operating point: its segments
// run at the TC/QD PickPoints chooses from stage From's window. Until the
// runner resolves it, the segments carry the highest TC/QD the point can
// take (the strictest for Workload.Fits).
type PointRef struct {
	From      string  `json:"from"`  // the demand-variation stage
	Point     string  `json:"point"` // PointMax, PointMid or PointMin
	CeilingMs float64 `json:"art_ceiling_ms"`
	Pick      string  `json:"pick"`         // PickWindow or PickLast
	IO        string  `json:"io,omitempty"` // IOAll ("") or IOWrites
}

// Writes says the choice reads the writes only.
func (r PointRef) Writes() bool { return r.IO == IOWrites }

// Describe says how the point will be chosen, before it is.
func (r PointRef) Describe() string {
	where := "each cell's average over the measurement window"
	if r.Pick == PickLast {
		where = "the measurement window's last round"
	}
	ceiling := strconv.FormatFloat(r.CeilingMs, 'g', -1, 64) + " ms"
	iops, art := "IOPS", "ART"
	if r.Writes() {
		iops, art = "write IOPS", "write ART"
	}
	switch r.Point {
	case PointMax:
		return fmt.Sprintf("the highest %s whose %s is below %s, from %s", iops, art, ceiling, where)
	case PointMid:
		return fmt.Sprintf("the %s below the %s ceiling closest to the mean of MaxIOPS and MinIOPS, from %s", iops, ceiling, where)
	}
	return "the lowest TC and the lowest QD of the loops (TC1/QD1 in the PTS's)"
}

// demand is what DIRTH and ECW differ in.
type demand struct {
	test   TestID
	prefix string // flag and stage prefix: "dirth"
	name   string // "DIRTH"
	// stimulus is the test stimulus and the pre-write (its writes) for a
	// config, without TC, QD and duration; short names them in a header.
	stimulus func(c Config) (test, prewrite engine.Workload, short, preShort string)
}

// stemOf names a demand-intensity workload in cell keys: "rnd-8k-65/35",
// "composite-40/60".
func stemOf(w engine.Workload) string {
	if len(w.Streams) > 0 {
		return "mix-" + MixLabel(w.ReadPct)
	}
	if len(w.BlockSplit) > 0 {
		return "composite-" + MixLabel(w.ReadPct)
	}
	return KeyOf(w).String()
}

// The TC and QD loops of the PTS, high to low.
const demandLoopDefault = "32,16,8,6,4,2,1"

func demandParams(d *demand) []Param {
	p := d.prefix
	return []Param{
		{Flag: p + "-tc", Default: demandLoopDefault, Usage: d.name + "'s thread counts, the outer loop, run in the order given",
			Check: func(v string) error { _, err := demandLoop(v); return err }},
		{Flag: p + "-qd", Default: demandLoopDefault, Usage: d.name + "'s queue depths, the inner loop, run in the order given",
			Check: func(v string) error { _, err := demandLoop(v); return err }},
		{Flag: p + "-art-ceiling", Default: "5ms", Usage: d.name + "'s response-time ceiling: MaxIOPS is the highest IOPS whose ART is below it",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
		{Flag: p + "-prewrite", Default: "60m", Usage: d.name + "'s pre-write at each operating point's TC/QD",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
		{Flag: p + "-histogram", Default: "10m", Usage: d.name + "'s histogram run at each operating point",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
		{Flag: p + "-round-prewrite", Default: "5m", Usage: d.name + "'s pre-write before each demand-variation round, at the highest TC/QD",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
		{Flag: p + "-pc-round", Default: "30m", Usage: d.name + "'s preconditioning round: writes at the highest TC/QD, --" + p + "-pc-track of which is tracked",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
		{Flag: p + "-pc-track", Default: "1m", Usage: "the part of each " + d.name + " preconditioning round whose IOPS is tracked",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
		{Flag: p + "-pc-track-at", Default: TrackLast,
			Usage: "which end of each " + d.name + " preconditioning round is tracked: last or first",
			Check: func(v string) error { return oneOf(v, TrackLast, TrackFirst) }},
		{Flag: p + "-io", Default: IOAll,
			Usage: d.name + "'s tracking variable, ceiling and operating points on all I/O or on the writes only: all or writes",
			Check: func(v string) error { return oneOf(v, IOAll, IOWrites) }},
		{Flag: p + "-pick", Default: PickLast,
			Usage: "where " + d.name + "'s operating points are read: last (the measurement window's last round) or window (each cell's window average, the tables' values)",
			Check: func(v string) error { return oneOf(v, PickLast, PickWindow) }},
	}
}

// demandCheck checks a demand test's parameters together.
func demandCheck(d *demand) func(c Config) error {
	return func(c Config) error {
		round, _ := positiveDuration(c.Param(d.prefix + "-pc-round"))
		track, _ := positiveDuration(c.Param(d.prefix + "-pc-track"))
		if track >= round {
			return fmt.Errorf("--%s-pc-round %v: a round must be longer than its tracked end (--%s-pc-track %v)", d.prefix, round, d.prefix, track)
		}
		return nil
	}
}

// oneOf checks a value is one of the words given.
func oneOf(v string, words ...string) error {
	if slices.Contains(words, v) {
		return nil
	}
	return fmt.Errorf("want %s", JoinOr(words))
}

// JoinOr lists words the English way: "a or b", "a, b or c".
func JoinOr(v []string) string {
	if len(v) < 2 {
		return strings.Join(v, "")
	}
	return strings.Join(v[:len(v)-1], ", ") + " or " + v[len(v)-1]
}

// demandLoop reads a TC or QD loop: distinct whole numbers above zero.
func demandLoop(v string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a whole number above zero", strings.TrimSpace(f))
		}
		if n > engine.MaxQD {
			return nil, fmt.Errorf("%d is above %d", n, engine.MaxQD)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("%d is there twice", n)
		}
		out = append(out, n)
	}
	return out, nil
}

// DemandKey is the key of a demand-variation cell: "rnd-8k-65/35-tc32-qd8".
func DemandKey(stem string, tc, qd int) CellKey {
	return Named(fmt.Sprintf("%s-tc%d-qd%d", stem, tc, qd))
}

// demandStages builds the stages of a demand-intensity test.
func demandStages(d *demand, c Config) []Stage {
	p := d.prefix
	tcs, _ := demandLoop(c.Param(p + "-tc")) // all checked by Resolve
	qds, _ := demandLoop(c.Param(p + "-qd"))
	round, _ := positiveDuration(c.Param(p + "-pc-round"))
	track, _ := positiveDuration(c.Param(p + "-pc-track"))
	topTC, topQD := slices.Max(tcs), slices.Max(qds)
	_, pre, _, preShort := d.stimulus(c)
	pre.ActiveRange = c.ActiveRangeOf(d.test)
	pre.TC, pre.QD = topTC, topQD
	preStem := stemOf(pre)

	// Preconditioning: rounds of the pre-write stimulus, the last minute
	// tracked, until steady.
	pc := Stage{Kind: KindRounds, ID: p + "-pc", Test: d.test, Title: d.name + " preconditioning", Purge: true, MaxRounds: c.MaxRounds}
	rest, end := Cell{Key: Named(fmt.Sprintf("%s-tc%d-qd%d-untracked", preStem, topTC, topQD)), Workload: withDuration(pre, round-track)},
		Cell{Key: DemandKey(preStem, topTC, topQD), Workload: withDuration(pre, track)}
	at := c.Param(p + "-pc-track-at")
	pc.Cells = []Cell{rest, end}
	if at == TrackFirst {
		pc.Cells = []Cell{end, rest}
	}
	for i := range pc.Cells {
		pc.Cells[i].Index = i
	}
	pc.Tracking = []Tracking{{Name: fmt.Sprintf("IOPS %s TC%d/QD%d, %s %s of the round", preShort, topTC, topQD, at, trackLabel(track)),
		Cell: slices.IndexFunc(pc.Cells, func(x Cell) bool { return x.Key == end.Key }), Metric: MetricIOPS}}
	return append([]Stage{pc}, demandSweepStages(d, c)...)
}

// demandSweepStages are a demand-intensity test's stages after its
// preconditioning: the demand variation and a stage per operating point.
func demandSweepStages(d *demand, c Config) []Stage {
	p := d.prefix
	tcs, _ := demandLoop(c.Param(p + "-tc")) // all checked by Resolve
	qds, _ := demandLoop(c.Param(p + "-qd"))
	ceiling, _ := positiveDuration(c.Param(p + "-art-ceiling"))
	prewrite, _ := positiveDuration(c.Param(p + "-prewrite"))
	hist, _ := positiveDuration(c.Param(p + "-histogram"))
	roundPre, _ := positiveDuration(c.Param(p + "-round-prewrite"))
	topTC, topQD := slices.Max(tcs), slices.Max(qds)
	test, pre, short, preShort := d.stimulus(c)
	ar := c.ActiveRangeOf(d.test)
	test.ActiveRange, pre.ActiveRange = ar, ar
	pre.TC, pre.QD = topTC, topQD
	stem, preStem := stemOf(test), stemOf(pre)

	// Demand variation: the between-round pre-write, then TC × QD.
	dv := Stage{Kind: KindDemandSweep, ID: p, Test: d.test, Title: d.name + " demand variation", MaxRounds: c.MaxRounds,
		Stimulus: fmt.Sprintf("%s, TC %s (outer) × QD %s (inner), %s each, after a %s pre-write of %s TC%d/QD%d",
			short, joinInts(tcs), joinInts(qds), ShortDuration(time.Duration(c.CellTime)), ShortDuration(roundPre), preShort, topTC, topQD)}
	dv.Cells = append(dv.Cells, Cell{Index: 0, Key: Named(fmt.Sprintf("%s-prewrite-tc%d-qd%d", preStem, topTC, topQD)),
		Workload: withDuration(pre, roundPre), PreWrite: true})
	tracked := 0
	for _, tc := range tcs {
		for _, qd := range qds {
			w := test
			w.TC, w.QD, w.Duration = tc, qd, time.Duration(c.CellTime)
			if tc == topTC && qd == topQD {
				tracked = len(dv.Cells)
			}
			dv.Cells = append(dv.Cells, Cell{Index: len(dv.Cells), Key: DemandKey(stem, tc, qd), Workload: w})
		}
	}
	dv.Tracking = []Tracking{{Name: fmt.Sprintf("IOPS %s TC%d/QD%d", short, topTC, topQD), Cell: tracked, Metric: MetricIOPS}}
	io := c.Param(p + "-io")
	if io == IOWrites {
		dv.Tracking[0].Name, dv.Tracking[0].Metric = "write "+dv.Tracking[0].Name, MetricWriteIOPS
	}

	out := []Stage{dv}
	for _, pt := range DemandPoints {
		at := test
		at.TC, at.QD = topTC, topQD
		s := Stage{Kind: KindDemandSweep, ID: p + "-" + pt, Test: d.test, Title: fmt.Sprintf("%s %s", d.name, PointLabel(pt)),
			Point: &PointRef{From: dv.ID, Point: pt, CeilingMs: float64(ceiling) / 1e6, Pick: c.Param(p + "-pick"), IO: ioRef(io)},
			Stimulus: fmt.Sprintf("at the %s point's TC/QD: %s of %s, then %s of %s for the response-time histogram",
				PointLabel(pt), ShortDuration(prewrite), preShort, ShortDuration(hist), short),
			Timeline: []Segment{
				{Name: fmt.Sprintf("pre-write: %s at the %s point's TC/QD", preShort, PointLabel(pt)), Group: 1,
					Workload: withDuration(pre, prewrite), Interval: Duration(time.Minute)},
				{Name: fmt.Sprintf("histogram: %s at the %s point's TC/QD", short, PointLabel(pt)), Group: 2,
					Workload: withDuration(at, hist), Interval: Duration(time.Minute), Histogram: true},
			}}
		out = append(out, s)
	}
	return out
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// ioRef is --X-io as PointRef keeps it: "" for all I/O, as a run.json
// from before the flag has it.
func ioRef(io string) string {
	if io == IOAll {
		return ""
	}
	return io
}

// demandSummary is an operating point's pre-write and histogram run in
// figures.
func demandSummary(in SummaryInput) *Summary {
	s, samples := in.Stage, in.Samples
	if s.Point == nil {
		return nil
	}
	sum := &Summary{Title: "Pre-write and histogram run",
		Head:  []string{"group", "minutes", "mean IOPS", "mean ART ms", "MRT ms"},
		Units: []string{"", "min", "IOPS", "ms", "ms"}}
	var figs []Figure
	for _, g := range []int{1, 2} {
		var secs, ios, latw float64
		mrt := math.NaN()
		var lastIOPS float64
		for _, x := range samples {
			if x.Group != g || x.Idle || math.IsNaN(x.IOPS) {
				continue
			}
			secs += x.Seconds
			ios += x.IOPS * x.Seconds
			latw += x.LatMeanMs * x.IOPS * x.Seconds
			mrt = nanMax(mrt, x.LatMaxMs)
			lastIOPS = x.IOPS
		}
		if secs == 0 {
			continue
		}
		sum.Rows = append(sum.Rows, []float64{float64(g), secs / 60, ios / secs, latw / ios, mrt})
		if g == 1 {
			figs = append(figs, Figure{Name: "pre-write, last interval", Value: lastIOPS, Unit: "IOPS",
				Definition: "the IOPS of the pre-write's last interval: the state the histogram run starts from"})
		} else {
			p5 := math.NaN()
			if in.Hist != nil && in.Hist.Count() > 0 {
				p5 = float64(in.Hist.Percentile(LATPercentile)) / 1e6
			}
			figs = append(figs,
				Figure{Name: FigHistIOPS, Value: ios / secs, Unit: "IOPS", Definition: "the IOPS of the histogram run"},
				Figure{Name: FigHistART, Value: latw / ios, Unit: "ms", Definition: "the mean response time of every I/O of the histogram run"},
				Figure{Name: FigHistP99999, Value: p5, Unit: "ms", Definition: "the 99.999 % response time of every I/O of the histogram run, from its merged histogram"},
				Figure{Name: FigHistMRT, Value: mrt, Unit: "ms", Definition: "the maximum response time of the histogram run"})
		}
	}
	sum.Figures = figs
	return sum
}

// demandDef builds a demand-intensity test's definition. Its headlines
// are its operating points' cells, known only once chosen
// (matrix.Results.Headlines).
func demandDef(d *demand, section string, order int, extra []Param) *TestDef {
	p := d.prefix
	return &TestDef{
		ID: d.test, Name: d.name, Section: section, order: order, ActiveRange: 100,
		Params:      append(extra, demandParams(d)...),
		CheckParams: demandCheck(d),
		Tables: []TableDef{
			{Name: p + "_iops", Title: d.name + ": IOPS, TC (rows) × QD (columns)", Shape: ShapeGrid, Metric: MetricIOPS,
				Aggregate: "the average over the measurement window"},
			{Name: p + "_art_ms", Title: d.name + ": average response time, TC × QD", Shape: ShapeGrid, Metric: MetricLatMean,
				Aggregate: "the mean over every I/O of the measurement window"},
			{Name: p + "_p99_999_ms", Title: d.name + ": 99.999 % response time, TC × QD", Shape: ShapeGrid, Metric: MetricLatP99999,
				Aggregate: "of the measurement window's merged histogram"},
			{Name: p + "_points", Title: d.name + ": the operating points, as chosen and in their histogram runs", Shape: ShapePoints},
		},
		Rules:     demandRules(d),
		Summarize: demandSummary,
		stages:    func(c Config, _ Profile, _ []int64, _ []int) []Stage { return demandStages(d, c) },
	}
}

// demandRules are a demand-intensity test's rules, with its flags' values.
func demandRules(d *demand) []Rule {
	p := d.prefix
	top := func(c Config) string {
		tcs, _ := demandLoop(c.Param(p + "-tc"))
		qds, _ := demandLoop(c.Param(p + "-qd"))
		if len(tcs) == 0 || len(qds) == 0 {
			return "the highest TC/QD"
		}
		return fmt.Sprintf("TC%d/QD%d", slices.Max(tcs), slices.Max(qds))
	}
	io := func(c Config) string {
		if c.Param(p+"-io") == IOWrites {
			return "write "
		}
		return ""
	}
	ref := func(c Config, point string) PointRef {
		ceiling, _ := positiveDuration(c.Param(p + "-art-ceiling"))
		return PointRef{Point: point, CeilingMs: float64(ceiling) / 1e6, Pick: c.Param(p + "-pick"), IO: ioRef(c.Param(p + "-io"))}
	}
	return []Rule{
		{Name: "preconditioning", With: func(c Config) string {
			return fmt.Sprintf("purge, then rounds of %s of the stimulus's writes at %s, the IOPS of each round's %s %s tracked, until steady state",
				durWords(c, p+"-pc-round"), top(c), c.Param(p+"-pc-track-at"), durWords(c, p+"-pc-track"))
		}},
		{Name: "demand variation", With: func(c Config) string {
			return fmt.Sprintf("rounds of a %s pre-write of the stimulus's writes at %s, then the stimulus at every TC (%s, the outer loop) "+
				"× QD (%s, the inner loop), %s each; the %sIOPS at %s is the tracking variable", durWords(c, p+"-round-prewrite"), top(c),
				c.Param(p+"-tc"), c.Param(p+"-qd"), ShortDuration(time.Duration(c.CellTime)), io(c), top(c))
		}},
		SteadyStateRule,
		{Name: "MaxIOPS", With: func(c Config) string {
			return ref(c, PointMax).Describe() + "; when no load is below it, MinIOPS stands in"
		}},
		{Name: "MidIOPS", With: func(c Config) string { return ref(c, PointMid).Describe() }},
		{Name: "MinIOPS", With: func(c Config) string { return ref(c, PointMin).Describe() }},
		{Name: "ties", Words: "go to the smaller TC × QD"},
		{Name: "histogram run", With: func(c Config) string {
			return fmt.Sprintf("at each point, a %s pre-write of the stimulus's writes, then %s of the stimulus, every I/O's response time "+
				"in the point's histogram: its IOPS, ART, 99.999 %% and MRT are the point's histogram run, printed beside its figures as chosen",
				durWords(c, p+"-prewrite"), durWords(c, p+"-histogram"))
		}},
	}
}
