// Package vdbench reads vdbench parameter files (block workloads: sd, wd,
// rd) and translates them into the workloads and targets ptsrun runs, so
// that `ptsrun workload --vdbench FILE` runs a file as vdbench would and
// records each run as a cell. It is pure: Parse and Translate take bytes
// and give values; ParseFile reads the file and its include= files with
// the function it is given, and nothing else does I/O.
//
// # Reading
//
// Parse reads a file by vdbench 5.04's rules, taken from its parser
// (Vdb_scan, SD_entry, WD_entry, RD_entry, For_loop): trimmed lines; "*",
// "#" and "/" comments; "eof" ends the file; the first blank ends a line
// (the rest is a comment); a line ending in a comma continues on the next;
// keywords abbreviated to two letters or more ("th" is threads), matched
// in vdbench's order; k, m, g, t binary units (m is minutes for elapsed,
// interval, warmup and pause, h hours); FROM-TO,STEP and FROM-TO,d ranges
// and NAME1-NAME9 name ranges in lists; general parameters, then sd, wd
// and rd definitions, each running to the next, "default" ones setting
// the defaults of those that follow; include=FILE lines.
//
// # Translating
//
// Translate makes the runs of each rd in order: one per combination of
// its for-loops (forxfersize=, forthreads=, forrdpct=, forseekpct= and
// their short forms xfersize=, threads=, rdpct=, seekpct= in an rd; the
// first loop outermost, a list of rates innermost), named after the rd and
// the values of its loops of more than one value ("rd1-xfersize=8k").
// translate.go holds the plan and the general parameters, translate_sd.go,
// translate_wd.go and translate_rd.go the sd, wd and rd definitions, and
// translate_run.go the making of each run's workload.
//
//   - sd lun= is the target: a /dev/ path a block device, any other path
//     file:PATH[:size=], sim[:MODEL] ptsrun's simulated drive; count=
//     copies an sd as vdbench does. threads= (default 8) is the I/Os in
//     flight on each sd: TC=threads, QD=1 for random I/O, TC=1,
//     QD=threads where any I/O is sequential (vdbench's threads share one
//     sequential position per sd; ptsrun's threads each stream through
//     their own region). range=(lo,hi) is RangeStart/ActiveRange, a wd's
//     range= taking the place of the sd's, as in vdbench. openflags= is
//     o_direct (or directio), and must be given: without it vdbench goes
//     through the page cache, which ptsrun never does.
//   - wd sd= (names, NAME* wildcards, ranges) is the target set; xfersize=
//     a block size or a distribution (BlockSplit); rdpct= (or wrpct=)
//     ReadPct; seekpct= the random share: 100 or random is random, 0 or seq
//     sequential, eof sequential ending at the end of the range (or at
//     elapsed=), anything between random with that RandomPct, the rest
//     continuing from the I/O before. Several wds in one rd run as one
//     workload when they are one: the same workload on different sds.
//   - rd iorate= is max (no cap) or a rate spread evenly over the run's
//     sds (RateIOPS per target; a list runs each rate); elapsed= (default
//     30 s) and warmup= make Duration = warmup + elapsed with Ramp the
//     warm-up, or vdbench's first one-second interval without warmup=;
//     interval= the series' interval (Workload.Interval); pause= waits
//     before the run.
//
// Whatever ptsrun cannot honour is refused with its file, line and
// parameter (an *Error), never left out: hosts (hd=), file system
// workloads, data validation, compression and dedup ratios other than 1,
// cache hits (rhpct, whpct), skews, curves, arrival distributions,
// commands, byte and wrapping ranges, and every
// parameter vdbench does not know. A handful that only set up vdbench's
// own reporting (report=, histogram=, messagescan=, …) are accepted, each
// with a Note saying so. A Plan prints itself for --dry-run (print.go),
// each run with the ptsrun workload command that runs it alone.
package vdbench
