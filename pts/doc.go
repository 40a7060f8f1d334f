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
// A quick look (Config.BlockSizes, Config.Mixes) runs part of the matrices
// in the same loop order with the full matrix's cell keys; it must keep
// every tracking variable, so its steady state is judged as the PTS's is.
package pts
