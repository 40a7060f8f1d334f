package pts

import (
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// StageState is how far a stage got, rebuilt from the journal.
type StageState struct {
	Started        bool
	Purged         bool // the purge record is there
	Preconditioned bool
	// WIPCChunks pieces of the preconditioning are written, WIPCBytes in
	// WIPCElapsed.
	WIPCChunks  int
	WIPCBytes   int64
	WIPCElapsed time.Duration
	Ended       bool
	EndMessage  string // what the stage end record says (why a timeline stopped)
	// Point is the operating point the stage ran at, as its stage_start
	// journaled it (Stage.Point).
	Point   *OperatingPoint
	Steady  bool
	SSRound int
	Window  []int
	// Tracking holds the tracking values of every complete round:
	// Tracking[v][r] is variable v in round r+1.
	Tracking [][]float64
	// Judged is the steady-state verdict each round's round_end
	// journaled, by round: the runner's, read by everything after.
	Judged map[int]*steadystate.Joint
	// Cells holds the measurements of complete rounds: Cells[r][c].
	Cells [][]*engine.Measurement
	// Samples holds a timeline stage's steps in order, Samples[k] for step
	// k (an empty measurement for an idle step).
	Samples []*engine.Measurement
	// partial is the round being measured when the journal ends.
	partial      map[int]*engine.Measurement
	partialRound int
}

func (s *StageState) judge(round int, v *steadystate.Joint) {
	if s.Judged == nil {
		s.Judged = map[int]*steadystate.Joint{}
	}
	s.Judged[round] = v
}

// Rounds is the number of complete rounds.
func (s *StageState) Rounds() int { return len(s.Cells) }

// State is a run as its journal tells it.
type State struct {
	Stages  map[string]*StageState
	Ended   bool
	Resumes []Record // every resume record, in order
	// ResumeGaps is, for each resume, how long nothing ran before it: from
	// the last record of the process that stopped to the start of the one
	// that resumed (the drive rested meanwhile).
	ResumeGaps []time.Duration
	Interrupts []Record
	Errors     []Record
	Purges     map[string]*Record // stage → its (last) purge record
	WIPC       map[string]*Record // stage → its (last) precondition record
	WriteCache []Record
	// Telemetry is every telemetry record, in order: the drives' readings
	// through the run (a kilobyte or so each), which the results read.
	Telemetry   []Record
	First, Last Record // first and last record (times)
	Cut         bool   // the journal ended in a line cut short
}

// Replay rebuilds the state of a run from its journal records. A resume
// record discards what the interrupted round (or stage) had measured.
func Replay(stages []Stage, recs []Record) *State {
	rp := NewReplay(stages)
	for i := range recs {
		rp.Add(&recs[i])
	}
	return rp.State()
}

// Replayer rebuilds the state of a run record by record, as a journal is
// read (ScanJournal), so that a reader holds what the state keeps of the
// records, not all of them.
type Replayer struct {
	st     *State
	ncells map[string]int
	n      int       // records added
	prev   time.Time // the time of the last one
	// gap is how long nothing ran before the last start record, for the
	// resume record that follows it.
	gap time.Duration
}

// NewReplay starts the state of a run of stages.
func NewReplay(stages []Stage) *Replayer {
	st := &State{Stages: map[string]*StageState{}, Purges: map[string]*Record{}, WIPC: map[string]*Record{}}
	ncells := map[string]int{}
	for _, s := range stages {
		st.Stages[s.ID] = &StageState{}
		ncells[s.ID] = len(s.Cells)
	}
	return &Replayer{st: st, ncells: ncells}
}

// State is the run as the records added so far tell it.
func (p *Replayer) State() *State { return p.st }

// Add replays the next record; the state may keep r and what it points to.
func (p *Replayer) Add(r *Record) {
	st, ncells := p.st, p.ncells
	if r.Type == RecStart && p.n > 0 {
		p.gap = max(0, r.Time.Sub(p.prev))
	}
	if p.n == 0 {
		st.First = *r
	}
	p.n++
	p.prev = r.Time
	st.Last = *r
	ss := st.Stages[r.Stage]
	switch r.Type {
	case RecStageStart, RecPurge, RecPrecondChunk, RecPrecondition, RecRoundStart, RecCell, RecRoundEnd, RecStageEnd, RecSample:
		if ss == nil {
			return // a stage this plan does not have
		}
	}
	if r.Type == RecTelemetry {
		st.Telemetry = append(st.Telemetry, *r)
	}
	switch r.Type {
	case RecStageStart:
		ss.Started = true
		ss.Point = r.Point
	case RecPurge:
		st.Purges[r.Stage] = r
		ss.Purged = true
	case RecPrecondChunk:
		if r.Cell != nil && *r.Cell == ss.WIPCChunks && r.Measurement != nil {
			ss.WIPCChunks++
			ss.WIPCBytes += r.Measurement.Write.Bytes
			ss.WIPCElapsed += r.Measurement.Elapsed
		}
	case RecPrecondition:
		ss.Preconditioned = true
		st.WIPC[r.Stage] = r
	case RecRoundStart:
		ss.partial, ss.partialRound = map[int]*engine.Measurement{}, r.Round
	case RecCell:
		if ss.partial != nil && r.Round == ss.partialRound && r.Cell != nil && r.Measurement != nil {
			ss.partial[*r.Cell] = r.Measurement
		}
	case RecRoundEnd:
		if ss.partial == nil && r.Verdict != nil {
			// A timeline in rounds: its steps are samples, journaled
			// before the round's end.
			ss.judge(r.Round, r.Verdict)
		}
		if ss.partial == nil || r.Round != ss.Rounds()+1 || len(ss.partial) != ncells[r.Stage] {
			return // a round_end without its cells is not a complete round
		}
		if r.Verdict != nil {
			ss.judge(r.Round, r.Verdict)
		}
		row := make([]*engine.Measurement, ncells[r.Stage])
		for c, m := range ss.partial {
			if c >= 0 && c < len(row) {
				row[c] = m
			}
		}
		ss.Cells = append(ss.Cells, row)
		if len(ss.Tracking) < len(r.Tracking) {
			ss.Tracking = append(ss.Tracking, make([][]float64, len(r.Tracking)-len(ss.Tracking))...)
		}
		for v, x := range r.Tracking {
			ss.Tracking[v] = append(ss.Tracking[v], x)
		}
		ss.partial = nil
	case RecSample:
		if r.Cell != nil && *r.Cell == len(ss.Samples) && r.Measurement != nil {
			ss.Samples = append(ss.Samples, r.Measurement)
		}
	case RecStageEnd:
		ss.Ended = true
		ss.EndMessage = r.Message
		ss.Steady = r.Steady != nil && *r.Steady
		ss.SSRound, ss.Window = r.SSRound, r.Window
	case RecResume:
		st.Resumes = append(st.Resumes, *r)
		st.ResumeGaps = append(st.ResumeGaps, p.gap)
		if ss == nil {
			break
		}
		ss.partial = nil
		if r.Round == 0 && r.Cell == nil { // the stage restarts from its purge (or pre-write)
			*ss = StageState{Started: true, Point: ss.Point}
		}
	case RecInterrupted:
		st.Interrupts = append(st.Interrupts, *r)
	case RecError:
		st.Errors = append(st.Errors, *r)
	case RecWriteCache:
		st.WriteCache = append(st.WriteCache, *r)
	case RecEnd:
		st.Ended = true

	}
}

// ReplayDir replays dir's journal as it is read, record by record, into
// the state of a run of stages: a long run's records are never all held
// at once. o says which stages' series are read (ScanOptions.Series);
// the state's Cut says whether the last line was cut short.
func ReplayDir(dir string, stages []Stage, o ScanOptions) (*State, error) {
	rp := NewReplay(stages)
	cut, err := ScanDir(dir, o, func(r *Record) error { rp.Add(r); return nil })
	if err != nil {
		return nil, err
	}
	st := rp.State()
	st.Cut = cut
	return st, nil
}

// NoSeries reads no stage's series (ScanOptions.Series): for a reader of
// figures, histograms and verdicts only.
func NoSeries(string) bool { return false }
