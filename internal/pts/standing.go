package pts

import (
	"fmt"
	"time"
)

// PositionOf is the position of the last of a run's journal records as the
// runner gave it to its observer when it journaled it: the stage, round
// or sample, and the time left of the round, the stage and the run, at
// costs c (those the runner had: rundir builds them). The records are
// replayed through the runner's own estimates (a Runner per process that
// ran, from each start record on, its pace of the cells' wall times as
// journaled), so that `ptsrun status` says what the run's progress said.
// What a record does not say (the preconditioning's pace before a
// resume) is taken from the records there are. ok is false without a
// record of a stage.
func PositionOf(ri RunInfo, c Costs, recs []Record) (pos Position, ok bool) {
	idx := map[string]int{}
	for i, s := range ri.Stages {
		idx[s.ID] = i
	}
	var (
		r     *Runner
		begun = -1 // the stage begun in this process
		rp    replay
	)
	for i, rec := range recs {
		if rec.Type == RecStart || r == nil {
			r = &Runner{Info: ri, Costs: c}
			r.estimate(Replay(ri.Stages, recs[:i]))
			begun, rp = -1, replay{}
		}
		p := Position{}
		if j, staged := idx[rec.Stage]; staged && rec.Stage != "" {
			if j != begun {
				r.stageIdx, begun = j, j
				r.beginStage(j)
				rp = replay{}
			}
			p = r.replayed(&r.Info.Stages[j], rec, &rp)
			ok = true
		}
		r.place(rec, &p)
		pos = p
	}
	return pos, ok
}

// replay is what the runner knew of the stage it ran when it journaled
// a record: the preconditioning's wall time in this process, the
// timeline's steps and the last sample.
type replay struct {
	wipcTook time.Duration
	steps    []Step
	sample   int
}

// replayed is the position the runner gave a record of stage s.
func (r *Runner) replayed(s *Stage, rec Record, rp *replay) Position {
	cell := 0
	if rec.Cell != nil {
		cell = *rec.Cell
	}
	timeline := s.Procedure().Kind() == KindTimeline
	if timeline && rp.steps == nil {
		rp.steps = s.Steps()
	}
	switch {
	case rec.Type == RecPrecondChunk:
		rp.wipcTook += time.Duration(rec.WallNs)
		done, n := cell+1, cell+1
		fmt.Sscanf(rec.Message, "%d/%d", &done, &n)
		return r.wipcPosition(s, done, n, rp.wipcTook)
	case rec.Type == RecRoundStart:
		return r.position(s, rec.Round, 0)
	case rec.Type == RecCell:
		wall := time.Duration(rec.WallNs)
		r.cellsRun++
		r.cellWall += (wall - r.cellWall) / time.Duration(r.cellsRun)
		r.wallSum += wall
		if rec.Workload != nil {
			r.nominalSum += rec.Workload.Duration
		}
		return r.position(s, rec.Round, cell+1)
	case rec.Type == RecSample:
		rp.sample = cell + 1
		return r.timelinePosition(s, rp.steps, rp.sample)
	case rec.Type == RecRoundEnd && timeline:
		return r.timelinePosition(s, rp.steps, rp.sample)
	case rec.Type == RecRoundEnd:
		return r.position(s, rec.Round, len(s.Cells))
	}
	return Position{Stage: s, Round: rec.Round, Cell: cell}
}
