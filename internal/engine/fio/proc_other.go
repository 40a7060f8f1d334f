//go:build !linux

package fio

import (
	"os/exec"
	"syscall"
)

func childAttr() *syscall.SysProcAttr { return nil }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Signal(sig)
	}
}
