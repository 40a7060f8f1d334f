// Package device knows the things a run is done to and on: targets (block
// devices, files and simulated drives) with their identity, capacity and block
// sizes, and the host platform. It decides what may be written: the safety
// gate on targets (mounts, holders, loop devices stacked on them), and the
// directories and files of a run directory or an output (nobody but root
// and the invoking user may change the path to them, no links inside). It
// reads /proc and /sys through an injectable root, so that tests read
// fixture trees instead of the machine. List is what `ptsrun devices`
// shows: every block device with its gate verdict.
package device
