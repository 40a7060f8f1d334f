package comparison

import (
	"math"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// Run is one run of a comparison; Info is nil for a bare results.json.
type Run struct {
	Name    string
	Info    *pts.RunInfo
	Results *matrix.Results
}

// Table is one table across runs: Values[run][row][col], NaN where a run
// has no value.
type Table struct {
	Name, Title, Unit string
	Test              pts.TestID
	RowHead           string
	Rows              []string
	RowBytes          []int64
	Cols              []string
	ColMetric         []pts.Metric // the metric of each column (its direction); "" for a column not scored
	Values            [][][]float64
	// Points marks a table of operating points, a row per point; Differ
	// says, per row, the loads the runs chose the point at when they differ
	// ("A TC32/QD4, B TC32/QD8"), "" when they chose it at one. A point
	// chosen at different loads is shown, never scored: its figures are of
	// different workloads.
	Points bool
	Differ []string
	// RowMetric, when set, is the metric of each row instead of each
	// column's (a table of figures, one per row, each with its unit).
	RowMetric []pts.Metric
}

// Metric is the metric of column col: its direction and format; IOPS for
// a table that names none.
func (t Table) Metric(col int) pts.Metric {
	if col < len(t.ColMetric) {
		return t.ColMetric[col]
	}
	return pts.MetricIOPS
}

// MetricAt is the metric of a cell of the table: its row's or its
// column's; "" for one that is not scored.
func (t Table) MetricAt(row, col int) pts.Metric {
	if t.RowMetric != nil {
		if row < len(t.RowMetric) {
			return t.RowMetric[row]
		}
		return ""
	}
	return t.Metric(col)
}

// Ratio is run ÷ reference of a cell of the table, NaN where either has no
// value or the cell is not scored (a point chosen at different loads, a
// value that is no metric).
func (t Table) Ratio(run, row, col int) float64 {
	if t.MetricAt(row, col) == "" || row < len(t.Differ) && t.Differ[row] != "" {
		return math.NaN()
	}
	return t.Values[run][row][col] / t.Values[0][row][col]
}

// Headline is one headline cell across runs.
type Headline struct {
	Label  string
	Metric pts.Metric
	Values []float64
	// Loads are each run's TC/QD of a headline the test chose as it ran
	// (an operating point), "" for a run without it; nil for the others.
	// Differ names them when they differ: the headline is then not scored.
	Loads  []string
	Differ string
	Point  string // the operating point's name ("DIRTH MaxIOPS"); "" for the other headlines
}

// Ratio is run ÷ reference of the headline, NaN where either has no value
// or the runs chose it at different loads.
func (h Headline) Ratio(run int) float64 {
	if h.Differ != "" {
		return math.NaN()
	}
	return h.Values[run] / h.Values[0]
}

// HeatMap is the ratio heat-map of workloads outside the PTS (presets, a
// vdbench or fio suite) across runs: for each run after the reference,
// each workload × metric as run ÷ reference, NaN where either has no
// value.
type HeatMap struct {
	Workloads []string
	Metrics   []pts.Metric
	Ratios    [][][]float64 // [run-1][workload][metric]
	// Mean is each metric's geometric mean ratio over the workloads both
	// runs have, per run after the reference: the one figure per metric
	// a suite's comparison comes down to.
	Mean [][]float64 // [run-1][metric]
}

// Comparison is what `ptsrun compare` lays out: the first run is the
// reference.
type Comparison struct {
	Runs      []Run
	Tables    []Table
	Headlines []Headline
	HeatMap   *HeatMap // nil unless the runs share workloads outside the PTS
	// Scope says in words which tests are compared and names those the
	// reference and another run do not both hold, for the summary page.
	Scope []string
}
