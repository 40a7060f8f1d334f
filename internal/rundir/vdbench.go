package rundir

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/vdbench"
)

// VdbenchRecord is what `workload --vdbench --out` records besides the
// journal: the parameter file as read, copied into DIR/vdbench/, its
// translation, and the engine and targets of each run done.
type VdbenchRecord struct {
	File *vdbench.File
	Plan *vdbench.Plan
	Runs []VdbenchRun
}

// VdbenchRun is a run done: its cell's name, the engine that ran it and
// its targets.
type VdbenchRun struct {
	Name    string   `json:"name"`
	Engine  string   `json:"engine"`
	Targets []string `json:"targets"`
}

// VdbenchResult is one run's measurement in --json and DIR/vdbench.json.
type VdbenchResult struct {
	Name string `json:"name"`
	WorkloadResult
}

// vdbenchSide is run.json's record of a vdbench file's runs.
type vdbenchSide struct {
	Translation *vdbench.Plan `json:"translation"`
	Runs        []VdbenchRun  `json:"runs"`
}

// copyFiles copies the parameter file and its includes into DIR/vdbench/,
// each under its base name (a second of a name gets its index first).
func (r *VdbenchRecord) copyFiles(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, VdbenchDir), 0o755); err != nil {
		return err
	}
	taken := map[string]bool{}
	for i, src := range r.File.Sources {
		name := filepath.Base(src.Name)
		if taken[name] {
			name = fmt.Sprintf("%d-%s", i, name)
		}
		taken[name] = true
		if err := pts.WriteFileAtomic(filepath.Join(dir, VdbenchDir, name), src.Text); err != nil {
			return err
		}
	}
	return nil
}

// VdbenchResults are the runs' results: each cell measured by the engine
// and on the targets its run names.
func VdbenchResults(version string, runs []VdbenchRun, cells []Cell) []VdbenchResult {
	var out []VdbenchResult
	for i, c := range cells {
		r := runs[i]
		res := ResultOf(version, r.Engine, r.Targets, "", c.Workload, c.Measurement)
		res.Seconds = nil // the journal has them; results.json their series
		out = append(out, VdbenchResult{Name: r.Name, WorkloadResult: res})
	}
	return out
}

// writeVdbench writes vdbench.json: the translation and the runs' results.
func writeVdbench(dir string, ri pts.RunInfo, s *vdbenchSide, cells []Cell) error {
	return writeJSON(filepath.Join(dir, VdbenchFile), struct {
		Plan    *vdbench.Plan   `json:"translation"`
		Results []VdbenchResult `json:"results"`
	}{s.Translation, VdbenchResults(ri.Version, s.Runs, cells)})
}
