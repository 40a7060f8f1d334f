package native

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

const testSize = 256 << 20

func opener(files bool, opts Options) enginetest.Opener {
	return func(t *testing.T, n int) (engine.Engine, []enginetest.Target) {
		var ts []Target
		var out []enginetest.Target
		for i := 0; i < n; i++ {
			var path, readBack string
			if files {
				path = enginetest.TempFile(t, 64<<20)
				readBack = path
			} else {
				path = enginetest.LoopDevice(t, testSize, "")
			}
			size := int64(testSize)
			if files {
				size = 64 << 20
			}
			name := fmt.Sprintf("t%d:%s", i, path)
			ts = append(ts, Target{Name: name, Path: path, Size: size, LogicalBlock: 512})
			out = append(out, enginetest.Target{Name: name, Path: readBack, Capacity: size, LogicalBlock: 512})
		}
		opts.Trace = 2000
		e, err := Open(ts, opts)
		require.NoError(t, err)
		t.Cleanup(func() { e.Close() })
		return e, out
	}
}

// The native engine's tests mostly wait on real I/O, each on targets of
// its own: several at once (enginetest.WaitBound).
func TestMain(m *testing.M) {
	enginetest.WaitBound(16)
	os.Exit(m.Run())
}

func TestConformanceLoopDevice(t *testing.T) {
	t.Parallel() // targets of its own per check: beside the others
	enginetest.Run(t, opener(false, Options{}), enginetest.Caps{LiveSeries: true, ExactSeries: true})
}

func TestConformanceFiles(t *testing.T) {
	t.Parallel() // targets of its own per check: beside the others
	enginetest.Run(t, opener(true, Options{}), enginetest.Caps{ReadBack: true, GenerationCovered: true, LiveSeries: true, ExactSeries: true})
}

func TestConformancePread(t *testing.T) {
	t.Parallel() // targets of its own per check: beside the others
	enginetest.Run(t, opener(false, Options{ForcePread: true}), enginetest.Caps{LiveSeries: true, ExactSeries: true})
}

// On files the written data is read back: the pread path's writes too,
// the raw ones at QD1 among them (rawPio).
func TestConformancePreadFiles(t *testing.T) {
	t.Parallel() // targets of its own per check: beside the others
	enginetest.Run(t, opener(true, Options{ForcePread: true}), enginetest.Caps{ReadBack: true, GenerationCovered: true, LiveSeries: true, ExactSeries: true})
}

// Not beside the others: the engine's CPU time is the process's.
func TestPacedThreadsSleep(t *testing.T) {
	enginetest.PacedThreadsSleep(t, opener(false, Options{}))
}
