package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/pts"
)

// README "Exit codes": one switch decides them, and an error the command
// has already reported keeps the exit code of what it wraps.
func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
	}{
		{nil, exitOK},
		{errors.New("bad input"), exitError},
		{pts.ErrInterrupted, exitInterrupted},
		{reported(fmt.Errorf("stage lat: %w", pts.ErrInterrupted)), exitInterrupted},
		{context.Canceled, exitInterrupted},
		{reported(errNotSteady), exitNotSteady},
		{reported(errRegression), exitNotSteady},
		{fmt.Errorf("run: %w", device.ErrUnsafe), exitRefused},
		{reported(errors.New("said already")), exitError},
	} {
		assert.Equal(t, c.code, exitCode(c.err), "%v", c.err)
	}
}
