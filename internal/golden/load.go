package golden

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// Run is a set of results to compare: a run directory (Info from its
// run.json) or a bare results.json (Info nil).
type Run struct {
	Name    string // short name for tables and legends
	Path    string
	Info    *pts.RunInfo
	Results *matrix.Results
}

// Load reads a run directory or a results.json file.
func Load(path string) (*Run, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := &Run{Path: path}
	if st.IsDir() {
		res, ri, err := matrix.Load(path)
		if err != nil {
			return nil, err
		}
		r.Results, r.Info = res, &ri
		r.Name = filepath.Base(filepath.Clean(path))
	} else {
		res, err := matrix.ReadResults(path)
		if err != nil {
			return nil, err
		}
		r.Results = res
		r.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		if r.Name == "results" {
			r.Name = filepath.Base(filepath.Dir(filepath.Clean(path)))
		}
	}
	if len(r.Results.Tests) == 0 {
		return nil, fmt.Errorf("%s: holds no test results", path)
	}
	return r, nil
}

// LoadAll loads every path; names that repeat get a number.
func LoadAll(paths []string) ([]*Run, error) {
	var runs []*Run
	seen := map[string]int{}
	for _, p := range paths {
		r, err := Load(p)
		if err != nil {
			return nil, err
		}
		seen[r.Name]++
		if n := seen[r.Name]; n > 1 {
			r.Name = fmt.Sprintf("%s (%d)", r.Name, n)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// ErrNothingInCommon means two result sets share no test.
var ErrNothingInCommon = errors.New("no test in common")

// cellRef names a cell across runs: test, stage and cell key.
type cellRef struct {
	Test  pts.TestID
	Stage string
	Key   pts.CellKey
}

func (c cellRef) String() string { return c.Stage + " " + c.Key.String() }

type located struct {
	stage *matrix.StageResult
	cell  *matrix.CellResult
}

// cells indexes the present cells of a result set.
func cells(res *matrix.Results) (map[cellRef]located, []cellRef) {
	m := map[cellRef]located{}
	var order []cellRef
	for ti := range res.Tests {
		t := &res.Tests[ti]
		for si := range t.Stages {
			s := &t.Stages[si]
			for ci := range s.Cells {
				c := &s.Cells[ci]
				if !c.Present() {
					continue
				}
				k := cellRef{t.Test, s.ID, c.Key}
				if _, dup := m[k]; !dup {
					order = append(order, k)
				}
				m[k] = located{s, c}
			}
		}
	}
	return m, order
}
