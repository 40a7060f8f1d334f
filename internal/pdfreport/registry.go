package pdfreport

import (
	"slices"

	"github.com/ptsrun/ptsrun/internal/comparison"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// testPages is what a test's page file registers: how the test's pages
// are drawn. Build and the comparison loop over the tests of pts and ask
// here, so that a new test is one file in pts and one page file here.
type testPages struct {
	// report adds the test's pages to a run's report; it gets every
	// stage of the test's results.
	report func(b *builder, td *pts.TestDef, stages []matrix.StageResult)
	// compare is the page that overlays the runs of a comparison in one
	// of the test's tables, or nil for none; nil draws no overlays.
	compare func(c comparison.Comparison, t comparison.Table) *Page
	// summary is what the report's first page shows of a stage of the
	// test besides its headline cells (its figures, its operating point),
	// each row's last column state; nil for nothing more.
	summary func(b *builder, t matrix.TestResult, s matrix.StageResult, state string) [][]string
}

// pagesOf holds each test's pages, by test.
var pagesOf = map[pts.TestID]testPages{}

// registerPages is called by each page file's init.
func registerPages(td *pts.TestDef, p testPages) { pagesOf[td.ID] = p }

// reportedTests are the tests a report can hold, in report order: the
// PTS's, then workloads outside it.
func reportedTests() []*pts.TestDef { return append(slices.Clone(pts.Tests), pts.CustomTest) }

// withResults hands draw the stages of a PTS test that have a value to
// report, if any; every other stage gets one page saying why.
func withResults(draw func(b *builder, td *pts.TestDef, stages []matrix.StageResult)) func(*builder, *pts.TestDef, []matrix.StageResult) {
	return func(b *builder, td *pts.TestDef, stages []matrix.StageResult) {
		var with []matrix.StageResult
		for _, s := range stages {
			if b.empty(s) {
				b.noResults(td.Name, s)
			} else {
				with = append(with, s)
			}
		}
		if len(with) > 0 {
			draw(b, td, with)
		}
	}
}
