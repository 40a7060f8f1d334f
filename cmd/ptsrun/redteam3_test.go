package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/confine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// A fourth reader's attack on the Landlock confinement of 856fc4d: the
// gate judges names, and Landlock was to hold fio to what it judged when a
// name is swapped after the judging. But a directory rule
// (fiojobs/confine.go confineRules) grants everything below the
// directory, whatever inode a name there leads to, so each test below
// swaps a name the gate judged, after fio has started, for a name that
// leads to a file or device nobody confirmed, and fio writes it. Like
// redteam_test.go, each asserts what the gate promises (nothing changed),
// so it fails while its hole is open.

// needLandlock skips where fio runs unconfined: there these swaps are
// known to pass (docs/fio.md), and the holes are Landlock's.
func needLandlock(t *testing.T) {
	t.Helper()
	if confine.ABI() == 0 {
		t.Skip("needs a kernel with Landlock: without it fio runs unconfined and the swap is known to pass (docs/fio.md)")
	}
}

// swapWhileRunning starts ptsrun with args in a working directory of its
// own, waits until ready says fio has judged-and-started (and not yet
// opened the job's file), runs swap, and waits for ptsrun to end. It
// returns ptsrun's stderr.
func swapWhileRunning(t *testing.T, ready func() bool, swap func(), args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = t.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for !ready() {
		select {
		case err := <-exited:
			t.Fatalf("ptsrun ended (%v) before the swap: %s", err, stderr.String())
		default:
			time.Sleep(10 * time.Millisecond)
		}
	}
	swap()
	<-exited
	return stderr.String()
}

// A file beside the job file is the job's own, and confineRules grants
// its whole directory (Rule{Dir: true} on filepath.Dir). Landlock judges
// the path fio opens, not the inode it reaches: a hard link placed in that
// directory, to a file elsewhere on the same file system, is beneath the
// rule. The gate refuses a file with more than one link (fiojobs/gate.go
// judge, "t.stat.Links != 1"), but it judged before the link was made;
// fio overwrites the file elsewhere, and fio-run.json names the job's file.
func TestRedTeam3HardLinkSwappedInBesideTheJobFile(t *testing.T) {
	enginetest.NeedFio(t)
	needLandlock(t)
	t.Parallel()
	victim := randomFile(t, t.TempDir(), "important.dat", 1<<20)
	before := sum(t, victim)
	jobs := t.TempDir()
	scratch := randomFile(t, jobs, "scratch.dat", 1<<20)
	job := jobFile(t, jobs, "job.fio", fmt.Sprintf("[w]\nstartdelay=4\nrw=write\nbs=64k\nsize=1m\nfilename=%s\n", scratch))
	dir := filepath.Join(t.TempDir(), "run")
	stderr := swapWhileRunning(t, func() bool { _, err := os.Stat(filepath.Join(dir, "fio", "01-job.fio.json")); return err == nil },
		func() {
			require.NoError(t, os.Remove(scratch))
			require.NoError(t, os.Link(victim, scratch))
		}, "fio", job, "--out", dir)
	assert.Equal(t, before, sum(t, victim), "the file nobody confirmed was overwritten through a hard link: %s", stderr)
}

// "Beside the job file" is its directory, not the tree below it: the gate
// refuses a file in a subdirectory without --destroy-data (issue 19, item
// 10; checked first below). confineRules grants fio the whole tree
// (Landlock's rules are path-beneath), so the job's own file swapped for a
// symbolic link to a file in a subdirectory is written.
func TestRedTeam3SymlinkSwappedIntoASubdirectoryOfTheJobFile(t *testing.T) {
	enginetest.NeedFio(t)
	needLandlock(t)
	t.Parallel()
	jobs := t.TempDir()
	victim := randomFile(t, filepath.Join(jobs, "archive"), "important.dat", 1<<20)
	before := sum(t, victim)
	direct := jobFile(t, jobs, "direct.fio", fmt.Sprintf("[w]\nrw=write\nbs=64k\nsize=1m\nfilename=%s\n", victim))
	code, stderr := fioIn(t, direct, "--out", filepath.Join(t.TempDir(), "run"))
	require.Equal(t, 4, code, "the gate takes a file below the job file's directory for its own: %s", stderr)
	scratch := randomFile(t, jobs, "scratch.dat", 1<<20)
	job := jobFile(t, jobs, "job.fio", fmt.Sprintf("[w]\nstartdelay=4\nrw=write\nbs=64k\nsize=1m\nfilename=%s\n", scratch))
	dir := filepath.Join(t.TempDir(), "run")
	stderr = swapWhileRunning(t, func() bool { _, err := os.Stat(filepath.Join(dir, "fio", "01-job.fio.json")); return err == nil },
		func() {
			require.NoError(t, os.Remove(scratch))
			require.NoError(t, os.Symlink(victim, scratch))
		}, "fio", job, "--out", dir)
	assert.Equal(t, before, sum(t, victim), "a file below the job file's directory, which the gate refuses, was overwritten: %s", stderr)
}

// A new file that --destroy-data names exactly confirms that file only,
// but confineRules grants fio the nearest directory above it that exists
// (Rule{Path: existingAbove(t.Path), Dir: true}): its neighbours, and the
// whole file system when the file's directory is new at / (fio-run.json
// says "fio writes nothing but DIR, / and /dev/null"). fio lays the new
// file out before the job's startdelay and opens it again by name when
// the job starts: swapped for a link meanwhile, it leads to a file beside
// it or to a device nobody confirmed, and fio writes that.
func TestRedTeam3NewFileConfirmedGrantsTheDirectoryAboveIt(t *testing.T) {
	enginetest.NeedFio(t)
	needLandlock(t)
	t.Parallel()
	const job = "[w]\nstartdelay=4\nrw=write\nbs=64k\nsize=1m\nfilename=%s\n"
	t.Run("its neighbour", func(t *testing.T) {
		victims := t.TempDir()
		victim := randomFile(t, victims, "important.dat", 1<<20)
		before := sum(t, victim)
		made := filepath.Join(victims, "new.dat")
		jf := jobFile(t, t.TempDir(), "job.fio", fmt.Sprintf(job, made))
		// Fixed: a new file's name alone no longer confirms it (fio needs
		// its directory, and that is more than was named): refused, exit 4.
		code, stderr := fioIn(t, jf, "--out", filepath.Join(t.TempDir(), "run"), "--destroy-data", made)
		assert.Equal(t, 4, code, stderr)
		assert.Contains(t, stderr, "confirm the directory it goes in (--destroy-data "+victims+": everything in it may be written)")
		assert.Equal(t, before, sum(t, victim), "the new file's neighbour, which nobody confirmed, was overwritten: %s", stderr)
		assert.NoFileExists(t, made)
	})
	t.Run("a device, the directory new at /", func(t *testing.T) {
		dev := randomDevice(t, 32<<20, 1<<20)
		before := sum(t, dev)
		top := fmt.Sprintf("/ptsrun-redteam3-%d", time.Now().UnixNano())
		t.Cleanup(func() { os.RemoveAll(top) })
		made := filepath.Join(top, "new.dat")
		jf := jobFile(t, t.TempDir(), "job.fio", fmt.Sprintf(job, made))
		code, stderr := fioIn(t, jf, "--out", filepath.Join(t.TempDir(), "run"), "--destroy-data", made)
		assert.Equal(t, 4, code, stderr)
		assert.Equal(t, before, sum(t, dev), "the device nobody confirmed was written: %s", stderr)
		assert.NoDirExists(t, top)
	})
}

// The directory rule of a job's own file is safe only where no other user
// can swap a name in it while fio runs (same user or root could write the
// victim directly anyway): a job file's directory another user can change
// makes no file the job's own.
func TestRedTeam3JobDirectoryOthersCanChangeIsNotTheJobs(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel()
	jobs := t.TempDir()
	require.NoError(t, os.Chmod(jobs, 0o777))
	job := jobFile(t, jobs, "job.fio", fmt.Sprintf("[w]\nrw=write\nbs=64k\nsize=1m\nfilename=%s/new.dat\n", jobs))
	code, stderr := fioIn(t, job, "--out", filepath.Join(t.TempDir(), "run"))
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, "it is not the job's own beside the job file")
	assert.NoFileExists(t, filepath.Join(jobs, "new.dat"))
}
