// Package golden compares results: `ptsrun check` holds a run against a
// golden baseline, and `ptsrun compare` lines several runs up against a
// reference; both take imported runs (package importer) like native ones.
// It also holds the golden-file helper the project's own tests use.
//
// check is direction-aware (only regressions fail) and noise-aware: the
// averages of a cell may move by the tolerance or by the scatter of the
// baseline's own measurement window, whichever is more; the response-time
// tail, which a handful of I/Os set, is judged test by test. Tolerance.Rule
// says the rule in words, for --help, the report of a check and docs/ci.md;
// the command line's tolerance flags are read here too
// (ParseToleranceFlags), with the rule they set.
//
// compare lays out what the reference and another run both hold, and names
// the rest, each table by the shape its definition gives (pts.TableShape);
// an operating point chosen at different loads is shown with each run's
// TC/QD and not scored. Comparison.Model is what it lays out, in the model
// of package comparison, which pdfreport draws.
package golden
