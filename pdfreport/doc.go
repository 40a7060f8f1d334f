// Package pdfreport renders a run's results as a PDF report in the page format
// of the SNIA SSS PTS: every page carries the report header (run dates, test
// and page title, specification revision and profile, page k of n, and the
// four columns Test Platform, Device Under Test, Set-Up Parameters, Test
// Parameters) and a numbered caption under its body. The first page gives
// the compliance verdict with every deviation in plain words; the appendix
// holds every cell's workload, the purge and preconditioning commands, and
// the tracking values of every round.
//
// A report is first built as a Doc, a plain description of its pages (text,
// tables, shaded matrices, plots), and then drawn with fpdf; plots are drawn
// by gonum/plot straight onto the page as vectors, with the embedded
// Liberation fonts. Nothing depends on the wall clock or on map order, so the
// same results give the same pages; Doc.Text is what the golden tests
// compare. The package reads results and files; it never runs I/O on devices.
package pdfreport
