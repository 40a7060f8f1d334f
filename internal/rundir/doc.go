// Package rundir owns the run directory: every file in it is named,
// written, read, checked and rebuilt here, so that the command line, and
// whatever runs workloads, reach a run directory only through this
// package.
//
//	run.json        what was run, on what, where (pts.RunInfo): written first
//	journal.jsonl   one record per event, synced after each (pts.Journal)
//	results.json    derived: the results (matrix)
//	tables/*.csv    derived: the same tables for spreadsheets
//	report.pdf      derived: the report (pdfreport)
//	workload.json   derived, `workload --out`: the measurement as --json prints it
//	seconds.csv     derived, `workload --out`: every interval of its time series
//	vdbench.json    derived, `workload --vdbench --out`: the translation and each run's figures
//	replay.json     `ptsrun replay`: what was replayed on what, its fidelity, totals and per-second series
//	fio-run.json    derived, `ptsrun fio`: the gate's verdicts and every job's figures
//	fio-jobs.csv    derived, `ptsrun fio`: every job, ptsrun's and fio's IOPS side by side
//	fio-seconds.csv derived, `ptsrun fio`: every interval of each reporting group
//	vdbench/, fio/  the parameter files and job files as they ran, fio's output
//	sim/            the simulated drive's state
//	lock.json       the run lock (TakeLock): held by run, resume and the recordings of workload --out and ptsrun fio, read by status (ReadStatus)
//
// Every derived file is rebuilt from run.json and the journal alone
// (Report, `ptsrun report`): what a command that records workloads keeps
// besides the journal (each cell's preset, a vdbench file's translation,
// `ptsrun fio`'s record of the gate and of fio's figures per job) is in
// run.json's "recorded", from which its own files are written again as
// they were. Values read from a run directory are outside input: a run
// directory written into again has its tree checked before anything of it
// is read (device.CheckRunTree), resume checks run.json's configuration
// and targets as the command line's, and a recorded path the report
// reads must name a file of the directory's own.
//
// A PTS run's directory is made by Start (run.json first: from then on a
// kill leaves a run that Resume accepts), continued by Resume, and
// finished by Execution.Run, which writes the derived files also when the
// run stops; what it built (Built) says in its Summary the files written,
// the verdicts and the headline figures, as the commands print them at
// their end. Recordings of workloads outside the PTS (Record) and imported
// results (Import) make directories of the same shape, which report,
// compare and check take like any run. New directories are made only
// where device.CheckDir allows (CheckNew, Make).
package rundir
