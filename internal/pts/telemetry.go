package pts

import (
	"context"
	"encoding/json"

	"github.com/ptsrun/ptsrun/internal/telemetry"
)

// RecTelemetry is a journal record of the drives' temperature and health
// (Record.Telemetry), read between cells, never in a measurement window.
const RecTelemetry = "telemetry"

// Where in a stage a telemetry record was read: as the record of that
// kind is about to be journaled (its I/O done), when I/O ran since the
// last reading (a round's end right after its last sample is read once, at
// the sample). The telemetry record goes first: a kill between the two
// leaves the step incomplete, run again on resume with a reading of its
// own, never a complete step without its reading.
const (
	AtStageStart = "stage_start" // before the stage's purge and I/O: the stage's "before"
	AtResume     = "resume"      // a resumed stage, before its I/O
	AtPurge      = "purge"       // after its purge
	AtPrecond    = "precondition"
	AtRound      = "round" // after a round's cells (Record.Round)
	AtSample     = "sample"
	AtStageEnd   = "stage_end"
	AtRun        = "run" // the run has no source: Unavailable says why
)

// TelemetryRecord is what a telemetry record holds: one reading per target
// of the set, in order; or why there are none.
type TelemetryRecord struct {
	At       string              `json:"at"`
	Readings []telemetry.Reading `json:"readings,omitempty"`
	// Unavailable says why the run has no telemetry ("not available"):
	// journaled once, at the start of each process.
	Unavailable string `json:"unavailable,omitempty"`
	// Notes say, once, a source asked no more and why; Errors the reads
	// that failed this time.
	Notes  []string `json:"notes,omitempty"`
	Errors []string `json:"errors,omitempty"`
}

// telemetryAt is where rec, just journaled, asks for a reading; "" when
// it does not.
func (r *Runner) telemetryAt(rec Record) string {
	switch rec.Type {
	case RecCell, RecPrecondChunk:
		r.ioSinceTelemetry = true
		return ""
	case RecSample:
		return AtSample // a sample is its own I/O
	case RecStageStart:
		return AtStageStart
	case RecResume:
		return AtResume
	}
	if !r.ioSinceTelemetry && rec.Type != RecPurge {
		return ""
	}
	switch rec.Type {
	case RecPurge:
		return AtPurge
	case RecPrecondition:
		return AtPrecond
	case RecRoundEnd:
		return AtRound
	case RecStageEnd:
		return AtStageEnd
	}
	return ""
}

// sampleTelemetry reads the drives before rec is journaled and journals
// the reading. It is written but not synced: rec's sync, right after,
// carries it, so that a reading at every sample costs no sync of its own.
func (r *Runner) sampleTelemetry(ctx context.Context, rec Record, pos Position) error {
	at := r.telemetryAt(rec)
	if at == "" || !r.Telemetry.Active() {
		return nil
	}
	r.ioSinceTelemetry = false
	readings, notes, errs := r.Telemetry.Sample(ctx)
	tr := &TelemetryRecord{At: at, Readings: readings, Notes: notes}
	for _, e := range errs {
		tr.Errors = append(tr.Errors, e.Error())
	}
	t := Record{Type: RecTelemetry, Time: r.now(), Stage: rec.Stage, Round: rec.Round, Cell: rec.Cell, Telemetry: tr}
	if err := r.Journal.append(t, false); err != nil {
		return err
	}
	if r.Observer != nil {
		r.place(t, &pos)
		r.Observer.Observe(t, pos)
	}
	return nil
}

// telemetryStart journals, at the start of a process, that the run has no
// telemetry and why (when the runner was told: NoTelemetry).
func (r *Runner) telemetryStart() error {
	if r.Telemetry.Active() || r.NoTelemetry == "" {
		return nil
	}
	return r.emit(Record{Type: RecTelemetry, Telemetry: &TelemetryRecord{At: AtRun, Unavailable: r.NoTelemetry}}, Position{})
}

// LastReading is the last telemetry reading of each target in recs, and
// whether there is one.
func LastReading(recs []Record) ([]telemetry.Reading, bool) {
	for i := len(recs) - 1; i >= 0; i-- {
		if t := recs[i].Telemetry; recs[i].Type == RecTelemetry && t != nil && len(t.Readings) > 0 {
			return t.Readings, true
		}
	}
	return nil, false
}

// TelemetryUnavailable is why a run's journal has no telemetry: its
// last process's word, or "" when it has readings.
func TelemetryUnavailable(recs []Record) string {
	why := "not recorded (a journal older than telemetry)"
	for _, rec := range recs {
		if t := rec.Telemetry; rec.Type == RecTelemetry && t != nil {
			if len(t.Readings) > 0 {
				return ""
			}
			if t.Unavailable != "" {
				why = t.Unavailable
			}
		}
	}
	return why
}

// telemetryJSON is a TelemetryRecord as the journal holds it: its readings
// compact (telemetry.Compact), which reads the whole form of older
// journals too.
type telemetryJSON struct {
	plainTelemetry
	Readings []telemetry.Compact `json:"readings,omitempty"`
}

type plainTelemetry TelemetryRecord

// MarshalJSON writes the readings compactly.
func (t TelemetryRecord) MarshalJSON() ([]byte, error) {
	out := telemetryJSON{plainTelemetry: plainTelemetry(t)}
	out.plainTelemetry.Readings = nil
	for _, r := range t.Readings {
		out.Readings = append(out.Readings, telemetry.Compact(r))
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads either form of the readings.
func (t *TelemetryRecord) UnmarshalJSON(b []byte) error {
	var in telemetryJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*t = TelemetryRecord(in.plainTelemetry)
	t.Readings = nil
	for _, r := range in.Readings {
		t.Readings = append(t.Readings, telemetry.Reading(r))
	}
	return nil
}

// Whole is the record as it marshals with every reading in full
// (telemetry.Reading's own JSON), for output meant for people and scripts
// rather than for the journal.
func (t TelemetryRecord) Whole() any { return plainTelemetry(t) }
