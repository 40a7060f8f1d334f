package rundir

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/ptsrun/ptsrun/internal/cpuidle"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/targets"
)

// Recording is workloads run outside the PTS flow, one after the other,
// to record in a run directory as the cells of its one custom stage, in
// the order they ran: `ptsrun workload --out` (one workload, or presets),
// a vdbench parameter file's runs, `ptsrun fio`'s reporting groups.
type Recording struct {
	Dir     string
	Targets *targets.Plan // as opened
	Engine  string        // the opened engine's description
	Poll    engine.Poll
	// CPUIdle is what the opened set held of the host's idle CPUs
	// (targets.Set.CPUIdle); nil when it held nothing.
	CPUIdle  *cpuidle.State
	Started  time.Time
	Operator pts.Operator
	Version  string // ptsrun's
	Source   string // what recorded it, for run.json; "ptsrun workload" when empty
	Cells    []Cell
	// What the command keeps besides the journal, for its own files (at
	// most one): each cell's preset; a vdbench file's translation; `ptsrun
	// fio`'s record of the gate and of fio's figures.
	Presets []string
	Vdbench *VdbenchRecord
	Fio     *FioRecord
}

// Cell is one measured workload of a recording: its cell's key (a
// preset's, a vdbench run's or a reporting group's name, else
// pts.WorkloadKey) and what it measured.
type Cell struct {
	Key         pts.CellKey
	Workload    engine.Workload
	Measurement engine.Measurement
	Started     time.Time
	Ended       time.Time // when it was measured; Started + its time when zero
}

// The commands that record workloads (side.Command).
const (
	byWorkload = "workload"
	byVdbench  = "vdbench"
	byFio      = "fio"
)

// side is run.json's "recorded": what the command that recorded the
// workloads keeps of them besides the journal, from which Report rebuilds
// that command's files as it does results.json.
type side struct {
	Command string       `json:"command"`
	Presets []string     `json:"presets,omitempty"`
	Vdbench *vdbenchSide `json:"vdbench,omitempty"`
	Fio     *FioRecord   `json:"fio,omitempty"`
	cells   int          // the stage's, for the checks
}

// Record makes r.Dir a run directory of custom cells, one per workload,
// so that report, compare and check take the workloads like any run:
// run.json and the journal, then every file derived from them, the
// command's own (workload.json, vdbench.json, fio-run.json, …) included.
// A recording of more workloads rewrites it.
func Record(r Recording) (*Built, error) {
	w := r.Cells[0].Workload
	cfg := pts.DefaultConfig()
	// No tests and no profile: nothing of the PTS applies.
	cfg.Tests, cfg.Profile = nil, ""
	cfg.Targets = r.Targets.Names()
	cfg.Engine = string(r.Targets.Engine)
	cfg.CellTime = pts.Duration(w.Duration)
	cfg.ActiveRange = w.ActiveRange
	cfg.Seed = w.Seed
	cfg.Purge = "none"
	if r.Poll != engine.PollAuto {
		cfg.Poll = r.Poll.String()
	}
	if r.CPUIdle != nil {
		cfg.CPUIdle = r.CPUIdle.Asked
	}
	stage := pts.Stage{ID: pts.CustomStage, Test: pts.Custom, Title: "Workload", MaxRounds: 1}
	var cells []pts.ImportedCell
	for i, c := range r.Cells {
		stage.Cells = append(stage.Cells, pts.Cell{Index: i, Key: c.Key, Workload: c.Workload})
		end := c.Ended
		if end.IsZero() && !c.Started.IsZero() {
			end = c.Started.Add(c.Measurement.Elapsed + c.Workload.Ramp)
		}
		cells = append(cells, pts.ImportedCell{Workload: c.Workload, Measurement: c.Measurement, Time: end, Started: c.Started})
	}
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: r.Version, Build: pts.ThisBuild(r.Version), Spec: "PTS " + pts.SpecRevision,
		Created: r.Started, Config: cfg, Stages: []pts.Stage{stage}, Targets: r.Targets.Identities,
		Host: targets.ProbeHost(r.Version), Engine: r.Engine, Source: "ptsrun workload", Operator: r.Operator}
	ri.Host.CPUIdle = r.CPUIdle
	if r.Source != "" {
		ri.Source = r.Source
	}
	s := side{Command: byWorkload, Presets: r.Presets}
	switch {
	case r.Vdbench != nil:
		if err := r.Vdbench.copyFiles(r.Dir); err != nil {
			return nil, err
		}
		s = side{Command: byVdbench, Vdbench: &vdbenchSide{Translation: r.Vdbench.Plan, Runs: r.Vdbench.Runs}}
	case r.Fio != nil:
		s = side{Command: byFio, Fio: r.Fio}
	}
	var err error
	if ri.Recorded, err = json.Marshal(s); err != nil {
		return nil, err
	}
	if err := pts.WriteWorkload(r.Dir, ri, cells...); err != nil {
		return nil, err
	}
	return Derive(r.Dir)
}

// readSide reads and checks run.json's record of the command that
// recorded its workloads: nil for runs without one (PTS runs, imports,
// recordings from before it). Like all of run.json it is outside input:
// what does not fit the run's one stage is refused, naming run.json.
func readSide(ri pts.RunInfo) (*side, error) {
	if len(ri.Recorded) == 0 {
		return nil, nil
	}
	s := &side{}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: recorded: %s", RunFile, fmt.Sprintf(format, a...))
	}
	if err := json.Unmarshal(ri.Recorded, s); err != nil {
		return nil, bad("%v", err)
	}
	if len(ri.Stages) != 1 || ri.Stages[0].ID != pts.CustomStage {
		return nil, bad("a recording of workloads has one stage, %s", pts.CustomStage)
	}
	s.cells = len(ri.Stages[0].Cells)
	switch s.Command {
	case byWorkload:
		if len(s.Presets) > 0 && len(s.Presets) != s.cells {
			return nil, bad("%d presets for %d cells", len(s.Presets), s.cells)
		}
	case byVdbench:
		if s.Vdbench == nil || len(s.Vdbench.Runs) != s.cells {
			return nil, bad("vdbench: a run per cell expected")
		}
	case byFio:
		if err := s.Fio.check(s.cells); err != nil {
			return nil, bad("fio: %v", err)
		}
	default:
		return nil, bad("unknown command %q", s.Command)
	}
	return s, nil
}

// recordedCells are the measured cells of a recording, from its journal,
// in the order of its stage.
func recordedCells(dir string, ri pts.RunInfo) ([]Cell, error) {
	recs, _, err := pts.LoadJournal(dir)
	if err != nil {
		return nil, err
	}
	st := ri.Stages[0]
	out := make([]Cell, len(st.Cells))
	found := make([]bool, len(st.Cells))
	for _, r := range recs {
		if r.Type != pts.RecCell || r.Stage != st.ID || r.Round != 1 || r.Cell == nil || *r.Cell < 0 || *r.Cell >= len(out) ||
			r.Workload == nil || r.Measurement == nil {
			continue
		}
		out[*r.Cell] = Cell{Key: st.Cells[*r.Cell].Key, Workload: *r.Workload, Measurement: *r.Measurement, Ended: r.Time}
		found[*r.Cell] = true
	}
	if i := slices.Index(found, false); i >= 0 {
		return nil, fmt.Errorf("%s: cell %d (%s) of the recording is not in it", filepath.Join(dir, JournalFile), i+1, st.Cells[i].Key)
	}
	return out, nil
}

// writeSide writes the files of the command that recorded the workloads,
// from run.json's record and the journal.
func writeSide(dir string, ri pts.RunInfo, s *side) error {
	if s == nil {
		return nil
	}
	cells, err := recordedCells(dir, ri)
	if err != nil {
		return err
	}
	switch s.Command {
	case byVdbench:
		return writeVdbench(dir, ri, s.Vdbench, cells)
	case byFio:
		return writeFio(dir, s.Fio, cells)
	}
	return writeWorkloads(dir, ri, s.Presets, cells)
}
