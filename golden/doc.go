// Package golden compares results: `ptsrun check` holds a run against a
// golden baseline with per-metric tolerances (direction-aware: only
// regressions fail), `ptsrun compare` lines several runs up against a
// reference, and `ptsrun import` turns results ptsrun did not produce (fio
// JSON output, tables as published) into run directories that report,
// compare and check accept like native ones. It also holds the golden-file
// helper the project's own tests use.
package golden
