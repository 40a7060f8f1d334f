// Package enginetest is the conformance suite every engine passes: the same
// assertions for the simulated drive, the native engine and fio (the RunCells
// contract: cells in order, each reported before the next one does I/O;
// block size and alignment, offsets inside the active range, the read/write
// mix, the PTS ECW block-size split and LBA zones (counts within binomial
// bounds of their shares, bytes per I/O within the split's own scatter),
// sequential streams, the I/Os in flight, the duration, incompressible
// written data, ordered percentiles, exact histogram merges; the options
// of workloads outside the PTS: a rate cap held within 5 % without
// spinning, a ramp in the series but not in the totals, a random share
// from the trace). It also makes
// loop devices, files and fio servers for the tests that need real
// targets, and holds the test environment's skips (env.go): what needs
// root, fio or a long simulated run skips when it is missing, and under
// -short, the suite a developer runs all day.
package enginetest
