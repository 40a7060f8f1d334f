package pts

import (
	"fmt"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// The latency test's matrix (PTS 2.0.2 §9), in loop order, at TC1/QD1.
var (
	LATMixes      = []int{100, 65, 0}
	LATBlockSizes = []int64{8 * KiB, 4 * KiB, 512}
	LATTC, LATQD  = 1, 1
	LATPercentile = 99.999
)

// LATTest is the latency test (PTS 2.0.2 §9): random I/O at TC1/QD1 over
// the 3 × 3 matrix until the average response time of 4 KiB writes is
// steady; it reports average, 99.999 % and maximum response times.
var LATTest = &TestDef{
	ID: LAT, Name: "Latency", Section: "§9", order: 9,
	Loops:    []string{LoopMix, LoopBlockSize},
	Matrix:   func(Profile) ([]int64, []int) { return LATBlockSizes, LATMixes },
	Tracking: latTracking,
	Tables: []TableDef{
		{Name: "lat_mean_ms", Title: "Average response time", Metric: MetricLatMean,
			Aggregate: "I/O-weighted mean over the measurement window"},
		{Name: "lat_p99_999_ms", Title: "99.999 % response time", Metric: MetricLatP99999,
			Aggregate: "from the measurement window's merged latency histograms"},
		{Name: "lat_max_ms", Title: "Maximum response time", Metric: MetricLatMax,
			Aggregate: "the maximum over the measurement window"},
		// The figure other PTS tools report as MRT.
		{Name: "lat_max_mean_ms", Title: "Mean of each round's maximum response time", Metric: MetricLatMaxMean,
			Aggregate: "as other PTS tools report MRT"},
		{Name: "lat_iops", Title: "IOPS at TC1/QD1", Metric: MetricIOPS, Aggregate: "mean over the measurement window"},
	},
	Rules: []Rule{
		{Name: "preconditioning", Words: "purge, then twice the capacity of SEQ 128 KiB writes at TC1/QD32 (WIPC), then rounds of the test's cells"},
		{Name: "round", With: func(c Config) string {
			mixes, sizes := loopWords(c, LATBlockSizes, LATMixes)
			return fmt.Sprintf("the R/W mixes %s (outer loop) × the block sizes %s (inner loop), RND, %s each at TC%d/QD%d",
				mixes, sizes, ShortDuration(time.Duration(c.CellTime)), LATTC, LATQD)
		}},
		{Name: "tracking variable", Words: "the average response time (ART) of RND 4 KiB 0/100"},
		SteadyStateRule, WindowRule,
		{Name: "ART", Words: "the mean response time of every I/O of the measurement window, from submission to completion"},
		{Name: "99.999 %", Words: "of the window's merged response-time histograms"},
		{Name: "MRT", Words: "the maximum response time over the window; the table of the mean of each round's maximum is what other PTS tools report as MRT"},
	},
	Headlines: []Headline{
		{Key: Key(engine.Random, 4*KiB, 100), Metrics: []Metric{MetricLatMean, MetricLatP99999, MetricLatMax}, Brief: true},
		{Key: Key(engine.Random, 4*KiB, 0), Metrics: []Metric{MetricLatMean, MetricLatP99999, MetricLatMax}, Brief: true},
	},
	stages: func(c Config, p Profile, sizes []int64, mixes []int) []Stage {
		s := Stage{Kind: KindRounds, ID: "lat", Test: LAT, Title: "Latency", Purge: true, Precondition: c.wipc(WIPCBlockSize),
			MaxRounds: c.MaxRounds}
		for _, mix := range mixes {
			for _, bs := range sizes {
				if c.Runnable(bs) {
					s.Cells = append(s.Cells, c.cell(LAT, len(s.Cells), engine.Random, mix, bs, LATTC, LATQD))
				}
			}
		}
		s.Tracking = s.track(latTracking(0))
		return []Stage{s}
	},
}

func init() { register(LATTest) }

// latTracking are the tracking variables of a stage of the test.
func latTracking(_ int64) []TrackingDef {
	return []TrackingDef{{"ART RND 4 KiB 0/100", Key(engine.Random, 4*KiB, 0), MetricLatMean}}
}
