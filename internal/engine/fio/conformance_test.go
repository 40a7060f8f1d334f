package fio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

const testSize = 256 << 20

// fio's tests mostly wait on fio processes doing real I/O, each on
// targets of its own: several at once (enginetest.WaitBound).
func TestMain(m *testing.M) {
	enginetest.WaitBound(16)
	os.Exit(m.Run())
}

// opener opens fio on n targets: files, loop devices, or with servers
// loop devices each behind one of two fio servers of this open's own (a
// server serves one client at a time, so the checks, beside each other,
// do not share them).
func opener(files, servers bool) enginetest.Opener {
	return func(t *testing.T, n int) (engine.Engine, []enginetest.Target) {
		enginetest.NeedFio(t)
		var addrs []string
		if servers {
			addrs = enginetest.FioServers(t, 2)
		}
		var ts []Target
		var out []enginetest.Target
		for i := 0; i < n; i++ {
			size := int64(testSize)
			var path, readBack string
			if files {
				size = 64 << 20
				path = enginetest.TempFile(t, size)
				readBack = path
			} else {
				path = enginetest.LoopDevice(t, size, "")
			}
			server := ""
			if len(addrs) > 0 {
				server = addrs[i%len(addrs)]
			}
			name := fmt.Sprintf("t%d:%s", i, path)
			ts = append(ts, Target{Name: name, Path: path, Size: size, LogicalBlock: 512, Server: server})
			out = append(out, enginetest.Target{Name: name, Path: readBack, Capacity: size, LogicalBlock: 512})
		}
		e, err := Open(ts, Options{Trace: 2000, WorkDir: t.TempDir()})
		require.NoError(t, err)
		t.Cleanup(func() { e.Close() })
		return e, out
	}
}

// fio's series comes from its logs (series.go): within 2 % of the totals
// (ExactSeries false), once fio has ended; what it reports while it runs
// is its status lines' rates (live.go), not the series (no LiveSeries).

func TestConformanceLoopDevice(t *testing.T) {
	t.Parallel() // fio processes on targets of its own: beside the others
	enginetest.NeedFio(t)
	enginetest.Run(t, opener(false, false), enginetest.Caps{ForeignPacing: true, DepthBuckets: true, NoStreamMix: true, ExactSeries: false, LiveSeries: false})
}

func TestConformanceFiles(t *testing.T) {
	t.Parallel() // fio processes on targets of its own: beside the others
	enginetest.NeedFio(t)
	enginetest.Run(t, opener(true, false), enginetest.Caps{ReadBack: true, ForeignPacing: true, DepthBuckets: true, GenerationCovered: true, ExactSeries: false, LiveSeries: false})
}

// Two fio servers on this host, each with its own loop device: one cell
// loads both at once and reports both.
func TestConformanceClientServer(t *testing.T) {
	t.Parallel() // fio processes on targets of its own: beside the others
	enginetest.NeedRoot(t, "losetup", "fio")
	// fio generates the I/O of the same job options alike locally and in
	// a server (checked on the loop device above); what the servers change
	// is the transport, the targets per host and the logs sent back.
	enginetest.Run(t, opener(false, true), enginetest.Caps{ForeignPacing: true, DepthBuckets: true, NoStreamMix: true, GenerationCovered: true, OwnSeries: true})
}

// A relative work directory (ptsrun run --out DIR) still works: fio runs in
// a cell's log directory, where a relative name would point elsewhere.
func TestRelativeWorkDir(t *testing.T) {
	enginetest.NeedFio(t)
	path := enginetest.TempFile(t, 8<<20)
	t.Chdir(t.TempDir())
	e, err := Open([]Target{{Name: path, Path: path, Size: 8 << 20, LogicalBlock: 512}}, Options{WorkDir: "run/fio"})
	require.NoError(t, err)
	defer e.Close()
	m, err := engine.RunCell(context.Background(), e, engine.Cell{Workload: engine.Workload{Access: engine.Random, ReadPct: 100,
		BlockSize: 4096, TC: 1, QD: 1, ActiveRange: 100, Duration: 200 * time.Millisecond}})
	require.NoError(t, err)
	require.Positive(t, m.Read.IOs)
	require.FileExists(t, filepath.Join("run", "fio", "workload-0001.json"))
}
