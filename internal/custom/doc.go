// Package custom runs workloads outside the PTS methodology — the command
// line's workload, named presets, the runs of a vdbench parameter file, a
// user's fio job files through the gate of fiojobs — on the target set the
// targets package opens, and records them through rundir as the custom
// cells of a run directory (pts.Custom), one after the other: the ones
// done are on disk before the next starts, and stay when a later one
// fails or is stopped.
//
// It checks every workload against the targets and the engine before
// anything is made or run, naming the flag, preset or parameter a refusal
// comes from, and prints what the commands print to the writers of its
// Output: results on Stdout, what it does on Stderr, the running
// workload's intervals on its Progress.
package custom
