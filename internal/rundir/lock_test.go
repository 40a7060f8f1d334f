package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
)

// TestRunLock: one process holds a run directory's lock; another open of
// it (another process's, or this one's: flock locks open files) is
// refused with the holder's host and pid, until it is released; the file
// stays, stale, and is taken over.
func TestRunLock(t *testing.T) {
	dir := t.TempDir()
	host, _ := os.Hostname()
	first, err := TakeLock(dir, "run")
	require.NoError(t, err)

	ls := ReadLock(dir)
	assert.True(t, ls.Held)
	assert.True(t, ls.Checked)
	require.NotNil(t, ls.Info)
	assert.Equal(t, LockInfo{Host: host, PID: os.Getpid(), Started: ls.Info.Started, Command: "run"}, *ls.Info)

	_, err = TakeLock(dir, "resume")
	require.ErrorIs(t, err, ErrLocked)
	assert.Contains(t, err.Error(), fmt.Sprintf("ptsrun run holds its lock on host %s, pid %d", host, os.Getpid()))
	assert.Contains(t, err.Error(), filepath.Join(dir, LockFile))
	assert.Contains(t, err.Error(), dir)

	first.Release()
	first.Release() // twice is nothing
	ls = ReadLock(dir)
	assert.False(t, ls.Held, "a lock nobody holds is stale")
	assert.True(t, ls.Checked)
	require.NotNil(t, ls.Info, "the file stays")

	second, err := TakeLock(dir, "resume")
	require.NoError(t, err, "a stale lock is taken over")
	defer second.Release()
	assert.Equal(t, "resume", ReadLock(dir).Info.Command)
}

// TestRunLockStaleOfAnotherProcess: a lock file that a process gone left
// (its pid, nobody holding it) is taken over silently; one a process of
// another host wrote cannot be checked from here.
func TestRunLockStaleOfAnotherProcess(t *testing.T) {
	host, _ := os.Hostname()
	for _, c := range []struct {
		name, host       string
		held, checked    bool
		why              string
		takeOverRewrites bool
	}{
		{"this host", host, false, true, "", true},
		{"another host", "elsewhere.example", false, false, "taken on host elsewhere.example, not this one", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			b, _ := json.Marshal(LockInfo{Host: c.host, PID: 999999, Started: time.Unix(0, 0).UTC(), Command: "run"})
			require.NoError(t, os.WriteFile(filepath.Join(dir, LockFile), b, 0o644))
			before, _ := os.Stat(filepath.Join(dir, LockFile))

			ls := ReadLock(dir)
			assert.Equal(t, c.held, ls.Held)
			assert.Equal(t, c.checked, ls.Checked)
			assert.Contains(t, ls.Why, c.why)
			after, _ := os.Stat(filepath.Join(dir, LockFile))
			assert.Equal(t, before.ModTime(), after.ModTime(), "reading the lock writes nothing")

			l, err := TakeLock(dir, "resume")
			require.NoError(t, err)
			defer l.Release()
			assert.Equal(t, os.Getpid(), ReadLock(dir).Info.PID)
		})
	}
}

// TestRunLockNeverThroughALink: a lock file that is a link (to a file
// elsewhere) is refused, and what it points at is left as it is.
func TestRunLockNeverThroughALink(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	victim := filepath.Join(other, "precious")
	require.NoError(t, os.WriteFile(victim, []byte("keep me"), 0o644))
	require.NoError(t, os.Symlink(victim, filepath.Join(dir, LockFile)))
	_, err := TakeLock(dir, "run")
	require.Error(t, err)
	assert.True(t, errors.Is(err, device.ErrUnsafe))
	assert.Contains(t, err.Error(), filepath.Join(dir, LockFile))
	b, _ := os.ReadFile(victim)
	assert.Equal(t, "keep me", string(b))

	ls := ReadLock(dir)
	assert.False(t, ls.Checked)
	assert.Contains(t, ls.Why, "cannot be read")
}

// TestReadLockWithoutLock: a run directory without a lock (recorded
// before it, or never run) has no process.
func TestReadLockWithoutLock(t *testing.T) {
	ls := ReadLock(t.TempDir())
	assert.Equal(t, LockState{Checked: true}, ls)
}
