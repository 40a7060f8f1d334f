// Package progress shows what a command is doing while it runs: a PTS
// run's journal records at their place in the run (the stage, the round or
// sample, the time left of the round, the stage and the run, in each
// procedure's own words), a workload's intervals as the engine completes
// them, and --json's events. On a terminal it is one status line updated
// in place; in a log, lasting lines, a time series at least one a period
// so that a 24-hour test does not look hung; the summary of a run is not
// its job (rundir words it, the command line prints it to stdout).
package progress
