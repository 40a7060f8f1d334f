package native

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// submit hands the kernel exactly what was prepared, and neither waits nor
// reaps; the next enter submits only what was prepared after it, and every
// I/O completes once. Reads of a file, 4 KiB apiece, on a ring of its own.
func TestRingSubmitThenWait(t *testing.T) {
	const k, size = 8, 4096
	path := filepath.Join(t.TempDir(), "data")
	data := make([]byte, 2*k*size)
	for i := range data {
		data[i] = byte(i / size)
	}
	require.NoError(t, os.WriteFile(path, data, 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r, err := newRing(2 * k)
	if err != nil {
		t.Skipf("io_uring is not available here: %v", err)
	}
	defer r.close()
	mem, mapped := mapBuffers(2*k*size, false)
	defer func() { require.NoError(t, unix.Munmap(mapped)) }()
	fd := int32(f.Fd())
	prep := func(i int) {
		r.prep(true, fd, unsafe.Pointer(&mem[i*size]), size, int64(i*size), uint64(i))
	}
	for i := range k {
		prep(i)
	}
	require.NoError(t, r.submit())
	require.Equal(t, r.pendingTail, atomic.LoadUint32(r.sqTail), "the published tail is the prepared one")
	require.Equal(t, r.pendingTail, atomic.LoadUint32(r.sqHead), "the kernel took every SQE")
	require.NoError(t, r.submit(), "nothing prepared: nothing to submit")

	// k more, submitted with the wait for all 2k.
	for i := k; i < 2*k; i++ {
		prep(i)
	}
	seen := map[uint64]int32{}
	for len(seen) < 2*k {
		require.NoError(t, r.enter(1))
		r.reap(func(ud uint64, res int32) {
			_, again := seen[ud]
			require.False(t, again, "I/O %d completed twice", ud)
			seen[ud] = res
		})
	}
	require.Equal(t, r.pendingTail, atomic.LoadUint32(r.sqHead))
	for i := range 2 * k {
		require.Equal(t, int32(size), seen[uint64(i)], "I/O %d", i)
		require.Equal(t, byte(i), mem[i*size], "I/O %d read its own block", i)
	}
}
