// Package streams characterises a capture (package capture) into I/O
// streams, after the SNIA RWSW method: a stream is an access (random or
// sequential), a transfer size and a direction, and a capture is the
// share of its I/Os each stream has, overall and step by step, with the
// demand intensity (the I/Os outstanding) of each step. The top streams
// that cover about 90 % of the I/Os, renormalised to 100 %, are the
// applied test workload.
//
// Whether an I/O is sequential is a reading, SequentialRule, and every
// report states it. ReadCapture reads a capture file for a run of the
// rwsw test: its report, its sha256, and its dominant demand intensity
// (Dominant: the median number of I/Os outstanding over the time any
// was).
package streams
