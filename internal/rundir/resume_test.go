package rundir

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/pts"
)

// A resume that is refused changes nothing of the run directory: a
// schema-1 run.json is raised to the current schema only once its targets are open (the
// last check that can refuse: another holder of a block device, a drive
// state that does not load), not before. Here the simulated drive's state
// does not load; on a block device the same order let "is in use" refuse
// the resume after run.json had been rewritten.
func TestRefusedResumeLeavesAnOlderRunJSONAsItWas(t *testing.T) {
	dir, lines := simRun(t)
	cp := at(t, dir, lines, index(t, lines, 0, pts.RecRoundEnd, "iops")+1)
	path := filepath.Join(cp, RunFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var ri map[string]any
	require.NoError(t, json.Unmarshal(b, &ri))
	ri["schema"] = 1
	b, err = json.Marshal(ri)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(cp, "sim", "0"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cp, "sim", "0", "drive.snap"), []byte("not a snapshot"), 0o644))

	x, err := Resume(context.Background(), cp, nil)
	require.Error(t, err)
	assert.Nil(t, x)
	assert.Contains(t, err.Error(), "not a simulated-drive snapshot")
	got, err := pts.LoadRunInfo(cp)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Schema, "a refused resume raised run.json's schema")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(b, after), "a refused resume rewrote run.json")
}
