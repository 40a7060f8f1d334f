//go:build linux

package device

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

const nobody = 65534

// needRoot skips a test that makes files of another user.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (files owned by another user); CI runs it as root")
	}
}

// mkdir makes a directory with exactly mode (no umask), owned by uid.
func mkdir(t *testing.T, p string, mode os.FileMode, uid int) string {
	t.Helper()
	require.NoError(t, os.Mkdir(p, 0o700))
	require.NoError(t, os.Chmod(p, mode))
	require.NoError(t, os.Lchown(p, uid, uid))
	return p
}

// symlink makes a link at p to target, owned by uid.
func symlink(t *testing.T, target, p string, uid int) string {
	t.Helper()
	require.NoError(t, os.Symlink(target, p))
	require.NoError(t, os.Lchown(p, uid, uid))
	return p
}

// The safe-path check: every directory from / down to the one written is
// root's or the invoking user's and writable by no one else, but for a
// sticky one on the way whose next entry is theirs; links are followed
// and judged the same way.
func TestCheckDir(t *testing.T) {
	needRoot(t)
	base := t.TempDir() // root's, 0700, under root's and sticky /tmp
	sticky := mkdir(t, filepath.Join(base, "sticky"), 0o777|os.ModeSticky, 0)
	open := mkdir(t, filepath.Join(base, "open"), 0o777, 0)
	group := mkdir(t, filepath.Join(base, "group"), 0o775, 0)
	theirs := mkdir(t, filepath.Join(base, "theirs"), 0o755, nobody)
	mine := mkdir(t, filepath.Join(base, "mine"), 0o755, 0)
	mkdir(t, filepath.Join(theirs, "sub"), 0o755, 0)
	mkdir(t, filepath.Join(sticky, "mine"), 0o755, 0)
	mkdir(t, filepath.Join(sticky, "theirs"), 0o755, nobody)
	mkdir(t, filepath.Join(mine, "wide"), 0o777, 0)
	mkdir(t, filepath.Join(mine, "stickytoo"), 0o777|os.ModeSticky, 0)
	symlink(t, mine, filepath.Join(sticky, "their-link"), nobody)
	symlink(t, mine, filepath.Join(sticky, "my-link"), 0)
	symlink(t, filepath.Join(theirs, "sub"), filepath.Join(mine, "into-theirs"), 0)
	mkdir(t, filepath.Join(base, "sub"), 0o755, 0)
	symlink(t, "../mine", filepath.Join(base, "sub", "up"), 0) // a relative link with ..
	file := filepath.Join(mine, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))

	for _, tc := range []struct {
		dir, refused string // "" = accepted
	}{
		{mine, ""},
		{filepath.Join(mine, "new", "deeper"), ""},
		{filepath.Join(sticky, "mine"), ""},
		{filepath.Join(sticky, "new"), ""}, // made by ptsrun: its own entry
		{filepath.Join(sticky, "my-link"), ""},
		{filepath.Join(base, "sub", "up"), ""},
		{filepath.Join(base, "sub", "up", "new"), ""},
		{theirs, theirs + " is owned by nobody (uid 65534), not by you or root (mode drwxr-xr-x)"},
		{filepath.Join(theirs, "sub"), theirs + " is owned by nobody (uid 65534)"},
		{filepath.Join(theirs, "new"), theirs + " is owned by nobody (uid 65534)"},
		{filepath.Join(open, "new"), open + " may be written by others than its owner (mode drwxrwxrwx), and is not sticky"},
		{open, open + " may be written by others than its owner (mode drwxrwxrwx)"},
		{filepath.Join(group, "new"), group + " may be written by others than its owner (mode drwxrwxr-x), and is not sticky"},
		{filepath.Join(sticky, "theirs"), filepath.Join(sticky, "theirs") + ", in the sticky directory " + sticky + ", is owned by nobody (uid 65534)"},
		{filepath.Join(sticky, "their-link"), filepath.Join(sticky, "their-link") + ", in the sticky directory " + sticky + ", is owned by nobody"},
		{filepath.Join(sticky, "their-link", "new"), filepath.Join(sticky, "their-link") + ", in the sticky directory " + sticky + ", is owned by nobody"},
		{filepath.Join(mine, "into-theirs"), theirs + " is owned by nobody"},
		{filepath.Join(mine, "wide"), filepath.Join(mine, "wide") + " may be written by others than its owner (mode drwxrwxrwx)"},
		{filepath.Join(mine, "stickytoo"), filepath.Join(mine, "stickytoo") + " may be written by others than its owner (mode dtrwxrwxrwx)"}, // the one written: no sticky exception
		{sticky, sticky + " may be written by others than its owner"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			err := CheckDir(tc.dir)
			if tc.refused == "" {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrUnsafe, "exit 4")
			assert.ErrorContains(t, err, "refusing to write into "+tc.dir+": "+tc.refused)
		})
	}
	for _, bad := range []string{"relative/dir", filepath.Join(file, "below"), filepath.Join(mine, "x\ny")} {
		err := CheckDir(bad)
		assert.Error(t, err, bad)
		assert.False(t, errors.Is(err, ErrUnsafe), "bad input: exit 1: %v", err)
	}
}

// A POSIX ACL granting another user write shows in the mode's group bits
// (the ACL mask), which the check reads: no ACL check of its own.
func TestCheckDirSeesACLs(t *testing.T) {
	needRoot(t)
	dir := mkdir(t, filepath.Join(t.TempDir(), "acl"), 0o755, 0)
	// system.posix_acl_access: version 2, then (tag, perm, id) entries:
	// the owner rwx, nobody rwx, the group r-x, the mask rwx, others r-x.
	acl := []byte{2, 0, 0, 0}
	for _, e := range [][3]uint32{{1, 7, 0xffffffff}, {2, 7, nobody}, {4, 5, 0xffffffff}, {0x10, 7, 0xffffffff}, {0x20, 5, 0xffffffff}} {
		acl = binary.LittleEndian.AppendUint16(acl, uint16(e[0]))
		acl = binary.LittleEndian.AppendUint16(acl, uint16(e[1]))
		acl = binary.LittleEndian.AppendUint32(acl, e[2])
	}
	if err := unix.Setxattr(dir, "system.posix_acl_access", acl, 0); err != nil {
		t.Skipf("no POSIX ACLs here: %v", err)
	}
	err := CheckDir(filepath.Join(dir, "run"))
	require.ErrorIs(t, err, ErrUnsafe)
	assert.ErrorContains(t, err, dir+" may be written by others than its owner (mode drwxrwxr-x), and is not sticky")
}

// Under sudo the user who ran it is the invoking one: their directories
// are theirs to write into.
func TestCheckDirUnderSudo(t *testing.T) {
	needRoot(t)
	dir := mkdir(t, filepath.Join(t.TempDir(), "theirs"), 0o755, nobody)
	require.ErrorIs(t, CheckDir(dir), ErrUnsafe)
	t.Setenv("SUDO_UID", "65534")
	assert.NoError(t, CheckDir(dir))
	t.Setenv("SUDO_UID", "not a number")
	assert.ErrorIs(t, CheckDir(dir), ErrUnsafe)
}

// MakeDir makes what is missing one directory at a time, each checked as
// found: a directory someone else made first is judged, never taken for
// ptsrun's, and nothing is made where someone else could replace it.
func TestMakeDir(t *testing.T) {
	needRoot(t)
	base := t.TempDir()
	made, err := MakeDir(filepath.Join(base, "a", "b", "c"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(base, "a"), made, "the topmost directory made: what undoing removes")
	st, err := os.Stat(filepath.Join(base, "a", "b", "c"))
	require.NoError(t, err)
	assert.True(t, st.IsDir())
	made, err = MakeDir(filepath.Join(base, "a", "b", "c"))
	require.NoError(t, err)
	assert.Empty(t, made, "there already")

	sticky := mkdir(t, filepath.Join(base, "sticky"), 0o777|os.ModeSticky, 0)
	mkdir(t, filepath.Join(sticky, "run"), 0o755, nobody) // made first by someone else
	made, err = MakeDir(filepath.Join(sticky, "run", "sub"))
	require.ErrorIs(t, err, ErrUnsafe)
	assert.Empty(t, made)
	assert.NoDirExists(t, filepath.Join(sticky, "run", "sub"))

	open := mkdir(t, filepath.Join(base, "open"), 0o777, 0)
	_, err = MakeDir(filepath.Join(open, "run"))
	require.ErrorIs(t, err, ErrUnsafe)
	assert.NoDirExists(t, filepath.Join(open, "run"))
}

// An output file: its directory as CheckDir says, but sticky allowed
// when the file is absent or root's or the invoking user's.
func TestCheckFile(t *testing.T) {
	needRoot(t)
	base := t.TempDir()
	sticky := mkdir(t, filepath.Join(base, "sticky"), 0o777|os.ModeSticky, 0)
	theirs := mkdir(t, filepath.Join(base, "theirs"), 0o755, nobody)
	ours := filepath.Join(sticky, "ours.pdf")
	require.NoError(t, os.WriteFile(ours, nil, 0o644))
	their := filepath.Join(sticky, "their.pdf")
	require.NoError(t, os.WriteFile(their, nil, 0o644))
	require.NoError(t, os.Chown(their, nobody, nobody))
	assert.NoError(t, CheckFile(filepath.Join(sticky, "new.pdf")))
	assert.NoError(t, CheckFile(ours))
	assert.NoError(t, CheckFile(filepath.Join(base, "missing", "x.pdf")), "a missing directory: the write fails, nothing to redirect")
	err := CheckFile(their)
	require.ErrorIs(t, err, ErrUnsafe)
	assert.ErrorContains(t, err, their+", in the sticky directory "+sticky+", is owned by nobody")
	err = CheckFile(filepath.Join(theirs, "x.pdf"))
	require.ErrorIs(t, err, ErrUnsafe)
	assert.ErrorContains(t, err, theirs+" is owned by nobody")
	assert.ErrorIs(t, CheckOutput(filepath.Join(theirs, "x.pdf"), true, func([]byte) bool { return true }), ErrUnsafe, "every output is checked so")
}

// A run directory written into again: every entry a directory or a
// regular file with one link, root's or the invoking user's, writable by
// no one else; the run directory itself may be reached through a link
// the path check accepts.
func TestCheckRunTree(t *testing.T) {
	needRoot(t)
	good := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "run")
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "fio", "logs"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "run.json"), []byte("{}"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "fio", "x.fio"), nil, 0o444))
		return dir
	}
	dir := good(t)
	require.NoError(t, CheckRunTree(dir))
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(dir, link))
	require.NoError(t, CheckRunTree(link), "the run directory through a link of root's")

	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("secret"), 0o600))
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir string) string // returns the entry refused
		why   string
	}{
		{"a file linked elsewhere", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "journal.jsonl")
			require.NoError(t, os.Symlink(victim, p))
			return p
		}, "is a symbolic link"},
		{"a directory linked elsewhere", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "tables")
			require.NoError(t, os.Symlink(t.TempDir(), p))
			return p
		}, "is a symbolic link"},
		{"a dangling link", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fio", "01.json")
			require.NoError(t, os.Symlink(filepath.Join(t.TempDir(), "made-by-fio"), p))
			return p
		}, "is a symbolic link"},
		{"a hard link", func(t *testing.T, dir string) string {
			other := filepath.Join(filepath.Dir(dir), "other")
			require.NoError(t, os.WriteFile(other, nil, 0o644))
			p := filepath.Join(dir, "results.json")
			require.NoError(t, os.Link(other, p))
			return p
		}, "has 2 hard links"},
		{"a file of someone else's", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fio", "x.fio")
			require.NoError(t, os.Chown(p, nobody, nobody))
			return p
		}, "is owned by nobody (uid 65534), not by you or root"},
		{"a directory others may write", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fio", "logs")
			require.NoError(t, os.Chmod(p, 0o777))
			return p
		}, "may be written by others than its owner (mode drwxrwxrwx)"},
		{"a file others may write", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "run.json")
			require.NoError(t, os.Chmod(p, 0o666))
			return p
		}, "may be written by others than its owner (mode -rw-rw-rw-)"},
		{"a fifo", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "report.pdf")
			require.NoError(t, syscall.Mkfifo(p, 0o644))
			return p
		}, "is a fifo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := good(t)
			p := tc.plant(t, dir)
			err := CheckRunTree(dir)
			require.ErrorIs(t, err, ErrUnsafe)
			assert.ErrorContains(t, err, "refusing to write into the run directory "+dir+": "+p+" "+tc.why)
		})
	}
	b, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "secret", string(b))
}

// OpenRunFile never opens through a link, nor a file with another name,
// nor waits on a fifo; what it refuses is left as it was.
func TestOpenRunFile(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("secret"), 0o600))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(victim, link))
	hard := filepath.Join(dir, "hard")
	require.NoError(t, os.Link(victim, hard))
	dangling := filepath.Join(dir, "dangling")
	require.NoError(t, os.Symlink(filepath.Join(dir, "made"), dangling))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))

	for _, p := range []string{link, hard, dangling, fifo} {
		for _, flag := range []int{os.O_RDWR | os.O_CREATE, os.O_WRONLY | os.O_CREATE | os.O_TRUNC, os.O_WRONLY | os.O_APPEND} {
			done := make(chan error, 1)
			go func() {
				f, err := OpenRunFile(p, flag, 0o644)
				if err == nil {
					f.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				assert.Error(t, err, p)
			case <-time.After(time.Minute):
				t.Fatalf("opening %s waited", p)
			}
		}
	}
	b, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "secret", string(b), "nothing truncated or written")
	assert.NoFileExists(t, filepath.Join(dir, "made"), "nothing made through the dangling link")
	_, err = OpenRunFile(link, os.O_RDWR, 0)
	assert.ErrorIs(t, err, ErrUnsafe)

	p := filepath.Join(dir, "journal.jsonl")
	require.NoError(t, WriteRunFile(p, []byte("one\n"), 0o644))
	require.NoError(t, WriteRunFile(p, []byte("two\n"), 0o644))
	b, err = os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "two\n", string(b))
}
