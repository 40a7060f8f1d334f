// Package sim is a simulated SSD: a model, not a measurement of hardware. It
// exists so that the whole PTS methodology, every report page and the golden
// tests run in seconds on any machine, and so that `ptsrun demo` works
// without a drive.
//
// The model has two layers:
//
//   - A page-mapped flash translation layer (ftl.go) with over-provisioning
//     and cost-benefit garbage collection (the victim weighs its free space
//     against its age, so that hot data collects cheaply and cold data is
//     left alone). It is scaled: the user capacity is split into about 2^18
//     mapping units, and host writes (at the addresses the real engines'
//     generator gives, zones included) are applied to it unit by unit, so the
//     write amplification it shows after a purge, through the
//     fresh-out-of-box period and into steady state is the one such an FTL
//     with that over-provisioning really has.
//   - A timing model (drive.go; an I/O's costs and a second's rates in
//     cost.go, where host writes land in streams.go, latency samples in
//     latency.go) on a virtual clock, stepped once per virtual second. Per-die NAND timing (read, program and erase times, die count)
//     with the garbage-collection work the FTL reports, controller and link
//     limits, and the outstanding I/Os give each second's IOPS; latency
//     samples come from the same terms: a base service time, queueing by
//     Little's law, waits behind programs and erases on a busy die, and rare
//     firmware pauses, which give the distribution its tail. Each second's
//     samples average to the latency its IOPS came from, so that IOPS × mean
//     latency is the I/Os in flight; with a block-size split each I/O draws
//     its size.
//
// The options of workloads outside the PTS reach the model too. A rate cap
// caps each second's IOPS, and the queueing delay falls to what I/Os
// arriving at that rate meet (an M/D/1 queue with the drive as its
// server); the dies, less busy, delay reads less. A ramp's seconds run and
// are in the series, marked, and out of the totals. A random share writes
// in runs (Workload.RandomPct): runs at least a mapping unit long write
// whole units one after another, shorter ones land in random units in
// pieces of their length; the collection then sees what a real FTL would,
// long runs only paying off once they rewrite whole blocks.
//
// The drive is deterministic for a seed. Its state (mapping, block valid
// counts, virtual clock) persists in a state directory as a snapshot plus an
// append-only log of the operations it was given, written before each
// operation runs; reopening replays the log, so an interrupted run finds the
// drive as a real one would be: with everything it was asked to write.
package sim
