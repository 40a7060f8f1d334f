package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// rwswCapture is the capture the rwsw tests apply: a blkparse fixture
// with completions, so its demand intensity is measured.
var rwswCapture = filepath.Join("..", "..", "internal", "capture", "testdata", "reconstructed.blkparse")

// The rwsw test on the simulated drive, with a short sweep: it reaches
// steady state and runs the sweep and its points; killed (SIGKILL) in its
// steady-state rounds, in its sweep and between its points, each resumed
// run ends with the uninterrupted run's results in shape; a resume given
// another capture is refused; two runs compare.
func TestRWSWKillResumeCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: several simulated runs of the rwsw test")
	}
	t.Parallel() // simulated runs of their own, CPU-bound: beside the others
	args := []string{"run", "--target", "sim:enterprise", "--tests", "rwsw", "--capture", rwswCapture,
		"--rwsw-tc", "4,1", "--rwsw-qd", "8,1", "--rwsw-round-prewrite", "1m", "--rwsw-prewrite", "2m", "--rwsw-histogram", "1m"}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ref := filepath.Join(t.TempDir(), "ref")
	code, stderr := ptsrunProcess(t, start, append(args, "--out", ref)...)
	require.Contains(t, []int{0, 3}, code, stderr)
	want, ri, err := matrix.Load(ref)
	require.NoError(t, err)
	require.True(t, want.Complete)
	require.NotNil(t, ri.Config.RWSW)
	assert.NotEmpty(t, ri.Config.RWSW.SHA256)
	tr := want.Find(pts.RWSW)
	require.NotNil(t, tr)
	require.Len(t, tr.Stages, 5, "steady state, sweep, three points")
	assert.True(t, tr.Stages[0].Steady, "the applied workload reaches steady state")
	assert.Len(t, tr.Stages[1].Cells, 1+4, "the sweep's pre-write and its 2 × 2 cells")
	assert.Len(t, tr.OperatingPoints, 3)
	assert.Contains(t, want.Verdict, "after the SNIA RWSW method, and no conformance to it is claimed")
	assert.NotContains(t, want.Verdict, "CONFORMS")
	refJournal, err := os.ReadFile(filepath.Join(ref, pts.JournalFile))
	require.NoError(t, err)
	// Kill points: in the steady-state rounds, in the sweep, at the MidIOPS
	// point: the second record of each of those stages' measurements.
	var kills []killPoint
	seen := map[string]int{}
	for i, line := range bytes.Split(bytes.TrimSpace(refJournal), []byte{'\n'}) {
		var r pts.Record
		require.NoError(t, json.Unmarshal(line, &r))
		if r.Stage == "rwsw-ss" && r.Type == pts.RecCell || r.Stage == "rwsw" && r.Type == pts.RecCell || r.Stage == "rwsw-mid" && r.Type != pts.RecStageStart {
			if seen[r.Stage]++; seen[r.Stage] == 2 {
				kills = append(kills, killPoint{Records: i + 1})
			}
		}
	}
	require.Len(t, kills, 3)

	for _, k := range kills {
		t.Run(k.String(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			killAfter(t, start, k, refJournal, append(args, "--out", dir)...)
			// Another file as the capture: refused, nothing resumed.
			other := filepath.Join(t.TempDir(), "other.blkparse")
			b, err := os.ReadFile(rwswCapture)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(other, append(b, b[:100]...), 0o644))
			code, _, stderr := ptsrun("resume", dir, "--capture", other)
			assert.NotEqual(t, 0, code)
			assert.Contains(t, stderr, "this run's applied workload was read from")
			code, stderr = ptsrunProcess(t, start.Add(24*time.Hour), "resume", dir, "--capture", rwswCapture)
			require.Contains(t, []int{0, 3}, code, stderr)
			got, _, err := matrix.Load(dir)
			require.NoError(t, err)
			assert.True(t, got.Complete)
			assert.Equal(t, shapeOf(want), shapeOf(got), "the resumed run's results differ in shape from an uninterrupted run's")
		})
	}

	// Compare two runs of the test: the reference and another seed's.
	other := filepath.Join(t.TempDir(), "seed2")
	code, stderr = ptsrunProcess(t, start, append(args, "--seed", "2", "--out", other)...)
	require.Contains(t, []int{0, 3}, code, stderr)
	pdf := filepath.Join(t.TempDir(), "cmp.pdf")
	code, out, stderr := ptsrun("compare", ref, other, "-o", pdf)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "RWSW")
	assert.FileExists(t, pdf)
}

// --tests all leaves rwsw out (it needs a capture); a capture without
// rwsw, and rwsw without a capture, are refused before anything is written.
func TestRWSWNeedsCapture(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, _, stderr := ptsrun("run", "--target", "sim", "--tests", "rwsw", "--out", dir)
	assert.Equal(t, 1, code, "bad input: %s", stderr)
	assert.Contains(t, stderr, "--tests rwsw needs a capture: --capture FILE")
	code, _, stderr = ptsrun("run", "--target", "sim", "--tests", "iops", "--capture", rwswCapture, "--out", dir)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, stderr, "only --tests rwsw takes a capture")
	code, _, stderr = ptsrun("run", "--target", "sim", "--tests", "rwsw", "--capture", "no-such.iolog", "--out", dir)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, stderr, "no-such.iolog")
	assert.NoDirExists(t, dir)
	// fio cannot run a stream mix exactly: refused before anything is
	// purged or written.
	if _, err := exec.LookPath("fio"); err == nil {
		img := filepath.Join(t.TempDir(), "f.img")
		require.NoError(t, os.WriteFile(img, nil, 0o644))
		require.NoError(t, os.Truncate(img, 64<<20))
		code, _, stderr = ptsrun("run", "--target", "file:"+img, "--engine", "fio", "--tests", "rwsw", "--capture", rwswCapture,
			"--destroy-data", img, "--out", dir)
		assert.Equal(t, 1, code, stderr)
		assert.Contains(t, stderr, "fio cannot run it exactly in one job")
		assert.NoDirExists(t, dir)
	}
	code, out, _ := ptsrun("plan", "--target", "sim", "--tests", "all")
	assert.Equal(t, 0, code)
	assert.NotContains(t, out, "RWSW")
}
