// Package importer is `ptsrun import`: it turns results ptsrun did not
// produce (fio JSON output, tables as published) into a run's records and
// results, which the command line writes as a run directory (rundir) that
// report, compare and check accept like a native one.
//
// import fio records only what fio's output says (fio.go; fioload.go: the
// load of each reporting group, per target); what it does not say is "not
// recorded" in run.json (pts.ImportRecord), never a default. A fio
// group's workload is read one way, here, also for `ptsrun fio`'s cells
// (FioJobWorkload). import table reads a published table into a run's
// results (table.go: ParseTable, ImportTable).
package importer
