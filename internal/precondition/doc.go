// Package precondition puts a target into the state a PTS test starts from:
// a purge (PTS §3.2) that returns every LBA to the unwritten state, chosen per
// interface and checked for completion, the volatile write cache set as the
// profile asks, and the workload-independent preconditioning that follows the
// purge (WIPC), written in pieces the runner journals one by one.
//
// TRIM (discard) and zero-fill are not a purge. They exist as labelled
// substitutes for targets that cannot be purged, and every result says
// whether it was a compliant purge. Targets only an engine reaches (a
// simulated drive, targets on fio servers) are purged through it
// (engine.Purger).
package precondition
