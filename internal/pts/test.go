package pts

import (
	"fmt"
	"slices"
	"strings"
)

// TestID names a test of the PTS, or Custom: workloads outside it
// (imported, or recorded with `ptsrun workload`).
type TestID string

// The tests ptsrun knows.
const (
	IOPS   TestID = "iops"
	TP     TestID = "tp"
	LAT    TestID = "lat"
	Custom TestID = "custom"
)

// The variables a test's stimulus loops over.
const (
	LoopMix       = "R/W mix"
	LoopBlockSize = "Block size"
)

// TestDef is one test, everything ptsrun needs to know of it in one value:
// its matrix and loop order, how its stages are built, its tracking
// variables, its tables and the cells people quote. Each test's is in a file
// of its own (iops.go, tp.go, lat.go, custom.go); matrix, pdfreport, golden
// and the command line loop over them and list no cell or metric again.
type TestDef struct {
	ID      TestID
	Name    string // "IOPS"
	Section string // of PTS 2.0.2: "§7"
	// Loops are the variables the test's stimulus loops over, outermost
	// first: the one place that says which loop is outer.
	Loops []string
	// Matrix is the test's block sizes and R/W mixes (read %), in loop order.
	Matrix func(p Profile) (sizes []int64, mixes []int)
	// Tracking are the steady-state tracking variables of a stage of the
	// test; bs is the stage's block size where the test has a stage per
	// block size (throughput), 0 otherwise.
	Tracking func(bs int64) []TrackingDef
	// StagePerBlockSize says the test purges, preconditions and reaches
	// steady state once per block size (throughput).
	StagePerBlockSize bool
	// Tables are the test's tables besides each stage's tracking table, in
	// report order.
	Tables []TableDef
	// Headlines are the cells people quote, in order; EveryCell makes
	// every cell of the test one, with these metrics (throughput's few).
	Headlines []Headline
	EveryCell []Metric
	// Params are the test's own parameters, each a command-line flag; a
	// default that is a reading of the PTS is in Readings, by flag.
	Params []Param
	// ActiveRange is the test's own active range in percent, the same in
	// every profile (the tests over time: the whole device); 0: the
	// profile's.
	ActiveRange float64
	// Departures are the ways a configuration makes the test depart from
	// the PTS beyond its parameters (ECW on a 4Kn target), in words; nil:
	// none.
	Departures func(c Config) []string
	// CheckParams checks the test's parameters together (one that rules
	// another out); each has been checked alone. Nil: nothing to check.
	CheckParams func(c Config) error
	// Rules are the test's rules in words (rules.go), in the order a reader
	// meets them: the words its report, plan and docs print.
	Rules []Rule
	// Summarize reads a timeline stage's samples: the test's table of them
	// and the figures it derives (XSR's recovery time), with what the
	// test's earlier stages found (HIR's steady state). Each figure is
	// computed here, once: every page, table and command prints it as
	// this returns it. nil for tests of rounds.
	Summarize func(in SummaryInput) *Summary
	// stages builds the test's stages for the block sizes and mixes the
	// run does (Config.Subset).
	stages func(c Config, p Profile, sizes []int64, mixes []int) []Stage
	order  int // its place in the PTS
	// Input is what the test needs besides a target, as the flag that
	// gives it ("--capture"); a test that needs one is not in --tests all.
	Input string
}

// InPTS says the test is one of the PTS's; a test after another method
// (rwsw) is run in its way and claims no conformance.
func (t *TestDef) InPTS() bool { return strings.HasPrefix(t.Section, "§") }

// Reference is what the test follows, as headings cite it: "PTS 2.0.2
// §14"; a test outside the PTS names its method in Section ("after the
// SNIA RWSW method").
func (t *TestDef) Reference() string {
	if t.InPTS() {
		return "PTS 2.0.2 " + t.Section
	}
	return t.Section
}

// Param is one parameter of a test: its flag, default and check.
type Param struct {
	Flag    string // "xsr-groups"
	Default string
	Usage   string
	Check   func(string) error
	// Switch is a flag without a value: "true" when given, else Default
	// ("false").
	Switch bool
	// Method is an option the PTS itself offers (WSAT's steady-state
	// method): using it is not a deviation.
	Method bool
}

// AllParams are the parameters of every test, for the command line.
func AllParams() []Param {
	var out []Param
	for _, t := range Tests {
		out = append(out, t.Params...)
	}
	return out
}

// TrackingDef is a tracking variable of a test: a metric of one cell.
type TrackingDef struct {
	Name   string // "IOPS RND 4 KiB 0/100"
	Key    CellKey
	Metric Metric
}

// TableDef is a table a test's results make, of a shape its stages'
// procedures make (Procedure.Tables).
type TableDef struct {
	Name      string // the CSV's file name, without .csv
	Title     string
	Shape     TableShape
	Metric    Metric   // ShapeMatrix, ShapeGrid
	Columns   []Metric // ShapeCells
	Aggregate string   // how a value is made from the measurement window, for captions
	// SampleColumns are a ShapeSamples table's columns (the Col… names).
	SampleColumns []string
}

// TableShape is what a table's rows and columns are.
type TableShape int

// The shapes of table there are.
const (
	// ShapeMatrix: Metric over the test's block size (rows) × R/W mix
	// (columns) matrix, rows and columns from TestDef.Matrix (rounds).
	ShapeMatrix TableShape = iota
	// ShapeCells: one row per cell, a column per metric of Columns
	// (rounds of workloads outside the PTS).
	ShapeCells
	// ShapeSamples: a row per sample of a time series, with SampleColumns;
	// ShapeSummary: its summary's rows; ShapeFigures: its summary's
	// figures, a row each (a timeline).
	ShapeSamples
	ShapeSummary
	ShapeFigures
	// ShapeGrid: Metric over the sweep's thread count (rows) × queue
	// depth (columns) cells; ShapePoints: its operating points, a row each
	// (a demand sweep).
	ShapeGrid
	ShapePoints
)

// The columns a timeline's sample table may have.
const (
	ColMinute  = "minute"
	ColGroup   = "group"
	ColIdle    = "idle"    // 1 for a step of host idle time (no I/O), else 0
	ColTGBW    = "tgbw_gb" // total GB (10^9 bytes) written since the stage began
	ColFills   = "fills"   // that, in capacities of the target set
	ColIOPS    = "iops"
	ColMBps    = "mbps"
	ColLatMean = "lat_mean_ms"
	ColP99999  = "lat_p99_999_ms"
	ColLatMax  = "lat_max_ms"
)

// Headline is a cell people quote, with the metrics they quote of it.
type Headline struct {
	Key     CellKey
	Metrics []Metric
	// Brief headlines are the few the command line's summary and run
	// comparisons show; the report's first page shows every headline.
	Brief bool
}

// Tests are the PTS's tests ptsrun runs, in the order of the PTS. Each
// test's file registers it.
var Tests []*TestDef

// register adds a test, keeping the PTS's order.
func register(t *TestDef) {
	Tests = append(Tests, t)
	slices.SortStableFunc(Tests, func(a, b *TestDef) int { return a.order - b.order })
}

// Def is the definition of a test, Custom included; nil when unknown.
func Def(id TestID) *TestDef {
	if id == Custom {
		return CustomTest
	}
	for _, t := range Tests {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// LookupTest finds a PTS test by id.
func LookupTest(id TestID) (*TestDef, error) {
	if t := Def(id); t != nil && t.ID != Custom {
		return t, nil
	}
	var ids []string
	for _, t := range Tests {
		ids = append(ids, string(t.ID))
	}
	return nil, fmt.Errorf("unknown test %q: known tests are %s", id, strings.Join(ids, ", "))
}

// ParseTests reads a comma-separated test list, keeping the PTS order.
func ParseTests(s string) ([]TestID, error) {
	var out []TestID
	for _, f := range strings.Split(s, ",") {
		id := TestID(strings.ToLower(strings.TrimSpace(f)))
		if id == "" {
			continue
		}
		if id == "all" { // every PTS test there is
			for _, td := range Tests {
				if td.Input == "" && !slices.Contains(out, td.ID) {
					out = append(out, td.ID)
				}
			}
			continue
		}
		if _, err := LookupTest(id); err != nil {
			return nil, err
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no test named")
	}
	slices.SortFunc(out, func(a, b TestID) int { return Def(a).order - Def(b).order })
	return out, nil
}

// LoopLabel names a test's loop variable with its place: "R/W mix (outer)".
func (t *TestDef) LoopLabel(variable string) string {
	for i, l := range t.Loops {
		if l != variable {
			continue
		}
		switch {
		case len(t.Loops) == 1:
			return l
		case i == 0:
			return l + " (outer)"
		case i == len(t.Loops)-1:
			return l + " (inner)"
		}
		return l
	}
	return variable
}

// TestMatrix is the block sizes and R/W mixes of a test's stimulus loops,
// in loop order.
func TestMatrix(id TestID, p Profile) ([]int64, []int) {
	if t := Def(id); t != nil && t.Matrix != nil {
		return t.Matrix(p)
	}
	return nil, nil
}

// LookupTable finds a test's table by its name: the test and the table's
// definition.
func LookupTable(name string) (*TestDef, TableDef, bool) {
	for _, t := range append(slices.Clone(Tests), CustomTest) {
		for _, tb := range t.Tables {
			if tb.Name == name {
				return t, tb, true
			}
		}
	}
	return nil, TableDef{}, false
}

// JoinTests writes test IDs with sep between them: "iops,lat".
func JoinTests(ids []TestID, sep string) string {
	var s []string
	for _, id := range ids {
		s = append(s, string(id))
	}
	return strings.Join(s, sep)
}
