package pts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/precondition"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// Files of a run directory.
const (
	RunFile     = "run.json"
	JournalFile = "journal.jsonl"
	// Schema is run.json's and the journal's: 2 keeps a measurement's
	// series by column (engine.Series), which 1 kept as an array of
	// intervals; 3 keeps a telemetry record's readings compactly
	// (telemetry.Compact). This ptsrun reads them all; an older one refuses
	// a newer schema by name instead of failing on a journal line.
	Schema = 3
)

// Record types of the journal.
const (
	RecStart        = "start"              // a process began working on the run
	RecResume       = "resume"             // a resumed run restarts a stage or round
	RecStageStart   = "stage_start"        //
	RecPurge        = "purge"              //
	RecWriteCache   = "write_cache"        //
	RecPrecondChunk = "precondition_chunk" // one piece of WIPC written
	RecPrecondition = "precondition"       // WIPC done
	RecRoundStart   = "round_start"        //
	RecCell         = "cell"               // one measured cell
	RecRoundEnd     = "round_end"          // tracking values and the steady-state verdict
	RecStageEnd     = "stage_end"          //
	RecSample       = "sample"             // one step of a timeline stage: an interval measured, or an idle period
	RecInterrupted  = "interrupted"        // stopped by a signal at a cell boundary
	RecError        = "error"              // stopped by an error
	RecEnd          = "end"                // the run is complete
	// RecTelemetry (telemetry.go): the drives' temperature and health.
)

// PurgeResult is a purge as the journal records it: what precondition's
// purger reports. Readers of the journal (matrix, the report) take it from
// here, not from precondition.
type PurgeResult = precondition.Result

// Record is one line of journal.jsonl. Which fields are set depends on Type.
type Record struct {
	Type        string               `json:"type"`
	Time        time.Time            `json:"time"`
	Schema      int                  `json:"schema,omitempty"`
	Stage       string               `json:"stage,omitempty"`
	Round       int                  `json:"round,omitempty"`
	Cell        *int                 `json:"cell,omitempty"`
	Key         CellKey              `json:"key,omitzero"`
	Workload    *engine.Workload     `json:"workload,omitempty"`
	Measurement *engine.Measurement  `json:"measurement,omitempty"`
	Purge       *precondition.Result `json:"purge,omitempty"`
	WriteCache  *WriteCacheResult    `json:"write_cache,omitempty"`
	Tracking    []float64            `json:"tracking,omitempty"`
	Verdict     *steadystate.Joint   `json:"verdict,omitempty"`
	Steady      *bool                `json:"steady,omitempty"`
	SSRound     int                  `json:"ss_round,omitempty"`
	Window      []int                `json:"window,omitempty"`
	Message     string               `json:"message,omitempty"`
	Error       string               `json:"error,omitempty"`
	// Point is the operating point a stage_start's stage runs at (a
	// demand-intensity point, chosen as the stage began).
	Point  *OperatingPoint `json:"operating_point,omitempty"`
	WallNs int64           `json:"wall_ns,omitempty"` // wall time the step took
	// Telemetry is a telemetry record's readings (telemetry.go).
	Telemetry *TelemetryRecord `json:"telemetry,omitempty"`
}

// WriteCacheResult records the volatile write cache setting (PTS: E WCD, C WCE).
type WriteCacheResult struct {
	Requested bool   `json:"requested_enabled"`
	Before    string `json:"before"` // enabled, disabled, none (no volatile write cache), unknown
	After     string `json:"after"`
	// Check says when a stage re-checked the state (after its purge, before
	// its rounds), as the PTS's steps set it: "" for the setting at the start.
	Check   string `json:"check,omitempty"`
	Restore bool   `json:"restore,omitempty"` // this record restores the original state
	// Devices is each device's state before the run, when the devices of a
	// target set differ (one Before cannot say it): each is put back to its own.
	Devices  map[string]string      `json:"devices,omitempty"`
	Error    string                 `json:"error,omitempty"`
	Commands []precondition.Command `json:"commands,omitempty"`
}

// Journal is the append-only journal of a run. Every Append is synced to
// disk before it returns.
type Journal struct {
	f *os.File
}

// OpenJournal opens dir's journal for appending, creating it when absent. A
// final line cut short by a kill is removed first, so that new records start
// on a line of their own.
func OpenJournal(dir string) (*Journal, error) {
	path := filepath.Join(dir, JournalFile)
	// Never through a link: a copied run directory's journal.jsonl may
	// name another file, which the cut-short line's removal would truncate.
	f, err := device.OpenRunFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	if n := len(data); n > 0 && data[n-1] != '\n' {
		keep := int64(bytes.LastIndexByte(data, '\n') + 1)
		if err := f.Truncate(keep); err != nil {
			f.Close()
			return nil, fmt.Errorf("journal %s: removing a cut-short last line: %w", path, err)
		}
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, err
	}
	return &Journal{f: f}, nil
}

// Append writes one record and syncs it. One write call per record: a kill
// can cut only the last line.
func (j *Journal) Append(r Record) error { return j.append(r, true) }

// append writes one record, and syncs it when sync says so.
func (j *Journal) append(r Record, sync bool) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.f.Name(), err)
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("journal %s: %w", j.f.Name(), err)
	}
	if !sync {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: sync: %w", j.f.Name(), err)
	}
	return nil
}

// Close closes the journal.
func (j *Journal) Close() error { return j.f.Close() }

// ErrNoRun means a directory holds no run.
var ErrNoRun = errors.New("not a ptsrun run directory")

// ReadJournal parses a journal. A last line without its newline (a write cut
// by a kill) is ignored and reported through cut; any other bad line is an
// error naming it.
func ReadJournal(r io.Reader) (recs []Record, cut bool, err error) {
	cut, err = ScanJournal(r, ScanOptions{}, func(rec *Record) error {
		recs = append(recs, *rec)
		return nil
	})
	return recs, cut, err
}

// ScanOptions say what ScanJournal keeps of the records it reads.
type ScanOptions struct {
	// Series says which stages' measurements keep their series
	// (Measurement.Seconds, each target's too): nil keeps every stage's.
	// A stage's procedure reads its figures and histograms, not its
	// series, which are most of a long journal; the records of other
	// stages are read without them.
	Series func(stage string) bool
}

// leanRecord is a record read without its measurement's series.
type leanRecord struct {
	Record
	Measurement *leanMeasurement `json:"measurement,omitempty"`
}

type leanMeasurement struct {
	engine.Measurement
	Seconds skipped `json:"seconds,omitempty"`
}

// skipped is a JSON value checked and not read.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// decodeRecord reads one line of the journal.
func decodeRecord(text []byte, o ScanOptions) (*Record, error) {
	if o.Series == nil {
		rec := new(Record)
		return rec, json.Unmarshal(text, rec)
	}
	var lean leanRecord
	if err := json.Unmarshal(text, &lean); err != nil {
		return nil, err
	}
	rec := &lean.Record
	if lean.Measurement == nil {
		return rec, nil
	}
	if o.Series(rec.Stage) {
		rec = new(Record) // again, all of it: a stage whose series are read is short
		return rec, json.Unmarshal(text, rec)
	}
	rec.Measurement = &lean.Measurement.Measurement
	for i := range rec.Measurement.Targets {
		rec.Measurement.Targets[i].Seconds = nil
	}
	return rec, nil
}

// LoadJournal reads dir's journal.
func LoadJournal(dir string) ([]Record, bool, error) { return LoadJournalOf(dir, ScanOptions{}) }

// LoadJournalOf reads dir's journal, keeping what o says of its records.
func LoadJournalOf(dir string, o ScanOptions) ([]Record, bool, error) {
	var recs []Record
	cut, err := ScanDir(dir, o, func(rec *Record) error {
		recs = append(recs, *rec)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return recs, cut, nil
}

// ScanDir reads dir's journal as ScanJournal does; a directory without
// one has no records.
func ScanDir(dir string, o ScanOptions, f func(*Record) error) (bool, error) {
	path := filepath.Join(dir, JournalFile)
	fh, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("journal %s: %w", path, err)
	}
	defer fh.Close()
	cut, err := ScanJournal(fh, o, f)
	if err != nil {
		return false, fmt.Errorf("journal %s: %w", path, err)
	}
	return cut, nil
}

// RunInfo is run.json: what was run, on what, where. Written once, atomically,
// when the run starts.
type RunInfo struct {
	Schema  int    `json:"schema"`
	Tool    string `json:"tool"`
	Version string `json:"version"`
	// Build is the binary that wrote run.json: version, commit and Go
	// release (ThisBuild); zero in a run.json older than it.
	Build    Build             `json:"build,omitzero"`
	Spec     string            `json:"spec"`
	Created  time.Time         `json:"created"`
	Config   Config            `json:"config"`
	Profile  Profile           `json:"profile"`
	Stages   []Stage           `json:"stages"`
	Targets  []device.Identity `json:"targets"`
	Host     device.Host       `json:"host"`
	Engine   string            `json:"engine"`
	Imported bool              `json:"imported,omitempty"`
	// Workload marks one workload recorded by `ptsrun workload`: outside the
	// PTS, no purge, no preconditioning, one round.
	Workload bool `json:"workload,omitempty"`
	// Source says what imported results came from (files, tool, metric).
	Source string `json:"source,omitempty"`
	// Import is what imported results record of how they were measured,
	// and what they do not; nil for runs ptsrun made.
	Import *ImportRecord `json:"import,omitempty"`
	// Recorded is what the command that recorded workloads outside the PTS
	// (workload --out, its --vdbench, ptsrun fio) keeps of them besides
	// the journal, for that command's own files of the run directory,
	// which the rundir package writes from it; pts does not read it.
	Recorded json.RawMessage `json:"recorded,omitempty"`
	Operator
}

// Operator is what the person who ran the test states about it (PTS §5.1:
// test operator and lab; the DUT's NAND type and form factor, which most
// devices do not report). Empty fields were not stated, and run.json files
// older than them load with them empty.
type Operator struct {
	TestedBy string        `json:"tested_by,omitempty"` // --tested-by
	Lab      string        `json:"lab,omitempty"`       // --lab
	DUTNotes []device.Fact `json:"dut_notes,omitempty"` // --dut-note KEY=VALUE, in the order given
}

// WriteRunInfo writes dir/run.json atomically (temporary file, sync, rename,
// directory sync).
func WriteRunInfo(dir string, ri RunInfo) error {
	b, err := json.MarshalIndent(ri, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, RunFile), append(b, '\n'))
}

// LoadRunInfo reads dir/run.json.
func LoadRunInfo(dir string) (RunInfo, error) {
	path := filepath.Join(dir, RunFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return RunInfo{}, fmt.Errorf("%s: %w (no %s)", dir, ErrNoRun, RunFile)
	}
	if err != nil {
		return RunInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	var ri RunInfo
	if err := json.Unmarshal(b, &ri); err != nil {
		return RunInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	if ri.Tool != "ptsrun" || ri.Schema < 1 {
		return RunInfo{}, fmt.Errorf("%s: %w", path, ErrNoRun)
	}
	if ri.Schema > Schema {
		return RunInfo{}, fmt.Errorf("%s: schema %d is newer than this ptsrun reads (%d)", path, ri.Schema, Schema)
	}
	if err := checkRunInfo(ri); err != nil {
		return RunInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	return ri, nil
}

// WriteFileAtomic replaces path with data so that a crash leaves either the
// old file or the new one, never a part.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes 0600 files; results and reports are meant to be read
	// by others, as a plain create would allow.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer d.Close()
	_ = d.Sync()
	return nil
}
