package native

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/sys/unix"
)

// Only io_uring's own give-backs are submitted again; a device's errors,
// short transfers and successes are not.
func TestTransientResults(t *testing.T) {
	for _, tc := range []struct {
		rv   int32
		want bool
	}{
		{-int32(unix.ECANCELED), true},
		{-int32(unix.EAGAIN), true},
		{-int32(unix.EINTR), true},
		{-int32(unix.EIO), false},
		{-int32(unix.ENOSPC), false},
		{-int32(unix.EINVAL), false},
		{0, false},
		{4096, false},
		{int32(unix.ECANCELED), false}, // a short transfer of 125 bytes
	} {
		assert.Equal(t, tc.want, transient(tc.rv), "%d", tc.rv)
	}
	s := &slot{size: 4096, off: 8192, read: true, retries: maxRetries}
	err := ioError(Target{Name: "/dev/loop9"}, s, -int64(unix.ECANCELED))
	assert.EqualError(t, err, "I/O error: /dev/loop9 read of 4096 bytes at offset 8192: operation canceled, 9 times")
}
