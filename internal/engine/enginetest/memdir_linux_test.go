package enginetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/sys/unix"
)

func TestTmpfsWithRoom(t *testing.T) {
	var fs unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &fs); err != nil || fs.Type != unix.TMPFS_MAGIC {
		t.Skip("/dev/shm is not a tmpfs here")
	}
	free := int64(fs.Bavail) * int64(fs.Bsize)
	for _, tc := range []struct {
		path string
		room int64
		want bool
	}{
		{"/dev/shm", 0, true},
		{"/dev/shm", free / 2, true},
		{"/dev/shm", 1 << 62, false}, // no tmpfs has that much room
		{"/proc", 0, false},          // procfs, not a tmpfs
		{"/nonexistent-ptsrun", 0, false},
	} {
		assert.Equal(t, tc.want, tmpfsWithRoom(tc.path, tc.room), "%s with %d bytes free", tc.path, tc.room)
	}
}
