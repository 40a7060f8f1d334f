package pts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// ImportedCell is one cell's result in one round of results ptsrun did not
// run itself (fio output imported with `ptsrun import fio`).
type ImportedCell struct {
	Workload    engine.Workload
	Measurement engine.Measurement
	Time        time.Time // when it was measured (its end), if known
	// Started is when its measurement began, if known: the round's start
	// for a round's first cell.
	Started time.Time
}

// ImportRecord is what imported results say of how they were measured
// besides their workloads. What the source does not record the report
// prints as "not recorded", never as a default; the departures from the
// profile it shows (a load other than the profile's, an active range it
// does not give) are listed with the run's deviations.
type ImportRecord struct {
	NotRecorded []string `json:"not_recorded,omitempty"` // of the Unrecorded… names
	// NoActiveRange are the stages whose active range the source does not
	// record; their cells' workloads carry a placeholder of 100 % that
	// nothing prints.
	NoActiveRange []string `json:"no_active_range,omitempty"`
	// DataPattern is the data the source wrote, in its own words ("fio's
	// default buffers (random)"); "" when it does not say.
	DataPattern string   `json:"data_pattern,omitempty"`
	Departures  []string `json:"departures,omitempty"` // in plain words, one sentence each
}

// What imported results may not record (ImportRecord.NotRecorded).
const (
	UnrecordedPurge        = "purge"
	UnrecordedPrecondition = "preconditioning"
	UnrecordedSeed         = "seed"
)

// NotRecorded says that imported results do not record what (an Unrecorded…
// name); false for runs ptsrun made.
func (ri RunInfo) NotRecorded(what string) bool {
	return ri.Import != nil && slices.Contains(ri.Import.NotRecorded, what)
}

// ActiveRangeNotRecorded says that imported results do not record the
// active range of the stage, or of any stage when stage is "".
func (ri RunInfo) ActiveRangeNotRecorded(stage string) bool {
	if ri.Import == nil {
		return false
	}
	return stage == "" && len(ri.Import.NoActiveRange) > 0 || slices.Contains(ri.Import.NoActiveRange, stage)
}

// WriteImported makes dir a run directory for imported results: run.json
// (ri, marked imported) and a journal holding every round, with the
// tracking values and the steady-state verdict of each round computed by
// the same rule the runner applies. rounds[stageID][r][c] is cell c of
// ri.Stages' stage in round r+1; every round has every cell of its stage.
// Rounds after the first steady window are kept, but that window is the
// stage's measurement window, as if the run had stopped there.
func WriteImported(dir string, ri RunInfo, rounds map[string][][]ImportedCell) error {
	ri.Imported = true
	return writeRounds(dir, ri, rounds, "imported: "+ri.Source)
}

// WriteWorkload makes dir a run directory for the workloads that `ptsrun
// workload` ran one after the other (one, or a sequence of presets or
// vdbench runs): run.json (ri, marked as a workload) and a journal with
// them as the one round of ri's one stage, cells[i] its cell i. report,
// compare and check then take it like any run.
func WriteWorkload(dir string, ri RunInfo, cells ...ImportedCell) error {
	if len(ri.Stages) != 1 || len(cells) == 0 || len(ri.Stages[0].Cells) != len(cells) {
		return fmt.Errorf("workload run %s: one stage with a cell per workload expected", dir)
	}
	ri.Workload = true
	return writeRounds(dir, ri, map[string][][]ImportedCell{ri.Stages[0].ID: {cells}}, "recorded by ptsrun workload")
}

func writeRounds(dir string, ri RunInfo, rounds map[string][][]ImportedCell, origin string) error {
	var buf bytes.Buffer
	last := ri.Created
	emit := func(r Record) error {
		if r.Time.IsZero() {
			r.Time = last
		}
		last = r.Time
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("imported results: %w", err)
		}
		buf.Write(append(b, '\n'))
		return nil
	}
	if err := emit(Record{Type: RecStart, Schema: Schema, Message: origin}); err != nil {
		return err
	}
	for _, s := range ri.Stages {
		rs := rounds[s.ID]
		if err := emit(Record{Type: RecStageStart, Stage: s.ID, Message: s.Title}); err != nil {
			return err
		}
		judge := newJudge(&s, ri.Config.SS, 0, nil)
		for r, row := range rs {
			round := r + 1
			if len(row) != len(s.Cells) {
				return fmt.Errorf("imported results: stage %s round %d has %d cells, the stage %d", s.ID, round, len(row), len(s.Cells))
			}
			if err := emit(Record{Type: RecRoundStart, Stage: s.ID, Round: round, Time: firstTime(row)}); err != nil {
				return err
			}
			ms := make([]engine.Measurement, len(row))
			for c := range row {
				idx := c
				w, m := row[c].Workload, row[c].Measurement
				if err := emit(Record{Type: RecCell, Stage: s.ID, Round: round, Cell: &idx, Key: s.Cells[c].Key,
					Workload: &w, Measurement: &m, Time: row[c].Time}); err != nil {
					return err
				}
				ms[c] = row[c].Measurement
			}
			if err := emit(judge.round(ms)); err != nil {
				return err
			}
		}
		why := fmt.Sprintf("steady state not reached in the %d imported rounds", len(rs))
		if len(s.Tracking) == 0 {
			why = "no tracking variable among the imported cells: steady state cannot be judged"
		}
		if err := emit(judge.end(why)); err != nil {
			return err
		}
	}
	if err := emit(Record{Type: RecEnd}); err != nil {
		return err
	}
	if err := WriteRunInfo(dir, ri); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, JournalFile), buf.Bytes())
}

func firstTime(row []ImportedCell) time.Time {
	if len(row) > 0 && !row[0].Started.IsZero() {
		return row[0].Started
	}
	for _, c := range row {
		if !c.Time.IsZero() {
			return c.Time
		}
	}
	return time.Time{}
}
