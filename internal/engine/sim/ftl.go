package sim

// ftl is a page-mapped flash translation layer on scaled mapping units with
// cost-benefit garbage collection. Host writes go to one open block,
// relocated units to another (hot/cold separation, as real FTLs do).
//
// The victim is the full block with the most (1−u)·age/(1+u): u its share
// of valid units, age the host units written since it was closed (Rosenblum
// and Ousterhout's cost-benefit cleaning, LFS 1992, as flash controllers
// adopted it). Free space is 1−u; collecting costs reading the block and
// writing its u back (1+u); age is how long the valid data has stayed so.
// Under uniform random writes it picks what greedy picks, the emptiest
// block, give or take; where some data is rewritten far more often than the
// rest it lets blocks of cold data sit nearly full and collects the hot
// ones, which have emptied: hot zones make collection cheaper, as they do
// on real drives. Plain greedy, or greedy among the oldest blocks, collects
// cold blocks that are still nearly full and so does worse on a skewed
// workload than on a uniform one.
type ftl struct {
	userUnits     int32
	unitsPerBlock int32
	nBlocks       int32
	reserve       int // collect garbage while fewer free blocks than this

	l2p []int32 // logical unit → physical unit, −1 unmapped
	// gran is how the data of each logical unit was last written: gContig for
	// sequential streams, else log2 of the random write's size. Data written
	// by small random writes lies scattered over many pages, and a large read
	// of it needs a page read per piece (gNone: unmapped).
	gran []uint8
	// granCounts counts the units of gran by value: the whole range's
	// layout, kept as gran changes, so that a workload on all of it does
	// not count its units again (they are millions).
	granCounts [256]int64
	p2l        []int32 // physical unit → logical unit, −1 not valid
	valid      []int32 // valid units per block
	state      []uint8 // blockFree, blockOpen, blockFull
	free       []int32 // free blocks, used as a FIFO ring
	freeH      int     // ring head
	freeN      int     // ring length

	host, gc frontier
	// closed lists full blocks, oldest first; closedAt is the host units
	// written when each block was closed.
	closed   []int32
	closedAt []int64

	hostUnits int64 // units written by the host since purge
	relocated int64 // units moved by garbage collection since purge
	erased    int64 // blocks erased by garbage collection since purge
}

type frontier struct {
	block int32 // −1: none open
	next  int32 // next unit in the block
}

const (
	blockFree uint8 = iota
	blockOpen
	blockFull
)

const unitsPerBlock = 256

const (
	gNone   uint8 = 0
	gContig uint8 = 255
)

func newFTL(userUnits int32, op float64) *ftl {
	phys := int64(float64(userUnits) * (1 + op))
	nBlocks := int32((phys + unitsPerBlock - 1) / unitsPerBlock)
	reserve := max(4, int(nBlocks)/256)
	// Room for the reserve and both open blocks beyond the user data, however
	// small the over-provisioning.
	userBlocks := (userUnits + unitsPerBlock - 1) / unitsPerBlock
	nBlocks = max(nBlocks, userBlocks+int32(reserve)+3)
	f := &ftl{
		userUnits:     userUnits,
		unitsPerBlock: unitsPerBlock,
		nBlocks:       nBlocks,
		reserve:       reserve,
		l2p:           make([]int32, userUnits),
		gran:          make([]uint8, userUnits),
		p2l:           make([]int32, int64(nBlocks)*unitsPerBlock),
		valid:         make([]int32, nBlocks),
		state:         make([]uint8, nBlocks),
		free:          make([]int32, nBlocks),
		closed:        make([]int32, 0, nBlocks),
		closedAt:      make([]int64, nBlocks),
	}
	f.purge()
	return f
}

// purge returns every unit to the unwritten state: what a block erase or a
// format with user-data erase does.
func (f *ftl) purge() {
	for i := range f.l2p {
		f.l2p[i] = -1
		f.gran[i] = gNone
	}
	f.countGran()
	for i := range f.p2l {
		f.p2l[i] = -1
	}
	for b := range f.valid {
		f.valid[b] = 0
		f.state[b] = blockFree
		f.free[b] = int32(b)
		f.closedAt[b] = 0
	}
	f.freeH, f.freeN = 0, int(f.nBlocks)
	f.closed = f.closed[:0]
	f.host = frontier{block: -1}
	f.gc = frontier{block: -1}
	f.hostUnits, f.relocated, f.erased = 0, 0, 0
}

// trim unmaps logical units [from, to): their flash becomes invalid.
func (f *ftl) trim(from, to int32) {
	for lu := from; lu < to; lu++ {
		f.invalidate(lu)
	}
}

func (f *ftl) invalidate(lu int32) {
	if pu := f.l2p[lu]; pu >= 0 {
		f.p2l[pu] = -1
		f.valid[pu/f.unitsPerBlock]--
		f.l2p[lu] = -1
	}
	f.granCounts[f.gran[lu]]--
	f.granCounts[gNone]++
	f.gran[lu] = gNone
}

// countGran counts gran afresh (after a purge or a snapshot's load).
func (f *ftl) countGran() {
	f.granCounts = [256]int64{}
	for _, g := range f.gran {
		f.granCounts[g]++
	}
}

func (f *ftl) popFree() int32 {
	if f.freeN == 0 {
		panic("sim: flash translation layer ran out of free blocks")
	}
	b := f.free[f.freeH]
	f.freeH = (f.freeH + 1) % len(f.free)
	f.freeN--
	return b
}

func (f *ftl) pushFree(b int32) {
	f.free[(f.freeH+f.freeN)%len(f.free)] = b
	f.freeN++
}

// place puts logical unit lu at the frontier, opening a block when needed.
func (f *ftl) place(fr *frontier, lu int32) {
	if fr.block < 0 || fr.next == f.unitsPerBlock {
		if fr.block >= 0 {
			f.state[fr.block] = blockFull
			f.closed = append(f.closed, fr.block)
			f.closedAt[fr.block] = f.hostUnits
		}
		fr.block = f.popFree()
		f.state[fr.block] = blockOpen
		fr.next = 0
	}
	pu := fr.block*f.unitsPerBlock + fr.next
	fr.next++
	f.p2l[pu] = lu
	f.l2p[lu] = pu
	f.valid[fr.block]++
}

// write is a host write of logical unit lu. It returns the units garbage
// collection relocated and the blocks it erased to make room.
func (f *ftl) write(lu int32, gran uint8) (relocated, erased int64) {
	f.invalidate(lu)
	f.granCounts[gNone]--
	f.granCounts[gran]++
	f.gran[lu] = gran
	for f.freeN < f.reserve {
		r, ok := f.collect()
		if !ok {
			break
		}
		relocated += r
		erased++
	}
	f.place(&f.host, lu)
	f.hostUnits++
	return relocated, erased
}

// collect erases the full block of the best cost-benefit (see ftl), moving
// its valid units to the GC frontier first. It reports false when every
// full block is full of valid data.
func (f *ftl) collect() (int64, bool) {
	at := f.victim()
	if at < 0 {
		return 0, false
	}
	victim := f.closed[at]
	f.closed = append(f.closed[:at], f.closed[at+1:]...)
	base := victim * f.unitsPerBlock
	var moved int64
	for i := int32(0); i < f.unitsPerBlock; i++ {
		if lu := f.p2l[base+i]; lu >= 0 {
			f.p2l[base+i] = -1
			f.valid[victim]--
			f.place(&f.gc, lu)
			moved++
		}
	}
	f.state[victim] = blockFree
	f.pushFree(victim)
	f.relocated += moved
	f.erased++
	return moved, true
}

// victim returns the index in closed of the block with the most
// (1−u)·age/(1+u), the oldest of equals; −1 when every block is full of
// valid data. An empty block is taken at once.
func (f *ftl) victim() int {
	at, best := -1, -1.0
	per := float64(f.unitsPerBlock)
	for i, b := range f.closed {
		v := f.valid[b]
		if v == 0 {
			return i
		}
		if v == f.unitsPerBlock {
			continue
		}
		u := float64(v) / per
		age := float64(f.hostUnits-f.closedAt[b]) + 1
		if score := (1 - u) * age / (1 + u); score > best {
			at, best = i, score
		}
	}
	return at
}

// mapped counts logical units holding data.
func (f *ftl) mapped() int64 {
	var n int64
	for _, v := range f.valid {
		n += int64(v)
	}
	return n
}
