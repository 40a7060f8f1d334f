package pts

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

func TestDemandParams(t *testing.T) {
	for _, tc := range []struct {
		test      TestID
		flag, v   string
		err       string
		otherFlag string
		otherV    string
	}{
		{test: DIRTH, flag: "dirth-tc", v: "32,16,8,6,4,2,1"},
		{test: DIRTH, flag: "dirth-tc", v: "4, 1"},
		{test: DIRTH, flag: "dirth-tc", v: "32,0,1", err: `"0" is not a whole number above zero`},
		{test: DIRTH, flag: "dirth-qd", v: "", err: "above zero"},
		{test: DIRTH, flag: "dirth-qd", v: "4,4", err: "4 is there twice"},
		{test: DIRTH, flag: "dirth-qd", v: "-2", err: "above zero"},
		{test: DIRTH, flag: "dirth-art-ceiling", v: "0ms", err: "above zero"},
		{test: DIRTH, flag: "dirth-art-ceiling", v: "-1ms", err: "above zero"},
		{test: DIRTH, flag: "dirth-art-ceiling", v: "2ms"},
		{test: DIRTH, flag: "dirth-bs", v: "4k"},
		{test: DIRTH, flag: "dirth-bs", v: "lots", err: "not a number"},
		{test: DIRTH, flag: "dirth-mix", v: "70/30"},
		{test: DIRTH, flag: "dirth-mix", v: "70/20", err: "70/20"},
		{test: DIRTH, flag: "dirth-prewrite", v: "0s", err: "above zero"},
		{test: DIRTH, flag: "dirth-histogram", v: "x", err: "--dirth-histogram x: not a duration"},
		{test: DIRTH, flag: "dirth-histogram", v: "10", err: "--dirth-histogram 10: a duration needs a unit: 5s, 1m, 2h30m"},
		{test: DIRTH, flag: "dirth-pick", v: "window"},
		{test: DIRTH, flag: "dirth-pick", v: "best", err: "want last or window"},
		{test: DIRTH, flag: "dirth-pc-round", v: "1m", err: "longer than its tracked end"},
		{test: ECW, flag: "ecw-tc", v: "0", err: "above zero"},
		{test: ECW, flag: "ecw-art-ceiling", v: "0s", err: "above zero"},
		{test: ECW, flag: "dirth-tc", v: "4", err: "--dirth-tc: not a parameter of ecw"},
		{test: ECW, flag: "ecw-bs", v: "4k", err: "not a parameter"},
	} {
		c := DefaultConfig()
		c.Targets, c.Tests, c.Params = []string{"sim"}, []TestID{tc.test}, map[string]string{tc.flag: tc.v}
		_, err := c.Resolve()
		if tc.err == "" {
			assert.NoError(t, err, tc.flag+" "+tc.v)
		} else {
			assert.ErrorContains(t, err, tc.err, tc.flag+" "+tc.v)
		}
	}
}

// DIRTH's stages are what ptsrun reads in PTS 2.0.2 §14 (docs/readings.md): purge, preconditioning at
// TC32/QD32 with writes until steady, then rounds of a 5 min pre-write and
// 7 × 7 TC (outer) × QD (inner) cells high to low, TC32/QD32 tracked, then
// the three operating points, each a 60 min pre-write and a 10 min
// histogram run.
func TestDIRTHStages(t *testing.T) {
	c := DefaultConfig()
	c.Targets, c.Tests = []string{"sim"}, []TestID{DIRTH}
	p, err := c.Resolve()
	require.NoError(t, err)
	st := c.Stages(p)
	require.Len(t, st, 5)
	pc, dv := st[0], st[1]
	assert.True(t, pc.Purge)
	assert.Nil(t, pc.Precondition)
	require.Len(t, pc.Cells, 2)
	assert.Equal(t, 29*time.Minute, pc.Cells[0].Workload.Duration)
	assert.Equal(t, 1, pc.Tracking[0].Cell)
	for _, cl := range pc.Cells {
		w := cl.Workload
		assert.Equal(t, engine.Workload{Access: engine.Random, BlockSize: 8 * KiB, ReadPct: 0, TC: 32, QD: 32, ActiveRange: 100, Duration: w.Duration}, w)
	}
	assert.False(t, dv.Purge)
	require.Len(t, dv.Cells, 50)
	assert.True(t, dv.Cells[0].PreWrite)
	assert.Equal(t, 5*time.Minute, dv.Cells[0].Workload.Duration)
	assert.Equal(t, 0, dv.Cells[0].Workload.ReadPct)
	assert.Equal(t, 32, dv.Cells[0].Workload.TC)
	loop := []int{32, 16, 8, 6, 4, 2, 1}
	for i, cl := range dv.Cells[1:] {
		w := cl.Workload
		assert.Equal(t, loop[i/7], w.TC, "TC is the outer loop")
		assert.Equal(t, loop[i%7], w.QD, "QD is the inner loop")
		assert.Equal(t, 65, w.ReadPct)
		assert.Equal(t, int64(8*KiB), w.BlockSize)
		assert.Equal(t, time.Minute, w.Duration)
		assert.Equal(t, i+1, cl.Index)
		assert.False(t, cl.PreWrite)
	}
	assert.Equal(t, "rnd-8k-65/35-tc32-qd32", dv.Cells[dv.Tracking[0].Cell].Key.String())
	for i, pt := range DemandPoints {
		s := st[2+i]
		require.NotNil(t, s.Point)
		assert.Equal(t, PointRef{From: "dirth", Point: pt, CeilingMs: 5, Pick: PickLast}, *s.Point, "the window's last round, as the reading demand-pick has it")
		require.Len(t, s.Timeline, 2)
		assert.Equal(t, time.Hour, s.Timeline[0].Workload.Duration)
		assert.Equal(t, 0, s.Timeline[0].Workload.ReadPct)
		assert.Equal(t, 10*time.Minute, s.Timeline[1].Workload.Duration)
		assert.Equal(t, 65, s.Timeline[1].Workload.ReadPct)
		assert.True(t, s.Timeline[1].Histogram)
		assert.False(t, s.Purge)
	}
}

// ECW runs the composite workload: the twelve sizes and three zones of
// PTS 2.0.2 §13, 40/60; on a 4Kn target the sub-4 KiB sizes are left
// out and the rest scaled back to 100 %, a deviation.
func TestCompositeWorkload(t *testing.T) {
	w, dropped := CompositeWorkload(0)
	assert.Empty(t, dropped)
	require.Len(t, w.BlockSplit, 12)
	var sum float64
	for _, s := range w.BlockSplit {
		sum += s.Percent
	}
	assert.Equal(t, 100.0, sum)
	assert.Equal(t, []engine.Zone{{IOPercent: 50, RangePercent: 5}, {IOPercent: 30, RangePercent: 15}, {IOPercent: 20, RangePercent: 80}}, w.Zones)
	assert.Equal(t, 40, w.ReadPct)
	w.TC, w.QD, w.ActiveRange, w.Duration = 1, 1, 100, time.Minute
	require.NoError(t, w.Validate(512))
	assert.ErrorContains(t, w.Validate(4096), "0.5 KiB is not a multiple of the logical block size 4096", "0.5 KiB I/Os on a 4Kn target")

	w4, dropped := CompositeWorkload(4096)
	assert.Equal(t, []int64{512, 1024, 1536, 2048, 2560, 3072, 3584}, dropped)
	assert.Equal(t, []engine.BlockShare{{Bytes: 4096, Percent: 75}, {Bytes: 8192, Percent: 11}, {Bytes: 16384, Percent: 8},
		{Bytes: 32768, Percent: 3}, {Bytes: 65536, Percent: 3}}, w4.BlockSplit, "67, 10, 7, 3, 3 of 90, in whole percents by largest remainder")
	w4.TC, w4.QD, w4.ActiveRange, w4.Duration = 1, 1, 100, time.Minute
	require.NoError(t, w4.Validate(4096))

	c := DefaultConfig()
	c.Targets, c.Tests, c.MinBlock = []string{"sim"}, []TestID{ECW}, 4096
	p, err := c.Resolve()
	require.NoError(t, err)
	st := c.Stages(p)
	assert.Equal(t, w4.BlockSplit, st[1].Cells[1].Workload.BlockSplit)
	require.Len(t, ECWTest.Departures(c), 1)
	assert.Contains(t, ECWTest.Departures(c)[0], "0.5 KiB, 1 KiB, 1.5 KiB, 2 KiB, 2.5 KiB, 3 KiB, 3.5 KiB I/Os were left out")
	c.MinBlock = 0
	assert.Empty(t, ECWTest.Departures(c))

	// WSAT's composite stimulus is the same workload.
	c = DefaultConfig()
	c.Targets, c.Tests, c.Params = []string{"sim"}, []TestID{WSAT}, map[string]string{"wsat-workload": "composite"}
	p, err = c.Resolve()
	require.NoError(t, err)
	ws := c.Stages(p)[0].Timeline[0].Workload
	w, _ = CompositeWorkload(0)
	assert.Equal(t, w.BlockSplit, ws.BlockSplit)
	assert.Equal(t, w.Zones, ws.Zones)
	assert.Equal(t, 40, ws.ReadPct)
}

// demandRound makes a demand-variation stage of TC {4,2,1} × QD {4,1}
// and rounds of it: cells[tc,qd] = {IOPS, ART ms}.
func demandRound(vals map[[2]int][2]float64) []*engine.Measurement {
	row := []*engine.Measurement{{Elapsed: time.Second, Write: engine.DirStats{IOs: 1000, LatSumNs: 1e9}}}
	for _, tc := range []int{4, 2, 1} {
		for _, qd := range []int{4, 1} {
			v := vals[[2]int{tc, qd}]
			ios := int64(v[0])
			row = append(row, &engine.Measurement{Elapsed: time.Second,
				Read: engine.DirStats{IOs: ios, LatSumNs: float64(ios) * v[1] * 1e6}})
		}
	}
	return row
}

func demandStage(t *testing.T) Stage {
	c := DefaultConfig()
	c.Targets, c.Tests = []string{"sim"}, []TestID{DIRTH}
	c.Params = map[string]string{"dirth-tc": "4,2,1", "dirth-qd": "4,1"}
	p, err := c.Resolve()
	require.NoError(t, err)
	return c.Stages(p)[1]
}

func TestPickPoints(t *testing.T) {
	dv := demandStage(t)
	steady := map[[2]int][2]float64{
		{4, 4}: {1000, 16}, {4, 1}: {800, 5}, {2, 4}: {900, 8.9}, {2, 1}: {500, 4},
		{1, 4}: {600, 6.7}, {1, 1}: {250, 4},
	}
	fast := map[[2]int][2]float64{
		{4, 4}: {1000, 4}, {4, 1}: {800, 1}, {2, 4}: {900, 2}, {2, 1}: {500, 1},
		{1, 4}: {600, 1.5}, {1, 1}: {250, 1},
	}
	slow := map[[2]int][2]float64{
		{4, 4}: {100, 160}, {4, 1}: {80, 50}, {2, 4}: {90, 89}, {2, 1}: {50, 40},
		{1, 4}: {60, 67}, {1, 1}: {25, 40},
	}
	type pt struct{ tc, qd int }
	for _, tc := range []struct {
		name           string
		rounds         []map[[2]int][2]float64
		pick           string
		ceiling        float64
		max, mid, min  pt
		maxRule        string
		maxIOPS, maxMs float64
	}{
		{name: "the ceiling rules out the deepest cells", rounds: []map[[2]int][2]float64{steady, steady, steady, steady, steady},
			pick: PickWindow, ceiling: 5, max: pt{2, 1}, mid: pt{1, 1}, min: pt{1, 1}, maxRule: "highest IOPS of the 2 cells", maxIOPS: 500, maxMs: 4},
		{name: "all under the ceiling", rounds: []map[[2]int][2]float64{fast, fast, fast, fast, fast},
			pick: PickWindow, ceiling: 5, max: pt{4, 4}, mid: pt{1, 4}, min: pt{1, 1}, maxIOPS: 1000, maxMs: 4},
		{name: "a higher ceiling", rounds: []map[[2]int][2]float64{steady, steady, steady, steady, steady},
			pick: PickWindow, ceiling: 9, max: pt{2, 4}, mid: pt{1, 4}, min: pt{1, 1}, maxIOPS: 900, maxMs: 8.9},
		{name: "none under the ceiling: MinIOPS stands in", rounds: []map[[2]int][2]float64{slow, slow, slow, slow, slow},
			pick: PickWindow, ceiling: 5, max: pt{1, 1}, mid: pt{1, 1}, min: pt{1, 1}, maxRule: "MinIOPS stands in", maxIOPS: 25, maxMs: 40},
		{name: "window average over changing rounds", rounds: []map[[2]int][2]float64{slow, slow, slow, fast, fast, fast, fast, fast},
			pick: PickWindow, ceiling: 5, max: pt{4, 4}, mid: pt{1, 4}, min: pt{1, 1}, maxIOPS: 1000, maxMs: 4},
		{name: "a cell without I/O stays, above every ceiling", rounds: func() []map[[2]int][2]float64 {
			stalled := map[[2]int][2]float64{}
			for k, v := range fast {
				stalled[k] = v
			}
			stalled[[2]int{1, 1}] = [2]float64{0, 0}
			return []map[[2]int][2]float64{stalled, stalled, stalled, stalled, stalled}
		}(), pick: PickWindow, ceiling: 5, max: pt{4, 4}, mid: pt{2, 1}, min: pt{1, 1}, maxIOPS: 1000, maxMs: 4},
		{name: "the last round alone", rounds: []map[[2]int][2]float64{fast, fast, fast, fast, steady},
			pick: PickLast, ceiling: 5, max: pt{2, 1}, mid: pt{1, 1}, min: pt{1, 1}, maxIOPS: 500, maxMs: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := &StageState{}
			for _, r := range tc.rounds {
				ss.Cells = append(ss.Cells, demandRound(r))
			}
			n := len(tc.rounds)
			ss.Ended, ss.Window = true, []int{n - 4, n}
			got, err := PickPoints(dv, ss, 5, PointRef{From: "dirth", CeilingMs: tc.ceiling, Pick: tc.pick})
			require.NoError(t, err)
			require.Len(t, got, 3)
			for i, want := range []pt{tc.max, tc.mid, tc.min} {
				assert.Equal(t, DemandPoints[i], got[i].Point)
				assert.Equal(t, want, pt{got[i].TC, got[i].QD}, got[i].Point)
			}
			assert.InDelta(t, tc.maxIOPS, got[0].IOPS, 1e-9)
			assert.InDelta(t, tc.maxMs, got[0].ARTMs, 1e-9)
			assert.Contains(t, got[0].Rule, tc.maxRule)
			if tc.pick == PickLast {
				assert.Equal(t, [2]int{n, n}, got[0].Rounds)
			} else {
				assert.Equal(t, [2]int{n - 4, n}, got[0].Rounds)
			}
		})
	}
	_, err := PickPoints(dv, &StageState{}, 5, PointRef{CeilingMs: 5})
	assert.ErrorContains(t, err, "no complete round")
}

// DIRTH runs end to end on the simulated drive: the drive reaches steady
// state, the demand-variation window obeys Little's law, and each
// operating point runs at the TC/QD chosen from that window. Cut at any
// of several points and resumed, it chooses the same points.
func TestDIRTHRunsAndResumes(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	mod := func(c *Config) { c.Tests = []TestID{DIRTH} }
	whole := newSetup(t, "enterprise", mod)
	r, _ := whole.runner(t, whole.eng)
	require.NoError(t, r.Run(context.Background(), nil))
	recs := whole.records(t)
	st := Replay(whole.info.Stages, recs)
	dv := st.Stages["dirth"]
	require.True(t, st.Stages["dirth-pc"].Steady)
	require.True(t, dv.Steady)
	want, err := PickPoints(whole.info.Stages[1], dv, 5, *whole.info.Stages[2].Point)
	require.NoError(t, err)
	assert.Greater(t, want[0].IOPS, want[1].IOPS)
	assert.Greater(t, want[1].IOPS, want[2].IOPS)
	assert.Less(t, want[0].ARTMs, 5.0)
	assert.Equal(t, [2]int{1, 1}, [2]int{want[2].TC, want[2].QD})

	// Little's law over the window: IOPS × ART = TC × QD.
	for _, c := range whole.info.Stages[1].Cells[1:] {
		var iops, lat float64
		var ios int64
		for r := dv.Window[0]; r <= dv.Window[1]; r++ {
			m := dv.Cells[r-1][c.Index]
			iops += m.IOPS() / 5
			lat += m.Counts().LatSumNs
			ios += m.Counts().IOs
		}
		oio := float64(c.Workload.OIO())
		assert.InEpsilon(t, oio, iops*lat/float64(ios)/1e9, 0.05, "TC%d/QD%d", c.Workload.TC, c.Workload.QD)
	}

	pointsRan := func(recs []Record) map[string][2]int {
		out := map[string][2]int{}
		for _, r := range recs {
			if r.Type == RecSample && r.Workload != nil {
				at := [2]int{r.Workload.TC, r.Workload.QD}
				if prev, ok := out[r.Stage]; ok && prev != at {
					out[r.Stage] = [2]int{-1, -1} // two TC/QDs in one stage
					continue
				}
				out[r.Stage] = at
			}
		}
		return out
	}
	ran := pointsRan(recs)
	for i, p := range want {
		assert.Equal(t, [2]int{p.TC, p.QD}, ran["dirth-"+DemandPoints[i]], p.Point)
	}
	assert.Len(t, st.Stages["dirth-max"].Samples, 70, "60 minutes of pre-write and 10 of histogram run, a sample a minute")

	// Cut in the demand-variation rounds, between them and the points,
	// and inside the second point.
	var runs int
	for _, rec := range recs {
		if rec.Type == RecCell || rec.Type == RecSample {
			runs++
		}
	}
	dvCells := 0
	for _, rec := range recs {
		if rec.Type == RecCell && rec.Stage == "dirth" {
			dvCells++
		}
	}
	pcCells := 2 * st.Stages["dirth-pc"].Rounds()
	for _, at := range []int{pcCells + 75, pcCells + dvCells, pcCells + dvCells + 70 + 12} {
		t.Run(fmt.Sprintf("cut after %d", at), func(t *testing.T) {
			t.Parallel()
			if at != pcCells+75 {
				enginetest.Long(t, "a further simulated DIRTH run, cut and resumed")
			}
			s := newSetup(t, "enterprise", mod)
			ctx, cancel := context.WithCancel(context.Background())
			h := &hooked{Engine: s.eng, cancelAt: at, cancel: cancel}
			r, j := s.runner(t, h)
			require.ErrorIs(t, r.Run(ctx, nil), ErrInterrupted)
			require.NoError(t, j.Close())
			require.NoError(t, s.eng.Close())
			prior := Replay(s.info.Stages, s.records(t))
			s.open(t)
			r2, _ := s.runner(t, s.eng)
			require.NoError(t, r2.Run(context.Background(), prior))
			require.NoError(t, s.eng.Close())
			recs := s.records(t)
			got := Replay(s.info.Stages, recs)
			require.True(t, got.Ended)
			pts, err := PickPoints(s.info.Stages[1], got.Stages["dirth"], 5, *s.info.Stages[2].Point)
			require.NoError(t, err)
			ran := pointsRan(recs)
			for i, p := range pts {
				assert.Equal(t, [2]int{p.TC, p.QD}, ran["dirth-"+DemandPoints[i]], "%s ran at the point the window gives", p.Point)
				assert.False(t, math.IsNaN(p.IOPS))
			}
			if at >= pcCells+dvCells {
				assert.Equal(t, want, pts, "cut after the rounds: the same window, the same points")
			}
			for i, p := range pts {
				ss := got.Stages["dirth-"+DemandPoints[i]]
				require.NotNil(t, ss.Point, "the point is journaled with its stage's start")
				assert.Equal(t, p, *ss.Point)
				assert.Len(t, ss.Samples, 70, "%s: every step once", p.Point)
			}
			if at > pcCells+dvCells+70 {
				var restarted bool
				for _, rec := range recs {
					restarted = restarted || rec.Type == RecResume && rec.Stage == "dirth-mid" && rec.Cell == nil &&
						strings.Contains(rec.Message, "restarts from its pre-write")
				}
				assert.True(t, restarted, "cut in the middle of an operating point: it starts again from its pre-write")
			}
		})
	}
}

// The readings of the demand-intensity tests other harnesses take are a
// flag away (pts.Readings): ADATA tracks the first minute of each
// preconditioning round, and tracks, chooses and caps on the writes only.
func TestDemandReadings(t *testing.T) {
	c := DefaultConfig()
	c.Targets, c.Tests = []string{"sim"}, []TestID{DIRTH}
	c.Params = map[string]string{"dirth-pc-track-at": "first", "dirth-io": "writes"}
	p, err := c.Resolve()
	require.NoError(t, err)
	st := c.Stages(p)
	pc, dv := st[0], st[1]
	require.Len(t, pc.Cells, 2)
	assert.Equal(t, time.Minute, pc.Cells[0].Workload.Duration, "the tracked minute first")
	assert.Equal(t, 29*time.Minute, pc.Cells[1].Workload.Duration)
	assert.Equal(t, 0, pc.Tracking[0].Cell)
	assert.Equal(t, "rnd-8k-0/100-tc32-qd32", pc.Cells[0].Key.String(), "the tracked cell keeps its key")
	assert.Contains(t, pc.Tracking[0].Name, "first minute of the round")
	assert.Equal(t, MetricWriteIOPS, dv.Tracking[0].Metric, "the writes' IOPS tracked")
	assert.Equal(t, "write IOPS RND 8 KiB 65/35 TC32/QD32", dv.Tracking[0].Name)
	require.NotNil(t, st[2].Point)
	assert.True(t, st[2].Point.Writes())

	// A round whose reads are fast and writes slow: on all I/O TC4/QD4 is
	// MaxIOPS; on the writes alone its 9 ms writes are over the ceiling.
	cell := func(rIOs int64, rMs float64, wIOs int64, wMs float64) *engine.Measurement {
		return &engine.Measurement{Elapsed: time.Second, Read: engine.DirStats{IOs: rIOs, LatSumNs: float64(rIOs) * rMs * 1e6},
			Write: engine.DirStats{IOs: wIOs, LatSumNs: float64(wIOs) * wMs * 1e6}}
	}
	round := []*engine.Measurement{cell(0, 0, 1000, 1), // the between-round pre-write
		cell(900, 1, 100, 9), cell(500, 1, 300, 2), // TC4: QD4, QD1
		cell(800, 1, 50, 4), cell(200, 1, 100, 1), // TC2
		cell(200, 1, 100, 1), cell(200, 1, 100, 1)} // TC1
	ss := &StageState{Ended: true, Window: []int{1, 5}}
	for range 5 {
		ss.Cells = append(ss.Cells, round)
	}
	dvs := demandStage(t)
	all, err := PickPoints(dvs, ss, 5, PointRef{CeilingMs: 5, Pick: PickWindow})
	require.NoError(t, err)
	assert.Equal(t, [2]int{4, 4}, [2]int{all[0].TC, all[0].QD})
	assert.InDelta(t, 1000, all[0].IOPS, 1e-9)
	assert.InDelta(t, 1.8, all[0].ARTMs, 1e-9)
	assert.False(t, all[0].Writes)
	writes, err := PickPoints(dvs, ss, 5, PointRef{CeilingMs: 5, Pick: PickWindow, IO: IOWrites})
	require.NoError(t, err)
	assert.Equal(t, [2]int{4, 1}, [2]int{writes[0].TC, writes[0].QD}, "TC4/QD4's writes are over the ceiling")
	assert.InDelta(t, 300, writes[0].IOPS, 1e-9)
	assert.InDelta(t, 2, writes[0].ARTMs, 1e-9)
	assert.True(t, writes[0].Writes)
	assert.Equal(t, "300 write IOPS, write ART 2.00 ms", writes[0].ChosenFigures(), "named as what they are")
}
