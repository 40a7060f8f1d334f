// Package replay is `ptsrun replay`: a capture's I/Os (package capture)
// replayed on a target at their captured times, and how faithfully.
//
// Prepare reads the capture, checks the target as every command that
// writes does (package targets: the safety gate and --destroy-data, when
// the capture holds a write) and plans the replay, writing nothing: each
// I/O at its captured time from the first, divided by --speed, of its
// size and direction, at its offset mapped onto the target (MappingRule),
// from Depth slots (DepthRule). Prepared.Run opens the target and hands
// the plan to its engine (engine.Replayer: the native engine's timed
// issue, or fio's read_iolog), and makes of what the engine measured per
// I/O the fidelity figures (issue lateness, I/Os delayed by a slower
// target), the totals, and the per-second IOPS and response time of the
// replay beside the capture's. The run directory is rundir's.
package replay
