package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A red-team pass on the write paths of replay, capture --diskstats,
// run --tests rwsw --capture and streams --pdf. Each test holds what a
// hole found broke.

// An rwsw capture is recorded by path and sha256 and read again by
// resume: standard input panicked (no reader was passed), and a device
// node was hashed without end, deaf to SIGTERM. Both are refused with a
// clear error before anything is written.
func TestRedTeam4RWSWCaptureNotAFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, _, stderr := ptsrun("run", "--target", "sim", "--tests", "rwsw", "--capture", "-", "--out", dir)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "an rwsw capture must be a file")
	assert.NoDirExists(t, dir)
	code, _, stderr = ptsrun("run", "--target", "sim", "--tests", "rwsw", "--capture", "/dev/zero", "--out", dir)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "must be a regular file")
	assert.NoDirExists(t, dir)
	// resume checks the capture before it reads the run or hashes it.
	code, _, stderr = ptsrun("resume", t.TempDir(), "--capture", "/dev/zero")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, stderr, "must be a regular file")
}

// A capture whose I/O size overflows when rounded up to the block is
// refused by the plan with its line, nothing made.
func TestRedTeam4ReplayHugeSize(t *testing.T) {
	dir := t.TempDir()
	capture := filepath.Join(dir, "max.iolog")
	require.NoError(t, os.WriteFile(capture, []byte("fio version 3 iolog\n10 /dev/sdz add\n10 /dev/sdz open\n"+
		"20 /dev/sdz read 0 9223372036854775807\n30 /dev/sdz close\n"), 0o644))
	img := filepath.Join(dir, "t.img")
	require.NoError(t, os.WriteFile(img, nil, 0o644))
	require.NoError(t, os.Truncate(img, 16<<20))
	out := filepath.Join(dir, "replay")
	code, _, stderr := ptsrun("replay", capture, "--target", "file:"+img, "--out", out)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "line 4: an I/O of 9223372036854775807 bytes does not fit")
	assert.NoDirExists(t, out)
}
