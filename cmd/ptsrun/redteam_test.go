package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// A second reader's attack on the gate after issue 19's fixes: each test is
// a way the red-team review made ptsrun write, truncate, create or delete
// what nobody confirmed with --destroy-data, on loop devices and files of
// its own, hashed before and after. They assert what the gate promises
// (exit 4, nothing changed), so each fails for as long as its hole is open.

// listing is every name below dir with its size: what a test compares to
// tell that nothing was made, changed or removed there.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d\n", p, fi.Mode(), fi.Size())
		return nil
	}))
	return b.String()
}

// fioIn runs ptsrun fio in a working directory of its own (fio's too), so
// that nothing a job names relatively lands in the repository.
func fioIn(t *testing.T, args ...string) (int, string) {
	t.Helper()
	return ptsrunIn(t, t.TempDir(), append([]string{"fio"}, args...)...)
}

// An engine that does no I/O (null, cpuio) still deletes its files at
// the end with unlink=1 (filesetup.c close_and_free_files): the gate skips
// the files of such a job altogether (fiojobs/gate.go, "if a.NoIO").
func TestRedTeamNoIOEngineUnlinksAFileNobodyConfirmed(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel()
	for _, tc := range []struct{ name, job string }{
		{"null unlink", "[gone]\nioengine=null\nrw=read\nsize=1m\nfilename=%s\nunlink=1\n"},
		{"null unlink_each_loop", "[gone]\nioengine=null\nrw=randwrite\nsize=1m\nloops=2\nfilename=%s\nunlink_each_loop=1\n"},
		{"cpuio unlink", "[burn]\nioengine=cpuio\ncpuload=10\nruntime=1\ntime_based=1\nfilename=%s\nunlink=1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			victim := randomFile(t, t.TempDir(), "victim.dat", 1<<20)
			before := sum(t, victim)
			job := jobFile(t, t.TempDir(), "job.fio", fmt.Sprintf(tc.job, victim))
			out := filepath.Join(t.TempDir(), "run")
			code, stderr := fioIn(t, job, "--out", out)
			assert.Equal(t, 4, code, stderr)
			require.FileExists(t, victim, "fio deleted the file nobody confirmed")
			assert.Equal(t, before, sum(t, victim))
		})
	}
	t.Run("through a fio server", func(t *testing.T) {
		servers := enginetest.FioServers(t, 1)
		victim := randomFile(t, t.TempDir(), "victim.dat", 1<<20)
		job := jobFile(t, t.TempDir(), "job.fio", fmt.Sprintf("[gone]\nioengine=null\nrw=read\nsize=1m\nfilename=%s\nunlink=1\n", victim))
		code, stderr := fioIn(t, job, "--out", filepath.Join(t.TempDir(), "run"), "--fio-server", servers[0])
		assert.Equal(t, 4, code, stderr)
		assert.FileExists(t, victim, "the fio server deleted the file nobody confirmed")
	})
}

// The gate resolves a path the kernel does not yet see (a directory fio
// will make) by cleaning the rest of it as text (fiojobs/gate.go
// resolve: the missing component's branch), so a ".." after a symbolic
// link behind it is taken from the link, not its target. fio makes the
// directory first (create_work_dirs), then opens the path: the file or
// device is the link target's neighbour, while the gate judged a new file
// beside the job file.
func TestRedTeamMissingDirectoryThenLinkThenDotDot(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel()
	t.Run("a file elsewhere", func(t *testing.T) {
		victims := t.TempDir()
		require.NoError(t, os.Mkdir(filepath.Join(victims, "sub"), 0o755))
		victim := randomFile(t, victims, "victim.dat", 1<<20)
		before := sum(t, victim)
		jobs := t.TempDir()
		require.NoError(t, os.Symlink(filepath.Join(victims, "sub"), filepath.Join(jobs, "l")))
		job := jobFile(t, jobs, "w.fio", fmt.Sprintf("[w]\nrw=write\nbs=64k\nsize=1m\nbuffer_pattern=\"PWNED\"\nfilename=%s/newdir/../l/../victim.dat\n", jobs))
		code, stderr := fioIn(t, job, "--out", filepath.Join(t.TempDir(), "run"))
		assert.Equal(t, 4, code, stderr)
		assert.Equal(t, before, sum(t, victim), "the file nobody confirmed was overwritten")
	})
	t.Run("a block device", func(t *testing.T) {
		// /dev/shm is a directory of /dev: its ".." is /dev, where the
		// device is; create_on_open opens the path as it stands instead of
		// laying it out, and writes the device.
		if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
			t.Skip("needs /dev/shm")
		}
		dev := enginetest.LoopDevice(t, 32<<20, "")
		before := sum(t, dev)
		jobs := t.TempDir()
		require.NoError(t, os.Symlink("/dev/shm", filepath.Join(jobs, "d")))
		job := jobFile(t, jobs, "w.fio", fmt.Sprintf("[w]\nrw=write\nbs=64k\nsize=1m\ncreate_on_open=1\nfilename=%s/newdir/../d/../%s\n",
			jobs, filepath.Base(dev)))
		code, stderr := fioIn(t, job, "--out", filepath.Join(t.TempDir(), "run"))
		assert.Equal(t, 4, code, stderr)
		assert.Equal(t, before, sum(t, dev), "the device nobody confirmed was written")
	})
}

// fio divides a job's size by its nrfiles (filesetup.c setup_files), and
// a job's nrfiles= is read after the files a [global] filename= named:
// each of two 1 MiB files gets size=2m, more than it holds, and fio lays
// it out again (unlinks and rewrites it) for a job that only reads. The
// gate divides by the number of files instead (engine/fio/options.go
// LaysOut, "per := sz / nfiles"). A second job file that writes a file of
// its own takes --readonly away.
func TestRedTeamNrfilesAfterGlobalFilesLaysOutAReadFile(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel()
	victims := t.TempDir()
	a := randomFile(t, victims, "a.dat", 1<<20)
	b := randomFile(t, victims, "b.dat", 1<<20)
	beforeA, beforeB := sum(t, a), sum(t, b)
	jobs := t.TempDir()
	read := jobFile(t, jobs, "read.fio", fmt.Sprintf("[global]\nfilename=%s:%s\n[r]\nrw=read\nsize=2m\nnrfiles=1\n", a, b))
	own := jobFile(t, jobs, "own.fio", fmt.Sprintf("[own]\nrw=write\nsize=64k\nfilename=%s/scratch.dat\n", jobs))
	code, stderr := fioIn(t, read, own, "--out", filepath.Join(t.TempDir(), "run"))
	assert.Equal(t, 4, code, stderr)
	assert.Equal(t, beforeA, sum(t, a), "a file a job only reads was laid out again")
	assert.Equal(t, beforeB, sum(t, b))
}

// A regular file beside the job file is "the job's own" whoever made it:
// here the image of a mounted ext4 (docs/targets.md refuses a mounted device
// whatever the flags say, but not the file under it), written without
// --destroy-data, and the filesystem no longer mounts.
func TestRedTeamImageOfAMountedFilesystemBesideTheJobFile(t *testing.T) {
	enginetest.NeedFio(t)
	need(t, "losetup", "mkfs.ext4", "mount", "umount")
	t.Parallel()
	dir := t.TempDir()
	img := filepath.Join(dir, "fs.img")
	require.NoError(t, os.WriteFile(img, nil, 0o644))
	require.NoError(t, os.Truncate(img, 32<<20))
	sh(t, "mkfs.ext4", "-q", img)
	out, err := exec.Command("losetup", "-f", "--show", img).CombinedOutput()
	require.NoError(t, err, string(out))
	dev := strings.TrimSpace(string(out))
	mnt := t.TempDir()
	sh(t, "mount", dev, mnt)
	t.Cleanup(func() {
		exec.Command("umount", mnt).Run()
		exec.Command("losetup", "-d", dev).Run()
	})
	freeze(t, mnt)
	before := sum(t, img)
	job := jobFile(t, dir, "bench.fio", fmt.Sprintf("[seq-write]\nrw=write\nbs=1m\nsize=4m\nfilename=%s\n", img))
	code, stderr := fioIn(t, job, "--out", filepath.Join(t.TempDir(), "run"))
	assert.Equal(t, 4, code, stderr)
	assert.Equal(t, before, sum(t, img), "the image of a mounted filesystem was overwritten")
}

// Through fio servers the gate never counts a file a job only reads as
// laid out (it cannot see it), and fio runs without --readonly: a read job
// rewrites an existing file smaller than its size=, and makes a missing
// one, directories and all, filled with its buffer_pattern (a cron line).
func TestRedTeamFioServerReadJobLaysOut(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel()
	servers := enginetest.FioServers(t, 1)
	t.Run("an existing file", func(t *testing.T) {
		victim := randomFile(t, t.TempDir(), "app.dat", 100000)
		before := sum(t, victim)
		job := jobFile(t, t.TempDir(), "r.fio", fmt.Sprintf("[r]\nrw=read\nbs=4k\nsize=1m\nfilename=%s\n", victim))
		code, stderr := fioIn(t, job, "--out", filepath.Join(t.TempDir(), "run"), "--fio-server", servers[0])
		assert.Equal(t, 4, code, stderr)
		assert.Equal(t, before, sum(t, victim), "a read job through the fio server rewrote the file")
	})
	t.Run("a new file with chosen contents", func(t *testing.T) {
		line := "* * * * * root touch /tmp/PWNED\n"
		target := filepath.Join(t.TempDir(), "cron.d", "pwn")
		job := jobFile(t, t.TempDir(), "r.fio", fmt.Sprintf("[r]\nrw=read\nbs=%d\nsize=%d\nbuffer_pattern=0x%s\nfilename=%s\n",
			len(line), len(line), hex.EncodeToString([]byte(line)), target))
		code, stderr := fioIn(t, job, "--out", filepath.Join(t.TempDir(), "run"), "--fio-server", servers[0])
		assert.Equal(t, 4, code, stderr)
		absent(t, filepath.Dir(target))
	})
}

// A file of the job's own, judged at the gate, is swapped for a link to a
// device while an earlier job file runs: fio follows the link, and no
// hold covers it (only block devices the gate saw are held).
func TestRedTeamFileSwappedBetweenGateAndRun(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel()
	dev := enginetest.LoopDevice(t, 32<<20, "")
	before := sum(t, dev)
	jobs := t.TempDir()
	input := randomFile(t, jobs, "input.dat", 1<<20)
	scratch := randomFile(t, jobs, "scratch.dat", 1<<20)
	slow := jobFile(t, jobs, "1-slow.fio", fmt.Sprintf("[slow]\nrw=read\nbs=4k\nsize=1m\ntime_based=1\nruntime=4\nfilename=%s\n", input))
	write := jobFile(t, jobs, "2-write.fio", fmt.Sprintf("[w]\nrw=write\nbs=64k\nsize=1m\nfilename=%s\n", scratch))
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(binary, "fio", slow, write, "--out", dir)
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// The gate has judged both job files once their copies are saved; the
	// first then runs for 4 s.
	waitFile(t, filepath.Join(dir, "fio", "jobs", "02-2-write.fio"), exited, &stderr)
	require.NoError(t, os.Remove(scratch))
	require.NoError(t, os.Symlink(dev, scratch))
	<-exited
	assert.Equal(t, before, sum(t, dev), "the device nobody confirmed was written: %s", stderr.String())
}

// waitFile waits until path exists, or the command ends.
func waitFile(t *testing.T, path string, exited chan error, stderr *bytes.Buffer) {
	t.Helper()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("ptsrun ended (%v) before %s appeared: %s", err, path, stderr)
		default:
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// resume writes the members of a run directory through symbolic links
// planted in it: journal.jsonl (pts/journal.go OpenJournal, O_RDWR|O_CREATE
// following links, and a last line without its newline is truncated away:
// a one-line file is emptied) and fio/ (engine/fio/fio.go writes job
// files, logs and fio's output there). The one resuming named only the
// device.
func TestRedTeamResumeWritesThroughLinksInTheRunDirectory(t *testing.T) {
	need(t, "losetup")
	enginetest.NeedFio(t)
	t.Parallel()
	dev := enginetest.LoopDevice(t, 64<<20, "")
	run := filepath.Join(t.TempDir(), "run")
	args := []string{"--target", dev, "--destroy-data", dev, "--purge", "none", "--tests", "lat", "--cell-time", "1s", "--engine", "fio"}
	interrupted(t, run, args...)

	t.Run("journal", func(t *testing.T) {
		copied := filepath.Join(t.TempDir(), "run")
		sh(t, "cp", "-a", run, copied)
		victim := filepath.Join(t.TempDir(), "settings.json")
		require.NoError(t, os.WriteFile(victim, []byte(`{"api_token":"s3cr3t"}`), 0o600))
		require.NoError(t, os.Remove(filepath.Join(copied, "journal.jsonl")))
		require.NoError(t, os.Symlink(victim, filepath.Join(copied, "journal.jsonl")))
		resumeBriefly(t, copied, dev)
		b, err := os.ReadFile(victim)
		require.NoError(t, err)
		assert.Equal(t, `{"api_token":"s3cr3t"}`, string(b), "resume wrote the file journal.jsonl links to")
	})
	t.Run("fio directory", func(t *testing.T) {
		copied := filepath.Join(t.TempDir(), "run")
		sh(t, "cp", "-a", run, copied)
		other := filepath.Join(t.TempDir(), "other")
		require.NoError(t, os.Rename(filepath.Join(copied, "fio"), other))
		require.NoError(t, os.Symlink(other, filepath.Join(copied, "fio")))
		before := listing(t, other)
		resumeBriefly(t, copied, dev)
		assert.Equal(t, before, listing(t, other), "resume wrote into the directory fio/ links to")
	})
}

// resumeBriefly resumes dir on dev and stops it once it has run a little.
func resumeBriefly(t *testing.T, dir, dev string) {
	t.Helper()
	cmd := exec.Command(binary, "resume", dir, "--destroy-data", dev)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for !strings.Contains(stderr.String(), "round") {
		select {
		case <-exited:
			return
		default:
			time.Sleep(10 * time.Millisecond)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	<-exited
}

// A device whose content is mounted through a loop device stacked on it
// (losetup over the device, or over a file), is not seen as mounted: the
// loop driver is no holder and claims nothing exclusively, so neither the
// gate's check nor O_EXCL stops the write, and the filesystem is lost.
// docs/targets.md: a mounted device "is refused whatever the flags say".
func TestRedTeamFilesystemMountedThroughAStackedLoop(t *testing.T) {
	need(t, "losetup", "mkfs.ext4", "mount", "umount", "fsfreeze")
	t.Parallel()
	stacked := func(t *testing.T, backing string) {
		t.Helper()
		out, err := exec.Command("losetup", "-f", "--show", backing).CombinedOutput()
		require.NoError(t, err, string(out))
		loop := strings.TrimSpace(string(out))
		t.Cleanup(func() { exec.Command("losetup", "-d", loop).Run() })
		sh(t, "mkfs.ext4", "-q", loop)
		mnt := t.TempDir()
		sh(t, "mount", loop, mnt)
		t.Cleanup(func() { exec.Command("umount", mnt).Run() })
		freeze(t, mnt)
	}
	t.Run("loop over the device", func(t *testing.T) {
		dev := enginetest.LoopDevice(t, 32<<20, "")
		stacked(t, dev)
		before := sum(t, dev)
		code, stderr := ptsrunIn(t, t.TempDir(), "workload", "--target", dev, "--destroy-data", dev, "--engine", "native",
			"--access", "seq", "--read", "0", "--bs", "1m", "--tc", "1", "--qd", "1", "--time", "1s")
		assert.Equal(t, 4, code, stderr)
		assert.Equal(t, before, sum(t, dev), "the device under a mounted filesystem was written")
	})
	t.Run("loop over the file", func(t *testing.T) {
		img := enginetest.TempFile(t, 32<<20)
		stacked(t, img)
		before := sum(t, img)
		code, stderr := ptsrunIn(t, t.TempDir(), "workload", "--target", "file:"+img, "--destroy-data", img, "--engine", "native",
			"--access", "seq", "--read", "0", "--bs", "1m", "--tc", "1", "--qd", "1", "--time", "1s")
		assert.Equal(t, 4, code, stderr)
		assert.Equal(t, before, sum(t, img), "the image of a mounted filesystem was written")
	})
}

// --out may name an empty directory someone else owns (or one under a
// directory others may write): ptsrun takes it, then reaches everything in
// it by path. While the first job file runs, its owner renames ptsrun's
// tree away and puts up one of their own: the copies of the job files
// again, links to what ptsrun reads back of the first (fio's output and
// logs), and fio's --output of the second a link to a file only root may
// write; root's fio writes its JSON there. The test plays that owner
// (nobody) as root.
func TestRedTeamOutOwnedBySomeoneElse(t *testing.T) {
	enginetest.NeedFio(t)
	need(t)
	t.Parallel()
	jobs := t.TempDir()
	input := randomFile(t, jobs, "in.dat", 1<<20)
	a := jobFile(t, jobs, "a.fio", fmt.Sprintf("[slow]\nrw=read\nbs=4k\nsize=1m\ntime_based=1\nruntime=3\nfilename=%s\n", input))
	b := jobFile(t, jobs, "b.fio", fmt.Sprintf("[quick]\nrw=read\nbs=4k\nsize=1m\nfilename=%s\n", input))
	victim := randomFile(t, t.TempDir(), "root-only.dat", 4096)
	require.NoError(t, os.Chmod(victim, 0o600))
	before := sum(t, victim)
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Chown(dir, 65534, 65534)) // nobody's: empty, so ptsrun takes it
	old := dir + ".orig"
	swapped := make(chan error, 1)
	done := make(chan struct{}) // ptsrun has ended: nothing more to swap
	go func() {
		// fio has opened the first job file's output: it runs.
		for {
			if _, err := os.Stat(filepath.Join(dir, "fio", "01-a.fio.json")); err == nil {
				break
			}
			select {
			case <-done:
				swapped <- nil
				return
			case <-time.After(time.Millisecond):
			}
		}
		swapped <- func() error {
			if err := os.Rename(dir, old); err != nil {
				return err
			}
			for _, s := range []string{"fio/jobs", "fio/logs", "fio/aux"} {
				if err := os.MkdirAll(filepath.Join(dir, s), 0o755); err != nil {
					return err
				}
			}
			for _, n := range []string{"01-a.fio", "02-b.fio"} {
				data, err := os.ReadFile(filepath.Join(old, "fio", "jobs", n))
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, "fio", "jobs", n), data, 0o444); err != nil {
					return err
				}
			}
			for _, l := range [][2]string{{old + "/fio/01-a.fio.json", "fio/01-a.fio.json"}, {old + "/fio/logs/01", "fio/logs/01"},
				{victim, "fio/02-b.fio.json"}} {
				if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
					return err
				}
			}
			return nil
		}()
	}()
	code, stderr := fioIn(t, a, b, "--out", dir)
	close(done)
	require.NoError(t, <-swapped)
	assert.Equal(t, before, sum(t, victim), "root's fio wrote through a link in a run directory someone else owns (exit %d): %s", code, stderr)
	// Refused before anything ran or was made (the swap above never
	// happens then: ptsrun writes nothing there to swap).
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, dir+" is owned by nobody (uid 65534), not by you or root")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}
