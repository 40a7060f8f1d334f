// Package fio drives fio (https://github.com/axboe/fio) as a workload engine:
// one job file per cell, kept in the run directory so that anyone can run it
// by hand, fio run with --output-format=json+, and its output parsed into the
// same Measurement the other engines return. With fio servers on several
// hosts (fio --server) one cell loads targets on all of them at once through
// fio's own client/server mode; there a round's cells run in one fio
// invocation, one job file per host, because every invocation waits about a
// second for the servers, and they are reported when it ends. Open is in
// fio.go, RunCells in cells.go, the fio processes it starts in proc.go and
// the measurement made of their output in measurement.go.
//
// The parser reads what fio really prints: text before the JSON, several
// documents (status dumps), -nan and inf, the local jobs[] and the
// client/server client_stats[] forms, io_bytes in KiB before fio 2.21 and
// latencies in microseconds before fio 3.0. Percentiles come from merged
// json+ histogram bins, never from averaging fio's own percentiles.
//
// Paths reach fio through its job file parser, which splits filename= at
// ':' (written "\:" here), cuts lines at ';' and '#', substitutes '$'
// words and strips blanks at the ends. Open refuses target paths and work
// directories that fio would read as another file (CheckPath), so the file
// fio loads is the one the safety gate looked at.
//
// A user's own job files (`ptsrun fio`) are read in two halves: ptsrun
// reads their lines, sections and include lines and inlines the includes
// into one copy (ReadJobFile); fio itself reads the copy (FioReading) and
// is the authority on every option's name, value and files. The gate's
// allow-list (options.go) says what each option does to files; fio runs
// the copy the gate judged, never the user's file.
package fio
