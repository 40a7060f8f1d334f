//go:build !linux

package device

import (
	"errors"
	"os"
)

var errBusy = errors.New("device busy")

func openExclusive(string) (*os.File, error) { return nil, errNotLinux }
