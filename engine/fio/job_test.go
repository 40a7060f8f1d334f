package fio

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

	"github.com/ptsrun/ptsrun/engine"
)

func lines(s string) []string { return strings.Split(s, "\n") }

func optionLines(job, option string) []string {
	var out []string
	for _, l := range lines(job) {
		if strings.HasPrefix(l, option+"=") {
			out = append(out, l)
		}
	}
	return out
}

// fio splits filename= at every ':' that has no backslash before it and
// drops that backslash (options.c get_next_str): "\:" is a ':' in the name.
func TestJobFileEscapesColonsInFilename(t *testing.T) {
	for _, tc := range []struct {
		name, path, want string
	}{
		{"plain", "/dev/nvme1n1", `filename=/dev/nvme1n1`},
		{"file with a colon", "/data/a:b.img", `filename=/data/a\:b.img`},
		{"by-path name", "/dev/disk/by-path/pci-0000:00:1f.2-ata-1", `filename=/dev/disk/by-path/pci-0000\:00\:1f.2-ata-1`},
		{"colon at the end", "/data/a:", `filename=/data/a\:`},
		// fio looks only at the character before a ':', and drops one
		// backslash there: "c\\:d" reaches it as "c\:d".
		{"backslash before a colon", `/data/c\:d.img`, `filename=/data/c\\:d.img`},
		{"backslash elsewhere", `/data/x\y.img`, `filename=/data/x\y.img`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := engine.Workload{Access: engine.Random, ReadPct: 0, BlockSize: 4096, TC: 2, QD: 4, ActiveRange: 100, Duration: time.Second}
			ts := []Target{{Name: "t", Path: tc.path, Size: 1 << 20, LogicalBlock: 512}}
			job := JobFile(w, ts, jobSpec{IOEngine: "libaio"})
			assert.Equal(t, []string{tc.want, tc.want}, optionLines(job, "filename"), "one per thread:\n%s", job)
			round := RoundJobFile([]engine.Workload{w, w}, ts, []jobSpec{{IOEngine: "libaio"}, {IOEngine: "libaio"}}, "")
			assert.Equal(t, []string{tc.want, tc.want, tc.want, tc.want}, optionLines(round, "filename"), round)
			for _, plan := range JobFilesFor(w, ts) {
				assert.Equal(t, []string{tc.want, tc.want}, optionLines(plan, "filename"), plan)
			}
		})
	}
}

// The log options take their value as it is (fio 3.x stores it raw): a ':'
// in the run directory stays a ':', an escape would end up in the name.
func TestJobFileLogPathsAsTheyAre(t *testing.T) {
	w := engine.Workload{Access: engine.Random, ReadPct: 50, BlockSize: 4096, TC: 1, QD: 4, ActiveRange: 100, Duration: time.Second}
	ts := []Target{{Name: "t", Path: "/data/a:b.img", Size: 1 << 20, LogicalBlock: 512}}
	job := JobFile(w, ts, jobSpec{IOEngine: "libaio", LogPrefix: "/runs/r:1/fio/c.logs/h0t", IOLog: "/runs/r:1/fio/c.logs/iolog.h0"})
	assert.Equal(t, []string{"write_iops_log=/runs/r:1/fio/c.logs/h0t"}, optionLines(job, "write_iops_log"))
	assert.Equal(t, []string{"write_bw_log=/runs/r:1/fio/c.logs/h0t"}, optionLines(job, "write_bw_log"))
	assert.Equal(t, []string{"write_iolog=/runs/r:1/fio/c.logs/iolog.h0.t0.0"}, optionLines(job, "write_iolog"))
}

// The hold lock's path goes to sh through exec_prerun.
func TestShellQuote(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, s := range []string{"/runs/r 1/fio/c.lock", `/runs/it's "x"/c.lock`, "/runs/`touch pwned`/a b", `/r\n/x`} {
		out, err := exec.Command("sh", "-c", "printf %s "+shellQuote(s)).Output()
		require.NoError(t, err, s)
		assert.Equal(t, s, string(out))
	}
}

func TestCheckPath(t *testing.T) {
	for _, p := range []string{"/dev/nvme0n1", "/data/a:b.img", `/data/x\y.img`, "/data/a b.img", "/runs/r[1]=x,y%d'\"/fio"} {
		assert.NoError(t, CheckPath(p), p)
	}
	for _, tc := range []struct{ path, msg string }{
		{"", "empty path"},
		{"/tmp/xx\nexec_prerun=touch pwned", `control character '\n' at byte 7`},
		{"/tmp/a\tb", `control character '\t'`},
		{"/tmp/a\rb", `control character '\r'`},
		{"/tmp/a\x7fb", `control character '\x7f'`},
		{"/tmp/a\x00b", `control character '\x00'`},
		{"/data/s;x.img", "comment"},
		{"/data/h#x.img", "comment"},
		{"/data/${HOME}.img", "${VAR}"},
		{"/data/$ncpus.img", "keywords"},
		{"/data/a.img ", "blank at the start or end"},
		{" /data/a.img", "blank at the start or end"},
	} {
		err := CheckPath(tc.path)
		if assert.Error(t, err, "%q", tc.path) {
			assert.Contains(t, err.Error(), tc.msg)
		}
	}
}

// With the real fio: the engine's probe and its job files load the named
// file and nothing else, wherever fio and ptsrun run from, and the logs land
// in a run directory whose name holds a ':'.
func TestFioOpensTheNamedFile(t *testing.T) {
	needFio(t)
	for _, name := range []string{"a:b.img", `c\:d.img`, `x\y.img`, "pci-0000:00:1f.2-ata-1", "e:"} {
		t.Run(name, func(t *testing.T) {
			dir, cwd, run := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "run:1")
			t.Chdir(cwd)
			path := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(path, make([]byte, 1<<20), 0o600))
			e, err := Open([]Target{{Name: "file:" + path, Path: path, Size: 1 << 20, LogicalBlock: 512}},
				Options{WorkDir: filepath.Join(run, "fio"), Trace: 10})
			require.NoError(t, err)
			defer e.Close()
			m, err := engine.RunCell(context.Background(), e, engine.Cell{Workload: engine.Workload{Access: engine.Random, ReadPct: 0,
				BlockSize: 4096, TC: 1, QD: 2, ActiveRange: 100, Duration: 1100 * time.Millisecond, Seed: 1}})
			require.NoError(t, err)
			assert.Positive(t, m.Write.IOs)
			assert.NotEmpty(t, m.Seconds, "the per-second logs are read back from %s", run)
			assert.NotEmpty(t, m.Trace, "the I/O log is read back from %s", run)
			assert.Equal(t, []string{name}, entries(t, dir), "only the named file")
			assert.Empty(t, entries(t, cwd), "nothing in the working directory")
		})
	}
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
