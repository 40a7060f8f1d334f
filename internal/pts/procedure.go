package pts

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// Kind names a procedure: the kind of a stage.
type Kind string

// The procedures a stage can be of. Each is a type of its own file
// (rounds.go, timeline.go, sweep.go) that implements Procedure.
const (
	// KindRounds: a matrix of cells, round after round, until the tracking
	// variables are steady (IOPS, TP, LAT, the preconditioning of HIR and
	// of the demand-intensity tests, workloads outside the PTS).
	KindRounds Kind = "rounds"
	// KindTimeline: one or more stimuli in segments, sampled at intervals,
	// stopped by a rule (WSAT, HIR's wait states, XSR).
	KindTimeline Kind = "timeline"
	// KindDemandSweep: TC × QD rounds, then operating points chosen from
	// them by a rule, each with its pre-write and histogram run (DIRTH,
	// ECW): the sweep's stage and each point's.
	KindDemandSweep Kind = "demand sweep"
)

// Procedure is what a kind of stage is: how it runs and journals its
// stages, how their journal records become results (verdicts and derived
// figures computed once, as they are measured or chosen, and read
// everywhere after), what it costs, and how it is described. The runner,
// matrix, pdfreport, `ptsrun plan` and the progress display ask a stage's
// procedure (Stage.Procedure) and nothing else about its kind.
type Procedure interface {
	Kind() Kind
	// Tables are the shapes of table its stages' results make.
	Tables() []TableShape

	// check checks a stage of the kind before anything runs.
	check(s Stage) error
	// begin is the stage as it runs, from what prior holds of the stages
	// before it, and the operating point it runs at (nil for none).
	begin(s *Stage, stages []Stage, prior *State, window int) (*Stage, *OperatingPoint, error)
	// resume is the record a started stage goes on with after an
	// interruption, and the state it goes on from: ss, or a new state when
	// it starts again.
	resume(s *Stage, ss *StageState) (Record, *StageState)
	// measure runs the stage from where ss ends, journaling each
	// measurement before the next one starts.
	measure(ctx context.Context, r *Runner, s *Stage, ss *StageState) error

	// Outcome is what the stage's journal records make.
	Outcome(in OutcomeInput) Outcome
	// AsRan is the stage as it ran at point p (nil: as planned).
	AsRan(s Stage, p *OperatingPoint) Stage

	// Estimate is the stage's device time, before it runs.
	Estimate(s Stage, c Costs) Estimate
	// Plan describes the stage's rounds or segments, its stop rule and
	// its time, as `ptsrun plan` prints them, a line each.
	Plan(s Stage, e Estimate, in PlanInput) []string
	// About is what the report's appendix says of how the stage runs, ""
	// when its cells say it all.
	About(s Stage) string
	// Progress is a measurement's progress (a cell's or a sample's
	// record, at p) in words, as the run's progress display prints it.
	Progress(r Record, p Position) Progress

	// View is where a stage stands, in the words each place prints.
	View(st StageStatus) StageView
	// Resumed says what a resume record of the stage did to it, for the
	// run's deviations; gap is how long the drive rested.
	Resumed(s Stage, rec Record, gap string) string
}

// procedures are the kinds there are, by name.
var procedures = map[Kind]Procedure{KindRounds: Rounds{}, KindTimeline: Timeline{}, KindDemandSweep: DemandSweep{}}

// ProcedureOf is the procedure of a kind; the zero kind is rounds, as
// every stage of rounds built without one is (workloads outside the PTS).
func ProcedureOf(k Kind) Procedure {
	if p, ok := procedures[k]; ok {
		return p
	}
	return Rounds{}
}

// Procedure is the stage's procedure.
func (s Stage) Procedure() Procedure { return ProcedureOf(s.Kind) }

// UnmarshalJSON reads a stage as run.json records it. The file records no
// kind, as it never did: a stage's own fields say which it is, here and
// only here. Everything after asks the stage its procedure.
func (s *Stage) UnmarshalJSON(b []byte) error {
	type plain Stage
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = Stage(p)
	s.Kind = recordedKind(*s)
	return nil
}

// recordedKind is the kind a recorded stage's fields make it.
func recordedKind(s Stage) Kind {
	switch {
	case s.Point != nil || hasPreWrite(s.Cells):
		return KindDemandSweep
	case len(s.Timeline) > 0:
		return KindTimeline
	}
	return KindRounds
}

func hasPreWrite(cells []Cell) bool {
	for _, c := range cells {
		if c.PreWrite {
			return true
		}
	}
	return false
}

// checkStage checks a stage with its procedure, and that it is of it.
func checkStage(s Stage) error {
	if k := recordedKind(s); k != s.Procedure().Kind() {
		return fmt.Errorf("%s: a stage of %s has the fields of one of %s", s.Title, s.Procedure().Kind(), k)
	}
	return s.Procedure().check(s)
}

// OutcomeInput is what a stage's outcome is read from.
type OutcomeInput struct {
	Config Config
	Stage  *Stage
	// State is the run's journal replayed; Stages the run's stages.
	State  *State
	Stages []Stage
	// Earlier is what the stages of its test before it found.
	Earlier []Earlier
	// Capacity is the target set's, in bytes.
	Capacity int64
}

// Outcome is what a stage's journal records make, as its procedure reads
// them: everything the results hold of a stage besides what every stage
// has (its purge, preconditioning, error) and its cells' window
// aggregates, which are of the rounds Window names.
type Outcome struct {
	Title   string // as it ran: an operating point's names its TC/QD
	Rounds  int    // complete rounds
	Window  [2]int // the measurement window; [0 0] for none
	Steady  bool
	SSRound int
	// Tracking are the tracking variables' values, round 1 first, and
	// their verdict on the window as the runner journaled it.
	Tracking []Tracked
	// Judged is the verdict of the window ending at each complete round,
	// Judged[r-1] for round r, as journaled; nil before the window is full.
	Judged []*steadystate.Joint
	// A time series: its samples, its test's summary of them, why it
	// stopped, the capacity its drive fills count in, and the
	// response-time histogram of its last hour or its histogram segments.
	Series   bool
	Samples  []Sample
	Summary  *Summary
	EndedBy  string
	Capacity int64
	TailHist *engine.Histogram
	TailFrom float64 // minutes
	// Point is the operating point it ran at, with its histogram run.
	Point *OperatingPoint
}

// Tracked is one tracking variable of an outcome.
type Tracked struct {
	Tracking
	Values  []float64
	Verdict steadystate.Verdict
}

// PlanInput is what a plan's description reads besides the stage.
type PlanInput struct {
	Stages      []Stage // the run's, for the stages a stage names
	SetCapacity int64   // the target set's, in which drive fills count; 0: not known
}

func (in PlanInput) title(id string) string {
	for _, s := range in.Stages {
		if s.ID == id {
			return s.Title
		}
	}
	return id
}

// Progress is a measurement's progress in its procedure's words: Done
// of Of (cells of the round, samples of the series), the status line of
// a terminal and the line of a log, each after the stage's name.
type Progress struct {
	Done, Of     int
	Status, Line string
	// Series says the stage is a time series: a log prints its line at
	// each tenth of it and at least once a period, not every record's.
	Series bool
}

// RunLeftWords is a position's time left of the run, in words.
func (p Position) RunLeftWords() string {
	return "run " + FormatLeft(p.RunLeftMin, p.RunLeftMax, p.AtMost && p.RunLeftMin == p.RunLeftMax)
}

// StageStatus is where a stage stands, as its results say.
type StageStatus struct {
	Title                        string
	Custom                       bool // of workloads outside the PTS
	Started, Complete, Published bool
	// SeeksSteady says the stage is judged for steady state.
	SeeksSteady, Steady bool
	Rounds, SSRound     int
	Window              [2]int
	// Series says the results are a time series: Samples of it, Idle
	// periods among them.
	Series        bool
	Samples, Idle int
	Error         string
	Point         *OperatingPoint
	Figures       []Figure
}

// StageView is a stage's standing in the words each place prints.
type StageView struct {
	State string // the terminal's summary of a run
	Brief string // the report's first page
	Note  string // the report's set-up column
	// Empty says there is no value to report; NoResults says so, and why.
	Empty     bool
	NoResults [2]string
	// Code and Deviation are how the stage departs from the PTS, if it
	// does ("" when it does not).
	Code, Deviation string
	// OwnRounds says the stage's rounds of its own workload precondition
	// it (workload-dependent preconditioning), rather than the drive it
	// starts from.
	OwnRounds bool
}

// plural writes n thing or n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
