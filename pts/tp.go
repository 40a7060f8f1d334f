package pts

import "github.com/ptsrun/ptsrun/engine"

// The throughput test's matrix (PTS 2.0.2 §8): the block sizes are the
// profile's (Profile.TPBlocks), each a stage of its own; each round reads
// then writes.
var (
	TPMixes        = []int{100, 0}
	TPDefaultTC    = 1
	TPDefaultQD    = 32
	ClientTPBlocks = []int64{1024 * KiB}
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
	EveryCell:         []Metric{MetricMBps},
	stages: func(c Config, p Profile, sizes []int64, mixes []int) []Stage {
		var out []Stage
		for _, bs := range sizes {
			s := Stage{ID: "tp-" + engine.SizeKey(bs), Test: TP, Title: "Throughput " + engine.FormatSize(bs), Purge: true,
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
	return []TrackingDef{{"MB/s SEQ " + engine.FormatSize(bs) + " 0/100", Key(engine.Sequential, bs, 0), MetricWriteMBps}}
}
