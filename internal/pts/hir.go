package pts

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// HIR is the Host Idle Recovery test.
const HIR TestID = "hir"

// HIR's parameters (PTS 2.0.2 §11, from the open harnesses: readings
// of the PTS, hence flags): 5 s bursts of RND 4 KiB writes, each
// followed by a wait state's multiple of 5 s of idle, 360 times per wait
// state, then 30 min of continuous writes back to the baseline.
const (
	hirBurst      = 5 * time.Second
	hirBaselineIv = time.Minute
)

// HIRTest writes to steady state, then in bursts with idle time between
// them: how much the drive's background work recovers in the idle time.
var HIRTest = &TestDef{
	ID: HIR, Name: "Host Idle Recovery", Section: "§11", order: 11, ActiveRange: 100,
	Params: []Param{
		{Flag: "hir-wait-states", Default: "1,2,3,5,10", Usage: "HIR's wait states: idle time after each 5 s burst in multiples of 5 s, increasing",
			Check: func(v string) error { _, err := hirWaitStates(v); return err }},
		{Flag: "hir-cycles", Default: "360", Usage: "HIR's bursts per wait state",
			Check: func(v string) error { _, err := positiveInt(v); return err }},
		{Flag: "hir-baseline", Default: "30m", Usage: "HIR's continuous writes back to the baseline after each wait state",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
		{Flag: "hir-pc-round", Default: "30m", Usage: "HIR preconditioning round: writes, the last --hir-pc-track of which is the tracking variable",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
		{Flag: "hir-pc-track", Default: "1m", Usage: "the end of each HIR preconditioning round whose IOPS is tracked",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
	},
	CheckParams: func(c Config) error {
		round, _ := positiveDuration(c.Param("hir-pc-round"))
		track, _ := positiveDuration(c.Param("hir-pc-track"))
		if track >= round {
			return fmt.Errorf("--hir-pc-round %v: a round must be longer than its tracked end (--hir-pc-track %v)", round, track)
		}
		return nil
	},
	Tables: []TableDef{
		{Name: "hir", Title: "HIR: every burst and baseline interval", Shape: ShapeSamples, SampleColumns: []string{ColMinute, ColGroup, ColIdle, ColIOPS, ColLatMean, ColLatMax}},
		{Name: "hir_summary", Title: "HIR: mean burst IOPS per wait state, against the baseline", Shape: ShapeSummary},
		{Name: "hir_figures", Title: "HIR: the baseline and each wait state against it", Shape: ShapeFigures},
	},
	Rules: []Rule{
		{Name: "preconditioning", With: func(c Config) string {
			return fmt.Sprintf("purge, then rounds of %s of RND 4 KiB writes at the profile's TC/QD, the IOPS of each round's last %s the "+
				"tracking variable, until steady state", durWords(c, "hir-pc-round"), durWords(c, "hir-pc-track"))
		}},
		SteadyStateRule,
		{Name: "wait states", With: func(c Config) string {
			return fmt.Sprintf("for each wait state (%s), %s bursts of 5 s of RND 4 KiB writes, each followed by the wait state × 5 s "+
				"of no I/O at all; then %s of continuous writes back to the baseline", c.Param("hir-wait-states"), c.Param("hir-cycles"),
				durWords(c, "hir-baseline"))
		}},
		{Name: "baseline", Words: HIRBaseline},
		{Name: "returns to the baseline", Words: HIRReturns},
		{Name: "a wait state against the baseline", Words: hirRatio},
	},
	Summarize: hirSummary,
	stages: func(c Config, p Profile, _ []int64, _ []int) []Stage {
		states, _ := hirWaitStates(c.Param("hir-wait-states")) // all checked by Resolve
		cycles, _ := positiveInt(c.Param("hir-cycles"))
		base, _ := positiveDuration(c.Param("hir-baseline"))
		round, _ := positiveDuration(c.Param("hir-pc-round"))
		track, _ := positiveDuration(c.Param("hir-pc-track"))
		w := engine.Workload{Access: engine.Random, BlockSize: 4 * KiB, ReadPct: 0, TC: c.TC, QD: c.QD, ActiveRange: c.ActiveRangeOf(HIR)}
		// Preconditioning: rounds of writes, the round's tracked end (a
		// minute) a cell of its own and the tracking variable, until steady.
		pc := Stage{Kind: KindRounds, ID: "hir-pc", Test: HIR, Title: "HIR preconditioning", Purge: true, MaxRounds: c.MaxRounds}
		long, last := w, w
		long.Duration, last.Duration = round-track, track
		// Two cells of one workload need two keys: the tracked minute keeps
		// the matrix's, the rest of the round is named for what it is.
		pc.Cells = []Cell{{Index: 0, Key: Named(KeyOf(long).String() + "-untracked"), Workload: long}, {Index: 1, Key: KeyOf(last), Workload: last}}
		pc.Tracking = []Tracking{{Name: fmt.Sprintf("IOPS RND 4 KiB 0/100, last %s of the round", trackLabel(track)), Cell: 1, Metric: MetricIOPS}}
		tl := Stage{Kind: KindTimeline, ID: string(HIR), Test: HIR, Title: "Host Idle Recovery",
			Stimulus: fmt.Sprintf("RND 4 KiB W in 5 s bursts, %d per wait state %s, each burst followed by the wait state × 5 s idle; %s of writes back to the baseline after each wait state",
				cycles, c.Param("hir-wait-states"), ShortDuration(base))}
		for _, ws := range states {
			b := w
			b.Duration = hirBurst
			tl.Timeline = append(tl.Timeline,
				Segment{Name: fmt.Sprintf("wait state %d: bursts of %s", ws, w),
					Group: ws, Workload: b, Interval: Duration(hirBurst), Repeat: cycles, IdleAfter: Duration(time.Duration(ws) * hirBurst)},
				Segment{Name: fmt.Sprintf("return to baseline after wait state %d: %s", ws, w),
					Group: 0, Workload: withDuration(w, base), Interval: Duration(hirBaselineIv)})
		}
		return []Stage{pc, tl}
	},
}

func init() { register(HIRTest) }

// trackLabel names the tracked end of a round: "minute" for the PTS's.
func trackLabel(d time.Duration) string {
	if d == time.Minute {
		return "minute"
	}
	return d.String()
}

func withDuration(w engine.Workload, d time.Duration) engine.Workload {
	w.Duration = d
	return w
}

// hirWaitStates reads an increasing list of wait states: "1,2,3,5,10".
func hirWaitStates(v string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := positiveInt(f)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("wait states must increase: %d after %d", n, out[len(out)-1])
		}
		out = append(out, n)
	}
	return out, nil
}

func positiveInt(v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a whole number above zero", v)
	}
	return n, nil
}

// HIRBaseline is how the baseline is defined, for the page and results.json.
const HIRBaseline = "the steady-state IOPS of the preconditioning: the average of its measurement window " +
	"(the tracked end of each round, RND 4 KiB writes)"

// hirRatio is how a wait state is held against the baseline.
const hirRatio = "the mean IOPS of the wait state's bursts over the baseline"

// HIRReturns is the level the drive comes back to after each wait state.
const HIRReturns = "the mean IOPS of the continuous writes that return the drive to the baseline after each wait state"

// hirSummary is each wait state's mean burst IOPS and its ratio to the
// baseline: the preconditioning's steady state, as the PTS compares them
// (PTS 2.0.2 §11). Without it (a report of the timeline alone) the
// returns to the baseline stand in, and the figure says so.
func hirSummary(in SummaryInput) *Summary {
	s, samples, earlier := in.Stage, in.Samples, in.Earlier
	sum := &Summary{Title: "Wait states",
		Head:  []string{"wait state", "idle s", "bursts", "mean burst IOPS", "ratio to the baseline"},
		Units: []string{"", "s", "", "IOPS", ""}}
	var ret, nr float64
	for _, x := range samples {
		if x.Group == 0 && !x.Idle {
			ret += x.IOPS
			nr++
		}
	}
	returns := math.NaN()
	if nr > 0 {
		returns = ret / nr
	}
	baseline, definition := returns, HIRReturns+" (the preconditioning's steady state is not in these results)"
	for _, e := range earlier {
		if e.Stage == "hir-pc" && len(e.WindowAverage) > 0 && !math.IsNaN(e.WindowAverage[0]) {
			baseline, definition = e.WindowAverage[0], HIRBaseline
			if !e.Steady {
				definition += ", which did NOT reach steady state"
			}
		}
	}
	var ratios []Figure
	for _, g := range s.Timeline {
		if g.Group == 0 {
			continue
		}
		var iops, n float64
		for _, x := range samples {
			if x.Group == g.Group && !x.Idle {
				iops += x.IOPS
				n++
			}
		}
		if n == 0 {
			continue
		}
		sum.Rows = append(sum.Rows, []float64{float64(g.Group), time.Duration(g.IdleAfter).Seconds(), n, iops / n, iops / n / baseline})
		ratios = append(ratios, Figure{Name: fmt.Sprintf("wait state %d", g.Group), Value: iops / n / baseline, Unit: "× the baseline",
			Definition: fmt.Sprintf("%s (each burst after %v of idle)", hirRatio, time.Duration(g.IdleAfter))})
	}
	sum.Figures = append([]Figure{
		{Name: "baseline", Value: baseline, Unit: "IOPS", Definition: definition},
		{Name: "returns to the baseline", Value: returns, Unit: "IOPS", Definition: HIRReturns},
	}, ratios...)
	return sum
}
