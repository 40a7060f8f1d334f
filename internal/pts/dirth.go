package pts

import (
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/units"
)

// DIRTH is the Demand Intensity / Response Time Histogram test.
const DIRTH TestID = "dirth"

var dirth = &demand{
	test: DIRTH, prefix: "dirth", name: "DIRTH",
	stimulus: func(c Config) (engine.Workload, engine.Workload, string, string) {
		bs, _ := units.ParseSize(c.Param("dirth-bs")) // checked by Resolve
		read, _ := ParseMix(c.Param("dirth-mix"))
		test := engine.Workload{Access: engine.Random, BlockSize: bs, ReadPct: read}
		pre := test
		pre.ReadPct = 0
		return test, pre, KeyOf(test).Label(), KeyOf(pre).Label()
	},
}

// DIRTHTest sweeps demand, thread count × queue depth, to steady state and
// measures the response-time histograms of three operating points
// (PTS 2.0.2 §14). Its stimulus defaults to OLTP, RND 8 KiB 65/35, a
// reading of the PTS (Readings), hence flags.
var DIRTHTest = demandDef(dirth, "§14", 14, dirthParams)

var dirthParams = []Param{
	{Flag: "dirth-bs", Default: "8k", Usage: "DIRTH's block size (RND)",
		Check: func(v string) error { _, err := units.ParseSize(v); return err }},
	{Flag: "dirth-mix", Default: "65/35", Usage: "DIRTH's R/W mix",
		Check: func(v string) error { _, err := ParseMix(v); return err }},
}

func init() { register(DIRTHTest) }
