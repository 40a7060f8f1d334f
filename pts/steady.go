package pts

import (
	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/steadystate"
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
func (j *roundJudge) verdict() *steadystate.Joint {
	if j.rounds < j.crit.Window || len(j.stage.Tracking) == 0 {
		return nil
	}
	v := j.crit.CheckAllAt(j.series, j.rounds)
	return &v
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
