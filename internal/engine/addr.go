package engine

import (
	"math"
	"math/rand/v2"
)

// AddrGen generates the I/Os of one thread of a workload on one target:
// direction, size and offset. Random offsets come from a seeded 64-bit PCG
// generator (PTS §6 asks for at least 48 bits), uniform over the active range
// (or its zones) and aligned to the block size. Sequential threads each own a
// contiguous part of the active range, so that streams never overlap. A
// random workload with a RandomPct continues the rest of its I/Os where
// the thread's last I/O of the same direction ended.
type AddrGen struct {
	rng       *rand.Rand
	read      uint64 // read percentage
	access    Access
	bs        int64
	split     []splitEntry
	base      int64 // where the active range starts
	rangeEnd  int64 // active range length in bytes
	zones     []zoneBytes
	pos, lo   int64 // sequential stream position and region
	hi        int64
	quota     int64 // bytes this thread still has to move; -1 unlimited
	exhausted bool
	// randomPPM is the share of random offsets in millionths, for a
	// random workload with a RandomPct; 0 draws every offset at random.
	randomPPM uint64
	lastEnd   [2]int64 // where the last write [0] and read [1] ended; -1 before the first
	mix       *mixGen  // a stream mix's streams (Workload.Streams); nil otherwise
}

type splitEntry struct {
	cum  uint64 // cumulative share in 1/1e6
	size int64
}

type zoneBytes struct {
	cum      float64
	from, to int64
}

// IO is one generated I/O.
type IO struct {
	Offset int64
	Size   int64
	Read   bool
}

// NewAddrGen returns the generator of thread (0 ≤ thread < threads) for a
// target of capacity bytes. seed is the workload's seed; each thread and
// target draws its own stream from it.
func NewAddrGen(w Workload, capacity int64, thread, threads int, target int) *AddrGen {
	g := &AddrGen{
		rng:      rand.New(rand.NewPCG(w.Seed, uint64(target)<<32|uint64(thread))),
		read:     uint64(w.ReadPct),
		access:   w.Access,
		bs:       w.BlockSize,
		base:     w.RangeStartBytes(capacity),
		rangeEnd: w.RangeBytes(capacity),
		quota:    -1,
		lastEnd:  [2]int64{-1, -1},
	}
	if w.Access == Random && w.RandomPct > 0 && w.RandomPct < 100 {
		g.randomPPM = uint64(math.Round(w.RandomPct * 1e4))
	}
	var cum float64
	for _, s := range w.BlockSplit {
		cum += s.Percent
		g.split = append(g.split, splitEntry{cum: uint64(cum * 1e4), size: s.Bytes})
	}
	if len(g.split) > 0 {
		g.split[len(g.split)-1].cum = 1e6
	}
	var at int64
	cum = 0
	for i, z := range w.Zones {
		cum += z.IOPercent / 100
		to := at + int64(float64(g.rangeEnd)*z.RangePercent/100)
		if i == len(w.Zones)-1 {
			to = g.rangeEnd
		}
		g.zones = append(g.zones, zoneBytes{cum: cum, from: at, to: to})
		at = to
	}
	if len(w.Streams) > 0 {
		g.mix = newMixGen(w, capacity, thread, threads)
	} else if w.Access == Sequential {
		bs := max(g.bs, 512)
		g.lo = g.rangeEnd * int64(thread) / int64(threads) / bs * bs
		g.hi = g.rangeEnd * int64(thread+1) / int64(threads) / bs * bs
		g.pos = g.lo
	}
	if w.Passes > 0 {
		// Each thread moves its share of the passes: its region for
		// sequential streams, an equal share of the volume for random ones.
		if w.Access == Sequential && g.mix == nil {
			g.quota = int64(w.Passes * float64(g.hi-g.lo))
		} else {
			g.quota = int64(w.Passes*float64(g.rangeEnd)) / int64(threads)
		}
	}
	return g
}

// Done reports whether a volume-limited thread has issued all its I/O.
func (g *AddrGen) Done() bool { return g.exhausted }

// Next returns the next I/O. After Done it returns a zero IO.
func (g *AddrGen) Next() IO {
	io := g.next()
	io.Offset += g.base
	return io
}

func (g *AddrGen) next() IO {
	if g.exhausted {
		return IO{}
	}
	if g.mix != nil {
		io := g.mix.next(g)
		g.spend(io.Size)
		return io
	}
	size := g.bs
	if len(g.split) > 0 {
		u := g.rng.Uint64N(1e6)
		for _, s := range g.split {
			if u < s.cum {
				size = s.size
				break
			}
		}
	}
	io := IO{Size: size, Read: g.read == 100 || (g.read > 0 && g.rng.Uint64N(100) < g.read)}
	if g.access == Sequential {
		if g.pos+size > g.hi {
			g.pos = g.lo
		}
		io.Offset = g.pos
		g.pos += size
	} else if d := dirIndex(io.Read); g.randomPPM > 0 && g.lastEnd[d] >= 0 && g.rng.Uint64N(1e6) >= g.randomPPM {
		// The sequential share: on from the last I/O of this direction.
		io.Offset = g.lastEnd[d]
		if io.Offset+size > g.rangeEnd {
			io.Offset = 0
		}
		g.lastEnd[d] = io.Offset + size
	} else {
		lo, hi := int64(0), g.rangeEnd
		if len(g.zones) > 0 {
			u := g.rng.Float64()
			z := g.zones[len(g.zones)-1]
			for _, c := range g.zones {
				if u < c.cum {
					z = c
					break
				}
			}
			lo, hi = z.from, z.to
		}
		first := (lo + size - 1) / size
		slots := (hi-size)/size - first + 1
		if slots < 1 {
			slots = 1
		}
		io.Offset = (first + int64(g.rng.Uint64N(uint64(slots)))) * size
		g.lastEnd[d] = io.Offset + size
	}
	g.spend(size)
	return io
}

// spend counts size bytes against a volume-limited thread's quota.
func (g *AddrGen) spend(size int64) {
	if g.quota >= 0 {
		g.quota -= size
		if g.quota <= 0 {
			g.exhausted = true
		}
	}
}

func dirIndex(read bool) int {
	if read {
		return 1
	}
	return 0
}
