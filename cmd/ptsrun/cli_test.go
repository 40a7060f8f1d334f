package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/pts"
)

// A value a flag cannot take is refused in one line that names the flag,
// the value and what the flag takes; a duration says the unit it lacks.
func TestFlagValueErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"cell time without unit", []string{"plan", "--target", "sim", "--cell-time", "5"}, `--cell-time "5": a duration needs a unit: 5s, 1m, 2h30m`},
		{"cell time not a duration", []string{"plan", "--target", "sim", "--cell-time", "5x"}, `--cell-time "5x": not a duration`},
		{"workload time without unit", []string{"workload", "--target", "sim", "--time", "30"}, `--time "30": a duration needs a unit`},
		{"workload ramp without unit", []string{"workload", "--target", "sim", "--ramp=10"}, `--ramp "10": a duration needs a unit`},
		{"test parameter without unit", []string{"plan", "--target", "sim", "--tests", "wsat", "--wsat-time", "24"}, `--wsat-time 24: a duration needs a unit: 5s, 1m, 2h30m`},
		{"xsr group without unit", []string{"plan", "--target", "sim", "--tests", "xsr", "--xsr-groups", "8h,6,8h"}, `--xsr-groups 8h,6,8h: "6": a duration needs a unit`},
		{"whole number", []string{"plan", "--target", "sim", "--tc", "four"}, `--tc "four": not a whole number`},
		{"number", []string{"ss", "--max-range", "a fifth", "-"}, `--max-range "a fifth": not a number`},
		{"mistyped flag", []string{"plan", "--targt", "sim"}, `Did you mean "--target"?`},
		{"mistyped flag of a subcommand", []string{"import", "fio", "--ot", "x", "f.json"}, `Did you mean "--out"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := ptsrun(tc.args...)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, tc.msg)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %q", stderr)
			assert.Empty(t, stdout)
		})
	}
}

// run.json records the build of the binary that wrote it, as --version
// names it; a run.json written before it had one still makes its report.
func TestRunJSONRecordsTheBuild(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, _, stderr := ptsrun("run", "--target", "sim", "--tests", "lat", "--out", dir)
	require.Equal(t, 0, code, stderr)
	path := filepath.Join(dir, "run.json")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var ri map[string]any
	require.NoError(t, json.Unmarshal(raw, &ri))
	build, ok := ri["build"].(map[string]any)
	require.True(t, ok, "run.json has a build: %s", raw)
	assert.Equal(t, version, build["version"])
	assert.Equal(t, runtime.Version(), build["go"])
	_, stdout, _ := ptsrun("--version")
	assert.Equal(t, "ptsrun version "+pts.ThisBuild(version).String()+"\n", stdout, "the build --version names")

	delete(ri, "build") // as ptsrun wrote it before
	old, err := json.Marshal(ri)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, old, 0o644))
	code, _, stderr = ptsrun("report", dir)
	assert.Equal(t, 0, code, stderr)
}
