package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// replayCapture writes a fio iolog of version 3 of n I/Os over about a
// second and a half, reads and writes of 4 to 16 KiB up to 32 MiB in,
// some beyond a 16 MiB target; writes false makes them all reads.
func replayCapture(t *testing.T, n int, writes bool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("fio version 3 iolog\n10 /dev/sdz add\n10 /dev/sdz open\n")
	rng := rand.New(rand.NewPCG(1, 2))
	us := 100
	for i := range n {
		us += 1 + rng.IntN(1500000/n*2)
		dir := "read"
		if writes && i%3 == 0 {
			dir = "write"
		}
		fmt.Fprintf(&b, "%d /dev/sdz %s %d %d\n", us, dir, rng.Int64N(8192)*4096, (1+rng.Int64N(4))*4096)
	}
	fmt.Fprintf(&b, "%d /dev/sdz close\n", us+1)
	path := filepath.Join(t.TempDir(), "capture.iolog")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

// replayRecord is what the tests read of replay.json.
type replayRecord struct {
	Capture  struct{ IOs int }
	Engine   string
	CPUIdle  *struct{ Asked string } `json:"cpu_idle"`
	Fidelity struct {
		LatenessP50Ms *float64 `json:"lateness_p50_ms"`
		LatenessP99Ms *float64 `json:"lateness_p99_ms"`
		LatenessMaxMs *float64 `json:"lateness_max_ms"`
		Measured      int
		Delayed       *int
		OwnP99Ms      *float64 `json:"own_lateness_p99_ms"`
	}
	Totals struct {
		Scheduled, Issued, Completed int
		WithLatency                  int `json:"with_latency"`
	}
	Seconds []struct {
		ReplayIOPS  float64 `json:"replay_iops"`
		CaptureIOPS float64 `json:"capture_iops"`
	}
}

// A short replay on a loop device, with each engine: every I/O of the
// capture issued and completed, the lateness figures there, the series
// and the report written.
func TestReplayOnALoopDevice(t *testing.T) {
	t.Parallel() // waits on its own files and devices: beside the others
	enginetest.NeedRoot(t, "losetup")
	const n = 1500
	capture := replayCapture(t, n, true)
	for _, eng := range []string{"native", "fio"} {
		t.Run(eng, func(t *testing.T) {
			t.Parallel()
			if eng == "fio" {
				enginetest.NeedFio(t)
			}
			dev := enginetest.LoopDevice(t, 16<<20, "")
			out := filepath.Join(t.TempDir(), "replay")
			code, stdout, stderr := ptsrun("replay", capture, "--target", dev, "--destroy-data", dev, "--engine", eng, "--out", out)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, "issue lateness: p50 ")
			var rec replayRecord
			data, err := os.ReadFile(filepath.Join(out, "replay.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &rec))
			assert.Equal(t, n, rec.Capture.IOs)
			assert.Equal(t, n, rec.Totals.Scheduled)
			assert.Equal(t, n, rec.Totals.Issued)
			assert.Equal(t, n, rec.Totals.Completed)
			assert.Equal(t, n, rec.Fidelity.Measured)
			// What the host's idle CPUs were is recorded, held or not
			// (not root, no cpuidle driver), as --cpu-idle asked.
			require.NotNil(t, rec.CPUIdle, "replay.json records the host's idle CPUs")
			assert.Equal(t, "shallow", rec.CPUIdle.Asked)
			require.NotNil(t, rec.Fidelity.LatenessP50Ms)
			require.NotNil(t, rec.Fidelity.LatenessP99Ms)
			require.NotNil(t, rec.Fidelity.LatenessMaxMs)
			assert.LessOrEqual(t, *rec.Fidelity.LatenessP50Ms, *rec.Fidelity.LatenessP99Ms)
			assert.LessOrEqual(t, *rec.Fidelity.LatenessP99Ms, *rec.Fidelity.LatenessMaxMs)
			if eng == "native" {
				assert.NotNil(t, rec.Fidelity.Delayed, "the native engine counts the I/Os delayed")
				if *rec.Fidelity.Delayed < n {
					assert.NotNil(t, rec.Fidelity.OwnP99Ms, "and the lateness of the others")
				}
			} else {
				assert.Nil(t, rec.Fidelity.Delayed, "fio cannot tell")
				assert.Nil(t, rec.Fidelity.OwnP99Ms)
			}
			var replayed, captured float64
			for _, s := range rec.Seconds {
				replayed, captured = replayed+s.ReplayIOPS, captured+s.CaptureIOPS
			}
			// fio's latency log leaves out the I/Os in flight at its end.
			assert.Equal(t, float64(rec.Totals.WithLatency), replayed, "every I/O with a latency in the replay's seconds")
			if eng == "native" {
				assert.Equal(t, n, rec.Totals.WithLatency)
			} else {
				assert.Greater(t, rec.Totals.WithLatency, n-32)
			}
			assert.Equal(t, float64(n), captured, "every I/O in the capture's seconds")
			csv, err := os.ReadFile(filepath.Join(out, "seconds.csv"))
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(csv), "source,target,interval,"), string(csv[:min(80, len(csv))]))
			assert.Contains(t, string(csv), "\nreplay,all,1,")
			assert.Contains(t, string(csv), "\ncapture,all,1,")
			pdf, err := os.ReadFile(filepath.Join(out, "report.pdf"))
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(string(pdf), "%PDF"))
		})
	}
}

// The gate: a capture that writes needs the device confirmed, and is
// refused (exit 4) with nothing written without it; one of reads only
// writes nothing and needs no confirmation.
func TestReplayGate(t *testing.T) {
	t.Parallel() // waits on its own files and devices: beside the others
	enginetest.NeedRoot(t, "losetup")
	dev := enginetest.LoopDevice(t, 16<<20, "")
	out := filepath.Join(t.TempDir(), "replay")
	code, _, stderr := ptsrun("replay", replayCapture(t, 50, true), "--target", dev, "--out", out)
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, "--destroy-data")
	assert.NoDirExists(t, out)

	code, _, stderr = ptsrun("replay", replayCapture(t, 50, false), "--target", dev, "--out", out)
	assert.Equal(t, 0, code, stderr)
	assert.FileExists(t, filepath.Join(out, "replay.json"))
}

// A malformed capture is refused with its line, before anything is
// checked or made.
func TestReplayRefusesAMalformedCapture(t *testing.T) {
	t.Parallel() // waits on its own files and devices: beside the others
	path := filepath.Join(t.TempDir(), "bad.iolog")
	require.NoError(t, os.WriteFile(path, []byte("fio version 3 iolog\n10 /dev/sdz add\n20 /dev/sdz read 4096\n"), 0o644))
	out := filepath.Join(t.TempDir(), "replay")
	code, _, stderr := ptsrun("replay", path, "--target", "file:"+filepath.Join(t.TempDir(), "t.img")+":16M", "--out", out)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "bad.iolog:3: ")
	assert.NoDirExists(t, out)
}
