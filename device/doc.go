// Package device knows the things a run is done to and on: targets (block
// devices, files and simulated drives) with their identity, capacity and block
// sizes, and the host platform. It reads /proc and /sys through an injectable
// root, so that tests read fixture trees instead of the machine.
package device
