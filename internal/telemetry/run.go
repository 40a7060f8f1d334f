package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Result is what a command did: its output and exit code.
type Result struct {
	Stdout, Stderr []byte
	ExitCode       int
}

// Runner runs a command to its end. An error means it could not run (the
// tool is missing: wrap ErrNoTool; the context ended); a command that ran
// and failed is a Result with its exit code.
type Runner func(ctx context.Context, name string, args ...string) (Result, error)

// sbin are where smartctl and nvme are installed, which a user's PATH
// often lacks.
var sbin = []string{"/usr/sbin", "/sbin", "/usr/local/sbin"}

// Exec runs the command on this machine: found in PATH or an sbin
// directory, with LC_ALL=C so that its messages are the ones this package
// reads.
func Exec(ctx context.Context, name string, args ...string) (Result, error) {
	path, err := lookPath(name)
	if err != nil {
		return Result{}, err
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	res := Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	if ctx.Err() != nil {
		return res, fmt.Errorf("%s: %w", path, ctx.Err())
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		return res, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range sbin {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %s is not in PATH nor in %v", ErrNoTool, name, sbin)
}
