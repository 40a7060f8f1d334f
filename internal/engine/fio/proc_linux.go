package fio

import (
	"os/exec"
	"syscall"
)

// childAttr keeps fio tied to ptsrun. Its own process group: a terminal's
// Ctrl-C reaches ptsrun alone, which lets the cell finish (or stops it) and
// then fio, instead of fio cutting the cell short by itself; and fio, its
// exec_prerun shell and flock can be signalled as one. The parent-death
// signal: if ptsrun is killed outright, fio dies with it instead of writing on
// (and the cell held ready behind it starting) while the user resumes the run
// on the same device.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalGroup sends sig to fio and everything it started.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		_ = cmd.Process.Signal(sig)
	}
}
