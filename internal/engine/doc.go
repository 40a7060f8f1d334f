// Package engine defines the contract between the PTS runner and the things that
// generate I/O: cells (a named Workload each) go in, a Measurement per cell comes
// out. Engines live in subpackages (sim, and the real ones); the runner only sees
// this package's interfaces.
//
// An engine has one way to run cells, RunCells: it calls back with each cell's
// measurement before the next cell does I/O, so that the runner journals every
// cell before the next one starts. Engines that reach targets nothing else does
// (the simulated drive, targets on fio servers) also purge them (Purger), and an
// engine that owns its drive's write cache controls it (WriteCacher); real
// devices on this host are purged and set by the precondition package.
//
// A Workload is a pattern (random or sequential, a read share, a block
// size or a split of them, zones), or a stream mix (mix.go: streams of
// their own direction, size and access, each I/O's drawn by share, each
// sequential stream at its own position), which AddrGen generates for
// every engine alike; an engine that cannot run one exactly refuses it.
//
// A Measurement keeps, per direction, exact counts, bytes and latency sums, the
// true minimum and maximum, and a mergeable latency histogram, so that window
// aggregates and multi-target merges are exact rather than averages of
// percentiles. A histogram read from JSON stays in its encoding, checked
// when read and merged bin by bin from it (histdec.go), never made into its
// 35 KB of bins unless it is written to. Figures are one direction's figures of a measurement in the
// units people read (workload.json, fio-run.json).
//
// The engines are named here (Native, Fio, Sim: what --engine takes and
// run.json records), and so is the native engine's completion polling as
// --poll and run.json give it (Poll, ParsePoll: poll.go), which the runner
// checks and the report prints without importing that engine; the engines
// that do real I/O share one Target: a file or block device on this host,
// or on a fio server's.
package engine
