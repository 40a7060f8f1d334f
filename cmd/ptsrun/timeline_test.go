package main

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The tests over time on a loop device, each with an engine (XSR with
// both): killed with SIGKILL in the middle of the time series, resumed,
// and finished without repeating a sample; the report names the gap. HIR
// also goes through its preconditioning rounds and its idle time first.
func TestTimelinesOnLoopDeviceKilledAndResumed(t *testing.T) {
	// Mostly waiting on cells of real I/O: beside the other long device tests,
	// each on a loop device of its own.
	t.Parallel()
	for _, tc := range []struct {
		test, engine string
		flags        []string
		groups       int // rows of the summary
	}{
		{"xsr", "native", []string{"--xsr-groups", "2s,2s,2s", "--xsr-interval", "1s"}, 3},
		{"xsr", "fio", []string{"--xsr-groups", "2s,2s,2s", "--xsr-interval", "1s"}, 3},
		// 4 fills of 64 MiB take a second: a fills rule that lets it run.
		{"wsat", "native", []string{"--wsat-time", "6s", "--wsat-interval", "1s", "--wsat-fills", "100000"}, 1},
		{"hir", "fio", []string{"--hir-pc-round", "3s", "--hir-pc-track", "1s", "--max-rounds", "5",
			"--hir-wait-states", "1", "--hir-cycles", "2", "--hir-baseline", "2s"}, 1},
	} {
		t.Run(tc.test+"-"+tc.engine, func(t *testing.T) {
			t.Parallel()
			dev := enginetest.LoopDevice(t, 64<<20, "")
			if tc.engine == "fio" {
				enginetest.NeedFio(t)
			}
			dir := filepath.Join(t.TempDir(), "run")
			args := append([]string{"run", "--target", dev, "--engine", tc.engine, "--tests", tc.test, "--destroy-data", dev, "--out", dir}, tc.flags...)
			cmd := exec.Command(binary, args...)
			var serr bytes.Buffer
			cmd.Stderr = &serr
			require.NoError(t, cmd.Start())
			// Kill it once a few samples are journaled.
			deadline := time.Now().Add(90 * time.Second)
			for time.Now().Before(deadline) {
				b, _ := os.ReadFile(filepath.Join(dir, pts.JournalFile))
				if bytes.Count(b, []byte(`"type":"sample"`)) >= 3 || bytes.Contains(b, []byte(`"type":"end"`)) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			_ = cmd.Wait()
			code, _, stderr := ptsrun("resume", dir, "--destroy-data", dev) // whoever resumes confirms again
			// HIR's few short preconditioning rounds may end at their
			// limit without steady state (exit 3); the series goes on.
			require.Contains(t, []int{0, 3}, code, "%s\n%s", serr.String(), stderr)

			res, ri, err := matrix.Load(dir)
			require.NoError(t, err)
			stages := res.Tests[0].Stages
			st := stages[len(stages)-1]
			steps := ri.Stages[len(ri.Stages)-1].Steps()
			require.True(t, st.Timeline)
			assert.True(t, st.Complete)
			assert.Len(t, st.Samples, len(steps), "every step once, none repeated")
			for i, s := range st.Samples {
				assert.Equal(t, i, s.Step)
				if steps[i].Idle {
					assert.True(t, math.IsNaN(s.IOPS), "step %d is idle: no I/O", i)
					assert.InDelta(t, steps[i].Workload.Duration.Seconds(), s.Seconds, 0.5, "step %d idles its time", i)
				} else {
					assert.Positive(t, s.IOPS, "step %d", i)
					assert.Positive(t, s.MBps, "step %d", i)
				}
			}
			require.NotNil(t, st.Summary)
			require.Len(t, st.Summary.Rows, tc.groups)
			found := false
			for _, d := range res.Deviations {
				if d.Code == "resumed" {
					found = true
					assert.Contains(t, d.Text, "time series continues at step")
					assert.Contains(t, d.Text, "after a gap of")
				}
			}
			assert.True(t, found, "%v", res.Deviations)
			if tc.test == "hir" {
				assert.Equal(t, 5, stages[0].Rounds, "five preconditioning rounds: steady or the limit")
			}
		})
	}
}

// plan gives each test over time its segments, stop rule and time: WSAT
// the rate at which its fills and its time limit come together, the
// steady-state method its round range.
func TestPlanTimelines(t *testing.T) {
	code, out, stderr := ptsrun("plan", "--target", "sim", "--tests", "wsat,hir,xsr")
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{
		"or until 4 × the capacity is written: 12802.5 GB, which takes 24h00m at 148 MB/s (36176 IOPS of 4 KiB), less on a faster drive",
		"time: at most 24h00m",
		"each round, 2 cells (30m00s):",
		"RND 4 KiB 0/100 TC4/QD32 for 29m0s",
		"wait state 10: bursts of RND 4 KiB 0/100 TC4/QD32 for 5.0s, a sample every 5s, 360× with 50s idle after each",
		"access group 2: RND 8 KiB 0/100 TC1/QD32 for 6h00m, a sample every 1m0s",
		"time: 22h00m",
	} {
		assert.Contains(t, out, want)
	}
	code, out, stderr = ptsrun("plan", "--target", "sim", "--tests", "wsat", "--wsat-ss")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "up to 25 rounds")
	assert.Contains(t, out, "tracking: [IOPS of the round's check minute]")
	assert.Contains(t, out, "time: 2h35m (steady at round 5) to at most 12h55m (round limit 25)")
	assert.Contains(t, out, "or until 4 × the capacity is written or 24h00m have passed, whichever comes first")
	code, out, stderr = ptsrun("plan", "--target", "sim", "--tests", "wsat", "--wsat-ss", "--wsat-time", "6h")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "time: 2h35m (steady at round 5) to at most 6h00m (round limit 25)", "the time limit before the round limit")
}

// The spec's own stop rule is never run past (issue 20): WSAT with 5 s
// samples of a small file, whose first sample alone would write several
// fills, writes 4.0 fills with each engine: the sample that reaches the
// budget is cut at it, and the end says what was written.
func TestWSATStopsAtItsFillsOnAFile(t *testing.T) {
	t.Parallel()
	for _, eng := range []string{"native", "fio"} {
		t.Run(eng, func(t *testing.T) {
			t.Parallel()
			if eng == "fio" {
				enginetest.NeedFio(t)
			}
			target := filepath.Join(t.TempDir(), "wsat.img")
			dir := filepath.Join(t.TempDir(), "run")
			code, _, stderr := ptsrun("run", "--target", "file:"+target+":32M", "--engine", eng, "--tests", "wsat",
				"--wsat-interval", "5s", "--destroy-data", target, "--out", dir)
			require.Contains(t, []int{0, 3}, code, stderr)
			res, _, err := matrix.Load(dir)
			require.NoError(t, err)
			st := res.Find(pts.WSAT).Stages[0]
			require.True(t, st.Complete)
			var written int64
			for _, x := range st.Samples {
				written = x.Written
			}
			capacity := float64(st.Capacity)
			// TC4 threads, each rounding its share to whole 4 KiB blocks.
			assert.InDelta(t, 4*capacity, float64(written), 4*4096, "4 fills, to a block per thread")
			assert.Contains(t, st.EndedBy, "4 × the capacity was written")
			assert.Contains(t, st.EndedBy, "4.000 fills")
		})
	}
}
