// Package matrix turns a run's journal into its results: the measurement
// window of every stage, the window aggregate of every cell, the block size ×
// R/W mix tables of every test, the compliance verdict with its deviations,
// results.json and the CSV tables.
//
// Window aggregates (pts-spec.md §4, A6, A7): a cell's IOPS is read + write
// IOPS, averaged over the window rounds; MB/s likewise; the mean response time
// is I/O-weighted over the window; the maximum is the maximum; the 99.999th
// percentile comes from the window rounds' merged histograms, never from
// averaging percentiles.
package matrix
