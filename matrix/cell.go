package matrix

import (
	"encoding/json"
	"math"
)

// The metrics a cell is compared on, by their results.json names.
const (
	MetricIOPS      = "iops"
	MetricMBps      = "mbps"
	MetricLatMean   = "lat_mean_ms"
	MetricLatP99999 = "lat_p99_999_ms"
	MetricLatMax    = "lat_max_ms"
)

// CompareMetrics are the metrics regression checks and comparisons use, in
// report order.
var CompareMetrics = []string{MetricIOPS, MetricMBps, MetricLatMean, MetricLatP99999, MetricLatMax}

// MetricUnit is the unit a metric is written in.
func MetricUnit(metric string) string {
	switch metric {
	case MetricIOPS:
		return "IOPS"
	case MetricMBps:
		return "MB/s"
	}
	return "ms"
}

// LowerIsBetter says which way a metric improves.
func LowerIsBetter(metric string) bool {
	switch metric {
	case MetricLatMean, MetricLatP99999, MetricLatMax:
		return true
	}
	return false
}

type cellField struct {
	name string
	p    *float64
}

// numbers are a cell's metric fields by their JSON names.
func (c *CellResult) numbers() []cellField {
	return []cellField{
		{"iops", &c.IOPS}, {"read_iops", &c.ReadIOPS}, {"write_iops", &c.WriteIOPS},
		{"mbps", &c.MBps}, {"read_mbps", &c.ReadMBps}, {"write_mbps", &c.WriteMBps},
		{"lat_mean_ms", &c.LatMeanMs}, {"lat_max_ms", &c.LatMaxMs}, {"lat_max_mean_ms", &c.LatMaxMeanMs},
		{"lat_p99_ms", &c.LatP99Ms}, {"lat_p99_99_ms", &c.LatP9999Ms}, {"lat_p99_999_ms", &c.LatP99999Ms},
		{"read_lat_mean_ms", &c.ReadLatMeanMs}, {"write_lat_mean_ms", &c.WriteLatMean},
	}
}

// Value is a metric of the cell; ok is false when the cell has no such
// value (not measured, or not in what was imported).
func (c CellResult) Value(metric string) (v float64, ok bool) {
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
func (c CellResult) Absent() []string {
	var out []string
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
	AbsentMetrics []string `json:"absent,omitempty"`
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
