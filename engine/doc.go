// Package engine defines the contract between the PTS runner and the things that
// generate I/O: a Workload goes in, a Measurement comes out. Engines live in
// subpackages (sim, and the real ones); the runner only sees this interface.
//
// A Measurement keeps, per direction, exact counts, bytes and latency sums, the
// true minimum and maximum, and a mergeable latency histogram, so that window
// aggregates and multi-target merges are exact rather than averages of
// percentiles.
package engine
