package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	"golang.org/x/sys/unix"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The tests of issue 19's reproductions outside fio job files: each
// hashes what nobody confirmed before and after, and asserts the exit
// code and that nothing was made.

// ptsrunIn runs the ptsrun binary in dir and returns its exit code and
// stderr. A run that should have been refused and is not would go on
// for long: it is killed after a while, and the test fails on its code.
func ptsrunIn(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	var e bytes.Buffer
	cmd.Stderr = &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), e.String()
	}
	require.NoError(t, err)
	return 0, e.String()
}

// victimFile makes a file of size bytes of random data in dir, on a
// filesystem that does direct I/O, under a name no other test uses.
func victimFile(t *testing.T, dir string, size int64) string {
	t.Helper()
	name := fmt.Sprintf("ptsrun-victim-%d.img", time.Now().UnixNano())
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + i>>12)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	t.Cleanup(func() { os.Remove("/" + name) }) // where the old gate made it
	return name
}

func absent(t *testing.T, path string) {
	t.Helper()
	_, err := os.Lstat(path)
	assert.ErrorIs(t, err, os.ErrNotExist, "%s was made", path)
}

// Item 2: a relative file: target and a relative vdbench lun= are checked
// where they are written, against the working directory: an existing
// file there needs --destroy-data (exit 4), and nothing is made at /PATH.
func TestRelativePathsAreCheckedWhereTheyAreWritten(t *testing.T) {
	t.Run("file target", func(t *testing.T) {
		cwd := t.TempDir() // /tmp: a disk filesystem, direct I/O
		name := victimFile(t, cwd, 64<<20)
		victim := filepath.Join(cwd, name)
		before := sum(t, victim)
		code, stderr := ptsrunIn(t, cwd, "run", "--target", "file:"+name+":64M", "--purge", "none", "--tests", "lat",
			"--cell-time", "1s", "--out", "run")
		assert.Equal(t, 4, code, stderr)
		assert.Contains(t, stderr, "writing to file:"+victim+":64M destroys its data: confirm with --destroy-data "+victim)
		assert.Equal(t, before, sum(t, victim), "the file nobody confirmed changed")
		absent(t, "/"+name)
		absent(t, filepath.Join(cwd, "run"))

		// A relative --destroy-data names it, read against the same directory.
		code, stderr = ptsrunIn(t, cwd, "plan", "--target", "file:"+name+":64M", "--tests", "lat", "--destroy-data", name)
		assert.Equal(t, 0, code, stderr)
		absent(t, "/"+name)
	})
	t.Run("vdbench lun", func(t *testing.T) {
		cwd := t.TempDir()
		name := victimFile(t, cwd, 64<<20)
		victim := filepath.Join(cwd, name)
		before := sum(t, victim)
		require.NoError(t, os.WriteFile(filepath.Join(cwd, "w.parm"), []byte("sd=sd1,lun="+name+",size=64m,openflags=o_direct\n"+
			"wd=w,sd=sd1,xfersize=4k,rdpct=0\nrd=r,wd=w,iorate=max,elapsed=2\n"), 0o644))
		code, stderr := ptsrunIn(t, cwd, "workload", "--vdbench", "w.parm", "--out", "vd")
		assert.Equal(t, 4, code, stderr)
		assert.Contains(t, stderr, "confirm with --destroy-data "+victim)
		assert.Equal(t, before, sum(t, victim), "the file nobody confirmed changed")
		absent(t, "/"+name)
		absent(t, filepath.Join(cwd, "vd"))
	})
}

// interrupted starts `ptsrun run args... --out dir` and stops it with
// SIGINT once a round has started: a run that resume continues.
func interrupted(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(binary, append(append([]string{"run"}, args...), "--out", dir)...)
	var e bytes.Buffer
	cmd.Stderr = &e
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	waitJournal(t, dir, `"round_start"`, exited, &e)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := <-exited
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, e.String())
	require.Equal(t, 130, ee.ExitCode(), e.String())
}

// waitJournal waits until dir's journal holds what, or the run ends.
func waitJournal(t *testing.T, dir, what string, exited chan error, stderr *bytes.Buffer) {
	t.Helper()
	for {
		if b, _ := os.ReadFile(filepath.Join(dir, pts.JournalFile)); bytes.Contains(b, []byte(what)) {
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("the run ended (%v) before its journal held %s: %s", err, what, stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// editRunInfo changes dir's run.json with edit, as someone with the
// directory could.
func editRunInfo(t *testing.T, dir string, edit func(ri map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, pts.RunFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var ri map[string]any
	require.NoError(t, json.Unmarshal(b, &ri))
	edit(ri)
	b, err = json.Marshal(ri)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// identityJSON is how run.json records a target's identity now.
func identityJSON(t *testing.T, dev string) any {
	t.Helper()
	tg, err := device.Live.Inspect(device.Spec{Raw: dev, Kind: device.KindBlock, Path: dev})
	require.NoError(t, err)
	b, err := json.Marshal(tg.Identity)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	return v
}

// Item 4: resume confirms again. A copy of a run directory, its targets,
// identity and destroy_data edited to another device, made resume write
// that device: the person resuming confirmed nothing. Now run.json's
// confirmations are not theirs: resume asks for --destroy-data naming
// every target it writes.
func TestResumeAsksForTheConfirmationAgain(t *testing.T) {
	t.Parallel()
	need(t, "losetup")
	own := enginetest.LoopDevice(t, 64<<20, "")
	victim := enginetest.LoopDevice(t, 64<<20, "")
	dir := filepath.Join(t.TempDir(), "run")
	interrupted(t, dir, "--target", own, "--destroy-data", own, "--purge", "none", "--tests", "lat", "--cell-time", "1s")

	copied := filepath.Join(t.TempDir(), "copy")
	require.NoError(t, exec.Command("cp", "-a", dir, copied).Run())
	editRunInfo(t, copied, func(ri map[string]any) {
		cfg := ri["config"].(map[string]any)
		cfg["targets"] = []string{victim}
		cfg["destroy_data"] = []string{victim}
		ri["targets"] = []any{identityJSON(t, victim)}
	})
	before := sum(t, victim)
	for _, destroy := range [][]string{nil, {own}} {
		args := []string{"resume", copied}
		for _, d := range destroy {
			args = append(args, "--destroy-data", d)
		}
		code, stderr := ptsrunIn(t, t.TempDir(), args...)
		assert.Equal(t, 4, code, stderr)
		assert.Contains(t, stderr, "confirm with --destroy-data "+victim)
		assert.Contains(t, stderr, "resume asks again for --destroy-data")
		assert.Equal(t, before, sum(t, victim), "resume wrote a device nobody confirmed")
	}

	// The run's own directory, resumed by someone who names nothing, is
	// refused the same way; the interruption said what to name.
	code, stderr := ptsrunIn(t, t.TempDir(), "resume", dir)
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, "confirm with --destroy-data "+own)
}

// Item 4: stages come from the configuration, never from run.json. A
// stage ID holding a newline with engine fio made resume run a command
// (exec_prerun); a stage edited otherwise than its configuration makes
// it is refused too. Both exit 1 (bad input), nothing run or written.
func TestResumeRebuildsTheStages(t *testing.T) {
	t.Parallel()
	need(t, "losetup", "fio")
	dev := enginetest.LoopDevice(t, 64<<20, "")
	dir := filepath.Join(t.TempDir(), "run")
	interrupted(t, dir, "--target", dev, "--destroy-data", dev, "--engine", "fio", "--purge", "none", "--tests", "lat", "--cell-time", "1s")
	pwned := filepath.Join(t.TempDir(), "PWNED")
	before := sum(t, dev)

	for _, tc := range []struct {
		name string
		edit func(stage map[string]any)
		want string
	}{
		{"a newline in a stage ID", func(s map[string]any) { s["id"] = "lat\nexec_prerun=touch " + pwned + "\n" },
			`has the ID "lat\nexec_prerun=touch ` + pwned + `\n": a stage ID is a plain name`},
		{"a cell's workload edited", func(s map[string]any) {
			w := s["cells"].([]any)[0].(map[string]any)["workload"].(map[string]any)
			w["active_range_pct"] = 10.0
		}, `stage 1 as run.json records it ("lat") is not the stage "lat" its configuration makes: not resumed`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := filepath.Join(t.TempDir(), "run")
			require.NoError(t, exec.Command("cp", "-a", dir, edited).Run())
			editRunInfo(t, edited, func(ri map[string]any) { tc.edit(ri["stages"].([]any)[0].(map[string]any)) })
			code, stderr := ptsrunIn(t, t.TempDir(), "resume", edited, "--destroy-data", dev)
			assert.Equal(t, 1, code, stderr)
			assert.Contains(t, stderr, tc.want)
			absent(t, pwned)
			assert.Equal(t, before, sum(t, dev), "the device was written before the refusal")
		})
	}
}

// Item 9: a loop device re-attached to another image of the same size is
// another device: resume compares the backing file it recorded, and
// refuses (exit 4) without writing the new image.
func TestResumeComparesTheBackingFile(t *testing.T) {
	t.Parallel()
	need(t, "losetup")
	dev := enginetest.LoopDevice(t, 64<<20, "")
	dir := filepath.Join(t.TempDir(), "run")
	interrupted(t, dir, "--target", dev, "--destroy-data", dev, "--purge", "none", "--tests", "lat", "--cell-time", "1s")

	other := filepath.Join("/dev/shm", fmt.Sprintf("ptsrun-other-%d.img", time.Now().UnixNano()))
	require.NoError(t, os.WriteFile(other, bytes.Repeat([]byte("other image "), (64<<20)/12), 0o600))
	require.NoError(t, os.Truncate(other, 64<<20))
	t.Cleanup(func() { os.Remove(other) })
	sh(t, "losetup", "-d", dev)
	if out, err := exec.Command("losetup", dev, other).CombinedOutput(); err != nil {
		t.Skipf("%s was taken by another before it could be attached again: %s", dev, out)
	}
	t.Cleanup(func() { exec.Command("losetup", "-d", dev).Run() })
	before := sum(t, other)
	code, stderr := ptsrunIn(t, t.TempDir(), "resume", dir, "--destroy-data", dev)
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, "is not the device this run started on")
	assert.Contains(t, stderr, "now \""+other+"\"")
	assert.Equal(t, before, sum(t, other), "resume wrote another image")
}

// Item 12: a confirmed block device is held with O_EXCL for the whole
// run, by whichever engine drives it: a mount (or md, dm, LVM, mkfs)
// during the run fails with EBUSY; the hold ends with the run. The
// purge's discard works under it (ptsrun's own BLKDISCARD, not
// blkdiscard(8), which opens with O_EXCL).
func TestConfirmedDevicesAreHeldExclusively(t *testing.T) {
	t.Parallel()
	need(t, "losetup", "mkfs.ext4", "mount", "umount")
	for _, engine := range []string{"native", "fio"} {
		t.Run(engine, func(t *testing.T) {
			if engine == "fio" {
				need(t, "fio")
			}
			dev := enginetest.LoopDevice(t, 64<<20, "")
			dir := filepath.Join(t.TempDir(), "run")
			cmd := exec.Command(binary, "run", "--target", dev, "--destroy-data", dev, "--engine", engine, "--purge", "discard",
				"--tests", "lat", "--cell-time", "2s", "--out", dir)
			var e bytes.Buffer
			cmd.Stderr = &e
			require.NoError(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			waitJournal(t, dir, `"round_start"`, exited, &e)

			// A filesystem made now would otherwise mount.
			out, err := exec.Command("mkfs.ext4", "-q", "-F", dev).CombinedOutput()
			assert.Error(t, err, "mkfs of a held device: %s", out)
			mnt := t.TempDir()
			out, err = exec.Command("mount", dev, mnt).CombinedOutput()
			if err == nil {
				exec.Command("umount", mnt).Run()
			}
			assert.Error(t, err, "a mount of the device during the run")
			assert.Contains(t, string(out), "busy")
			f, err := os.OpenFile(dev, os.O_RDONLY|unix.O_EXCL, 0)
			if err == nil {
				f.Close()
			}
			assert.ErrorIs(t, err, unix.EBUSY, "an exclusive open during the run")

			require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
			err = <-exited
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, e.String())
			assert.Equal(t, 130, ee.ExitCode(), e.String())
			assert.Contains(t, e.String(), "ptsrun resume "+dir+" --destroy-data "+dev, "the interruption says how to resume")
			f, err = os.OpenFile(dev, os.O_RDONLY|unix.O_EXCL, 0)
			require.NoError(t, err, "the hold ends with the run")
			f.Close()
		})
	}
}

// Item 12 for ptsrun fio: a device a user's job file writes is held while
// its fio runs.
func TestFioJobFileWritesAreHeldExclusively(t *testing.T) {
	t.Parallel()
	need(t, "losetup", "fio")
	dev := enginetest.LoopDevice(t, 64<<20, "")
	work := t.TempDir()
	job := filepath.Join(work, "w.fio")
	require.NoError(t, os.WriteFile(job, []byte("[w]\nfilename="+dev+"\nrw=randwrite\nbs=4k\ndirect=1\nruntime=30\ntime_based=1\n"), 0o644))
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(binary, "fio", job, "--destroy-data", dev, "--out", dir)
	var e bytes.Buffer
	cmd.Stderr = &e
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for running := false; !running; {
		for _, p := range liveProcesses(dir) {
			running = running || strings.Contains(p, "fio ") && strings.Contains(p, "--output=") // the run, not --parse-only
		}
		select {
		case err := <-exited:
			t.Fatalf("ptsrun fio ended (%v) before its fio ran: %s", err, e.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	f, err := os.OpenFile(dev, os.O_RDONLY|unix.O_EXCL, 0)
	if err == nil {
		f.Close()
	}
	assert.ErrorIs(t, err, unix.EBUSY, "an exclusive open while fio writes")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	<-exited
	f, err = os.OpenFile(dev, os.O_RDONLY|unix.O_EXCL, 0)
	require.NoError(t, err, "the hold ends with the run")
	f.Close()
}

// Item 13: outputs never replace what is not ptsrun's. report -o renamed
// a PDF over a loop device's node; now device nodes, directories and
// links are refused whatever --force says, an existing file ptsrun did
// not write needs --force, and its own earlier outputs are replaced.
func TestOutputsNeverReplaceWhatIsNotOurs(t *testing.T) {
	t.Parallel() // devices and directories of its own: beside the other device tests
	need(t, "losetup")
	runs := t.TempDir()
	a, b := filepath.Join(runs, "a"), filepath.Join(runs, "b")
	for _, d := range []string{a, b} {
		code, _, stderr := ptsrun("run", "--target", "sim", "--tests", "lat", "--cell-time", "1s", "--out", d)
		require.Contains(t, []int{0, 3}, code, stderr)
	}
	dev := enginetest.LoopDevice(t, 16<<20, "")
	devBefore := sum(t, dev)
	isNode := func() {
		t.Helper()
		st, err := os.Lstat(dev)
		require.NoError(t, err)
		assert.Equal(t, os.ModeDevice, st.Mode().Type(), "%s is still a block device node", dev)
		assert.Equal(t, devBefore, sum(t, dev))
	}
	out := t.TempDir()
	mine := filepath.Join(out, "notes.txt")
	require.NoError(t, os.WriteFile(mine, []byte("my notes\n"), 0o644))
	link := filepath.Join(out, "link.pdf")
	require.NoError(t, os.Symlink(mine, link))
	subdir := filepath.Join(out, "dir.pdf")
	require.NoError(t, os.Mkdir(subdir, 0o755))

	for _, tc := range []struct {
		path, why string
		force     bool
	}{
		{dev, "it is a block device", false},
		{dev, "it is a block device", true},
		{link, "it is a symbolic link", true},
		{subdir, "it is a directory", true},
		{mine, "it exists and ptsrun did not write it; name another file, or add --force", false},
	} {
		args := []string{"report", a, "-o", tc.path}
		if tc.force {
			args = append(args, "--force")
		}
		code, _, stderr := ptsrun(args...)
		assert.Equal(t, 4, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, tc.why)
		isNode()
		got, err := os.ReadFile(mine)
		require.NoError(t, err)
		assert.Equal(t, "my notes\n", string(got))

		args = []string{"compare", a, b, "-o", tc.path, "--csv", filepath.Join(out, "tables")}
		if tc.force {
			args = append(args, "--force")
		}
		code, _, stderr = ptsrun(args...)
		assert.Equal(t, 4, code, "%v: %s", args, stderr)
		assert.Contains(t, stderr, tc.why)
		absent(t, filepath.Join(out, "tables"))
		isNode()
	}

	// The comparison's tables: a device, or a table of someone else's.
	pdf := filepath.Join(out, "c.pdf")
	code, _, stderr := ptsrun("compare", a, b, "-o", pdf, "--csv", dev)
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, "it is not a directory")
	absent(t, pdf)
	isNode()
	tables := filepath.Join(out, "tables")
	require.NoError(t, os.Mkdir(tables, 0o755))
	theirs := filepath.Join(tables, "compare_headlines.csv")
	require.NoError(t, os.WriteFile(theirs, []byte("name,value\nx,1\n"), 0o644))
	code, _, stderr = ptsrun("compare", a, b, "-o", pdf, "--csv", tables)
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, "refusing to replace "+theirs)
	absent(t, pdf)
	got, err := os.ReadFile(theirs)
	require.NoError(t, err)
	assert.Equal(t, "name,value\nx,1\n", string(got))

	// ptsrun's own outputs are replaced; --force replaces a regular file.
	code, _, stderr = ptsrun("compare", a, b, "-o", pdf, "--csv", tables, "--force")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = ptsrun("compare", a, b, "-o", pdf, "--csv", tables)
	require.Equal(t, 0, code, "its own comparison: %s", stderr)
	report := filepath.Join(out, "r.pdf")
	for range 2 {
		code, _, stderr = ptsrun("report", a, "-o", report)
		require.Equal(t, 0, code, stderr)
	}
	code, _, stderr = ptsrun("report", a, "-o", mine, "--force")
	require.Equal(t, 0, code, stderr)
	got, err = os.ReadFile(mine)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(got, []byte("%PDF-")))
	isNode()

	// A run directory whose tables/ is a link to someone's directory:
	// report would write there and remove the CSVs it did not write.
	copied := filepath.Join(t.TempDir(), "copy")
	require.NoError(t, exec.Command("cp", "-a", a, copied).Run())
	elsewhere := t.TempDir()
	theirCSV := filepath.Join(elsewhere, "accounts.csv")
	require.NoError(t, os.WriteFile(theirCSV, []byte("a,b\n"), 0o644))
	require.NoError(t, os.RemoveAll(filepath.Join(copied, "tables")))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(copied, "tables")))
	code, _, stderr = ptsrun("report", copied)
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, filepath.Join(copied, "tables")+" is a symbolic link") // refused as the run directory is checked
	_, err = os.Stat(theirCSV)
	assert.NoError(t, err, "report removed a CSV it did not write")
	entries, err := os.ReadDir(elsewhere)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "report wrote into another directory")
}
