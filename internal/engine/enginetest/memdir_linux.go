package enginetest

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// memDirRoom is the least room a tmpfs must have for a package's temporary
// files: a simulated qualification's run directory is tens of MB, a
// package's parallel tests a few of those, and a container's /dev/shm is
// often 64 MB.
const memDirRoom = 4 << 30

// InMemory is for the TestMain of a package whose tests write run
// directories of simulated runs and nothing that needs a disk (direct I/O
// to a file target, a filesystem to check): it points the tests' temporary
// directories (t.TempDir, os.TempDir) at a fresh directory on /dev/shm, runs
// them, and removes it. A run syncs its journal after every record and the
// simulated drive its log after every operation; on a VM's disk each sync
// waits milliseconds, which are the disk's and not the code's (pts: 42 s
// of wall time on disk, 26 s in memory, on a 2-CPU VM). The syncs still
// run. Without a tmpfs with room, the tests run where they would have.
func InMemory(m *testing.M) int {
	if !tmpfsWithRoom("/dev/shm", memDirRoom) {
		return m.Run()
	}
	dir, err := os.MkdirTemp("/dev/shm", "ptsrun-test-")
	if err != nil {
		return m.Run()
	}
	defer os.RemoveAll(dir)
	if err := os.Setenv("TMPDIR", dir); err != nil {
		fmt.Fprintln(os.Stderr, "enginetest: TMPDIR:", err)
		return 1
	}
	return m.Run()
}

// tmpfsWithRoom says whether path is on a tmpfs with at least room bytes
// free for an unprivileged writer.
func tmpfsWithRoom(path string, room int64) bool {
	var fs unix.Statfs_t
	if err := unix.Statfs(path, &fs); err != nil || fs.Type != unix.TMPFS_MAGIC {
		return false
	}
	return int64(fs.Bavail)*int64(fs.Bsize) >= room
}
