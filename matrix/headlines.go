package matrix

import (
	"slices"

	"github.com/ptsrun/ptsrun/pts"
)

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
	// Label names a headline the test chose as it ran (a
	// demand-intensity operating point: "DIRTH MaxIOPS", at the Cell's
	// TC/QD); "" for one of the definition's.
	Label string
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
		out = append(out, pointHeadlines(t)...)
	}
	return out
}

// pointHeadlines are a demand-intensity test's MaxIOPS and MinIOPS: their
// cells of the demand-variation window, IOPS and mean response time.
func pointHeadlines(t *TestResult) []HeadlineCell {
	var out []HeadlineCell
	for _, p := range t.OperatingPoints {
		if p.Point == pts.PointMid {
			continue
		}
		for si := range t.Stages {
			s := &t.Stages[si]
			for ci := range s.Cells {
				c := &s.Cells[ci]
				if c.PreWrite || !c.Present() || c.TC != p.TC || c.QD != p.QD || !slices.ContainsFunc(s.Cells, func(c CellResult) bool { return c.PreWrite }) {
					continue
				}
				out = append(out, HeadlineCell{Headline: pts.Headline{Key: c.Key, Metrics: []pts.Metric{pts.MetricIOPS, pts.MetricLatMean},
					Brief: p.Point == pts.PointMax}, Test: t.Test, Stage: s, Cell: c,
					Label: t.Name + " " + pts.PointLabel(p.Point)})
			}
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
