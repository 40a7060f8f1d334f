// Command ptsrun runs the SNIA SSS Performance Test Specification on solid
// state storage and writes its results and report. See README.md.
//
// It is flags, options structs and calls: each command reads its flags
// into options and calls the package that does the work (rundir for run
// directories and PTS runs, custom for workloads outside the PTS, golden
// for check, compare and import), then prints and maps errors to exit
// codes, in one place.
package main
