// Package units writes and reads sizes the one way ptsrun does: binary
// units, block sizes in KiB as the PTS writes them. FormatSize is for
// people ("4 KiB"), SizeLabel for tables and CSV ("4KiB"), SizeKey for
// cell keys, stage IDs and flags ("4k"), and ParseSize reads all of them
// and the usual shorthands ("4k", "1MiB", "2g"). It is a package of its
// own so that device (a file target's size) and engine (a workload's block
// sizes) speak the same units without one importing the other.
package units
