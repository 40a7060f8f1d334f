package matrix

import (
	"math"
	"slices"

	"github.com/ptsrun/ptsrun/internal/pts"
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
	// TC/QD); "" for one of the definition's. Point is that point, with
	// its histogram run; Cell is then the point as chosen (PointCell).
	// Words are what the headline says instead of its cell's metrics (the
	// point's two measurements), "" for a headline of its metrics.
	Label string
	Point *pts.OperatingPoint
	Words string
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

// pointHeadlines are a demand-intensity test's MaxIOPS and MinIOPS, IOPS
// and mean response time as the point was chosen by (pts.PickPoints).
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
					Brief: p.Point == pts.PointMax}, Test: t.Test, Stage: s, Cell: PointCell(*c, p),
					Label: t.Name + " " + pts.PointLabel(p.Point), Point: &p, Words: p.Words()})
			}
		}
	}
	return out
}

// PointCell is an operating point as chosen, in the shape of the cell it
// was chosen at: the cell's workload, the point's IOPS and mean response
// time, and no other figure. A headline of the point reads these, so that
// the summary, page 1 and comparisons print the figures the point was
// chosen by, never the cell's window average under the point's name (with
// --X-pick last the two differ).
func PointCell(c CellResult, p pts.OperatingPoint) *CellResult {
	out := c
	for _, f := range out.numbers() {
		*f.p = math.NaN()
	}
	out.IOPS, out.LatMeanMs = p.IOPS, p.ARTMs
	out.Hist, out.Targets, out.CPU = nil, nil, nil
	return &out
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
