package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// The reproductions of issue 19's holes in the `ptsrun fio` gate, as the
// red-team review ran them, on loop devices and files that nobody
// confirmed: each is hashed before and after, ptsrun must refuse (exit 4)
// and make nothing. Each failed on ba43517 (the device or file changed, or
// ptsrun ran).

// randomFile writes n random bytes to a new file in dir.
func randomFile(t *testing.T, dir, name string, n int) string {
	t.Helper()
	b := make([]byte, n)
	_, _ = rand.Read(b)
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// randomDevice is a loop device whose first n bytes are random: what a
// read of it puts in a buffer differs from what a zeroed victim holds.
func randomDevice(t *testing.T, size int64, n int) string {
	t.Helper()
	dev := enginetest.LoopDevice(t, size, "")
	b := make([]byte, n)
	_, _ = rand.Read(b)
	f, err := os.OpenFile(dev, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(b)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return dev
}

// jobFile writes a job file into dir.
func jobFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// refusedFio runs ptsrun fio with args and asserts exit 4 with each of
// msgs, and that the run directory was not made.
func refusedFio(t *testing.T, out string, args []string, msgs ...string) {
	t.Helper()
	code, _, stderr := ptsrun(append([]string{"fio", "--out", out}, args...)...)
	assert.Equal(t, 4, code, stderr)
	for _, m := range msgs {
		assert.Contains(t, stderr, m)
	}
	assert.NoDirExists(t, out, "nothing made")
}

// Repro 1: mem=mmapshared:DEV in a read-only job file mapped an
// unconfirmed device as fio's I/O buffer, and the reads wrote its first
// 64 KiB; the same through a fio server; iomem=mmap:FILE truncated a file
// from 100 000 B to 4 096 B.
func TestFioGateRepro1MemMapsAFile(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel()
	work := t.TempDir()
	c := randomDevice(t, 32<<20, 16<<20)
	v := enginetest.LoopDevice(t, 32<<20, "")
	victim := randomFile(t, work, "victim.dat", 100000)
	before, beforeFile := sum(t, v), sum(t, victim)
	job := jobFile(t, work, "mmap.fio", fmt.Sprintf("[r]\nioengine=psync\nbs=64k\nsize=16m\nrw=read\nfilename=%s\nmem=mmapshared:%s\n", c, v))
	refusedFio(t, filepath.Join(work, "o1"), []string{job}, "mmap.fio:7: mem=mmapshared:"+v+": the gate takes mem (iomem) only without a file")
	assert.Equal(t, before, sum(t, v), "the unconfirmed device changed")

	servers := enginetest.FioServers(t, 1)
	refusedFio(t, filepath.Join(work, "o2"), []string{job, "--fio-server", servers[0]}, "mem=mmapshared:"+v)
	assert.Equal(t, before, sum(t, v), "the unconfirmed device changed through the fio server")

	job = jobFile(t, work, "iomem.fio", fmt.Sprintf("[r]\nioengine=psync\nbs=4k\nsize=4k\nrw=read\nfilename=%s\niomem=mmap:%s\n", c, victim))
	refusedFio(t, filepath.Join(work, "o3"), []string{job}, "iomem.fio:7: iomem=mmap:"+victim)
	st, err := os.Stat(victim)
	require.NoError(t, err)
	assert.Equal(t, int64(100000), st.Size())
	assert.Equal(t, beforeFile, sum(t, victim))
}

// Repro 5: fio ran the live job file, not the one the gate read: a second
// job file swapped while the first ran wrote an unconfirmed device. And
// self-contained: a.fio wrote its neighbour b.fio with buffer_pattern.
func TestFioGateRepro5RunsTheCheckedCopy(t *testing.T) {
	enginetest.NeedFio(t)
	t.Parallel()
	work := t.TempDir()
	c := enginetest.LoopDevice(t, 32<<20, "")
	v := enginetest.LoopDevice(t, 32<<20, "")
	before := sum(t, v)
	a := jobFile(t, work, "a.fio", fmt.Sprintf("[a]\nrw=randread\nbs=4k\nfilename=%s\ntime_based=1\nruntime=4\n", c))
	b := jobFile(t, work, "b.fio", fmt.Sprintf("[b]\nrw=write\nbs=64k\nsize=1m\nfilename=%s\n", c))
	dir := filepath.Join(work, "run")
	cmd := exec.Command(binary, "fio", a, b, "--out", dir, "--destroy-data", c)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	// Both job files are read, and their copies saved, before a.fio runs
	// for 4 s: b.fio is swapped then.
	saved := filepath.Join(dir, "fio", "jobs", "02-b.fio")
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(saved); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.FileExists(t, saved)
	require.NoError(t, os.WriteFile(b, []byte(fmt.Sprintf("[b]\nrw=write\nbs=64k\nsize=1m\nfilename=%s\n", v)), 0o644))
	require.NoError(t, cmd.Wait(), stderr.String())
	assert.Equal(t, before, sum(t, v), "the swapped job file wrote the unconfirmed device")
	run, err := os.ReadFile(filepath.Join(dir, fioRunFile))
	require.NoError(t, err)
	assert.Contains(t, string(run), c)
	assert.NotContains(t, string(run), v)

	// a.fio writes b.fio, a job file of the run, with a job of its own.
	text := fmt.Sprintf("[b]\nrw=write\nsize=64k\nfilename=%s\n", v)
	b = jobFile(t, work, "b2.fio", fmt.Sprintf("[b]\nrw=read\nsize=64k\nfilename=%s\n", c))
	beforeB := sum(t, b)
	a = jobFile(t, work, "a2.fio", fmt.Sprintf("[a]\nrw=write\nbs=4k\nsize=4k\nfilename=%s\nbuffer_pattern=0x%s\n", b, hex.EncodeToString([]byte(text))))
	refusedFio(t, filepath.Join(work, "run2"), []string{a, b}, "b2.fio is a file, written by job a", "it is a job file or include file of this run")
	assert.Equal(t, beforeB, sum(t, b))
	assert.Equal(t, before, sum(t, v))
}

// Repro 6: a job created directories and a file anywhere, with contents it
// chose (in /etc/cron.d that is root's code run).
func TestFioGateRepro6NewFileAnywhere(t *testing.T) {
	enginetest.NeedFio(t)
	work, elsewhere := t.TempDir(), t.TempDir()
	target := filepath.Join(elsewhere, "etc", "cron.d", "x")
	cron := "* * * * * root touch " + filepath.Join(elsewhere, "pwned") + "\n"
	job := jobFile(t, work, "cron.fio", fmt.Sprintf("[w]\nrw=write\nbs=4k\nsize=4k\nfilename=%s\nbuffer_pattern=0x%s\n", target, hex.EncodeToString([]byte(cron))))
	refusedFio(t, filepath.Join(work, "run"), []string{job}, target+" is a new file, written by job w",
		"confirm with --destroy-data "+filepath.Dir(target)+" (or a directory above it)")
	assert.NoDirExists(t, filepath.Join(elsewhere, "etc"), "no directory made")
}

// Repro 7: a read job re-laid out an existing 14 B file smaller than its
// size= as 1 MiB, fio run without --readonly because another job created
// a file; fill_device does the same to any file.
func TestFioGateRepro7ReadJobLaysOut(t *testing.T) {
	enginetest.NeedFio(t)
	work, elsewhere := t.TempDir(), t.TempDir()
	victim := filepath.Join(elsewhere, "small.dat")
	require.NoError(t, os.WriteFile(victim, []byte("fourteen bytes"), 0o644))
	before := sum(t, victim)
	job := jobFile(t, work, "small.fio", fmt.Sprintf("[r]\nrw=read\nsize=1m\nfilename=%s\n[c]\nrw=write\nsize=64k\nfilename=%s\n",
		victim, filepath.Join(work, "new.dat")))
	refusedFio(t, filepath.Join(work, "run"), []string{job}, victim+" is a file, written by job r: fio lays it out again: size=1m: "+
		"its I/O ends at byte 1048576, beyond the file's 14 bytes", "confirm with --destroy-data "+victim)
	assert.Equal(t, before, sum(t, victim))
	assert.NoFileExists(t, filepath.Join(work, "new.dat"))

	// fill_device, on a file of a small filesystem of its own.
	enginetest.NeedRoot(t, "mount", "umount")
	small := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", small).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", small).Run() })
	full := randomFile(t, small, "full.dat", 1<<20)
	before = sum(t, full)
	job = jobFile(t, work, "fill.fio", fmt.Sprintf("[r]\nrw=read\nbs=64k\nfill_device=1\nfilename=%s\n[c]\nrw=write\nsize=64k\nfilename=%s\n",
		full, filepath.Join(work, "new.dat")))
	refusedFio(t, filepath.Join(work, "run2"), []string{job}, full+" is a file, written by job r: fill_device=1 fills the files up to the end of their devices")
	assert.Equal(t, before, sum(t, full))
}

// Repro 8: write_*_log=PATH in a read-only job truncated the logs of
// another run directory, and an application's app_lat.log.
func TestFioGateRepro8LogsOutsideTheRunDirectory(t *testing.T) {
	enginetest.NeedFio(t)
	work, other, app := t.TempDir(), t.TempDir(), t.TempDir()
	data := randomFile(t, work, "data.bin", 1<<20)
	logs := filepath.Join(other, "fio", "logs", "01")
	randomFile(t, other, "run.json", 100)
	old := randomFile(t, logs, "ptsrun_lat.1.log", 1000)
	appLog := randomFile(t, app, "app_lat.log", 1000)
	before, beforeApp := sum(t, old), sum(t, appLog)
	job := jobFile(t, work, "logs.fio", fmt.Sprintf("[r]\nrw=read\nsize=64k\nfilename=%s\nwrite_lat_log=%s\nlog_avg_msec=1000\n", data,
		filepath.Join(logs, "ptsrun")))
	refusedFio(t, filepath.Join(work, "run"), []string{job}, old+" is a log the job writes (file): a job's logs go only into the run directory")
	assert.Equal(t, before, sum(t, old))
	job = jobFile(t, work, "app.fio", fmt.Sprintf("[r]\nrw=read\nsize=64k\nfilename=%s\nwrite_lat_log=%s\nper_job_logs=0\n", data,
		filepath.Join(app, "app")))
	refusedFio(t, filepath.Join(work, "run"), []string{job}, appLog+" is a log the job writes")
	assert.Equal(t, beforeApp, sum(t, appLog))
}

// Repro 10: "beside the job file" covered the whole tree below it, and
// hard links passed: a job file in /tmp overwrote /tmp/x/victims/important.dat.
func TestFioGateRepro10BesideMeansTheSameDirectory(t *testing.T) {
	enginetest.NeedFio(t)
	work, elsewhere := t.TempDir(), t.TempDir()
	below := randomFile(t, work, "x/victims/important.dat", 64<<10)
	kept := randomFile(t, elsewhere, "important.dat", 64<<10)
	link := filepath.Join(work, "link.dat")
	require.NoError(t, os.Link(kept, link))
	before, beforeKept := sum(t, below), sum(t, kept)
	job := jobFile(t, work, "tree.fio", fmt.Sprintf("[w]\nrw=write\nbs=4k\nsize=64k\nfilename=%s\n", below))
	refusedFio(t, filepath.Join(work, "run"), []string{job}, below+" is a file, written by job w", "confirm with --destroy-data "+below)
	job = jobFile(t, work, "link.fio", fmt.Sprintf("[w]\nrw=write\nbs=4k\nsize=64k\nfilename=%s\n", link))
	refusedFio(t, filepath.Join(work, "run"), []string{job, "--destroy-data", work}, "it has 2 hard links")
	assert.Equal(t, before, sum(t, below))
	assert.Equal(t, beforeKept, sum(t, kept))
}

// Repro 14: ioscheduler= in a read-only job changed an unconfirmed
// device's scheduler.
func TestFioGateRepro14Scheduler(t *testing.T) {
	enginetest.NeedFio(t)
	dev := enginetest.LoopDevice(t, 32<<20, "")
	sched := filepath.Join("/sys/block", filepath.Base(dev), "queue", "scheduler")
	b, err := os.ReadFile(sched)
	if err != nil {
		t.Skipf("%s: %v", sched, err)
	}
	other := ""
	for _, s := range strings.Fields(string(b)) {
		if !strings.HasPrefix(s, "[") {
			other = s
			break
		}
	}
	if other == "" {
		t.Skipf("%s offers one scheduler: %s", sched, b)
	}
	work := t.TempDir()
	job := jobFile(t, work, "sched.fio", fmt.Sprintf("[r]\nrw=read\nsize=4m\nfilename=%s\nioscheduler=%s\n", dev, other))
	refusedFio(t, filepath.Join(work, "run"), []string{job}, "sched.fio:5: ioscheduler="+other+": changes the I/O scheduler")
	after, err := os.ReadFile(sched)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(after))
}

// Found while breaking the new gate: the kernel takes a ".." after a
// symbolic link from the link's target. jobs/link -> elsewhere/sub made
// jobs/link/../victim look like a new file beside the job file, where fio
// opens elsewhere/victim; a dangling link opened with O_CREAT makes its
// target.
func TestFioGateDotDotAfterALink(t *testing.T) {
	enginetest.NeedFio(t)
	work, elsewhere := t.TempDir(), t.TempDir()
	victim := randomFile(t, elsewhere, "victim", 4096)
	require.NoError(t, os.MkdirAll(filepath.Join(elsewhere, "sub"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(elsewhere, "sub"), filepath.Join(work, "link")))
	require.NoError(t, os.Symlink(filepath.Join(elsewhere, "made-by-fio"), filepath.Join(work, "dangling")))
	before := sum(t, victim)
	job := jobFile(t, work, "dotdot.fio", fmt.Sprintf("[w]\nrw=write\nbs=4k\nsize=4k\nfilename=%s\n[d]\nrw=write\nbs=4k\nsize=4k\nfilename=%s\n",
		work+"/link/../victim", filepath.Join(work, "dangling")))
	refusedFio(t, filepath.Join(work, "run"), []string{job}, "writing overwrites it: confirm with --destroy-data "+victim,
		"fio would make it (and any directory missing above it) outside the run directory and the job file's directory: confirm with --destroy-data "+
			elsewhere+" (or a directory above it)")
	assert.Equal(t, before, sum(t, victim))
	assert.NoFileExists(t, filepath.Join(elsewhere, "made-by-fio"))
}
