// Package capture reads captures of real-world block I/O into one model:
// a sequence of I/Os, each with its start time, device, offset and size in
// bytes, direction (read or write), and, when the capture has them, its
// completion time and the process that issued it.
//
// Three formats are read, each from an io.Reader:
//
//   - fio iologs, versions 2 and 3 (fio's write_iolog): version 3 has a
//     timestamp in microseconds on every line; version 2 has none, and
//     its times are the sum of its wait lines. The device is the file
//     fio names. No completions.
//   - blkparse's text output in its default format: device (major,minor),
//     CPU, sequence, time, PID, action, RWBS, sector + blocks [process].
//     The I/Os are the queue (Q) events, or the issue (D) events when
//     Options.Event says so; completion (C) events give their completion
//     times. Sectors are 512 bytes.
//   - bcc's biosnoop output (TIME(s) COMM PID DISK T SECTOR BYTES
//     [QUE(ms)] LAT(ms), with or without -Q and -P): the line's time is
//     the completion; the start is that time less LAT (and QUE when
//     present, so the start is the queueing, as blkparse's Q).
//
// What is not a read or a write (trims and discards, flushes, syncs,
// fio's wait lines in a version 3 log) is dropped and counted by kind in
// Capture.Dropped. A capture may hold several devices: Capture.Devices
// lists them, Capture.Select keeps one.
//
// A line that cannot be read fails the parse with an *Error naming the
// file, the line and the reason. The package reads only what it is given
// (ReadFile opens the one file named). ReadFile also takes blktrace's
// binary files (a trace's DEVICE.blktrace.N, one per CPU): blkparse, where
// it is installed, turns them into its text, which is read as above; the
// one command the package runs.
package capture
