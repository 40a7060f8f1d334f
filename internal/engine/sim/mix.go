package sim

import (
	"math/rand/v2"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// A stream mix (engine.Workload.Streams) on the drive: its reads and its
// writes each cost what their own sizes cost (mixCosts), and its writes
// reach the FTL as the host places them: a random write stream's at
// random units, laid down at its size's granularity; a sequential write
// stream's in the region the engines give it (Workload.MixRegion), each
// unit it finishes written whole. A sequential read stream changes
// nothing on the drive; its reads cost what the layout they read makes
// them cost, as every read does.

// mixCosts are a mix's reads' and writes' costs, each stream weighted by
// its share of its direction's I/Os.
func (d *Drive) mixCosts(w engine.Workload) (reads, writes []ioCost) {
	r := w.ReadShare()
	for i, s := range w.Streams {
		of := 1 - r
		if s.Read {
			of = r
		}
		c := d.cost(s.Bytes, s.Percent/100/of)
		c.seq, c.stream = s.Access == engine.Sequential, i
		if s.Read {
			reads = append(reads, c)
		} else {
			writes = append(writes, c)
		}
	}
	return reads, writes
}

// mixState is a run's placement of a mix's writes.
type mixState struct {
	random  []ioCost   // the random write streams, weighted within them
	rshare  float64    // their share of the writes
	effRand float64    // their mean flash bytes per write
	seq     []*streams // each sequential write stream's regions, one per thread
	seqCost []ioCost
	carry   []float64 // each one's I/Os not yet issued whole
}

func newMixState(w engine.Workload, userBytes, unitBytes int64, csW []ioCost) *mixState {
	m := &mixState{}
	base := w.RangeStartBytes(userBytes)
	for _, c := range csW {
		if !c.seq {
			m.rshare += c.weight
			m.random = append(m.random, c)
			continue
		}
		st := &streams{access: engine.Sequential, unitSize: unitBytes}
		for t := 0; t < w.TC; t++ {
			lo, hi := w.MixRegion(userBytes, c.stream, t, w.TC)
			st.lo, st.hi, st.pos = append(st.lo, base+lo), append(st.hi, base+hi), append(st.pos, base+lo)
		}
		m.seq, m.seqCost, m.carry = append(m.seq, st), append(m.seqCost, c), append(m.carry, 0)
	}
	for i := range m.random {
		m.effRand += m.random[i].weight * m.random[i].effBytes
		m.random[i].weight /= m.rshare
	}
	return m
}

// mixRandomWrites is the workload whose generator places a mix's random
// writes: uniform over the active range, at the largest random write's
// alignment (the FTL's units are larger still).
func mixRandomWrites(w engine.Workload) engine.Workload {
	out := engine.Workload{Access: engine.Random, BlockSize: 512, TC: 1, QD: 1, ActiveRange: w.ActiveRange,
		RangeStart: w.RangeStart, Duration: 1, Seed: w.Seed}
	for _, s := range w.Streams {
		if !s.Read && s.Access == engine.Random {
			out.BlockSize = max(out.BlockSize, s.Bytes)
		}
	}
	return out
}

// mixWrites sends a step's nw writes of a mix to the FTL through write;
// gran is the granularity write lays the next unit down in.
func (d *Drive) mixWrites(st *streams, rng *rand.Rand, nw int64, write func(int32), gran *uint8) {
	m := st.mix
	if m.rshare > 0 {
		d.randCarry += float64(nw) * m.effRand / float64(d.unitBytes)
		for d.randCarry >= 1 {
			d.randCarry--
			var lu int32
			lu, *gran = st.writeUnit(rng, pickSize(rng, m.random), 0)
			write(lu)
		}
	}
	*gran = gContig
	for i, s := range m.seq {
		n := float64(nw)*m.seqCost[i].weight + m.carry[i]
		whole := int64(n)
		m.carry[i] = n - float64(whole)
		s.advance(whole, m.seqCost[i].bytes, write)
	}
}
