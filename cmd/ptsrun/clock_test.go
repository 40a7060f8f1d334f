package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFixedClock(t *testing.T) {
	t.Setenv(clockEnv, "2026-01-02T03:04:05Z")
	c := &fixedClock{}
	require.NoError(t, c.check())
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	assert.Equal(t, start, c.now())
	assert.Equal(t, start.Add(time.Second), c.now())
	t.Setenv(clockEnv, "yesterday")
	assert.ErrorContains(t, (&fixedClock{}).check(), `PTSRUN_CLOCK="yesterday"`)
	t.Setenv(clockEnv, "")
	c = &fixedClock{}
	assert.WithinDuration(t, time.Now(), c.now(), time.Minute)
}

// With PTSRUN_CLOCK a simulated run is reproducible to the byte: the proof
// that a refactoring changed no result. A second demo against the one
// TestDemo reads.
func TestDemoIsReproducibleWithAFixedClock(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	enginetest.Long(t, "a second demo run beside the shared one")
	shared, _ := sharedDemo(t)
	var files [2][]byte
	for i, dir := range []string{shared, filepath.Join(t.TempDir(), "demo")} {
		if i == 1 {
			cmd := exec.Command(binary, "demo", "--out", dir)
			cmd.Env = append(os.Environ(), clockEnv+"="+demoClock)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
		}
		var err error
		files[i], err = os.ReadFile(filepath.Join(dir, "report.pdf"))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dir, "results.json"))
		require.NoError(t, err)
		files[i] = append(files[i], b...)
	}
	assert.Equal(t, files[0], files[1])
}
