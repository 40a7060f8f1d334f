package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// fio reads ':' in filename= as a separator: file:DIR/a:b.img once made fio
// lay out DIR/a and b.img in the working directory, and never the named
// file. Run from a working directory of its own, with the logs in a run
// directory whose name holds a ':' too, the named file is the only one made.
func TestFioLoadsOnlyTheNamedFile(t *testing.T) {
	enginetest.NeedFio(t)
	dir, cwd := t.TempDir(), t.TempDir()
	out := filepath.Join(t.TempDir(), "run:1")
	t.Chdir(cwd)
	file := filepath.Join(dir, "a:b.img")
	code, _, stderr := ptsrun("workload", "--target", "file:"+file+":16m", "--engine", "fio", "--read", "0", "--bs", "4k",
		"--tc", "2", "--qd", "4", "--time", "2s", "--out", out)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"a:b.img"}, names(t, dir), "the named file and nothing else")
	assert.Empty(t, names(t, cwd), "nothing in the working directory")
	st, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, int64(16<<20), st.Size())
	csv, err := os.ReadFile(filepath.Join(out, "seconds.csv"))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, strings.Count(string(csv), "\n"), 2, "fio's per-second logs, read back from %s", out)
	jobs, _ := filepath.Glob(filepath.Join(out, "fio", "*.fio"))
	require.Len(t, jobs, 1)
	job, err := os.ReadFile(jobs[0])
	require.NoError(t, err)
	assert.Contains(t, string(job), `filename=`+strings.ReplaceAll(file, ":", `\:`)+"\n")

	// A relative run directory: fio runs in the cell's log directory, so
	// the paths it is given are absolute.
	code, _, stderr = ptsrun("workload", "--target", "file:"+file, "--engine", "fio", "--read", "100", "--time", "1s", "--out", "rel:1")
	require.Equal(t, 0, code, stderr)
	assert.FileExists(t, filepath.Join(cwd, "rel:1", "seconds.csv"))
	assert.Equal(t, []string{"rel:1"}, names(t, cwd))
	assert.Equal(t, []string{"a:b.img"}, names(t, dir))
}

// A newline in a target or run directory would end an option of fio's job
// file and start another: "xx\nexec_prerun=touch pwned" once ran the command
// as root. Such input is refused with exit 1 before anything is made or run;
// so are paths fio's job parser would change (';', '#', '$') with engine fio.
func TestPathsFioWouldMisreadAreRefused(t *testing.T) {
	dir, cwd := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	evil := "file:" + filepath.Join(dir, "xx") + "\nexec_prerun=touch pwned:1m"
	run := filepath.Join(dir, "run")
	short := []string{"--engine", "fio", "--purge", "none", "--tests", "lat", "--cell-time", "1s", "--ss-window", "2", "--max-rounds", "2"}
	wl := []string{"--engine", "fio", "--read", "0", "--time", "1s"}
	ok := "file:" + filepath.Join(dir, "ok.img") + ":1m"
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"run", append([]string{"run", "--target", evil, "--out", run}, short...), fmt.Sprintf("target %q: control character '\\n'", evil)},
		{"workload", append([]string{"workload", "--target", evil, "--out", run}, wl...), `control character '\n'`},
		{"workload without --out", append([]string{"workload", "--target", evil}, wl...), `control character '\n'`},
		{"plan", append([]string{"plan", "--target", evil}, short...), `control character '\n'`},
		{"native engine", []string{"workload", "--target", evil, "--engine", "native", "--read", "0", "--time", "1s"}, `control character '\n'`},
		{"fio server target", []string{"workload", "--fio-server", "127.0.0.1:8765=/dev/xx\nexec_prerun=touch pwned", "--read", "0",
			"--time", "1s", "--destroy-data", "127.0.0.1:8765=/dev/xx\nexec_prerun=touch pwned"},
			`fio server "127.0.0.1:8765=/dev/xx\nexec_prerun=touch pwned": control character '\n'`},
		{"fio server with --target", []string{"workload", "--fio-server", "127.0.0.1:8765", "--target", "/dev/xx\ttouch", "--read", "100", "--time", "1s"},
			`target "/dev/xx\ttouch": control character '\t'`},
		{"run directory", append([]string{"run", "--target", ok, "--out", run + "\nexec_prerun=touch pwned"}, short...),
			`run directory "` + run + `\nexec_prerun=touch pwned": control character '\n'`},
		{"workload directory", append([]string{"workload", "--target", ok, "--out", run + "\tx"}, wl...), `control character '\t'`},
		{"comment in a target", append([]string{"run", "--target", "file:" + filepath.Join(dir, "s;x.img") + ":1m", "--out", run}, short...),
			"fio reads the rest of a job file line as a comment"},
		{"substitution in a target", append([]string{"workload", "--target", "file:" + filepath.Join(dir, "${HOME}.img") + ":1m"}, wl...),
			"fio replaces ${VAR}"},
		{"comment in the run directory", append([]string{"run", "--target", ok, "--out", run + "#1"}, short...),
			"fio reads the rest of a job file line as a comment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := ptsrun(tc.args...)
			assert.Equal(t, 1, code, stderr)
			assert.Contains(t, stderr, tc.msg)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %q", stderr)
			assert.Empty(t, stdout)
			assert.Empty(t, names(t, dir), "no run directory, no file target")
			assert.Empty(t, names(t, cwd), "nothing run, nothing made")
		})
	}
}
