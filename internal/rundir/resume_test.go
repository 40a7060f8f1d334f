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

	"github.com/ptsrun/ptsrun/internal/cpuidle"
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

// What a resume records of the host's idle CPUs: a hold that differs from
// the run's, or a run with no record of them, is stated with what the run
// began with, which stays the first through several resumes.
func TestResumedHold(t *testing.T) {
	shallow := &cpuidle.State{Asked: "shallow", Held: true}
	host := &cpuidle.State{Asked: "host"}
	refused := &cpuidle.State{Asked: "shallow", Note: "not held: /dev/cpu_dma_latency: permission denied"}
	for _, tc := range []struct {
		name     string
		now, was *cpuidle.State
		changed  bool
		began    string
	}{
		{"the same hold", shallow, shallow, false, ""},
		{"nothing held now (sim)", nil, shallow, false, ""},
		{"nothing held, nothing recorded", nil, nil, false, ""},
		{"held now, not recorded", shallow, nil, true, "no record of its idle CPUs"},
		{"held now, refused then", shallow, refused, true, refused.Label()},
		{"as the host has them now", host, shallow, true, shallow.Label()},
		{"a second change keeps the first", shallow, &cpuidle.State{Asked: "host", Began: "the first"}, true, "the first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := resumedHold(tc.now, tc.was)
			assert.Equal(t, tc.changed, changed)
			if !changed {
				assert.Equal(t, tc.was, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tc.began, got.Began)
			assert.Equal(t, tc.now.Asked, got.Asked)
			assert.Contains(t, got.Label(), "since a resume, the run began with: "+tc.began)
		})
	}
}
