// Package confine runs a command, fio, that may write only where the
// safety gate said it may: the kernel's Landlock, set up in ptsrun's own
// binary between fork and exec, makes every other write, truncation,
// creation and removal fail (EACCES), whatever the command's options ask
// and whatever a path names by the time the command opens it.
//
// The gate judges paths; a path is only a name, and what it names can
// change between the judging and fio's open (a file of the job's own
// swapped for a link to a device). Landlock's rules hold the files and
// directories themselves, opened when the rules are made: a name swapped
// afterwards leads outside them, and the write is refused.
//
// Go cannot run code between fork and exec, so Command runs ptsrun itself
// with a hidden first argument; Init, called first in main, sees it,
// confines its own thread and execs the command in its place (same
// process, so signals and exit status are the command's). A binary that
// does not call Init (a test binary), or a kernel without Landlock, runs
// the command unconfined, and Command says why.
package confine
