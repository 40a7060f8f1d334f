package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// docs/exit-codes.md: one switch decides them, and an error the command
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

// A series that is not steady: runSS, called as the command calls it,
// prints its verdict and returns errNotSteady as reported, so that run
// exits 3 and prints nothing more.
func TestNotSteadyIsReportedOnce(t *testing.T) {
	var out strings.Builder
	err := runSS(context.Background(), ssOptions{Criteria: steadystate.Default(), Input: "-",
		Stdin: strings.NewReader("100\n80\n60\n40\n20\n")}, &out, nil)
	require.ErrorIs(t, err, errNotSteady)
	assert.ErrorAs(t, err, new(reportedError))
	assert.Equal(t, exitNotSteady, exitCode(err))
	assert.Contains(t, out.String(), "NOT STEADY")

	code, _, stderr := ptsrun("ss", writeTemp(t, "100\n80\n60\n40\n20\n"))
	assert.Equal(t, exitNotSteady, code)
	assert.Empty(t, stderr, "the verdict on stdout says it; no error line")
}

func writeTemp(t *testing.T, s string) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "series")
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return f.Name()
}
