package native

import (
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

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
		bufs := newBuffers(2, size, 512, 7, size > writeVariety)
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

// A write's buffer is the one given back longest ago, never one another
// slot holds, and every buffer and the pool lie apart within the mapping,
// in pages of 4 KiB or aligned to huge pages in a larger mapping.
func TestForWrite(t *testing.T) {
	for _, huge := range []bool{false, true} {
		t.Run(map[bool]string{false: "pages", true: "huge"}[huge], func(t *testing.T) { forWrite(t, huge) })
	}
}

// An io_uring thread's buffers are in huge pages from the first block
// larger than 128 pages of 4 KiB.
func TestRingBuffersHugeAboveHalfAMebibyte(t *testing.T) {
	require.False(t, ringBuffers(4096))
	require.False(t, ringBuffers(512<<10))
	require.True(t, ringBuffers(512<<10+512))
	require.True(t, ringBuffers(1<<20))
}

func forWrite(t *testing.T, huge bool) {
	for _, tc := range []struct {
		slots  int
		maxBS  int64
		spares int
	}{
		{1, 4096, 1},        // a synchronous worker: two buffers in turn
		{32, 4096, 32},      // small blocks: as many spares as slots
		{32, 128 << 10, 32}, // 32 × 128 KiB = writeCooling
		{32, 1 << 20, 4},    // 4 × 1 MiB = writeCooling
		{8, 16 << 20, 1},    // a block larger than writeCooling
		{4, 3 * 4096, 4},
	} {
		bufs := newBuffers(tc.slots, tc.maxBS, 512, 1, huge)
		require.Len(t, bufs.spare, tc.spares, "slots %d, block %d", tc.slots, tc.maxBS)
		start := uintptr(unsafe.Pointer(&bufs.mem[0])) - uintptr(unsafe.Pointer(&bufs.mapped[0]))
		require.LessOrEqual(t, int(start)+len(bufs.mem), len(bufs.mapped), "the buffers lie in the mapping")
		if huge {
			require.Zero(t, uintptr(unsafe.Pointer(&bufs.mem[0]))%hugePage, "aligned to a huge page")
		} else {
			require.Equal(t, len(bufs.mem), len(bufs.mapped))
		}
		total := tc.slots + tc.spares
		require.Equal(t, int64(total)*tc.maxBS, bufs.pool, "the pool follows the buffers")
		require.Equal(t, int(bufs.pool+poolBytes), len(bufs.mem))
		held := make([]int, tc.slots)
		for i := range held {
			held[i] = i
		}
		// freed[k] is when buffer k was last given back; the spares count
		// as given back in their order, before any slot's.
		freed := make([]int, total)
		for k := range tc.spares {
			freed[tc.slots+k] = k - tc.spares
		}
		rng := rand.New(rand.NewPCG(5, 6))
		for step := range 1000 {
			i := rng.IntN(tc.slots)
			before := held[i]
			held[i] = bufs.forWrite(before)
			freed[before] = step
			inUse := map[int]bool{}
			for _, h := range held {
				require.False(t, inUse[h], "step %d: buffer %d held by two slots", step, h)
				inUse[h] = true
			}
			// The one taken was given back before every other spare.
			for k := range total {
				if !inUse[k] {
					require.Less(t, freed[held[i]], freed[k], "step %d: buffer %d taken before %d", step, held[i], k)
				}
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
			bufs := newBuffers(32, size, 512, 1, ringBuffers(size))
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

// Polling is on by default only while the I/O threads leave a CPU free
// and the host's idle CPUs do not poll for them, and only then is its
// budget the automatic one, which stretches. A budget given is kept.
func TestPollChoice(t *testing.T) {
	for _, tc := range []struct {
		poll          time.Duration
		idlePolls     bool
		threads, cpus int
		want          int64
		auto          bool
	}{
		{0, false, 1, 2, int64(DefaultPoll), true},
		{0, false, 2, 2, 0, false},
		{0, false, 4, 2, 0, false},
		{0, false, 7, 8, int64(DefaultPoll), true},
		{0, true, 1, 2, 0, false},
		{0, true, 7, 8, 0, false},
		{-1, false, 1, 8, 0, false},
		{200 * time.Microsecond, false, 4, 2, int64(200 * time.Microsecond), false},
		{200 * time.Microsecond, true, 1, 2, int64(200 * time.Microsecond), false},
	} {
		e := &Engine{opts: Options{Poll: tc.poll, IdlePolls: tc.idlePolls}}
		got, auto := e.pollNs(tc.threads, tc.cpus)
		require.Equal(t, tc.want, got, "%+v", tc)
		require.Equal(t, tc.auto, auto, "%+v", tc)
	}
}

// A thread submits each refill at once only while the threads leave a CPU
// free, and never at a depth of 1.
func TestEagerSubmitChoice(t *testing.T) {
	for _, tc := range []struct {
		threads, cpus, qd int
		want              bool
	}{
		{1, 2, 32, true},
		{1, 2, 2, true},
		{1, 2, 1, false},
		{2, 2, 32, false},
		{4, 2, 32, false},
		{7, 8, 32, true},
		{1, 1, 32, false},
	} {
		require.Equal(t, tc.want, eagerSubmit(tc.threads, tc.cpus, tc.qd), "%+v", tc)
	}
}

// TestSent: the slots prepared since the last entry take the entry's
// time, the others keep theirs (a retried I/O its first submission's),
// and the list is empty after.
func TestSent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		unsent []int
		want   []int64
	}{
		{"none", nil, []int64{1, 2, 3, 4}},
		{"one", []int{2}, []int64{1, 2, 50, 4}},
		{"all", []int{3, 0, 1, 2}, []int64{50, 50, 50, 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slots := []slot{{start: 1}, {start: 2}, {start: 3}, {start: 4}}
			left := sent(slots, append([]int(nil), tc.unsent...), 50)
			require.Empty(t, left)
			for i, s := range slots {
				require.Equal(t, tc.want[i], s.start, "slot %d", i)
			}
		})
	}
}
