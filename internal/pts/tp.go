package pts

import (
	"fmt"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/units"
)

// The throughput test's matrix (PTS 2.0.2 §8): the block sizes are the
// profile's (Profile.TPBlocks), each a stage of its own; each round reads
// then writes.
var (
	TPMixes     = []int{100, 0}
	TPDefaultTC = 1
	TPDefaultQD = 32
	// The client profile's: both PTS 2.0 forks run 1024 and 128 KiB for
	// every profile (the reading "client-tp-sizes"; PTS-C 1.x had 1024 KiB
	// only).
	ClientTPBlocks = []int64{1024 * KiB, 128 * KiB}
	EntTPBlocks    = []int64{1024 * KiB, 128 * KiB}
)

// TPTest is the throughput test (PTS 2.0.2 §8): for each block size a
// purge, preconditioning with sequential writes of that size, then rounds
// of sequential reads and writes until the write MB/s is steady.
var TPTest = &TestDef{
	ID: TP, Name: "Throughput", Section: "§8", order: 8,
	// A stage per block size: the block size is the outer loop.
	Loops:             []string{LoopBlockSize, LoopMix},
	Matrix:            func(p Profile) ([]int64, []int) { return p.TPBlocks, TPMixes },
	Tracking:          tpTracking,
	StagePerBlockSize: true,
	Tables:            []TableDef{{Name: "tp", Title: "Throughput", Metric: MetricMBps}},
	Rules: []Rule{
		{Name: "stages", With: func(c Config) string {
			_, sizes := loopWords(c, EntTPBlocks, nil)
			return "one per block size (" + sizes + "): a purge, twice the capacity of SEQ writes of that size at TC1/QD32 (WIPC), then rounds"
		}},
		{Name: "round", With: func(c Config) string {
			mixes, _ := loopWords(c, nil, TPMixes)
			return fmt.Sprintf("SEQ %s of the stage's block size, %s each at TC%d/QD%d", mixes,
				ShortDuration(time.Duration(c.CellTime)), TPDefaultTC, TPDefaultQD)
		}},
		{Name: "tracking variable", Words: "the stage's SEQ write MB/s"},
		SteadyStateRule, WindowRule,
		{Name: "MB/s", Words: "10^6 bytes a second"},
	},
	EveryCell: []Metric{MetricMBps},
	stages: func(c Config, p Profile, sizes []int64, mixes []int) []Stage {
		var out []Stage
		for _, bs := range sizes {
			s := Stage{Kind: KindRounds, ID: "tp-" + units.SizeKey(bs), Test: TP, Title: "Throughput " + units.FormatSize(bs), Purge: true,
				Precondition: c.wipc(bs), MaxRounds: c.MaxRounds}
			for _, mix := range mixes {
				s.Cells = append(s.Cells, c.cell(TP, len(s.Cells), engine.Sequential, mix, bs, TPDefaultTC, TPDefaultQD))
			}
			s.Tracking = s.track(tpTracking(bs))
			out = append(out, s)
		}
		return out
	},
}

func init() { register(TPTest) }

// tpTracking are the tracking variables of a stage of the test.
func tpTracking(bs int64) []TrackingDef {
	return []TrackingDef{{"MB/s SEQ " + units.FormatSize(bs) + " 0/100", Key(engine.Sequential, bs, 0), MetricWriteMBps}}
}
