// Package diskstats is `ptsrun capture --diskstats`: a block device's
// counters in /proc/diskstats (read with prometheus/procfs) sampled at an
// interval, unprivileged, into a coarse capture (capture.Coarse): per
// step the reads and writes, their bytes, and the mean number of I/Os
// outstanding. Such a capture has no I/Os, so no random or sequential
// split and no streams; streams reads it for the mix and the intensity
// per step, and says so. The file is written once, atomically, where
// device.CheckOutput allows.
package diskstats
