package native

import (
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestXorWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 64, 513} {
		src := make([]uint64, n+3) // longer than dst: only len(dst) words count
		for i := range src {
			src[i] = rng.Uint64()
		}
		dst := make([]uint64, n)
		key := rng.Uint64()
		xorWords(dst, src, key)
		for i := range dst {
			require.Equal(t, src[i]^key, dst[i], "n=%d word %d", n, i)
		}
	}
}

// Every sector of every write is new, also across the windows of a write
// larger than the pool's window (writeVariety), and the bytes after its
// stamp too: two windows differ in every word.
func TestWriteDataUniqueStamps(t *testing.T) {
	for _, size := range []int64{4096, 3 * writeVariety / 2, 4 * writeVariety} {
		bufs := newBuffers(2, size, 512, 7)
		rng := rand.New(rand.NewPCG(3, 4))
		var stamp atomic.Uint64
		seen := map[[512]byte]bool{}
		tails := map[[8]byte]bool{}
		for i := range int(1 << 20 / size * 8) {
			bufs.write(i&1, size, rng, &stamp)
			blk := bufs.mem[int64(i&1)*bufs.maxBS:][:size]
			for s := int64(0); s < size; s += 512 {
				sector := [512]byte(blk[s : s+512])
				require.False(t, seen[sector], "size %d: write %d sector %d repeats an earlier sector", size, i, s/512)
				seen[sector] = true
				tail := [8]byte(blk[s+8 : s+16]) // the word after the stamp
				require.False(t, tails[tail], "size %d: write %d sector %d: its second word repeats", size, i, s/512)
				tails[tail] = true
			}
		}
		bufs.free()
	}
}

// BenchmarkWriteData is the cost of making one write's data, of 4 KiB
// and of 1 MiB (whose buffers, 32 of them as at QD32, are not in the cache).
func BenchmarkWriteData(b *testing.B) {
	for _, size := range []int64{4096, 1 << 20} {
		b.Run(strconv.FormatInt(size>>10, 10)+"KiB", func(b *testing.B) {
			bufs := newBuffers(32, size, 512, 1)
			defer bufs.free()
			rng := rand.New(rand.NewPCG(1, 2))
			var stamp atomic.Uint64
			b.SetBytes(size)
			for i := 0; b.Loop(); i++ {
				bufs.write(i&31, size, rng, &stamp)
			}
		})
	}
}

// Polling is on by default only while the I/O threads leave a CPU free,
// and only then is its budget the automatic one, which stretches.
func TestPollChoice(t *testing.T) {
	for _, tc := range []struct {
		poll          time.Duration
		threads, cpus int
		want          int64
		auto          bool
	}{
		{0, 1, 2, int64(DefaultPoll), true},
		{0, 2, 2, 0, false},
		{0, 4, 2, 0, false},
		{0, 7, 8, int64(DefaultPoll), true},
		{-1, 1, 8, 0, false},
		{200 * time.Microsecond, 4, 2, int64(200 * time.Microsecond), false},
	} {
		e := &Engine{opts: Options{Poll: tc.poll}}
		got, auto := e.pollNs(tc.threads, tc.cpus)
		require.Equal(t, tc.want, got, "%+v", tc)
		require.Equal(t, tc.auto, auto, "%+v", tc)
	}
}
