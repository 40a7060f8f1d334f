package fio

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// crashingFio is a fio that dies of SIGSEGV on its first crashes runs of
// cell c1's job file (Open's probes and other cells pass through), then is
// fio.
func crashingFio(t *testing.T, crashes int) string {
	real, err := exec.LookPath("fio")
	require.NoError(t, err)
	dir := t.TempDir()
	bin := filepath.Join(dir, "fio")
	script := `#!/bin/sh
case "$*" in */c1.fio*)
	n=$(cat "` + dir + `/count" 2>/dev/null || echo 0)
	if [ "$n" -lt ` + strconv.Itoa(crashes) + ` ]; then
		echo $((n + 1)) > "` + dir + `/count"
		echo "fio: about to fault" >&2
		kill -SEGV $$
	fi
esac
exec "` + real + `" "$@"
`
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))
	return bin
}

// A fio that crashes in a cell (fio 3.33 has, on a loaded machine) is not
// the device's failure: the cell runs again, once, and its measurement
// says so. A fio that crashes again ends the run, naming both crashes.
func TestCrashedFioRunsTheCellAgain(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel() // a fio process of its own
	path := filepath.Join(t.TempDir(), "target")
	require.NoError(t, os.WriteFile(path, make([]byte, 8<<20), 0o644))
	w := engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: 1, QD: 4, Duration: time.Second, ActiveRange: 100}

	for _, tc := range []struct {
		crashes int
		want    string // the error, or "" for a measurement
	}{
		{1, ""},
		{2, "fio failed (signal: segmentation fault): fio: about to fault (run again after fio failed (signal: segmentation fault): fio: about to fault)"},
	} {
		e, err := Open([]Target{{Name: path, Path: path, Size: 8 << 20, LogicalBlock: 512}},
			Options{WorkDir: t.TempDir(), Binary: crashingFio(t, tc.crashes)})
		require.NoError(t, err)
		var got []engine.Measurement
		err = e.RunCells(context.Background(), "", []engine.Cell{{Name: "c1", Workload: w}, {Name: "c2", Workload: w}},
			func(_ int, m engine.Measurement, _ time.Duration) error { got = append(got, m); return nil })
		if tc.want != "" {
			require.Error(t, err)
			assert.Equal(t, tc.want, strings.TrimSpace(err.Error()))
			assert.Empty(t, got)
			continue
		}
		require.NoError(t, err)
		require.Len(t, got, 2)
		assert.Equal(t, 1, got[0].Relaunched, "the first cell's fio crashed once")
		assert.Positive(t, got[0].IOPS())
		assert.Zero(t, got[1].Relaunched)
		assert.Positive(t, got[1].IOPS())
	}
}
