// Package metrics writes what a running command measures as a
// Prometheus text exposition file (--metrics-textfile), for
// node_exporter's textfile collector: a PTS run's journal records (run,
// resume: an observer beside the progress display, Tee) and a workload's
// intervals (workload: beside its progress hook, TeeProgress). Every
// write is atomic (a temporary file beside it, renamed over it), from a
// registry of its own: no Go runtime or process collectors, only ptsrun_*
// metrics (docs/metrics.md). The file is one of ptsrun's outputs, checked
// as every output is (device.CheckOutput): absent, or a textfile ptsrun
// wrote (Ours), never a device, a directory or a link.
package metrics
