// Package precondition puts a target into the state a PTS test starts from:
// a purge (PTS §3.2) that returns every LBA to the unwritten state, chosen per
// interface and checked for completion, and the workload-independent
// preconditioning that follows it.
//
// TRIM (discard) and zero-fill are not a purge. They exist as labelled
// substitutes for targets that cannot be purged, and every result says
// whether it was a compliant purge.
package precondition
