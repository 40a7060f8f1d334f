package pts

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/ptsrun/ptsrun/internal/device"
)

// stageID is what a stage's ID may be: a plain name. It names the fio
// job files of its cells and is globbed for in DIR/fio, so one read from
// run.json may hold no path separator, no leading dot and no control
// character (a newline would end a fio option and start another).
var stageID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkRunInfo checks the values of a run.json that reach a path or a
// job file whoever reads it (report, compare, resume): the stage IDs.
// What only resume uses is checked by resume, as the command line's is.
func checkRunInfo(ri RunInfo) error {
	for i, s := range ri.Stages {
		if !stageID.MatchString(s.ID) {
			return fmt.Errorf("stage %d has the ID %q: a stage ID is a plain name (letters, digits, '.', '_', '-')", i+1, s.ID)
		}
	}
	for _, t := range ri.Config.Targets {
		if err := device.CheckControl(t); err != nil {
			return fmt.Errorf("target %q: %w", t, err)
		}
	}
	return nil
}

// CheckStages compares the stages a run.json records with those its
// configuration builds now (Config.Stages): resume runs the ones built,
// never the file's, and refuses when they differ (run.json was edited,
// or written by a ptsrun whose tests were otherwise). The error names the
// first stage that differs.
func CheckStages(recorded, built []Stage) error {
	if len(recorded) != len(built) {
		return fmt.Errorf("run.json records %d stages; its configuration makes %d", len(recorded), len(built))
	}
	for i := range built {
		a, err := json.Marshal(recorded[i])
		if err != nil {
			return err
		}
		b, err := json.Marshal(built[i])
		if err != nil {
			return err
		}
		if string(a) != string(b) {
			return fmt.Errorf("stage %d as run.json records it (%q) is not the stage %q its configuration makes", i+1, recorded[i].ID, built[i].ID)
		}
	}
	return nil
}
