package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/rundir"
)

// statusOf is `ptsrun status DIR --json`, read.
func statusOf(t *testing.T, dir string) rundir.Status {
	t.Helper()
	code, stdout, stderr := ptsrun("status", dir, "--json")
	require.Equal(t, 0, code, stderr)
	var st rundir.Status
	require.NoError(t, json.Unmarshal([]byte(stdout), &st), stdout)
	return st
}

// TestStatusOfARunOnALoopDevice polls `ptsrun status` while a real run
// (a quick look of IOPS and latency, 1 s cells, on a loop device) runs:
// its stage and time left, the time left no more at the second stage
// than at the first; a resume meanwhile is refused, naming the process
// that holds the run; killed, the run is stopped and status says how to
// resume it; resumed, finished, with its verdict.
func TestStatusOfARunOnALoopDevice(t *testing.T) {
	t.Parallel()
	dev := enginetest.LoopDevice(t, 64<<20, "")
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(binary, "run", "--target", dev, "--destroy-data", dev, "--out", dir, "--tests", "tp,lat",
		// Two stages of two cells a round: throughput's 1024 KiB, latency's 4 KiB.
		"--cell-time", "1s", "--ss-window", "3", "--max-rounds", "4", "--block-sizes", "4k,1024k", "--mixes", "100/0,0/100")
	var serr bytes.Buffer
	cmd.Stderr = &serr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()

	// The first poll of each stage, while it runs.
	var first [3]*rundir.Status
	deadline := time.Now().Add(5 * time.Minute)
	for first[2] == nil && time.Now().Before(deadline) {
		select {
		case err := <-exited:
			killed = true
			t.Fatalf("the run ended (%v) before status saw its second stage: %s", err, serr.String())
		case <-time.After(100 * time.Millisecond):
		}
		if _, err := os.Stat(filepath.Join(dir, rundir.RunFile)); err != nil {
			continue
		}
		st := statusOf(t, dir)
		if st.State != rundir.StateRunning || st.Stage == nil || first[st.Stage.Index] != nil {
			continue
		}
		require.LessOrEqual(t, st.Stage.Index, 2)
		assert.Equal(t, fmt.Sprintf("running on %s, pid %d", st.Host, cmd.Process.Pid), st.Process)
		assert.NotEmpty(t, st.Left)
		assert.Contains(t, st.Temperature, rundir.NoTemperature)
		first[st.Stage.Index] = &st
		if st.Stage.Index == 1 {
			// A resume while it runs is refused, naming who runs it.
			code, _, stderr := ptsrun("resume", dir, "--destroy-data", dev)
			assert.Equal(t, 1, code, stderr)
			assert.Contains(t, stderr, fmt.Sprintf("holds its lock on host %s, pid %d", st.Host, cmd.Process.Pid))
			assert.Contains(t, stderr, filepath.Join(dir, rundir.LockFile))
		}
	}
	require.NotNil(t, first[1], "status never saw the first stage running: %s", serr.String())
	require.NotNil(t, first[2], "status never saw the second stage running: %s", serr.String())
	assert.Equal(t, "tp-1024k", first[1].Stage.ID)
	assert.Equal(t, "lat", first[2].Stage.ID)
	assert.Positive(t, first[1].RunLeftMaxS)
	assert.LessOrEqual(t, first[2].RunLeftMaxS, first[1].RunLeftMaxS, "the time left grew from the first stage to the second")
	code, text, _ := ptsrun("status", dir)
	require.Equal(t, 0, code)
	assert.Contains(t, text, "Time left:")
	assert.Contains(t, text, "Stage:       [2/2]")

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	<-exited
	killed = true
	st := statusOf(t, dir)
	assert.Equal(t, rundir.StateStopped, st.State)
	assert.Equal(t, "ptsrun resume "+dir+" --destroy-data "+dev, st.Resume)
	code, text, _ = ptsrun("status", dir)
	require.Equal(t, 0, code)
	assert.Contains(t, text, "To resume:   ptsrun resume "+dir)

	code, _, stderr := ptsrun("resume", dir, "--destroy-data", dev) // the lock is stale: taken over
	require.Contains(t, []int{0, 3}, code, stderr)
	st = statusOf(t, dir)
	assert.Equal(t, rundir.StateFinished, st.State)
	assert.NotEmpty(t, st.Verdict)
	assert.Empty(t, st.Resume)
	assert.Zero(t, st.RunLeftMaxS)
}
