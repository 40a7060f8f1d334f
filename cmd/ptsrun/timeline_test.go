package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/engine/enginetest"
	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/pts"
)

// A short XSR on a loop device with each engine: killed with SIGKILL in
// the middle of its time series, resumed, and finished without repeating
// a sample; the report names the gap.
func TestXSROnLoopDeviceKilledAndResumed(t *testing.T) {
	dev := enginetest.LoopDevice(t, 64<<20, "")
	for _, eng := range []string{"native", "fio"} {
		t.Run(eng, func(t *testing.T) {
			if eng == "fio" {
				if _, err := exec.LookPath("fio"); err != nil {
					t.Skip("fio is not installed")
				}
			}
			dir := filepath.Join(t.TempDir(), "run")
			cmd := exec.Command(binary, "run", "--target", dev, "--engine", eng, "--tests", "xsr", "--xsr-groups", "3s,2s,3s",
				"--xsr-interval", "1s", "--destroy-data", dev, "--out", dir)
			var serr bytes.Buffer
			cmd.Stderr = &serr
			require.NoError(t, cmd.Start())
			// Kill it once a few samples are journaled.
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				b, _ := os.ReadFile(filepath.Join(dir, pts.JournalFile))
				if bytes.Count(b, []byte(`"type":"sample"`)) >= 3 {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			_ = cmd.Wait()
			code, _, stderr := ptsrun("resume", dir)
			require.Equal(t, 0, code, "%s\n%s", serr.String(), stderr)

			res, ri, err := matrix.Load(dir)
			require.NoError(t, err)
			st := res.Tests[0].Stages[0]
			require.True(t, st.Timeline)
			assert.True(t, st.Complete)
			assert.Len(t, st.Samples, len(ri.Stages[0].Steps()), "every step once, none repeated")
			for i, s := range st.Samples {
				assert.Equal(t, i, s.Step)
				assert.Positive(t, s.MBps, "step %d", i)
			}
			require.NotNil(t, st.Summary)
			require.Len(t, st.Summary.Rows, 3)
			found := false
			for _, d := range res.Deviations {
				if d.Code == "resumed" {
					found = true
					assert.Contains(t, d.Text, "time series continues at step")
					assert.Contains(t, d.Text, "after a gap of")
				}
			}
			assert.True(t, found, "%v", res.Deviations)
		})
	}
}
