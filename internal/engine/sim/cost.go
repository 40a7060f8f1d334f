package sim

import (
	"math"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// ioCost is what one I/O of one block size costs.
type ioCost struct {
	bytes     int64
	weight    float64 // share of I/Os
	progPages float64 // pages programmed for a host write, before GC
	rmw       bool    // sub-mapping-unit write: the old unit is read first
	effBytes  float64 // bytes the write occupies in flash
	lr0, lw0  float64 // base latency in seconds (no queueing, no waits)
	seq       bool    // a stream mix's sequential stream
	stream    int     // a stream mix's stream, by its index in Workload.Streams
}

// costs are the reads' and the writes' costs, each entry weighted by its
// share of its direction's I/Os: one list for both, but for a stream mix
// (Workload.Streams), whose directions have sizes of their own.
func (d *Drive) costs(w engine.Workload) (reads, writes []ioCost) {
	if len(w.Streams) > 0 {
		return d.mixCosts(w)
	}
	shares := w.BlockSplit
	if len(shares) == 0 {
		shares = []engine.BlockShare{{Bytes: w.BlockSize, Percent: 100}}
	}
	var out []ioCost
	for _, s := range shares {
		out = append(out, d.cost(s.Bytes, s.Percent/100))
	}
	return out, out
}

// cost is what an I/O of bs bytes costs, weight its share.
func (d *Drive) cost(bs int64, weight float64) ioCost {
	m := d.m
	page := float64(m.PageBytes)
	eff := float64((bs + mapUnit - 1) / mapUnit * mapUnit)
	c := ioCost{
		bytes:     bs,
		weight:    weight,
		progPages: eff / page,
		rmw:       bs < mapUnit,
		effBytes:  eff,
	}
	xfer := float64(bs) / m.LinkBW
	c.lr0 = m.CmdLatency.Seconds() + xfer // plus the NAND reads, which depend on the layout
	c.lw0 = m.CmdLatency.Seconds() + xfer
	if d.wce || m.PLP {
		c.lw0 += m.BufLatency.Seconds()
	} else {
		c.lw0 += m.TProg.Seconds() * math.Ceil(c.progPages/float64(m.Dies))
	}
	return c
}

// rates is the timing model's answer for one step.
type rates struct {
	iops       float64
	lr, lw     float64 // base latency incl. expected waits, seconds
	q          float64 // queueing delay, seconds
	busyProg   float64 // fraction of die time programming
	busyErase  float64
	readWaitP  float64 // chance a read waits behind an erase
	writeWaitP float64
	// The part of lr and lw the tail events carry: their chances times
	// their mean waits.
	lrTail, lwTail float64
}

// pmin is a soft minimum: near the smallest bound, lower where two bounds are
// close, as a queue near saturation is.
func pmin(bounds ...float64) float64 {
	var s float64
	for _, b := range bounds {
		if b > 0 && !math.IsInf(b, 1) {
			s += math.Pow(b, -3)
		}
	}
	if s == 0 {
		return 0
	}
	return math.Pow(s, -1.0/3)
}

// layout counts the active range's units by how they were last written.
type layout struct {
	units  int32
	counts [256]int64
}

func (d *Drive) newLayout(arUnits int32) *layout {
	l := &layout{units: arUnits}
	if int(arUnits) == len(d.f.gran) {
		l.counts = d.f.granCounts
		return l
	}
	for _, g := range d.f.gran[:arUnits] {
		l.counts[g]++
	}
	return l
}

func (l *layout) moved(lu int32, from, to uint8) {
	if lu < l.units {
		l.counts[from]--
		l.counts[to]++
	}
}

// readCost is the expected number of NAND page reads of a host read of bs
// bytes and the expected NAND part of its latency: data laid down in pieces
// smaller than the read costs a page read per piece; unmapped data costs none.
func (d *Drive) readCost(l *layout, bs int64) (pages, lat float64) {
	page := float64(d.m.PageBytes)
	dies := float64(d.m.Dies)
	for g, n := range l.counts {
		if n == 0 || uint8(g) == gNone {
			continue
		}
		frac := float64(n) / float64(l.units)
		p := math.Ceil(float64(bs) / page)
		if uint8(g) != gContig {
			if piece := int64(1) << g; piece < bs {
				p = float64(bs/piece) * math.Ceil(float64(piece)/page)
			}
		}
		pages += frac * p
		lat += frac * math.Ceil(p/dies) * d.m.TRead.Seconds()
	}
	return pages, lat
}

func granOf(bs int64) uint8 {
	g := uint8(0)
	for b := max(bs, mapUnit); b > 1; b >>= 1 {
		g++
	}
	return g
}

// rates answers for one step. capIOPS, when above zero, is the host's rate
// cap (Workload.RateIOPSCap): the drive is then asked fewer I/Os than it
// could do, and an I/O waits in the drive's queue only as long as one
// arriving at that rate would: the queueing delay of an M/D/1 queue whose
// server is the drive as a whole (service rate its uncapped IOPS, load ρ
// the cap's share of it): ρ ÷ (2 µ (1 − ρ)), and never more than with
// every slot the host allows in flight. Fewer I/Os also keep the dies
// less busy, which the waits behind programs and erases follow.
func (d *Drive) rates(w engine.Workload, csR, csW []ioCost, l *layout, noise, capIOPS float64) rates {
	m := d.m
	r := w.ReadShare()
	wf := 1 - r
	reloc, erase := d.gcCost()
	tr, tp, te := m.TRead.Seconds(), m.TProg.Seconds(), m.TErase.Seconds()

	var readDie, writeDie, progDie, eraseDie, bytesR, bytesW, lr0, lw0 float64
	for _, c := range csR {
		pages, nandLat := d.readCost(l, c.bytes)
		readDie += c.weight * pages * tr
		bytesR += c.weight * float64(c.bytes)
		lr0 += c.weight * (c.lr0 + nandLat)
	}
	for _, c := range csW {
		prog := c.progPages * tp * (1 + reloc)
		gcRead := c.progPages * reloc * tr
		er := erase * c.effBytes / float64(d.unitBytes) * te *
			float64(d.unitBytes) / float64(m.EraseBlockBytes)
		if erase == 0 {
			// No collection yet: blocks are still erased once before reuse.
			er = c.effBytes / float64(m.EraseBlockBytes) * te
		}
		rmw := 0.0
		if c.rmw {
			rmw = tr
		}
		writeDie += c.weight * (prog + gcRead + er + rmw)
		progDie += c.weight * prog
		eraseDie += c.weight * er
		bytesW += c.weight * float64(c.bytes)
		lw0 += c.weight * c.lw0
	}
	dies := float64(m.Dies)
	oio := float64(w.OIO())

	var out rates
	// Two passes: the waits depend on how busy the dies are, which depends on IOPS.
	for pass := 0; pass < 2; pass++ {
		// A read waits for a program on its die (suspend shortens it): every
		// read, a little. Rarely it waits for an erase, takes a slow path or
		// meets a firmware pause: tail events, each drawn by sample with the
		// chance and the mean wait counted here, so that the latency the
		// I/Os get averages to what the IOPS were computed from.
		out.readWaitP = out.busyErase * 0.3
		out.writeWaitP = out.busyErase * 0.02
		out.lrTail = out.readWaitP*te*0.5 + slowReadP*3.5*tr + m.HiccupProb*hiccupMean
		out.lwTail = out.writeWaitP*(tp+te*0.5) + slowWriteP*0.6*tp + m.HiccupProb*hiccupMean
		// A run's scatter (noise) speeds or slows the drive as a whole: its
		// service rates and its base latency alike, so that the IOPS never
		// outrun the latency bound and the queueing delay below is never
		// negative.
		out.lr = (lr0+out.busyProg*tp*0.25)/noise + out.lrTail
		out.lw = lw0/noise + out.lwTail
		l0 := r*out.lr + wf*out.lw
		iopsDies := dies / (r*readDie + wf*writeDie) * noise
		iopsLat := oio / l0
		iopsBW := 1 / (r*bytesR/m.MaxReadBW + wf*bytesW/m.MaxWriteBW) * noise
		out.iops = pmin(iopsDies, iopsLat, iopsBW, m.MaxIOPS*noise)
		// Little's law: the OIO I/Os in flight take oio/iops each.
		out.q = max(0, oio/out.iops-l0)
		if mu := out.iops; capIOPS > 0 && capIOPS < mu {
			rho := capIOPS / mu
			out.iops = capIOPS
			out.q = min(out.q, rho/(2*mu*(1-rho)))
		}
		out.busyProg = min(1, out.iops*wf*progDie/dies)
		out.busyErase = min(1, out.iops*wf*eraseDie/dies)
	}
	return out
}
