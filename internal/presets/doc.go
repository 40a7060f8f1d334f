// Package presets holds the named workloads of `ptsrun workload --preset`
// (All, Lookup, Names): the PTS's WSAT stimuli at the PTS-E load, taken
// from WSAT's own list (pts.WSATStimulus) rather than copied, array
// acceptance runs and an HCI-style suite. custom runs them; pdfreport
// describes a cell that ran one. It runs nothing.
package presets
