package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/confine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// A third reader's attack on the gate after 9aae388: more ways ptsrun
// wrote, truncated, created or deleted what nobody confirmed with
// --destroy-data, on loop devices and files of the test's own, hashed
// before and after. Like redteam_test.go, each asserts what the gate
// promises (exit 4, nothing changed), so it fails while its hole is open.

// fio keeps a percentage offset when a later offset= gives bytes
// (options.c str_offset_cb sets start_offset and leaves
// start_offset_percent, which get_start_offset then prefers), so a read
// job's I/O starts half way into the file and ends beyond it: fio lays the
// file out again (truncates and rewrites it). The gate reads the last
// offset= only (engine/fio/options.go LaysOut, bytes("offset")). A second
// job in the same job file that writes a file of its own takes --readonly
// away, as a [global] default overridden by a job is an everyday job file.
func TestRedTeam2PercentOffsetOutlivesItsOverride(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel()
	for _, tc := range []struct{ name, job string }{
		{"in one section", "[r]\nrw=read\nbs=4k\nsize=1m\noffset=50%%\noffset=0\nfilename=%s\n"},
		{"a global default overridden", "[global]\noffset=50%%\n[r]\nrw=read\nbs=4k\nsize=1m\noffset=0\nfilename=%s\n"},
		{"offset_increment", "[global]\noffset_increment=50%%\n[r]\nrw=read\nbs=4k\nsize=1m\nnumjobs=2\noffset_increment=0\nfilename=%s\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			victim := randomFile(t, t.TempDir(), "app.dat", 1<<20)
			before := sum(t, victim)
			jobs := t.TempDir()
			job := jobFile(t, jobs, "job.fio", fmt.Sprintf(tc.job, victim)+
				fmt.Sprintf("[own]\nrw=write\nbs=4k\nsize=64k\nfilename=%s/scratch.dat\n", jobs))
			code, stderr := fioIn(t, job, "--out", filepath.Join(t.TempDir(), "run"))
			assert.Equal(t, 4, code, stderr)
			assert.Equal(t, before, sum(t, victim), "a file a job only reads was laid out again")
		})
	}
}

// fio aligns a percentage offset up to the job's smallest block size
// (filesetup.c get_start_offset, td_min_bs); the gate aligns it to the
// largest it sees, at least 4 KiB (engine/fio/options.go LaysOut,
// maxBlockSize). Rounding up to a larger block is not rounding up further
// when one is not a multiple of the other: with bs=3000, 5 % of a file of
// 120 020 bytes is 6 001, which fio puts at 9 000 and the gate at 8 192.
// The gate sees the read end at 119 692, inside the file; fio ends it at
// 120 500, and lays the file out again.
func TestRedTeam2OffsetAlignedToTheSmallestBlockSize(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel()
	victim := randomFile(t, t.TempDir(), "app.dat", 120020)
	before := sum(t, victim)
	jobs := t.TempDir()
	job := jobFile(t, jobs, "job.fio", fmt.Sprintf("[r]\nrw=read\nbs=3000\nsize=111500\noffset=5%%\nfilename=%s\n"+
		"[own]\nrw=write\nbs=4k\nsize=64k\nfilename=%s/scratch.dat\n", victim, jobs))
	code, stderr := fioIn(t, job, "--out", filepath.Join(t.TempDir(), "run"))
	assert.Equal(t, 4, code, stderr)
	assert.Equal(t, before, sum(t, victim), "a file a job only reads was laid out again")
}

// The gate judges the job files again before each one runs
// (fiojobs/run.go Jobs.Run), but fio opens a job's files when
// the job starts, which within one job file is much later: after the
// stonewalled jobs before it, or after its startdelay. A file of the
// job's own swapped meanwhile for a link to a file elsewhere is followed
// (a link to a device too, once fio has sized the file: its setup stats it
// first, and lays a device's 0 bytes out as a new file), and fio-run.json
// names the job's file.
func TestRedTeam2FileSwappedWithinAJobFile(t *testing.T) {
	enginetest.NeedFio(t)
	if confine.ABI() == 0 {
		t.Skip("needs a kernel with Landlock: without it fio runs unconfined and this hole stays open (docs/fio.md)")
	}
	t.Parallel()
	for _, tc := range []struct{ name, job string }{
		{"after a stonewall", "[slow]\nrw=read\nbs=4k\nsize=1m\ntime_based=1\nruntime=4\nfilename=%[1]s/input.dat\n" +
			"[w]\nstonewall\nrw=write\nbs=64k\nsize=1m\nfilename=%[1]s/scratch.dat\n"},
		{"after a startdelay", "[w]\nstartdelay=4\nrw=write\nbs=64k\nsize=1m\nfilename=%[1]s/scratch.dat\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			victim := randomFile(t, t.TempDir(), "important.dat", 1<<20)
			before := sum(t, victim)
			jobs := t.TempDir()
			randomFile(t, jobs, "input.dat", 1<<20)
			scratch := randomFile(t, jobs, "scratch.dat", 1<<20)
			job := jobFile(t, jobs, "job.fio", fmt.Sprintf(tc.job, jobs))
			dir := filepath.Join(t.TempDir(), "run")
			cmd := exec.Command(binary, "fio", job, "--out", dir)
			cmd.Dir = t.TempDir()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// fio has started (it opens its --output first), so the gate's
			// second judging is over; the writing job opens its file seconds
			// later.
			waitFile(t, filepath.Join(dir, "fio", "01-job.fio.json"), exited, &stderr)
			require.NoError(t, os.Remove(scratch))
			require.NoError(t, os.Symlink(victim, scratch))
			<-exited
			assert.Equal(t, before, sum(t, victim), "the file nobody confirmed was overwritten: %s", stderr.String())
		})
	}
}

// A file bind-mounted beside the job file is another name of a file
// elsewhere, as a hard link is; the gate refuses a file with more than one
// link (fiojobs/gate.go judge, "t.stat.Links != 1") but takes a bind
// mount for the job's own file, and fio overwrites the file elsewhere.
func TestRedTeam2BindMountedFileBesideTheJobFile(t *testing.T) {
	enginetest.NeedFio(t)
	need(t, "mount", "umount")
	t.Parallel()
	victim := randomFile(t, t.TempDir(), "important.dat", 1<<20)
	before := sum(t, victim)
	jobs := t.TempDir()
	scratch := filepath.Join(jobs, "scratch.dat")
	require.NoError(t, os.WriteFile(scratch, nil, 0o644))
	sh(t, "mount", "--bind", victim, scratch)
	t.Cleanup(func() { _ = exec.Command("umount", scratch).Run() })
	job := jobFile(t, jobs, "job.fio", fmt.Sprintf("[w]\nrw=write\nbs=64k\nsize=1m\nfilename=%s\n", scratch))
	code, stderr := fioIn(t, job, "--out", filepath.Join(t.TempDir(), "run"))
	assert.Equal(t, 4, code, stderr)
	assert.Equal(t, before, sum(t, victim), "the file bind-mounted beside the job file was overwritten")
}

// A bare write_bw_log (no value) keeps the file an earlier write_bw_log
// named (options.c str_write_bw_log_cb sets bw_log_file only when given a
// value), but the gate takes the job's name for its prefix
// (engine/fio/userlogs.go logName, "!o.HasValue"): with name= a path in
// DIR, it judges a log in DIR, and fio truncates and rewrites an
// application's log elsewhere, in a job file that only reads (fio's
// --readonly does not cover logs). The same for write_lat_log,
// write_iops_log and write_hist_log.
func TestRedTeam2BareLogOptionKeepsTheEarlierFile(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel()
	for _, opt := range []string{"write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log"} {
		t.Run(opt, func(t *testing.T) {
			logs := t.TempDir()
			kind := map[string]string{"write_bw_log": "bw", "write_iops_log": "iops", "write_lat_log": "lat", "write_hist_log": "clat_hist"}[opt]
			victim := filepath.Join(logs, "app_"+kind+".1.log")
			require.NoError(t, os.WriteFile(victim, []byte("the application's own log\n"), 0o644))
			before := sum(t, victim)
			input := randomFile(t, t.TempDir(), "in.dat", 1<<20)
			out := filepath.Join(t.TempDir(), "run")
			job := jobFile(t, t.TempDir(), "job.fio", fmt.Sprintf("[global]\n%[1]s=%[2]s/app\n[r]\nname=%[3]s/mine\n%[1]s\nrw=read\nbs=4k\nsize=1m\nfilename=%[4]s\n",
				opt, logs, out, input))
			code, stderr := fioIn(t, job, "--out", out)
			assert.Equal(t, 4, code, stderr)
			assert.Equal(t, before, sum(t, victim), "an application's log outside DIR was truncated")
		})
	}
}
