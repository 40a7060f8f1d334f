package matrix

import (
	"encoding/json"
	"math"

	"github.com/ptsrun/ptsrun/internal/pts"
)

// CompareMetrics are the metrics regression checks and comparisons use, in
// report order.
var CompareMetrics = []pts.Metric{pts.MetricIOPS, pts.MetricMBps, pts.MetricLatMean, pts.MetricLatP99999, pts.MetricLatMax}

type cellField struct {
	name pts.Metric
	p    *float64
}

// numbers are a cell's metric fields by their JSON names.
func (c *CellResult) numbers() []cellField {
	return []cellField{
		{pts.MetricIOPS, &c.IOPS}, {pts.MetricReadIOPS, &c.ReadIOPS}, {pts.MetricWriteIOPS, &c.WriteIOPS},
		{pts.MetricMBps, &c.MBps}, {pts.MetricReadMBps, &c.ReadMBps}, {pts.MetricWriteMBps, &c.WriteMBps},
		{pts.MetricLatMean, &c.LatMeanMs}, {pts.MetricLatMax, &c.LatMaxMs}, {pts.MetricLatMaxMean, &c.LatMaxMeanMs},
		{pts.MetricLatP99, &c.LatP99Ms}, {pts.MetricLatP9999, &c.LatP9999Ms}, {pts.MetricLatP99999, &c.LatP99999Ms},
		{pts.MetricReadLatMean, &c.ReadLatMeanMs}, {pts.MetricWriteLatMean, &c.WriteLatMean},
	}
}

// Value is a metric of the cell; ok is false when the cell has no such
// value (not measured, or not in what was imported).
func (c CellResult) Value(metric pts.Metric) (v float64, ok bool) {
	if !c.Present() {
		return math.NaN(), false
	}
	for _, f := range c.numbers() {
		if f.name == metric {
			return *f.p, !math.IsNaN(*f.p) && !math.IsInf(*f.p, 0)
		}
	}
	return math.NaN(), false
}

// Present says whether the cell has results: measured rounds, or values
// from a published table.
func (c CellResult) Present() bool { return len(c.PerRound) > 0 || c.Published }

// Absent lists the metrics the cell has no value for.
func (c CellResult) Absent() []pts.Metric {
	var out []pts.Metric
	for _, f := range c.numbers() {
		if math.IsNaN(*f.p) || math.IsInf(*f.p, 0) {
			out = append(out, f.name)
		}
	}
	return out
}

// cellJSON is CellResult as stored: JSON has no NaN, so a value the cell
// does not have is written as 0 and named in "absent".
type cellJSON struct {
	plainCell
	AbsentMetrics []pts.Metric `json:"absent,omitempty"`
}

type plainCell CellResult

// MarshalJSON writes absent values as 0 and lists them under "absent".
func (c CellResult) MarshalJSON() ([]byte, error) {
	out := cellJSON{plainCell: plainCell(c), AbsentMetrics: c.Absent()}
	for _, f := range (*CellResult)(&out.plainCell).numbers() {
		if math.IsNaN(*f.p) || math.IsInf(*f.p, 0) {
			*f.p = 0
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON wrote: the values named in "absent"
// become NaN again.
func (c *CellResult) UnmarshalJSON(b []byte) error {
	var in cellJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*c = CellResult(in.plainCell)
	for _, name := range in.AbsentMetrics {
		for _, f := range c.numbers() {
			if f.name == name {
				*f.p = math.NaN()
			}
		}
	}
	return nil
}

// Published says the stage's values come from a published table: one value
// per cell, no rounds, no steady-state verdict.
func (s StageResult) Published() bool {
	for _, c := range s.Cells {
		if c.Published {
			return true
		}
	}
	return false
}
