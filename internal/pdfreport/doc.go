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
// compare.
//
// Build loops over the tests of pts (pts.Tests, then pts.CustomTest). Each
// test's pages are in a page file of their own (page_iops.go, page_tp.go,
// page_lat.go, page_wsat.go, page_hir.go, page_xsr.go, page_dirth.go with
// page_dirth_points.go, page_rwsw.go with page_streams.go, page_custom.go
// with page_workload.go), which
// registers them in its init, with the rows that test's stages add to the
// first page and the overlays its tables get in a comparison. A comparison
// (`ptsrun compare`) is drawn from the model it is given (package
// comparison) by ComparisonDoc and RenderComparison (compare.go); a
// capture's characterisation (package streams) alone by StreamsDoc and
// RenderStreams (page_streams.go), the pages the rwsw report has too.
// The pages read the test's matrix, tables and tracked cells from its
// pts.TestDef. The pages of the run as a whole are in header.go,
// columns.go (the header's set-up and test parameter columns), summary.go,
// page_targets.go, appendix.go and readings.go (appendix C: the tests'
// rules and the readings of the PTS the run rests on); what they say of a
// stage by its kind comes from its procedure (pts.Procedure: the stage's
// standing in words, its segments' repetition, what the appendix says of
// how it runs), asked in one place (builder.view, builder.stageDef), and
// the steady-state verdicts they word are the ones the runner journaled
// (matrix.StageResult.Judged).
//
// The package runs no I/O and reads no files: everything it draws arrives
// in its input. The results carry each round's per-second series (the
// workload page's IOPS per second); Options carry the fio job files the
// appendix shows, which the caller reads from the run directory.
package pdfreport
