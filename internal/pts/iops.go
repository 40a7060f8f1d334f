package pts

import (
	"fmt"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// The IOPS test's matrix (PTS 2.0.2 §7), in loop order: the R/W mix is the
// outer loop, from all reads to all writes; the block size the inner loop,
// from the largest to the smallest.
var (
	IOPSMixes      = []int{100, 95, 65, 50, 35, 5, 0}
	IOPSBlockSizes = []int64{1024 * KiB, 128 * KiB, 64 * KiB, 32 * KiB, 16 * KiB, 8 * KiB, 4 * KiB, 512}
)

// IOPSTest is the IOPS test (PTS 2.0.2 §7): random I/O over the 7 × 8
// matrix at the profile's TC/QD, after a purge and workload-independent
// preconditioning, round after round until its three tracking variables
// are steady in the same window.
var IOPSTest = &TestDef{
	ID: IOPS, Name: "IOPS", Section: "§7", order: 7,
	Loops:  []string{LoopMix, LoopBlockSize},
	Matrix: func(Profile) ([]int64, []int) { return IOPSBlockSizes, IOPSMixes },
	// PTS 2.0.2 §7: all three must be steady in the same window.
	Tracking: iopsTracking,
	Tables:   []TableDef{{Name: "iops", Title: "IOPS", Metric: MetricIOPS}},
	Rules: []Rule{
		{Name: "preconditioning", Words: "purge, then twice the capacity of SEQ 128 KiB writes at TC1/QD32 (WIPC), then rounds of the " +
			"test's cells (WDPC)"},
		{Name: "round", With: func(c Config) string {
			mixes, sizes := loopWords(c, IOPSBlockSizes, IOPSMixes)
			return fmt.Sprintf("the R/W mixes %s (outer loop) × the block sizes %s (inner loop), RND, %s each at TC%d/QD%d",
				mixes, sizes, ShortDuration(time.Duration(c.CellTime)), c.TC, c.QD)
		}},
		{Name: "tracking variables", Words: "the IOPS of RND 4 KiB 0/100, RND 64 KiB 65/35 and RND 1024 KiB 100/0, all three steady in the same window"},
		SteadyStateRule, WindowRule,
		{Name: "IOPS of a cell", Words: "its read IOPS plus its write IOPS"},
	},
	Headlines: []Headline{
		{Key: Key(engine.Random, 4*KiB, 100), Metrics: []Metric{MetricIOPS}, Brief: true},
		{Key: Key(engine.Random, 4*KiB, 65), Metrics: []Metric{MetricIOPS}, Brief: true},
		{Key: Key(engine.Random, 4*KiB, 0), Metrics: []Metric{MetricIOPS}, Brief: true},
		{Key: Key(engine.Random, 64*KiB, 65), Metrics: []Metric{MetricIOPS}},
		{Key: Key(engine.Random, 1024*KiB, 100), Metrics: []Metric{MetricIOPS}},
	},
	stages: func(c Config, p Profile, sizes []int64, mixes []int) []Stage {
		s := Stage{Kind: KindRounds, ID: "iops", Test: IOPS, Title: "IOPS", Purge: true, Precondition: c.wipc(WIPCBlockSize),
			MaxRounds: c.MaxRounds}
		for _, mix := range mixes {
			for _, bs := range sizes {
				if c.Runnable(bs) {
					s.Cells = append(s.Cells, c.cell(IOPS, len(s.Cells), engine.Random, mix, bs, c.TC, c.QD))
				}
			}
		}
		s.Tracking = s.track(iopsTracking(0))
		return []Stage{s}
	},
}

func init() { register(IOPSTest) }

// iopsTracking are the tracking variables of a stage of the test.
func iopsTracking(_ int64) []TrackingDef {
	return []TrackingDef{
		{"IOPS RND 4 KiB 0/100", Key(engine.Random, 4*KiB, 0), MetricIOPS},
		{"IOPS RND 64 KiB 65/35", Key(engine.Random, 64*KiB, 65), MetricIOPS},
		{"IOPS RND 1024 KiB 100/0", Key(engine.Random, 1024*KiB, 100), MetricIOPS},
	}
}
