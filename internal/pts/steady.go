package pts

import (
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// roundJudge follows a stage's tracking variables round by round and judges
// steady state with the run's criteria: the one rule both the runner, as it
// measures, and an import, over the rounds it is given, apply. It writes
// the round_end and stage_end records.
type roundJudge struct {
	stage   *Stage
	crit    steadystate.Criteria
	series  []steadystate.Series
	rounds  int // complete rounds
	ssRound int // the first round that closed a steady window; 0 while none has
}

// newJudge starts after rounds complete rounds whose tracking values are
// prior (prior[v][r] is variable v in round r+1; nil for none). The last of
// them is judged again, as its round_end was, so that a run interrupted
// between a steady round and its stage_end ends there on resume.
func newJudge(s *Stage, crit steadystate.Criteria, rounds int, prior [][]float64) *roundJudge {
	j := &roundJudge{stage: s, crit: crit, series: make([]steadystate.Series, len(s.Tracking)), rounds: rounds}
	for v, t := range s.Tracking {
		j.series[v].Name = t.Name
		if v < len(prior) {
			j.series[v].Values = append([]float64(nil), prior[v]...)
		}
	}
	if v := j.verdict(); v != nil && v.Steady {
		j.ssRound = rounds
	}
	return j
}

// verdict is the joint verdict at the last complete round, or nil before
// the window is full or when there is nothing to track.
func (j *roundJudge) verdict() *steadystate.Joint { return windowVerdict(j.crit, j.series, j.rounds) }

// windowVerdict is the rule applied to the window ending at round: the
// one rule, as the runner applies it after each round and journals it;
// nil before the window is full or when nothing is tracked.
func windowVerdict(crit steadystate.Criteria, series []steadystate.Series, round int) *steadystate.Joint {
	if round < crit.Window || len(series) == 0 {
		return nil
	}
	v := crit.CheckAllAt(series, round)
	return &v
}

// judged is the verdict of the window ending at each of a stage's n
// complete rounds as its round_end journaled it, out[r-1] for round r;
// values[v] are variable v's values as the results hold them. A round
// whose round_end a kill cut off (a timeline in rounds goes on from its
// samples) has the rule applied as the runner would have: no verdict is
// judged anywhere else.
func judged(crit steadystate.Criteria, tracking []Tracking, values [][]float64, n int, journaled map[int]*steadystate.Joint) []*steadystate.Joint {
	if n == 0 {
		return nil
	}
	series := make([]steadystate.Series, len(tracking))
	for v, t := range tracking {
		series[v] = steadystate.Series{Name: t.Name, Values: values[v]}
	}
	out := make([]*steadystate.Joint, n)
	for r := 1; r <= n; r++ {
		j := journaled[r]
		if j == nil || len(j.Verdicts) != len(tracking) || !held(values, r) {
			j = windowVerdict(crit, series, r)
		}
		if r >= crit.Window {
			out[r-1] = j
		}
	}
	return out
}

// held says every variable has a value in round r.
func held(values [][]float64, r int) bool {
	for _, v := range values {
		if len(v) < r {
			return false
		}
	}
	return true
}

// tracked is each tracking variable with its values and the verdict on
// the window ending at round last, as judged.
func tracked(crit steadystate.Criteria, tracking []Tracking, values [][]float64, last int, judged []*steadystate.Joint) []Tracked {
	var out []Tracked
	for v, t := range tracking {
		tr := Tracked{Tracking: t, Values: values[v]}
		if last >= 1 && last <= len(judged) && judged[last-1] != nil {
			tr.Verdict = judged[last-1].Verdicts[v]
		} else {
			// No window to judge yet: the rule says how short it is.
			tr.Verdict = crit.CheckAt(tr.Values, last)
		}
		out = append(out, tr)
	}
	return out
}

// steady says whether a steady window has closed.
func (j *roundJudge) steady() bool { return j.ssRound > 0 }

// round adds the next round's measurements (row[c] is cell c) and returns
// its round_end record: the tracking values and, once the window is full,
// the verdict.
func (j *roundJudge) round(row []engine.Measurement) Record {
	j.rounds++
	vals := make([]float64, len(j.stage.Tracking))
	for v, t := range j.stage.Tracking {
		vals[v] = t.Metric.Value(row[t.Cell])
		j.series[v].Values = append(j.series[v].Values, vals[v])
	}
	rec := Record{Type: RecRoundEnd, Stage: j.stage.ID, Round: j.rounds, Tracking: vals}
	if v := j.verdict(); v != nil {
		rec.Verdict = v
		if v.Steady && j.ssRound == 0 {
			j.ssRound = j.rounds
		}
	}
	return rec
}

// end returns the stage_end record. The measurement window is the first
// steady window; without one it is the last rounds, and notSteady says why.
func (j *roundJudge) end(notSteady string) Record {
	steady := j.steady()
	rec := Record{Type: RecStageEnd, Stage: j.stage.ID, Steady: &steady}
	if steady {
		rec.SSRound, rec.Window = j.ssRound, []int{j.ssRound - j.crit.Window + 1, j.ssRound}
	} else {
		rec.Window, rec.Message = []int{max(1, j.rounds-j.crit.Window+1), j.rounds}, notSteady
	}
	return rec
}
