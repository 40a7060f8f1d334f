package pts

import (
	"fmt"
	"time"
)

// Costs are what a plan's estimates rest on.
type Costs struct {
	Window int // rounds of the steady-state window
	// Capacity is the largest target's, in bytes (0: not known), which
	// preconditioning passes cover at SeqMBps; SeqSource says where that
	// speed comes from. SetCapacity is the target set's, in which drive
	// fills count.
	Capacity, SetCapacity int64
	SeqMBps               float64
	SeqSource             string
	// PerRound and PerCell are what a round costs besides its cells'
	// time (fio servers' start-up, fio's pause between cells).
	PerRound, PerCell time.Duration
}

// NewCosts are the costs of a run of window rounds on targets of the
// capacities given (0: not known), at a sequential speed assumed: a
// device's is known only when it runs.
func NewCosts(window int, capacities []int64) Costs {
	c := Costs{Window: window, SeqMBps: 1000, SeqSource: "assumed 1000 MB/s (the device's speed is known only when it runs)"}
	for _, b := range capacities {
		c.Capacity = max(c.Capacity, b)
		c.SetCapacity += b
	}
	return c
}

// CostsOf are the costs a run's own record gives: its window and its
// targets' capacities, at the assumed speed. What runs it may know better
// (rundir: a simulated drive's model, fio servers' overheads).
func CostsOf(ri RunInfo) Costs {
	var capacities []int64
	for _, t := range ri.Targets {
		capacities = append(capacities, t.CapacityBytes)
	}
	return NewCosts(ri.Config.SS.Window, capacities)
}

// Estimate is a stage's device time before it runs: its preconditioning,
// a round, and the whole stage steady as early as it can be (Min) and at
// its limit (Max).
type Estimate struct {
	WIPCBytes int64
	WIPCTime  time.Duration
	RoundTime time.Duration // 0 for a time series not in rounds
	MinRounds int
	Min, Max  time.Duration
}

// wipcEstimate is the stage's workload-independent preconditioning at the
// costs' sequential speed.
func wipcEstimate(s Stage, c Costs) Estimate {
	var e Estimate
	if s.Precondition != nil && c.Capacity > 0 && c.SeqMBps > 0 {
		e.WIPCBytes = s.Precondition.PassBytes(c.Capacity)
		e.WIPCTime = time.Duration(float64(e.WIPCBytes) / (c.SeqMBps * 1e6) * float64(time.Second))
	}
	return e
}

// RunEstimate is a run's device time before it runs: each stage's
// estimate, by its procedure, and the run's, steady as early as every
// stage can be (Min) and at every limit (Max). `ptsrun plan` prints it;
// the runner counts the time left of a run from it.
type RunEstimate struct {
	Costs    Costs
	Stages   []Estimate // one per stage, in order
	Min, Max time.Duration
}

// EstimateRun estimates the stages of a run at costs c.
func EstimateRun(stages []Stage, c Costs) RunEstimate {
	e := RunEstimate{Costs: c}
	for _, s := range stages {
		se := s.Procedure().Estimate(s, c)
		e.Stages = append(e.Stages, se)
		e.Min += se.Min
		e.Max += se.Max
	}
	return e
}

// FormatETA writes a time to come: "2h05m", "3m07s", "4.2s".
func FormatETA(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// FormatLeft writes the time left of something that ends between lo and
// hi: "3m41s left", "3m41s–18m20s left", or, when atMost (a stop rule may
// end it first), "at most 23h50m left".
func FormatLeft(lo, hi time.Duration, atMost bool) string {
	switch {
	case atMost:
		return "at most " + FormatETA(hi) + " left"
	case FormatETA(lo) != FormatETA(hi):
		return FormatETA(lo) + "–" + FormatETA(hi) + " left"
	}
	return FormatETA(hi) + " left"
}
