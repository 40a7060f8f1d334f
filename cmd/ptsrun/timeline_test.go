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

	"github.com/ptsrun/ptsrun/engine"
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

// A timeline's progress says how far it is in steps, TGBW and drive fills,
// the sample's IOPS and the time left, "at most" where fills may stop it
// first; the idle steps of HIR have no IOPS to show.
func TestTimelineProgress(t *testing.T) {
	c := pts.DefaultConfig()
	c.Targets, c.Tests = []string{"sim"}, []pts.TestID{pts.WSAT}
	p, err := c.Resolve()
	require.NoError(t, err)
	wsat := c.Stages(p)[0]
	var buf bytes.Buffer
	pr := &progress{w: &buf, tty: true}
	k := 9
	w := wsat.Steps()[k].Workload
	m := engine.Measurement{Elapsed: time.Minute}
	m.Write.IOs, m.Write.Bytes = 6_000_000, 800e9
	pr.Observe(pts.Record{Type: pts.RecSample, Stage: "wsat", Cell: &k, Workload: &w, Measurement: &m},
		pts.Position{Stage: &wsat, Stages: 1, Written: 800e9, Capacity: 3_200_631_791_616, RoundLeft: 23*time.Hour + 50*time.Minute})
	line := buf.String()
	assert.Contains(t, line, "10/1440 steps")
	assert.Contains(t, line, "TGBW 800.0 GB (0.25 drive fills)")
	assert.Contains(t, line, "100000 IOPS")
	assert.Contains(t, line, "at most 23h50m left", "4 fills may come before 24 h")

	c.Tests = []pts.TestID{pts.HIR}
	p, err = c.Resolve()
	require.NoError(t, err)
	hir := c.Stages(p)[1]
	k = 1
	idle := hir.Steps()[k]
	require.True(t, idle.Idle)
	buf.Reset()
	pr.Observe(pts.Record{Type: pts.RecSample, Stage: "hir", Cell: &k, Workload: &idle.Workload, Measurement: &engine.Measurement{Elapsed: 5 * time.Second}},
		pts.Position{Stage: &hir, Stages: 2, StageIndex: 1, Written: 1e9, Capacity: 3_200_631_791_616, RoundLeft: time.Hour})
	assert.NotContains(t, buf.String(), "IOPS")
	assert.Contains(t, buf.String(), ", 1h00m left")
}
