package sim

import (
	"math"
	"math/rand/v2"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// streams generates host addresses.
type streams struct {
	access   engine.Access
	arUnits  int32
	arBytes  int64
	gen      *engine.AddrGen // random writes' offsets
	pos      []int64         // sequential streams: current byte offset
	lo, hi   []int64         // each stream's region
	next     int             // stream that gets the next I/O
	unitSize int64
	// A random workload with a random share writes in runs (see
	// writeUnit): the chance a write continues its run, and the long run
	// being written.
	cont      float64 // 1 − RandomPct/100; 0 without a share
	runLeft   int64   // units the current long run still writes
	runNext   int32   // the unit it writes next
	unitFirst int32   // the active range's units, [unitFirst, unitEnd)
	unitEnd   int32
	mix       *mixState // a stream mix's writes (mix.go); nil otherwise
}

func newStreams(w engine.Workload, userBytes, unitBytes int64, userUnits int32) *streams {
	base := w.RangeStartBytes(userBytes)
	ar := w.RangeBytes(userBytes)
	s := &streams{access: w.Access, arBytes: ar, unitSize: unitBytes,
		arUnits: max(1, int32(float64(userUnits)*w.ActiveRange/100))}
	if w.Access == engine.Sequential {
		bs := max(w.BlockSize, 512)
		for t := 0; t < w.TC; t++ {
			lo := base + ar*int64(t)/int64(w.TC)/bs*bs
			hi := base + ar*int64(t+1)/int64(w.TC)/bs*bs
			s.lo = append(s.lo, lo)
			s.hi = append(s.hi, hi)
			s.pos = append(s.pos, lo)
		}
	}
	writes := w
	writes.ReadPct = 0
	writes.Passes = 0
	writes.RandomPct = 0 // the generator places units; writeUnit lays the runs
	if len(w.Streams) > 0 {
		writes = mixRandomWrites(w)
	}
	s.gen = engine.NewAddrGen(writes, userBytes, 0, 1, 0)
	if w.Access == engine.Random && w.RandomPct > 0 && w.RandomPct < 100 {
		s.cont = 1 - w.RandomPct/100
	}
	s.unitFirst = int32(base / unitBytes)
	s.unitEnd = max(s.unitFirst+1, int32((base+ar)/unitBytes))
	return s
}

// writeUnit is the unit the next unit's worth of random writes lands in,
// and the granularity it is laid down in, for writes of size bytes (the
// I/O size drawn for it, mean the split's mean).
//
// With a random share (RandomPct), writes come in runs: a write at a
// random offset starts one, and each next write continues it with chance
// c = 1 − RandomPct/100, so that a run's length is geometric, 1/(1 − c)
// writes on average. The drive sees whole units written one after the
// other where runs are at least a unit long (K = unit ÷ I/O size
// writes): the share of the written data in such runs is c^(K−1)·(1 +
// (K−1)(1 − c)) (the length-biased tail of the geometric), and a long
// run, memoryless past K, writes 1 + c/((1 − c)K) units on average. So
// between long runs a unit starts one with the chance that gives that
// share; it then writes its units in order, from a random one, each laid
// down whole. The other units are written by short runs at random places:
// a random unit, laid down in pieces of a run's length (a geometric draw
// below K). At 80 % random and 4 KiB in a unit of megabytes no run is
// long, and the units are what they are without a share, in larger
// pieces; a small share (1 %) writes most of the data in long runs.
func (s *streams) writeUnit(rng *rand.Rand, size int64, mean float64) (int32, uint8) {
	if s.cont <= 0 {
		return s.randomUnit(), granOf(size)
	}
	if s.runLeft > 0 {
		lu := s.runNext
		s.runLeft--
		if s.runNext++; s.runNext >= s.unitEnd {
			s.runNext = s.unitFirst
		}
		return lu, gContig
	}
	c := s.cont
	k := max(1, float64(s.unitSize)/mean)
	f := math.Pow(c, k-1) * (1 + (k-1)*(1-c)) // the data's share in long runs
	u := 1 + c/((1-c)*k)                      // a long run's mean units
	if f > 0 && rng.Float64() < f/(f+u*(1-f)) {
		// A long run: K writes, then geometric more.
		extra := 0.0
		if c > 0 {
			extra = math.Floor(math.Log(1-rng.Float64()) / math.Log(c))
		}
		units := max(1, int64((k+extra)/k))
		lu := s.randomUnit()
		s.runLeft, s.runNext = units-1, lu+1
		if s.runNext >= s.unitEnd {
			s.runNext = s.unitFirst
		}
		return lu, gContig
	}
	// A short run: 1 + geometric writes, fewer than K.
	top := 1 - math.Pow(c, k-1)
	n := 1.0
	if top > 0 {
		n = 1 + math.Floor(math.Log(1-rng.Float64()*top)/math.Log(c))
	}
	piece := min(int64(n)*size, s.unitSize)
	return s.randomUnit(), granOf(piece)
}

// randomUnit picks the unit the next random write lands in: the offset the
// host would write, from the same generator the real engines use, divided
// into mapping units.
func (s *streams) randomUnit() int32 {
	return int32(s.gen.Next().Offset / s.unitSize)
}

// advance moves the sequential streams by n I/Os of bs bytes and calls
// written for every unit a write stream finished.
func (s *streams) advance(n int64, bs int64, written func(lu int32)) {
	k := int64(len(s.pos))
	for t := int64(0); t < k; t++ {
		ios := n / k
		if t < n%k {
			ios++
		}
		// Streams take turns, so the remainder rotates between them.
		i := (int64(s.next) + t) % k
		for ios > 0 {
			room := (s.hi[i] - s.pos[i]) / bs
			if room <= 0 {
				s.pos[i] = s.lo[i]
				room = (s.hi[i] - s.lo[i]) / bs
				if room <= 0 {
					break
				}
			}
			step := min(ios, room)
			from := s.pos[i]
			s.pos[i] += step * bs
			ios -= step
			if written != nil {
				// A unit is written when the stream leaves it, or reaches the
				// end of its region inside it.
				end := s.pos[i] / s.unitSize
				if s.pos[i] == s.hi[i] && s.pos[i]%s.unitSize != 0 {
					end++
				}
				for u := from / s.unitSize; u < end; u++ {
					written(int32(u))
				}
			}
		}
	}
	s.next = int((int64(s.next) + n) % max(k, 1))
}
