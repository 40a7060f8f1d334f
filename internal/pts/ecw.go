package pts

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/units"
)

// ECW is the Enterprise Composite Workload test.
const ECW TestID = "ecw"

// The enterprise composite workload (PTS 2.0.2 §13): twelve block sizes
// by share of I/Os, three LBA zones, 40/60 R/W, random.
var (
	compositeSplit = []engine.BlockShare{
		{Bytes: 512, Percent: 4}, {Bytes: 1024, Percent: 1}, {Bytes: 1536, Percent: 1}, {Bytes: 2048, Percent: 1},
		{Bytes: 2560, Percent: 1}, {Bytes: 3072, Percent: 1}, {Bytes: 3584, Percent: 1}, {Bytes: 4096, Percent: 67},
		{Bytes: 8192, Percent: 10}, {Bytes: 16384, Percent: 7}, {Bytes: 32768, Percent: 3}, {Bytes: 65536, Percent: 3},
	}
	compositeZones = []engine.Zone{{IOPercent: 50, RangePercent: 5}, {IOPercent: 30, RangePercent: 15}, {IOPercent: 20, RangePercent: 80}}
)

// compositeRead is the composite workload's read share.
const compositeRead = 40

// CompositeWorkload is the enterprise composite workload for targets whose
// logical block is minBlock bytes (0: 512): the sizes they cannot take are
// left out, named in dropped, and the others' shares scaled back to 100 %
// in whole percents (largest remainder), which every engine takes as is.
func CompositeWorkload(minBlock int64) (w engine.Workload, dropped []int64) {
	var kept []engine.BlockShare
	var sum float64
	for _, s := range compositeSplit {
		if minBlock > 0 && s.Bytes%minBlock != 0 {
			dropped = append(dropped, s.Bytes)
			continue
		}
		kept = append(kept, s)
		sum += s.Percent
	}
	if len(dropped) > 0 {
		kept = renormalise(kept, sum)
	}
	return engine.Workload{Access: engine.Random, ReadPct: compositeRead, BlockSplit: kept,
		Zones: slices.Clone(compositeZones)}, dropped
}

// renormalise scales shares that sum to sum back to 100 whole percents.
func renormalise(in []engine.BlockShare, sum float64) []engine.BlockShare {
	out := slices.Clone(in)
	type rem struct {
		i int
		r float64
	}
	var rems []rem
	total := 0
	for i, s := range out {
		exact := s.Percent * 100 / sum
		out[i].Percent = math.Floor(exact)
		total += int(out[i].Percent)
		rems = append(rems, rem{i, exact - out[i].Percent})
	}
	slices.SortStableFunc(rems, func(a, b rem) int {
		switch {
		case a.r > b.r:
			return -1
		case a.r < b.r:
			return 1
		}
		return 0
	})
	for k := 0; total < 100 && k < len(rems); k++ {
		out[rems[k].i].Percent++
		total++
	}
	return out
}

var ecw = &demand{
	test: ECW, prefix: "ecw", name: "ECW",
	stimulus: func(c Config) (engine.Workload, engine.Workload, string, string) {
		test, _ := CompositeWorkload(c.MinBlock)
		pre := test
		pre.ReadPct = 0
		return test, pre, "RND composite 40/60, zoned", "RND composite W, zoned"
	},
}

// ECWTest is DIRTH's procedure with the enterprise composite workload
// (PTS 2.0.2 §13).
var ECWTest = demandDef(ecw, "§13", 13, nil)

func init() {
	ECWTest.Departures = func(c Config) []string { return compositeDepartures("ECW", c.MinBlock) }
	register(ECWTest)
}

// compositeDepartures says how the composite workload departs from the
// PTS's on targets of logical block minBlock, for test.
func compositeDepartures(test string, minBlock int64) []string {
	w, dropped := CompositeWorkload(minBlock)
	if len(dropped) == 0 {
		return nil
	}
	var sizes []string
	for _, b := range dropped {
		sizes = append(sizes, units.FormatSize(b))
	}
	return []string{fmt.Sprintf("%s: the composite workload's %s I/Os were left out (the targets' logical block is %d bytes) and the other sizes' shares scaled back to 100 %%: %s.",
		test, strings.Join(sizes, ", "), minBlock, w.SplitLabel())}
}
