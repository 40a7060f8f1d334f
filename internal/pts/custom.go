package pts

// The custom test's one stage, and its one table (tables/custom.csv), are
// named as the test is: every package names them by these.
const (
	CustomStage = string(Custom)
	CustomTable = string(Custom)
)

// CustomTest holds workloads outside the PTS: imported results that are not
// PTS cells, and single workloads recorded with `ptsrun workload`. It has
// no matrix, no tracking variables and no steady-state verdict; every
// cell is a headline and a row of its table.
var CustomTest = &TestDef{
	ID: Custom, Name: "Custom workloads", order: 1000,
	Tables: []TableDef{{Name: CustomTable, Title: "Custom workloads", Shape: ShapeCells,
		Columns: []Metric{MetricIOPS, MetricMBps, MetricLatMean, MetricLatP99999, MetricLatMax}}},
	EveryCell: []Metric{MetricIOPS, MetricMBps, MetricLatMean, MetricLatP99999},
}
