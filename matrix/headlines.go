package matrix

import "github.com/ptsrun/ptsrun/pts"

// Cell is the result of a test's cell with that key, or nil when the run
// has none with results.
func (r *Results) Cell(test pts.TestID, key pts.CellKey) *CellResult {
	t := r.Find(test)
	if t == nil {
		return nil
	}
	for si := range t.Stages {
		for ci := range t.Stages[si].Cells {
			if c := &t.Stages[si].Cells[ci]; c.Key == key && c.Present() {
				return c
			}
		}
	}
	return nil
}

// HeadlineCell is a headline of the test definitions with its result.
type HeadlineCell struct {
	pts.Headline
	Test  pts.TestID
	Stage *StageResult
	Cell  *CellResult
}

// Headlines are the cells people quote, with results: test by test and
// stage by stage, in the order the test definitions give them; every cell
// of a test whose definition says EveryCell.
func (r *Results) Headlines() []HeadlineCell {
	var out []HeadlineCell
	for ti := range r.Tests {
		t := &r.Tests[ti]
		td := pts.Def(t.Test)
		if td == nil {
			continue
		}
		for si := range t.Stages {
			out = append(out, StageHeadlines(td, &t.Stages[si])...)
		}
	}
	return out
}

// StageHeadlines are the headlines of one stage of a test.
func StageHeadlines(td *pts.TestDef, s *StageResult) []HeadlineCell {
	var out []HeadlineCell
	add := func(h pts.Headline, c *CellResult) {
		out = append(out, HeadlineCell{Headline: h, Test: td.ID, Stage: s, Cell: c})
	}
	if len(td.EveryCell) > 0 {
		for ci := range s.Cells {
			if c := &s.Cells[ci]; c.Present() {
				add(pts.Headline{Key: c.Key, Metrics: td.EveryCell, Brief: true}, c)
			}
		}
		return out
	}
	for _, h := range td.Headlines {
		for ci := range s.Cells {
			if c := &s.Cells[ci]; c.Key == h.Key && c.Present() {
				add(h, c)
				break
			}
		}
	}
	return out
}
