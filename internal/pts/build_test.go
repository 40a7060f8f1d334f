package pts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuildOf(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "1d4f9bc2a0e1f00dfeed5eed0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want Build
		text string
	}{
		{"stamped", stamped, Build{Version: "0.1.0", Commit: "1d4f9bc2a0e1f00dfeed5eed0123456789abcdef", Modified: true, Go: "go1.26.8"},
			"0.1.0 (commit 1d4f9bc2a0e1, modified, go1.26.8)"},
		{"not stamped", &debug.BuildInfo{GoVersion: "go1.26.8"}, Build{Version: "0.1.0", Go: "go1.26.8"}, "0.1.0 (go1.26.8)"},
		{"no build info", nil, Build{Version: "0.1.0", Go: runtime.Version()}, "0.1.0 (" + runtime.Version() + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := buildOf("0.1.0", tc.bi)
			assert.Equal(t, tc.want, b)
			assert.Equal(t, tc.text, b.String())
		})
	}
	assert.Equal(t, runtime.Version(), ThisBuild("0.1.0").Go)
}

// run.json keeps the build of the binary that wrote it; one written before
// it had a build reads with none.
func TestRunInfoBuild(t *testing.T) {
	dir := t.TempDir()
	b := Build{Version: "0.1.0", Commit: "1d4f9bc", Go: "go1.26.8"}
	require.NoError(t, WriteRunInfo(dir, RunInfo{Schema: Schema, Tool: "ptsrun", Version: "0.1.0", Build: b}))
	ri, err := LoadRunInfo(dir)
	require.NoError(t, err)
	assert.Equal(t, b, ri.Build)

	raw, err := os.ReadFile(filepath.Join(dir, RunFile))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	assert.Equal(t, map[string]any{"version": "0.1.0", "commit": "1d4f9bc", "go": "go1.26.8"}, m["build"])
	delete(m, "build")
	old, err := json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, RunFile), old, 0o644))
	ri, err = LoadRunInfo(dir)
	require.NoError(t, err)
	assert.Equal(t, Build{}, ri.Build)
	assert.Equal(t, "0.1.0", ri.Version)
}
