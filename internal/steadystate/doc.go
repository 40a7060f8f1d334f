// Package steadystate implements the steady-state rule of the SNIA SSS PTS 2.0.2
// (§2.1.24, §3.1) as pure functions: a series of per-round values goes in, a
// verdict comes out. It never prints and never does I/O.
//
// For a tracking variable y measured once per round, the measurement window is
// the last Window rounds x−Window+1 … x (PTS §2.1.13: five rounds). The window is
// steady when both hold, each inclusive:
//
//   - data excursion: max(y) − min(y) ≤ MaxRange × avg(y)          (PTS: 20 %)
//   - slope excursion: |m| × (Window − 1) ≤ MaxSlope × avg(y)       (PTS: 10 %)
//
// where m is the least-squares slope of y over the round numbers. The slope
// excursion is the difference between the fitted line's values at the first
// and last round of the window, which is why it is |m| × (Window − 1) and not
// |m| × Window. No value is rounded before it is compared.
//
// When several tracking variables are named (the IOPS test of PTS 2.0.2 has
// three), all must be steady in the same window.
//
// `ptsrun ss` judges a series given as text: ReadSeries parses it from the
// reader it is given, Analyze and Text give the verdict as a value and as
// words (series.go).
package steadystate
