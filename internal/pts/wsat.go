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

// WSAT is the Write Saturation test.
const WSAT TestID = "wsat"

// wsatStimulus is one of WSAT's stimuli: the workload without TC, QD,
// range and duration, and its names.
type wsatStimulus struct {
	name  string
	w     engine.Workload
	about string
	short string
}

// WSAT's stimuli (PTS 2.0.2 §10): RND 4 KiB writes by default, and the
// PTS 2.0.x optional workloads, the composite block-size one (ECW's) among
// them.
func wsatStimuli(minBlock int64) []wsatStimulus {
	composite, _ := CompositeWorkload(minBlock)
	return []wsatStimulus{
		{"write", engine.Workload{Access: engine.Random, BlockSize: 4 * KiB, ReadPct: 0}, "write-intensive, RND 4 KiB 0/100 (the PTS's default)", "RND 4 KiB W"},
		{"oltp", engine.Workload{Access: engine.Random, BlockSize: 8 * KiB, ReadPct: 65}, "OLTP, RND 8 KiB 65/35", "OLTP RND 8 KiB 65/35"},
		{"vod", engine.Workload{Access: engine.Sequential, BlockSize: 128 * KiB, ReadPct: 90}, "video on demand, SEQ 128 KiB 90/10", "VOD SEQ 128 KiB 90/10"},
		{"metadata", engine.Workload{Access: engine.Sequential, BlockSize: 512, ReadPct: 50}, "metadata, SEQ 0.5 KiB 50/50", "metadata SEQ 0.5 KiB 50/50"},
		{"composite", composite, "composite block-size workload, ECW's: RND, 12 block sizes, 3 LBA zones, 40/60", "composite RND 40/60, zoned"},
	}
}

// WSATTest writes from fresh-out-of-box, through the write cliff, into the
// steady state, until WSAT's drive fills or time, whichever comes first,
// sampling every minute (PTS 2.0.2 §10; the stop rule's numbers are
// readings of the PTS, hence flags).
var WSATTest = &TestDef{
	ID: WSAT, Name: "Write Saturation", Section: "§10", order: 10, ActiveRange: 100,
	Params: []Param{
		{Flag: "wsat-workload", Default: "write", Usage: "WSAT's stimulus: write (RND 4 KiB 0/100), oltp, vod, metadata or composite (ECW's)",
			Check: func(v string) error { _, err := wsatWorkload(v, 0); return err }},
		{Flag: "wsat-fills", Default: "4", Usage: "WSAT stops once this many times the user capacity is written, or at --wsat-time if that comes first",
			Check: func(v string) error { _, err := positiveFloat(v); return err }},
		{Flag: "wsat-time", Default: "24h", Usage: "WSAT stops after this long, if the fills come later",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
		{Flag: "wsat-interval", Default: time.Minute.String(), Usage: "WSAT's sampling interval",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
		{Flag: "wsat-tgbw", Default: "GB",
			Usage: "the unit WSAT's total data written (TGBW) is shown in: GB (10^9 bytes) or GiB (2^30 bytes)",
			Check: func(v string) error { return oneOf(v, "GB", "GiB") }},
		{Flag: "wsat-ss", Default: "false", Switch: true, Method: true,
			Usage: "WSAT's optional steady-state method: rounds of 30 min of the stimulus and a 1 min check, the check minute's IOPS tracked, until steady state, --max-rounds, --wsat-fills or --wsat-time, whichever comes first"},
	},
	CheckParams: func(c Config) error {
		if c.Param("wsat-ss") != "true" {
			return nil
		}
		if iv, _ := positiveDuration(c.Param("wsat-interval")); iv != time.Minute {
			return fmt.Errorf("--wsat-interval %s: the steady-state method (--wsat-ss) samples every minute, its check minute the last of each round", c.Param("wsat-interval"))
		}
		return nil
	},
	Tables: []TableDef{
		{Name: "wsat", Title: "WSAT: every interval from fresh-out-of-box", Shape: ShapeSamples,
			SampleColumns: []string{ColMinute, ColTGBW, ColFills, ColIOPS, ColLatMean, ColP99999, ColLatMax}},
		{Name: "wsat_summary", Title: "WSAT: every hour, and the write cliff", Shape: ShapeSummary},
		{Name: "wsat_figures", Title: "WSAT: fresh-out-of-box and last hour IOPS, and the write cliff", Shape: ShapeFigures},
	},
	Rules: []Rule{
		{Name: "stimulus", With: func(c Config) string {
			w, _ := wsatWorkload(c.Param("wsat-workload"), c.MinBlock)
			return fmt.Sprintf("from a purge (fresh out of box, no preconditioning), %s at the profile's TC/QD, a sample every %s",
				w.about, durWords(c, "wsat-interval"))
		}},
		{Name: "stop", With: func(c Config) string {
			stop := fmt.Sprintf("at %s × the capacity written or after %s, whichever comes first", c.Param("wsat-fills"), durWords(c, "wsat-time"))
			if c.Param("wsat-ss") == "true" {
				stop = fmt.Sprintf("at steady state, the round limit (%d rounds), %s × the capacity written or %s, whichever comes first",
					c.MaxRounds, c.Param("wsat-fills"), durWords(c, "wsat-time"))
			}
			return stop + "; the sample that reaches the capacity budget is cut at it, so that a series the fills end has written " +
				"exactly its fills"
		}},
		only(Rule{Name: "steady-state method", Words: "rounds of 30 min of the stimulus and a 1 min check, the check minute's IOPS the " +
			"tracking variable"}, wsatSS),
		only(SteadyStateRule, wsatSS),
		{Name: "TGBW", With: func(c Config) string {
			unit, _ := TGBWUnit(c)
			return "the total data written since the purge, in " + map[string]string{"GB": "GB of 10^9 bytes", "GiB": "GiB of 2^30 bytes"}[unit] +
				"; drive fills are TGBW in capacities of the target set"
		}},
		{Name: "fresh-out-of-box", Words: wsatFOB},
		{Name: "last hour", Words: wsatLastHour},
		{Name: "write cliff", Words: WSATCliff},
	},
	Summarize: wsatSummary,
	stages: func(c Config, p Profile, _ []int64, _ []int) []Stage {
		wl, _ := wsatWorkload(c.Param("wsat-workload"), c.MinBlock) // all checked by Resolve
		fills, _ := positiveFloat(c.Param("wsat-fills"))
		d, _ := positiveDuration(c.Param("wsat-time"))
		iv, _ := positiveDuration(c.Param("wsat-interval"))
		w := wl.w
		w.TC, w.QD, w.ActiveRange, w.Duration = c.TC, c.QD, c.ActiveRangeOf(WSAT), d
		if c.Param("wsat-ss") == "true" {
			// Rounds of the stimulus and its check minute, one sample a
			// minute, the last of each round tracked; the fills and the
			// time still stop it, whichever comes first.
			w.Duration = wsatSSRound + wsatSSCheck
			return []Stage{{Kind: KindTimeline, ID: string(WSAT), Test: WSAT, Title: "Write Saturation", Purge: true, MaxRounds: c.MaxRounds,
				StopFills: fills, StopAfter: Duration(d),
				Stimulus: fmt.Sprintf("%s in rounds of %s and a %s check, to steady state, %g drive fills or %s", wl.short,
					ShortDuration(wsatSSRound), ShortDuration(wsatSSCheck), fills, ShortDuration(d)),
				Timeline: []Segment{{Name: fmt.Sprintf("%s, in rounds of %v and a %v check: %s", wl.about, wsatSSRound, wsatSSCheck, w),
					Group: 1, Workload: w, Interval: Duration(time.Minute), Repeat: c.MaxRounds}},
				Tracking: []Tracking{{Name: "IOPS of the round's check minute", Cell: int((wsatSSRound+wsatSSCheck)/time.Minute) - 1, Metric: MetricIOPS}}}}
		}
		return []Stage{{Kind: KindTimeline, ID: string(WSAT), Test: WSAT, Title: "Write Saturation", Purge: true, StopFills: fills,
			Stimulus: fmt.Sprintf("%s until %g drive fills or %s", wl.short, fills, ShortDuration(d)),
			Timeline: []Segment{{Name: fmt.Sprintf("%s: %s", wl.about, w), Group: 1, Workload: w, Interval: Duration(iv)}}}}
	},
}

func init() {
	WSATTest.Departures = func(c Config) []string {
		if w, _ := wsatWorkload(c.Param("wsat-workload"), c.MinBlock); w.name == "composite" {
			return compositeDepartures("WSAT", c.MinBlock)
		}
		return nil
	}
	register(WSATTest)
}

// WSAT's optional steady-state method (PTS 2.0.2 §10): rounds of 30 min
// of the stimulus followed by a 1 min check.
const (
	wsatSSRound = 30 * time.Minute
	wsatSSCheck = time.Minute
)

// WSATStimulus is WSAT's stimulus of that name (write, oltp, vod,
// metadata, composite) for targets whose logical block is minBlock bytes:
// its workload without TC, QD, range and duration, and its description
// ("OLTP, RND 8 KiB 65/35"). The presets run them too.
func WSATStimulus(name string, minBlock int64) (engine.Workload, string, error) {
	s, err := wsatWorkload(name, minBlock)
	return s.w, s.about, err
}

// wsatWorkload finds a WSAT stimulus by name, for targets of logical
// block minBlock.
func wsatWorkload(v string, minBlock int64) (wsatStimulus, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	all := wsatStimuli(minBlock)
	var names []string
	for _, w := range all {
		if w.name == v {
			return w, nil
		}
		names = append(names, w.name)
	}
	return all[0], fmt.Errorf("want one of %s", strings.Join(names, ", "))
}

// positiveFloat reads a number above zero.
func positiveFloat(v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a number above zero", v)
	}
	return f, nil
}

// WSATCliff is how the write cliff is located, for the page and results.json.
const WSATCliff = "where the drive leaves its fresh-out-of-box plateau: the data written by the end of the first of two " +
	"intervals in a row whose IOPS are below 90 % of the fresh-out-of-box IOPS (the mean of the first five intervals)"

// The levels WSAT's figures read: fresh-out-of-box, and the steady state
// the series ends in.
const (
	wsatFOB      = "the mean IOPS of the first five intervals"
	wsatLastHour = "the mean IOPS of the last hour of the series"
)

func wsatSS(c Config) bool { return c.Param("wsat-ss") == "true" }

// wsatCliffShare is the share of the fresh-out-of-box IOPS below which the
// drive has left its plateau; two intervals in a row, so that one hiccup
// is not a cliff.
const wsatCliffShare = 0.9

// TGBWUnit is the unit a run shows WSAT's total data written in
// (--wsat-tgbw): its name and its bytes.
func TGBWUnit(c Config) (string, float64) {
	if c.Param("wsat-tgbw") == "GiB" {
		return "GiB", 1 << 30
	}
	return "GB", 1e9
}

// wsatSummary tables every hour of the series and locates the write cliff.
func wsatSummary(in SummaryInput) *Summary {
	samples := in.Samples
	unit, per := TGBWUnit(in.Config)
	sum := &Summary{Title: "Every hour",
		Head:  []string{"hour", "mean IOPS", "mean ART ms", "peak MRT ms", "TGBW " + unit, "minutes"},
		Units: []string{"", "IOPS", "ms", "ms", unit, "min"}}
	byHour := map[int][]Sample{}
	var hours []int
	for _, x := range samples {
		if x.Idle {
			continue
		}
		h := int(math.Ceil(x.Minute()/60 - 1e-9))
		if _, ok := byHour[h]; !ok {
			hours = append(hours, h)
		}
		byHour[h] = append(byHour[h], x)
	}
	slices.Sort(hours)
	for _, h := range hours {
		xs := byHour[h]
		var iops, art float64
		mrt := math.NaN()
		for _, x := range xs {
			iops += x.IOPS / float64(len(xs))
			art += x.LatMeanMs / float64(len(xs))
			mrt = nanMax(mrt, x.LatMaxMs)
		}
		last := xs[len(xs)-1]
		var minutes float64
		for _, x := range xs {
			minutes += x.Seconds / 60
		}
		sum.Rows = append(sum.Rows, []float64{float64(h), iops, art, mrt, float64(last.Written) / per, minutes})
	}
	fob, lastHour := wsatLevels(samples)
	cliff := math.NaN()
	var io []Sample
	for _, x := range samples {
		if !x.Idle {
			io = append(io, x)
		}
	}
	for i := 0; i+1 < len(io); i++ {
		if io[i].IOPS < wsatCliffShare*fob && io[i+1].IOPS < wsatCliffShare*fob {
			cliff = float64(io[i].Written)
			break
		}
	}
	sum.Figures = []Figure{
		{Name: "fresh-out-of-box", Value: fob, Unit: "IOPS", Definition: wsatFOB},
		{Name: "last hour", Value: lastHour, Unit: "IOPS", Definition: wsatLastHour},
		{Name: "write cliff", Value: cliff / per, Unit: unit + " written", Definition: WSATCliff},
	}
	return sum
}

// wsatLevels are the fresh-out-of-box and last hour's IOPS of a series.
func wsatLevels(samples []Sample) (fob, lastHour float64) {
	var io []Sample
	for _, x := range samples {
		if !x.Idle {
			io = append(io, x)
		}
	}
	if len(io) == 0 {
		return math.NaN(), math.NaN()
	}
	n := min(5, len(io))
	for _, x := range io[:n] {
		fob += x.IOPS / float64(n)
	}
	end := io[len(io)-1].Minute()
	var k float64
	for _, x := range io {
		if x.Minute() > end-60 {
			lastHour += x.IOPS
			k++
		}
	}
	return fob, lastHour / k
}
