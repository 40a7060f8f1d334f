package engine

import (
	"fmt"
	"math"
	"strings"

	"github.com/ptsrun/ptsrun/internal/units"
)

// Stream is one I/O stream of a stream mix (Workload.Streams): a
// direction, a transfer size, random or sequential, and its share of the
// mix's I/Os. A mix is what a capture's applied test workload is (after
// the SNIA RWSW method): each I/O draws its stream by share from one
// queue, and a sequential stream continues where its own previous I/O
// ended, whatever the other streams did in between.
type Stream struct {
	Read    bool    `json:"read"`
	Access  Access  `json:"access"`
	Bytes   int64   `json:"bs"`
	Percent float64 `json:"pct"` // share of the mix's I/Os
}

// Label names the stream as tables write it: "SEQ 128 KiB read".
func (s Stream) Label() string {
	acc, dir := "RND", "write"
	if s.Access == Sequential {
		acc = "SEQ"
	}
	if s.Read {
		dir = "read"
	}
	return fmt.Sprintf("%s %s %s", acc, units.FormatSize(s.Bytes), dir)
}

// MixWorkload is the workload of a stream mix: the streams as given, the
// read percentage their read share rounded (for labels; the engines draw
// the exact shares), Access random unless every stream is sequential.
// TC, QD, active range and duration are the caller's to set.
func MixWorkload(streams []Stream) Workload {
	w := Workload{Streams: append([]Stream(nil), streams...)}
	w.ReadPct = mixReadPct(streams)
	w.Access = Sequential
	for _, s := range streams {
		if s.Access != Sequential {
			w.Access = Random
		}
	}
	return w
}

func mixReadPct(streams []Stream) int {
	var r, sum float64
	for _, s := range streams {
		sum += s.Percent
		if s.Read {
			r += s.Percent
		}
	}
	if sum <= 0 {
		return 0
	}
	return int(math.Round(100 * r / sum))
}

// ReadShare is the share of the workload's I/Os that are reads, 0…1: a
// mix's read streams' share, else ReadPct.
func (w Workload) ReadShare() float64 {
	if len(w.Streams) == 0 {
		return float64(w.ReadPct) / 100
	}
	var r float64
	for _, s := range w.Streams {
		if s.Read {
			r += s.Percent
		}
	}
	return r / 100
}

// validateMix checks a stream mix: shares above zero adding up to 100,
// sizes multiples of the logical block, and none of the options a mix
// does not take (its streams say the sizes, directions and access).
func (w Workload) validateMix(lbs int64) error {
	bad := func(format string, a ...any) error {
		return &WorkloadError{Field: "streams", Reason: fmt.Sprintf(format, a...)}
	}
	switch {
	case len(w.BlockSplit) > 0 || w.BlockSize != 0:
		return bad("a stream mix with a block size or split of its own: its streams give the sizes")
	case len(w.Zones) > 0:
		return bad("a stream mix with zones: a mix's random streams are uniform over the active range")
	case w.RandomPct != 0:
		return bad("a stream mix with a random share: its streams say which are random")
	case w.ReadPct != mixReadPct(w.Streams):
		return bad("a stream mix's read percentage %d is not its read streams' share rounded (%d)", w.ReadPct, mixReadPct(w.Streams))
	}
	var sum float64
	seen := map[Stream]bool{}
	for _, s := range w.Streams {
		switch {
		case !(s.Percent > 0) || math.IsInf(s.Percent, 0):
			return bad("the share %v %% of %s is not above zero", s.Percent, s.Label())
		case s.Bytes <= 0:
			return bad("the stream %s has no transfer size", s.Label())
		case s.Bytes%lbs != 0:
			return bad("the stream %s's size is not a multiple of the logical block size %d", s.Label(), lbs)
		}
		k := s
		k.Percent = 0
		if seen[k] {
			return bad("the stream %s appears twice", s.Label())
		}
		seen[k] = true
		sum += s.Percent
	}
	if !hundred(sum) {
		return bad("the streams' shares add up to %v %%, not 100 %%", round6(sum))
	}
	return nil
}

// MixLabel names a mix's streams for people, in its order: "RND 4 KiB
// read 60 %, SEQ 128 KiB write 40 %"; "" without a mix.
func (w Workload) MixLabel() string {
	var parts []string
	for _, s := range w.Streams {
		parts = append(parts, fmt.Sprintf("%s %s %%", s.Label(), pct(math.Round(s.Percent*100)/100)))
	}
	return strings.Join(parts, ", ")
}

// mixGen is the part of AddrGen that draws a stream mix's I/Os: the
// stream of each I/O by share, and each sequential stream's position in
// a region of its own.
type mixGen struct {
	cum     []uint64 // cumulative shares in 1/1e6
	streams []Stream
	pos     []int64 // per stream: its next offset (sequential streams)
	lo, hi  []int64 // per stream: its region (sequential streams)
}

// MixRegion is where sequential stream k (of a mix's streams in order)
// of thread thread (of threads) moves, in bytes from the active range's
// start [lo, hi): the active range in threads × (sequential streams)
// equal parts, each its own, aligned to the mix's largest size, so that
// no two sequential streams ever overlap. Both the engines and the
// simulated drive's FTL place a mix's sequential I/O by it.
func (w Workload) MixRegion(capacity int64, k, thread, threads int) (lo, hi int64) {
	nseq, idx := 0, -1
	for i, s := range w.Streams {
		if s.Access == Sequential {
			if i == k {
				idx = nseq
			}
			nseq++
		}
	}
	if idx < 0 {
		return 0, 0
	}
	bs := w.maxBS()
	ar := w.RangeBytes(capacity)
	parts := int64(threads) * int64(nseq)
	j := int64(thread)*int64(nseq) + int64(idx)
	return ar * j / parts / bs * bs, ar * (j + 1) / parts / bs * bs
}

func newMixGen(w Workload, capacity int64, thread, threads int) *mixGen {
	m := &mixGen{streams: w.Streams}
	var cum float64
	for i, s := range w.Streams {
		cum += s.Percent
		m.cum = append(m.cum, uint64(cum*1e4))
		lo, hi := w.MixRegion(capacity, i, thread, threads)
		m.lo, m.hi, m.pos = append(m.lo, lo), append(m.hi, hi), append(m.pos, lo)
	}
	m.cum[len(m.cum)-1] = 1e6
	return m
}

// next draws the next I/O of the mix, its offset from the active range's
// start; random offsets are uniform over the range, aligned to the size.
func (m *mixGen) next(g *AddrGen) IO {
	u := g.rng.Uint64N(1e6)
	k := len(m.cum) - 1
	for i, c := range m.cum {
		if u < c {
			k = i
			break
		}
	}
	s := m.streams[k]
	io := IO{Size: s.Bytes, Read: s.Read}
	if s.Access == Sequential {
		if m.pos[k]+s.Bytes > m.hi[k] {
			m.pos[k] = m.lo[k]
		}
		io.Offset = m.pos[k]
		m.pos[k] += s.Bytes
		return io
	}
	slots := g.rangeEnd / s.Bytes
	if slots < 1 {
		slots = 1
	}
	io.Offset = int64(g.rng.Uint64N(uint64(slots))) * s.Bytes
	return io
}
