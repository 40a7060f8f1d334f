// Package pts is the SNIA Solid State Storage Performance Test Specification
// (PTS 2.0.2) as code: the tests as data (stages, cells in loop order,
// tracking variables, stopping rules), the Enterprise and Client profiles,
// and the runner that executes them round by round, journaling every cell
// before the next one starts.
//
// Loop order follows PTS §7–9 exactly, and TestDef.Loops says it for each
// test: for IOPS and latency the R/W mix is the outer loop from 100/0 to
// 0/100 and the block size the inner loop from the largest to the smallest;
// throughput runs a stage per block size (outer), reads then writes (inner).
// A steady-state check runs after every complete round from the
// fifth; a stage stops at steady state or at the round limit, and then the
// measurement window is the last five rounds.
//
// Each test is one file that registers its TestDef (iops.go, tp.go,
// lat.go, wsat.go, hir.go, xsr.go, ecw.go and dirth.go with demand.go;
// custom.go for workloads outside the PTS); nothing else in ptsrun needs
// to know a new test exists. WSAT, HIR
// and XSR are timelines (timeline.go): segments of one stimulus each, run
// one after another with optional idle time, a sample journaled per
// interval, resumed at the next sample; a stage may be rounds to steady
// state first (HIR's preconditioning). A test's own parameters are Params
// with their checks, set by flags and recorded in run.json; a value other
// than the default is a deviation.
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
