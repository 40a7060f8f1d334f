package native

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// An engine that is closed holds nothing of its targets: a loop device
// detaches as soon as it is told to, with the test process still alive.
// A ring whose fd was registered with the thread outlived its close and
// kept the device open (and its buffers pinned) in Go's thread pool, so
// that a loop device of a finished run could not be detached, for the
// cell loop and the timed replay alike.
func TestClosedEngineLetsGoOfTheDevice(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		do   func(t *testing.T, e *Engine)
	}{
		{"cells", func(t *testing.T, e *Engine) {
			w := engine.Workload{Access: engine.Random, ReadPct: 65, BlockSize: 4096, TC: 2, QD: 8, ActiveRange: 100, Duration: 300 * time.Millisecond, Seed: 1}
			_, err := engine.RunCell(context.Background(), e, engine.Cell{Workload: w})
			require.NoError(t, err)
		}},
		{"replay", func(t *testing.T, e *Engine) {
			ios := make([]engine.TimedIO, 200)
			for i := range ios {
				ios[i] = engine.TimedIO{At: time.Duration(i) * time.Millisecond, Offset: int64(i) * 4096, Size: 4096, Read: i%2 == 0}
			}
			tr, err := e.Replay(context.Background(), engine.Timed{IOs: ios, Depth: 4})
			require.NoError(t, err)
			require.NotNil(t, tr.Issue)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dev := enginetest.LoopDevice(t, 16<<20, "")
			e, err := Open([]Target{{Name: dev, Path: dev, Size: 16 << 20, LogicalBlock: 512}}, Options{})
			require.NoError(t, err)
			c.do(t, e)
			require.NoError(t, e.Close())
			mine := boundTo(filepath.Join("/sys/block", filepath.Base(dev), "loop", "backing_file"))
			require.NotEmpty(t, mine, "%s is bound to no file before it is detached", dev)
			out, err := exec.Command("losetup", "-d", dev).CombinedOutput()
			require.NoError(t, err, "%s", out)
			backing := filepath.Join("/sys/block", filepath.Base(dev), "loop", "backing_file")
			// Not a rate: the kernel detaches an unopened loop device at
			// once (or when udev's probe lets go); a held one never, while
			// this process lives. 10 s, as the loop helper waits.
			for i := 0; i < 500 && boundTo(backing) == mine; i++ {
				time.Sleep(20 * time.Millisecond)
			}
			// Once detached, a parallel test may take the number for its
			// own file: only this test's file still bound is a failure.
			assert.NotEqual(t, mine, boundTo(backing), "%s still bound after the engine closed: something of the engine holds it open", dev)
		})
	}
}

// boundTo is the file a loop device's sysfs backing_file names, or "".
func boundTo(backing string) string {
	b, err := os.ReadFile(backing)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
