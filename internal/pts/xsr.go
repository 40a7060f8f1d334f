package pts

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/units"
)

// XSR is the Cross Stimulus Recovery test.
const XSR TestID = "xsr"

// XSR's access groups (PTS 2.0.2 §12, from the ADATA harness: a
// reading of the PTS, hence --xsr-groups): a
// sequential write, a random write, and the sequential write again, at
// TC1/QD32, sampled every minute.
const (
	xsrTC, xsrQD   = 1, 32
	xsrInterval    = time.Minute
	xsrDefaultTime = "8h,6h,8h"
)

// XSRTest follows the drive from sequential to random writes and back: how
// far throughput falls when the stimulus changes, and how long the drive
// takes to recover from the random writes' fragmentation.
var XSRTest = &TestDef{
	ID: XSR, Name: "Cross Stimulus Recovery", Section: "§12", order: 12, ActiveRange: 100,
	Params: []Param{
		{Flag: "xsr-groups", Default: xsrDefaultTime,
			Usage: "XSR access groups' durations: SEQ 1024 KiB W, RND 8 KiB W, SEQ 1024 KiB W",
			Check: func(v string) error { _, err := xsrGroups(v); return err }},
		{Flag: "xsr-interval", Default: xsrInterval.String(),
			Usage: "XSR's sampling interval (shorter for a quick look)",
			Check: func(v string) error { _, err := positiveDuration(v); return err }},
	},
	Tables: []TableDef{
		{Name: "xsr", Title: "XSR: throughput and response times per minute", Shape: ShapeSamples,
			SampleColumns: []string{ColMinute, ColGroup, ColMBps, ColLatMean, ColLatMax}},
		{Name: "xsr_summary", Title: "XSR: access groups and the recovery time", Shape: ShapeSummary},
		{Name: "xsr_figures", Title: "XSR: the recovery times", Shape: ShapeFigures},
	},
	Rules: []Rule{
		{Name: "access groups", With: func(c Config) string {
			d, _ := xsrGroups(c.Param("xsr-groups"))
			if len(d) != 3 {
				return ""
			}
			return fmt.Sprintf("from a purge, SEQ 1024 KiB writes for %s, RND 8 KiB writes for %s, SEQ 1024 KiB writes for %s, at "+
				"TC%d/QD%d, a sample every %s", ShortDuration(d[0]), ShortDuration(d[1]), ShortDuration(d[2]), xsrTC, xsrQD,
				durWords(c, "xsr-interval"))
		}},
		{Name: "recovery time", Words: XSRRecovery},
		{Name: "sustained recovery", Words: XSRSustained},
	},
	Summarize: xsrSummary,
	stages: func(c Config, p Profile, _ []int64, _ []int) []Stage {
		durs, _ := xsrGroups(c.Param("xsr-groups")) // checked by Resolve
		iv, _ := positiveDuration(c.Param("xsr-interval"))
		s := Stage{Kind: KindTimeline, ID: string(XSR), Test: XSR, Title: "Cross Stimulus Recovery", Purge: true}
		var parts []string
		for i, g := range xsrAccess {
			w := engine.Workload{Access: g.access, BlockSize: g.bs, ReadPct: 0, TC: xsrTC, QD: xsrQD,
				ActiveRange: c.ActiveRangeOf(XSR), Duration: durs[i]}
			s.Timeline = append(s.Timeline, Segment{Name: fmt.Sprintf("access group %d: %s", i+1, w), Group: i + 1,
				Workload: w, Interval: Duration(iv)})
			parts = append(parts, fmt.Sprintf("G%d %s %s W %s", i+1, AccessLabel(g.access), units.FormatSize(g.bs), ShortDuration(durs[i])))
		}
		s.Stimulus = strings.Join(parts, ", ")
		return []Stage{s}
	},
}

func init() { register(XSRTest) }

var xsrAccess = []struct {
	access engine.Access
	bs     int64
}{{engine.Sequential, 1024 * KiB}, {engine.Random, 8 * KiB}, {engine.Sequential, 1024 * KiB}}

// xsrGroups reads the three access groups' durations: "8h,6h,8h".
func xsrGroups(v string) ([]time.Duration, error) {
	parts := strings.Split(v, ",")
	if len(parts) != 3 {
		return nil, fmt.Errorf("want three durations, one per access group, such as %s", xsrDefaultTime)
	}
	var out []time.Duration
	var sum time.Duration
	for _, p := range parts {
		d, err := engine.ParseDuration(p)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", strings.TrimSpace(p), err)
		}
		if d < 0 {
			return nil, fmt.Errorf("%q is not a duration of zero or more, such as 8h or 30m", strings.TrimSpace(p))
		}
		out = append(out, d)
		sum += d
	}
	if sum <= 0 {
		return nil, fmt.Errorf("the access groups' durations sum to 0")
	}
	return out, nil
}

// XSRRecovery is how the recovery time is defined, for the page and
// results.json.
const XSRRecovery = "minutes from the start of access group 3 to the end of the first minute whose throughput reaches the mean throughput of access group 1"

// XSRSustained is the recovery that holds: from the recovery time on, the
// first five minutes in a row each within 10 % of group 1's mean (noise
// alone takes a recovered drive's minutes above and below its mean). It is
// never before the recovery time: it is that recovery, held.
const XSRSustained = "minutes from the start of access group 3 to the end of the first five minutes in a row, from the recovery " +
	"time's minute on, whose throughput is each at least 90 % of the mean throughput of access group 1"

// xsrSustainedShare and xsrSustainedRun define XSRSustained.
const (
	xsrSustainedShare = 0.9
	xsrSustainedRun   = 5
)

// xsrSummary tables each access group (its mean and last minute's
// throughput, the peak average and maximum response times) and derives the
// recovery time.
func xsrSummary(in SummaryInput) *Summary {
	samples := in.Samples
	sum := &Summary{Title: "Access groups",
		Head:  []string{"group", "minutes", "mean MB/s", "MB/s at the end", "peak ART ms", "peak MRT ms"},
		Units: []string{"", "min", "MB/s", "MB/s", "ms", "ms"}}
	mean := map[int]float64{}
	var start3 = math.NaN()
	for g := 1; g <= 3; g++ {
		var n, mb, end, art, mrt, minutes float64
		art, mrt, end = math.NaN(), math.NaN(), math.NaN()
		for _, s := range samples {
			if s.Group != g || s.Idle {
				continue
			}
			if g == 3 && math.IsNaN(start3) {
				start3 = s.Start
			}
			n++
			mb += s.MBps
			end = s.MBps
			minutes += s.Seconds / 60
			art = nanMax(art, s.LatMeanMs)
			mrt = nanMax(mrt, s.LatMaxMs)
		}
		if n == 0 {
			continue
		}
		mean[g] = mb / n
		sum.Rows = append(sum.Rows, []float64{float64(g), minutes, mb / n, end, art, mrt})
	}
	rec, held := math.NaN(), math.NaN()
	if m1, ok := mean[1]; ok && !math.IsNaN(start3) {
		run := 0
		for _, s := range samples {
			if s.Group != 3 || s.Idle {
				continue
			}
			if s.MBps >= m1 && math.IsNaN(rec) {
				rec = (s.Start + s.Seconds - start3) / 60
			}
			switch {
			case math.IsNaN(rec): // not recovered yet: nothing to hold
			case s.MBps >= xsrSustainedShare*m1:
				run++
			default:
				run = 0
			}
			if run == xsrSustainedRun && math.IsNaN(held) {
				held = (s.Start + s.Seconds - start3) / 60
			}
		}
	}
	sum.Figures = []Figure{{Name: "recovery time", Value: rec, Unit: "min", Definition: XSRRecovery},
		{Name: "sustained recovery", Value: held, Unit: "min", Definition: XSRSustained}}
	return sum
}

func nanMax(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

// positiveDuration reads a duration that must be above zero.
func positiveDuration(v string) (time.Duration, error) {
	d, err := engine.ParseDuration(v)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q is not a duration above zero, such as 1m", v)
	}
	return d, nil
}
