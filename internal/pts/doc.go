// Package pts is the SNIA Solid State Storage Performance Test Specification
// (PTS 2.0.2) as code: the tests as data (stages, cells in loop order,
// tracking variables, stopping rules), the Enterprise and Client profiles,
// the procedures that run the tests' stages and read their journal, and
// the runner that executes them, journaling every measurement before the
// next one starts.
//
// # Procedures
//
// A stage is of one of a few kinds, and the kind is a type, not a set of
// optional fields: Stage.Kind names its Procedure (procedure.go), which the
// runner, matrix, pdfreport, `ptsrun plan` and the progress display ask
// and nothing else. Each procedure is a file:
//
//   - Rounds (rounds.go): a matrix of cells, round after round, until the
//     tracking variables are steady or the round limit (IOPS, TP, LAT, the
//     preconditioning of HIR, DIRTH and ECW, workloads outside the PTS).
//   - Timeline (timeline.go): one or more stimuli in segments, sampled at
//     intervals, a sample journaled per interval and a resumed stage
//     continued at the next, stopped by its segments' end, drive fills or
//     time, and, in rounds (WSAT's steady-state method), steady state
//     (WSAT, HIR's wait states, XSR); samples.go holds its samples and the
//     test's summary of them.
//   - DemandSweep (sweep.go): TC × QD rounds to steady state, then the
//     operating points chosen from their window (PickPoints), each a stage
//     of its own pre-write and histogram run at the point's TC/QD (DIRTH,
//     ECW).
//
// Each owns how its stages run and journal (the runner, runner.go, does
// what every stage does: start, purge, preconditioning, write cache, and
// hands the rest to the procedure), how their journal records become
// results (Outcome), the shapes of table they make (TableShape), their
// estimate before they run (Estimate; a run's, EstimateRun in
// estimate.go, which `ptsrun plan` prints and from which the runner
// counts the run's time left in each Position), their description (Plan,
// About) and the words of their progress, standing and deviations
// (Progress, View, Resumed). A
// verdict or derived figure is computed once, where it is measured or
// chosen, and read everywhere after: each round's steady-state verdict is
// journaled by the runner (steady.go) and read back by Replay (state.go;
// a journal is read as it streams by, ScanJournal and ReplayDir, without
// the series of the stages that do not read theirs)
// for the results and the report; an operating point is journaled with its
// stage's start. run.json records no kind: a recorded stage's fields say
// it, read in one place (Stage.UnmarshalJSON).
//
// # Tests
//
// Each test is one file that registers its TestDef (iops.go, tp.go,
// lat.go, wsat.go, hir.go, xsr.go, ecw.go and dirth.go with demand.go;
// rwsw.go, a capture's applied workload after the SNIA RWSW method, which
// needs an input (TestDef.Input) and claims no conformance; custom.go for
// workloads outside the PTS): its stages, each of a
// procedure, its tables, its parameters with their checks (set by flags
// and recorded in run.json; a value other than the default is a
// deviation), and for a test over time the summary of its samples. Nothing
// else in ptsrun needs to know a new test exists: a test of an existing
// kind is its file here and its page file in pdfreport.
//
// Loop order follows PTS §7–9 exactly, and TestDef.Loops says it for each
// test: for IOPS and latency the R/W mix is the outer loop from 100/0 to
// 0/100 and the block size the inner loop from the largest to the smallest;
// throughput runs a stage per block size (outer), reads then writes (inner).
// A steady-state check runs after every complete round from the fifth; a
// stage stops at steady state or at the round limit, and then the
// measurement window is the last five rounds.
//
// Each test's rules are words beside its code (TestDef.Rules, rules.go):
// the report, `ptsrun plan` and docs/tests print them, so no description
// drifts from what the code does. Every value or rule that rests on a
// reading of PTS 2.0.2 rather than its text is in one register
// (readings.go), with its source, the other harnesses' readings and its
// flag. A derived figure (an operating point, points.go; WSAT's cliff,
// HIR's baseline, XSR's recovery) is computed once, here, and every page,
// table and command prints it as computed.
//
// A quick look (Config.BlockSizes, Config.Mixes) runs part of the matrices
// in the same loop order with the full matrix's cell keys; it must keep
// every tracking variable, so its steady state is judged as the PTS's is.
//
// A metric's names are here and nowhere else (metric.go: its label, unit,
// a table's head, the short name in a row of latencies, the words after a
// cell in a headline), and so are the custom test's ID, stage and table
// (custom.go), and the key of a workload recorded outside the PTS
// (WorkloadKey). run.json is RunInfo, the journal Record; the run
// directory package writes and reads them, and keeps in RunInfo.Recorded
// what a command that records workloads needs for its own files.
package pts
