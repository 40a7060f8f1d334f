package rundir

import (
	"context"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// wipcSpeedWorkload measures a simulated drive's sequential write speed,
// at which a run's workload-independent preconditioning is estimated.
var wipcSpeedWorkload = engine.Workload{Access: engine.Sequential, BlockSize: pts.WIPCBlockSize, TC: pts.WIPCTC,
	QD: pts.WIPCQD, ActiveRange: 100, Duration: 10 * time.Second}

// Costs are what the estimates of c's stages rest on: its window, its
// targets' capacities and sequential speed (a simulated drive's model's,
// measured on a fresh drive of it; assumed for a real device), and what
// fio servers add to each round. `ptsrun plan` prints the estimate they
// make; the runner counts a run's time left from it.
func (c Checked) Costs(ctx context.Context) pts.Costs {
	tp := c.Targets
	costs := pts.NewCosts(c.Config.SS.Window, tp.Capacities())
	if len(tp.Sim) > 0 {
		costs.SeqSource = "the simulated drive's model"
	}
	if mbps := tp.SeqWriteMBps(ctx, wipcSpeedWorkload); mbps > 0 {
		costs.SeqMBps = mbps
	}
	costs.PerRound, costs.PerCell = tp.Overheads()
	return costs
}

// Estimate is c's stages' time before they run, at c's costs.
func (c Checked) Estimate(ctx context.Context) pts.RunEstimate {
	return pts.EstimateRun(c.Config.Stages(c.Profile), c.Costs(ctx))
}
