package pts

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// allStages are the stages of every test with its defaults.
func allStages(t *testing.T) []Stage {
	t.Helper()
	c := DefaultConfig()
	c.Tests = nil
	for _, td := range Tests {
		c.Tests = append(c.Tests, td.ID)
	}
	c.Params = map[string]string{"wsat-ss": "true"} // a timeline in rounds too
	c.RWSW = testApplied
	p, err := c.Resolve()
	require.NoError(t, err)
	return append(c.Stages(p), Stage{ID: "custom", Test: Custom, Title: "Workload", MaxRounds: 1,
		Cells: []Cell{{Key: Named("w"), Workload: engine.Workload{Duration: time.Second}}}})
}

// Every stage a test builds names its procedure, the one its recorded
// fields make it (run.json records no kind); every table of a test is of a
// shape its stages' procedures make.
func TestProcedureOfEveryStage(t *testing.T) {
	byTest := map[TestID][]TableShape{}
	for _, s := range allStages(t) {
		assert.Equal(t, recordedKind(s), s.Procedure().Kind(), "%s", s.ID)
		require.NoError(t, checkStage(s), s.ID)
		b, err := json.Marshal(s)
		require.NoError(t, err)
		assert.NotContains(t, string(b), `"kind"`, "run.json is as it was")
		var back Stage
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, s.Procedure().Kind(), back.Procedure().Kind(), "%s read back", s.ID)
		byTest[s.Test] = append(byTest[s.Test], s.Procedure().Tables()...)
	}
	for _, td := range append(slices.Clone(Tests), CustomTest) {
		for _, tb := range td.Tables {
			assert.Contains(t, byTest[td.ID], tb.Shape, "%s: table %s", td.ID, tb.Name)
		}
	}
	// A stage of one kind with another's fields is refused before it runs.
	st := Stage{Kind: KindRounds, Title: "T", Timeline: []Segment{{Name: "g", Interval: Duration(time.Minute),
		Workload: engine.Workload{Duration: time.Minute}}}}
	assert.ErrorContains(t, checkStage(st), "a stage of rounds has the fields of one of timeline")
}

// judgedRun journals n rounds of a one-cell stage tracking its IOPS, each
// round's verdict from the window's last round on the one given.
func judgedRun(s Stage, n int, verdict func(round int) *steadystate.Joint) []Record {
	recs := []Record{{Type: RecStart}, {Type: RecStageStart, Stage: s.ID}}
	for r := 1; r <= n; r++ {
		idx := 0
		m := engine.Measurement{Elapsed: time.Minute}
		m.Write.IOs = int64(60_000 * (10 + r%2))
		recs = append(recs, Record{Type: RecRoundStart, Stage: s.ID, Round: r},
			Record{Type: RecCell, Stage: s.ID, Round: r, Cell: &idx, Measurement: &m},
			Record{Type: RecRoundEnd, Stage: s.ID, Round: r, Tracking: []float64{m.IOPS()}, Verdict: verdict(r)})
	}
	steady := true
	return append(recs, Record{Type: RecStageEnd, Stage: s.ID, Steady: &steady, SSRound: n, Window: []int{n - 4, n}})
}

// The verdicts results show are the ones the runner journaled, read, not
// judged again; a round that has none (a kill cut its round_end off) has
// the rule applied as the runner would have.
func TestOutcomeReadsJournaledVerdicts(t *testing.T) {
	s := Stage{Kind: KindRounds, ID: "r", Title: "R", MaxRounds: 25,
		Cells:    []Cell{{Key: Named("c"), Workload: engine.Workload{Duration: time.Minute}}},
		Tracking: []Tracking{{Name: "IOPS", Cell: 0, Metric: MetricIOPS}}}
	journaled := func(r int) *steadystate.Joint {
		if r < 5 {
			return nil
		}
		// Not what the rule gives for these values: what is read shows.
		return &steadystate.Joint{Round: r, Steady: r == 6, Verdicts: []steadystate.Verdict{{FirstRound: r - 4, LastRound: r, Average: float64(r), Steady: r == 6}}}
	}
	cfg := DefaultConfig()
	st := Replay([]Stage{s}, judgedRun(s, 6, journaled))
	o := s.Procedure().Outcome(OutcomeInput{Config: cfg, Stage: &s, State: st, Stages: []Stage{s}})
	assert.Equal(t, [2]int{2, 6}, o.Window)
	require.Len(t, o.Tracking, 1)
	assert.Equal(t, 6.0, o.Tracking[0].Verdict.Average, "the verdict the runner journaled")
	require.Len(t, o.Judged, 6)
	assert.Nil(t, o.Judged[3], "no verdict before the window is full")
	assert.Equal(t, 5.0, o.Judged[4].Verdicts[0].Average)
	assert.True(t, o.Judged[5].Steady)

	// Without a journaled verdict, the runner's rule.
	st = Replay([]Stage{s}, judgedRun(s, 6, func(int) *steadystate.Joint { return nil }))
	o = s.Procedure().Outcome(OutcomeInput{Config: cfg, Stage: &s, State: st, Stages: []Stage{s}})
	want := cfg.SS.CheckAt(o.Tracking[0].Values, 6)
	assert.Equal(t, want, o.Tracking[0].Verdict)
	assert.Equal(t, want, o.Judged[5].Verdicts[0])
}

// A timeline in rounds journals each round's verdict after the round's
// samples, without round_start records: they are read too.
func TestTimelineRoundsVerdictsAreRead(t *testing.T) {
	c := DefaultConfig()
	c.Tests, c.Params = []TestID{WSAT}, map[string]string{"wsat-ss": "true"}
	p, err := c.Resolve()
	require.NoError(t, err)
	s := c.Stages(p)[0]
	n := s.RoundSteps()
	recs := []Record{{Type: RecStageStart, Stage: s.ID}}
	for r := 1; r <= 5; r++ {
		for k := 0; k < n; k++ {
			idx := (r-1)*n + k
			m := engine.Measurement{Elapsed: time.Minute}
			m.Write.IOs, m.Write.Bytes = 6e6, 6e6*4096
			recs = append(recs, Record{Type: RecSample, Stage: s.ID, Cell: &idx, Measurement: &m})
		}
		var v *steadystate.Joint
		if r == 5 {
			v = &steadystate.Joint{Round: 5, Steady: true, Verdicts: []steadystate.Verdict{{FirstRound: 1, LastRound: 5, Average: 1, Steady: true}}}
		}
		recs = append(recs, Record{Type: RecRoundEnd, Stage: s.ID, Round: r, Tracking: []float64{1e5}, Verdict: v})
	}
	st := Replay([]Stage{s}, recs)
	o := s.Procedure().Outcome(OutcomeInput{Config: c, Stage: &s, State: st, Stages: []Stage{s}})
	assert.True(t, o.Series)
	assert.Equal(t, 5, o.Rounds)
	require.Len(t, o.Tracking, 1)
	assert.Equal(t, 1.0, o.Tracking[0].Verdict.Average, "as journaled")
}

// A segment repeats one way, whoever describes it: in rounds when its
// stage is, else with its idle time, else as often as it repeats.
func TestSegmentRuns(t *testing.T) {
	g := Segment{Repeat: 3, IdleAfter: Duration(5 * time.Second)}
	assert.Equal(t, Runs{Times: 3, Idle: 5 * time.Second}, Stage{}.Runs(g))
	assert.Equal(t, Runs{Times: 3, Rounds: true}, Stage{Tracking: []Tracking{{}}}.Runs(g), "rounds first")
	assert.Equal(t, Runs{Times: 1}, Stage{}.Runs(Segment{}))
	assert.Equal(t, Runs{Times: 1, Idle: time.Second}, Stage{}.Runs(Segment{IdleAfter: Duration(time.Second)}), "idle even once")
}

// Each procedure estimates its stages: rounds from the window to the round
// limit, a time series its segments or its time limit, in rounds from the
// window's last round.
func TestEstimates(t *testing.T) {
	costs := Costs{Window: 5, Capacity: 1e12, SeqMBps: 1000, PerRound: time.Second, PerCell: time.Second}
	for _, s := range allStages(t) {
		e := s.Procedure().Estimate(s, costs)
		if s.Test != Custom { // a workload's one round is not planned
			assert.LessOrEqual(t, e.Min, e.Max, s.ID)
		}
		switch s.ID {
		case "iops":
			assert.Equal(t, s.RoundTime()+time.Second+time.Duration(len(s.Cells))*time.Second, e.RoundTime)
			assert.Equal(t, s.Precondition.PassBytes(1e12), e.WIPCBytes, "twice the capacity")
			assert.Equal(t, time.Duration(float64(e.WIPCBytes)/1e9*float64(time.Second)), e.WIPCTime, "at 1000 MB/s")
			assert.Equal(t, e.WIPCTime+5*e.RoundTime, e.Min)
			assert.Equal(t, e.WIPCTime+25*e.RoundTime, e.Max)
		case "wsat":
			assert.Equal(t, 31*time.Minute, e.RoundTime, "a round of the steady-state method")
			assert.Equal(t, 5*31*time.Minute, e.Min)
			assert.Equal(t, 25*31*time.Minute, e.Max, "its round limit comes before its time limit")
		case "xsr":
			assert.Equal(t, 22*time.Hour, e.Max)
			assert.Equal(t, e.Max, e.Min, "a time series has one length")
			assert.Zero(t, e.RoundTime)
		case "dirth-max":
			assert.Equal(t, 70*time.Minute, e.Max, "its pre-write and histogram run")
		}
	}
}

// samplePositions keeps the positions the runner gives its observer with
// each sample.
type samplePositions []Position

func (p *samplePositions) Observe(r Record, pos Position) {
	if r.Type == RecSample {
		*p = append(*p, pos)
	}
}

// A time series tells the progress display its steps and that what is
// left is at most the time given when a stop rule may come first.
func TestTimelinePositions(t *testing.T) {
	for _, fills := range []float64{0, 1} {
		s := newSetup(t, "client", func(c *Config) { c.Tests = []TestID{LAT} })
		st := Stage{Kind: KindTimeline, ID: "tl", Test: "tl", Title: "Timeline", Purge: true, StopFills: fills, Timeline: []Segment{
			{Name: "seq", Workload: write(engine.Sequential, MiB, 3*time.Minute), Interval: Duration(time.Minute)}}}
		s.info.Stages = []Stage{st}
		require.NoError(t, WriteRunInfo(s.dir, s.info))
		r, _ := s.runner(t, s.eng)
		var seen samplePositions
		r.Observer = &seen
		require.NoError(t, r.Run(context.Background(), nil))
		require.Len(t, seen, 3)
		for _, p := range seen {
			assert.Equal(t, 3, p.Steps)
			assert.Equal(t, fills > 0, p.AtMost, "fills %g", fills)
		}
		assert.Equal(t, 2*time.Minute, seen[0].RoundLeft)
	}
}

// observed keeps every record the runner gives its observer, with its
// position.
type observed struct {
	recs []Record
	pos  []Position
}

func (o *observed) Observe(r Record, p Position) {
	o.recs = append(o.recs, r)
	o.pos = append(o.pos, p)
}

// The run's time left is the estimate plan makes: the whole run's at its
// start, then the stage's time left and the estimates of the stages not
// begun, at the pace of the cells so far; nothing at its end.
func TestRunLeft(t *testing.T) {
	s := newSetup(t, "client", func(c *Config) { c.Tests = []TestID{LAT} })
	rounds := Stage{Kind: KindRounds, ID: "r", Test: "r", Title: "Rounds", Purge: true, MaxRounds: 2,
		Cells: []Cell{{Key: Named("w"), Workload: write(engine.Random, 4*KiB, time.Minute)}}}
	tl := Stage{Kind: KindTimeline, ID: "tl", Test: "tl", Title: "Timeline", Timeline: []Segment{
		{Name: "seq", Workload: write(engine.Sequential, MiB, 3*time.Minute), Interval: Duration(time.Minute)}}}
	s.info.Stages = []Stage{rounds, tl}
	require.NoError(t, WriteRunInfo(s.dir, s.info))
	r, _ := s.runner(t, s.eng)
	var seen observed
	r.Observer = &seen
	require.NoError(t, r.Run(context.Background(), nil))

	est := EstimateRun(s.info.Stages, CostsOf(s.info))
	require.Equal(t, RecStart, seen.recs[0].Type)
	assert.Equal(t, est.Min, seen.pos[0].RunLeftMin, "the whole run, as plan estimates it")
	assert.Equal(t, est.Max, seen.pos[0].RunLeftMax)
	var samples int
	for i, rec := range seen.recs {
		p := seen.pos[i]
		assert.LessOrEqual(t, p.RunLeftMin, p.RunLeftMax, "%d %s", i, rec.Type)
		switch {
		case rec.Type == RecStageEnd && rec.Stage == "r":
			assert.Equal(t, r.scale(3*time.Minute), p.RunLeftMax, "the timeline's estimate, at the cells' pace")
			assert.Zero(t, p.StageLeftMax)
		case rec.Type == RecSample:
			samples++
			assert.Equal(t, time.Duration(3-samples)*time.Minute, p.RunLeftMax, "the last stage's time left is the run's")
			assert.Equal(t, p.StageLeftMax, p.RunLeftMax)
		case rec.Type == RecCell:
			assert.Greater(t, p.RunLeftMax, p.StageLeftMax, "the timeline is still to come")
		}
	}
	assert.Equal(t, 3, samples)
	assert.Equal(t, RecEnd, seen.recs[len(seen.recs)-1].Type)
	assert.Zero(t, seen.pos[len(seen.pos)-1].RunLeftMax)
}

// Each procedure words a measurement's progress: a cell of a round and
// the time left of the round, the stage and the run; a sample of a time
// series, its segment, bytes written and fills, its IOPS (none when idle)
// and the time left, "at most" where a stop rule may come first.
func TestProgressWords(t *testing.T) {
	c := DefaultConfig()
	c.Tests = []TestID{IOPS, WSAT, HIR, XSR}
	p, err := c.Resolve()
	require.NoError(t, err)
	stages := map[string]Stage{}
	for _, s := range c.Stages(p) {
		stages[s.ID] = s
	}
	m := engine.Measurement{Elapsed: time.Minute}
	m.Write.IOs, m.Write.Bytes = 6_000_000, 800e9
	at := func(id string, k int) (Record, Position) {
		s := stages[id]
		steps := s.Steps()
		return Record{Type: RecSample, Stage: id, Cell: &k, Workload: &steps[k].Workload, Measurement: &m},
			Position{Stage: &s, Steps: len(steps), Step: steps[k], Written: 800e9, Capacity: 3_200_631_791_616}
	}
	iops := stages["iops"]
	cell := Record{Type: RecCell, Stage: "iops", Round: 3, Key: iops.Cells[3].Key, Measurement: &m}
	cellAt := Position{Stage: &iops, Round: 3, Cell: 4, RoundLeft: 40300 * time.Millisecond, StageLeftMin: 3*time.Minute + 41*time.Second,
		StageLeftMax: 18*time.Minute + 20*time.Second, RunLeftMin: time.Hour + 2*time.Minute, RunLeftMax: 5*time.Hour + 10*time.Minute}
	wsat, wsatAt := at("wsat", 9)
	wsatAt.StageLeftMin, wsatAt.StageLeftMax, wsatAt.AtMost = 23*time.Hour+50*time.Minute, 23*time.Hour+50*time.Minute, true
	wsatAt.RunLeftMin, wsatAt.RunLeftMax = wsatAt.StageLeftMin, wsatAt.StageLeftMax
	hir, hirAt := at("hir", 1)
	hirAt.StageLeftMin, hirAt.StageLeftMax, hirAt.RunLeftMin, hirAt.RunLeftMax = time.Hour, time.Hour, time.Hour, 3*time.Hour
	xsr, xsrAt := at("xsr", 8*60+5)
	for _, tc := range []struct {
		name   string
		rec    Record
		pos    Position
		series bool
		want   []string
		not    string
	}{
		{"a cell", cell, cellAt, false, []string{"r3 4/56 rnd-32k-100/0 100000 IOPS", "round 40.3s left, stage 3m41s–18m20s left, run 1h02m–5h10m left"}, "–3m41s"},
		{"WSAT", wsat, wsatAt, true, []string{"sample 10/1440, TGBW 800.0 GB (0.25 drive fills), 100000 IOPS",
			"stage at most 23h50m left, run at most 23h50m left"}, "steps"},
		{"an idle step of HIR", hir, hirAt, true, []string{"sample 2/", ", wait state 1,", "stage 1h00m left, run 1h00m–3h00m left"}, "IOPS"},
		{"XSR", xsr, xsrAt, true, []string{"sample 486/1320, access group 2, TGBW"}, "at most"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.pos.Stage.Procedure().Progress(tc.rec, tc.pos)
			assert.Equal(t, tc.series, w.Series)
			for _, want := range tc.want {
				assert.Contains(t, w.Status, want)
			}
			assert.NotContains(t, w.Status, tc.not)
			assert.Positive(t, w.Of)
		})
	}
	line := Rounds{}.Progress(cell, cellAt).Line
	assert.Contains(t, line, "round 3 cell 4/56 rnd-32k-100/0: 100000 IOPS 13333.3 MB/s", "a log's line has MB/s")
}
