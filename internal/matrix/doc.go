// Package matrix turns a run's journal into its results: the window
// aggregate of every cell, the tables of every test, the compliance
// verdict with its deviations, results.json and the CSV tables.
//
// A stage's results are what every stage has (its purge, preconditioning
// and error), its cells' window aggregates, and what its procedure reads
// of the journal (pts.Procedure.Outcome): for rounds the measurement
// window and each tracking variable's values and verdict as the runner
// journaled them (nothing is judged again here); for a time series (WSAT,
// HIR, XSR, an operating point's runs) its samples, one per interval with
// its IOPS, MB/s, response times and the bytes written so far, its test's
// summary of them, and the response-time histogram of its last hour; for
// an operating point the point as its stage's start journaled it. Each
// table is of a shape its test's procedures make (pts.TableShape), made
// into rows in one place (tables.go); the compliance verdict's deviations
// are in deviations.go, each stage's in its procedure's words
// (StageResult.View).
//
// Window aggregates (PTS 2.0.2 §7–9 and docs/readings.md): a cell's IOPS is read + write
// IOPS, averaged over the window rounds; MB/s likewise; the mean response time
// is I/O-weighted over the window; the maximum is the maximum; the 99.999th
// percentile comes from the window rounds' merged histograms, never from
// averaging percentiles.
//
// fio output without json+ bins has only the percentiles fio printed, per job
// and direction, of the total latency with lat_percentiles=1, else of the
// completion latency. Those cannot be merged: a cell of one part (one round,
// one job, one direction) has fio's value; a cell of several has the maximum
// of the parts' values, an upper bound on the percentile of all their I/Os,
// marked lat_pct_upper_bound. A percentile fio did not print stays absent.
// Every cell names the latency (lat_pct_latency) and the source
// (lat_pct_source) of its percentiles.
//
// A workload's time series (custom cells) is in results.json as Intervals
// in people's units, and WriteSeriesCSV is the one writer of series as
// CSV: a workload's seconds.csv and `ptsrun fio`'s fio-seconds.csv have
// its columns, after those that name the workload.
package matrix
