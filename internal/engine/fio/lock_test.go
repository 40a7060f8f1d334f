package fio

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// A round's cells are started ahead, each held by a lock file until the
// cell before it has ended (RunCells); once fio has ended, its lock file
// goes: a run's fio folder holds each cell's job file and output, not an
// empty lock file per cell (issue 20: about 40 of them per run).
func TestHeldCellsLeaveNoLockFiles(t *testing.T) {
	enginetest.NeedFio(t)
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) is not installed (util-linux): cells are not started ahead")
	}
	path := enginetest.TempFile(t, 16<<20)
	dir := t.TempDir()
	e, err := Open([]Target{{Name: "t0:" + path, Path: path, Size: 16 << 20, LogicalBlock: 512}}, Options{WorkDir: dir})
	require.NoError(t, err)
	t.Cleanup(func() { e.Close() })
	var cells []engine.Cell
	for i, name := range []string{"c1", "c2", "c3", "c4"} {
		// A volume, not a time: each cell ends when its bytes are moved.
		cells = append(cells, engine.Cell{Name: name, Workload: engine.Workload{Access: engine.Random, BlockSize: 4096, ReadPct: 50 * (i % 2),
			TC: 1, QD: 4, ActiveRange: 100, Passes: 0.05, Seed: uint64(i + 1)}})
	}
	n := 0
	require.NoError(t, e.RunCells(context.Background(), "round", cells, func(int, engine.Measurement, time.Duration) error { n++; return nil }))
	assert.Equal(t, len(cells), n)
	jobs, err := filepath.Glob(filepath.Join(dir, "*.fio"))
	require.NoError(t, err)
	assert.Len(t, jobs, len(cells), "each cell's job file stays")
	locks, err := filepath.Glob(filepath.Join(dir, "*.lock"))
	require.NoError(t, err)
	assert.Empty(t, locks, "no lock file is left behind")
}
