package precondition

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"time"
)

// Exec runs the external tools purges and cache settings use (nvme-cli,
// hdparm, sg3-utils, sdparm). Tests replace it with captured outputs.
type Exec interface {
	Run(ctx context.Context, args ...string) Command
}

// System runs commands on this machine.
type System struct{}

// Run runs args and records it; a command that cannot start has Exit −1.
func (System) Run(ctx context.Context, args ...string) Command {
	start := time.Now()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	c := Command{Args: args, Output: out.String(), Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		c.Exit = ee.ExitCode()
	default:
		c.Exit = -1
		if c.Output == "" {
			c.Output = err.Error()
		}
	}
	return c
}
