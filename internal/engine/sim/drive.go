package sim

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// userUnitsTarget is the number of mapping units the user capacity is split into.
const userUnitsTarget = 1 << 18

// mapUnit is the host mapping granularity: writes smaller than it are
// read-modify-write.
const mapUnit = 4096

// Drive is one simulated SSD.
type Drive struct {
	m         Model
	f         *ftl
	unitBytes int64
	wce       bool          // volatile write cache enabled
	clock     time.Duration // virtual time the drive has been running I/O

	// Garbage-collection cost: relocated units per host unit, decayed so that
	// it follows the FTL's recent behaviour.
	gcRel, gcHost, gcErase float64
	stepUnits              float64 // recent host units written per step
	idleCredit             float64 // die-seconds of background collection owed (<0) or left over
	randCarry              float64 // random-write bytes not yet a whole unit

	hostWritten int64 // bytes the host wrote since the drive was made
	hostRead    int64

	// keepIntervals asks run to keep each interval's histograms in
	// intervals, for a set's series to be merged from its drives'.
	keepIntervals bool
	intervals     []engine.IntervalStats
}

func newDrive(m Model) *Drive {
	unit := (m.UserBytes + userUnitsTarget - 1) / userUnitsTarget
	units := int32((m.UserBytes + unit - 1) / unit)
	return &Drive{m: m, f: newFTL(units, m.OP), unitBytes: unit, wce: true}
}

// purge puts the drive back in the fresh-out-of-box state.
func (d *Drive) purge() {
	d.f.purge()
	d.gcRel, d.gcHost, d.gcErase, d.randCarry, d.stepUnits, d.idleCredit = 0, 0, 0, 0, 0, 0
}

// purgeTime is how long a block erase of the whole drive takes.
func (d *Drive) purgeTime() time.Duration {
	flash := float64(d.m.UserBytes) * (1 + d.m.OP)
	perDie := math.Ceil(flash / float64(d.m.EraseBlockBytes) / float64(d.m.Dies))
	return time.Duration(perDie) * d.m.TErase
}

// gcCost is the recent number of units relocated (and blocks erased) per
// host unit written. Free blocks beyond the collection reserve, which
// background collection leaves after idle time, let that share of the next
// step's writes go without collecting.
func (d *Drive) gcCost() (reloc, erase float64) {
	if d.gcHost <= 0 {
		return 0, 0
	}
	reloc, erase = d.gcRel/d.gcHost, d.gcErase/d.gcHost
	if surplus := d.f.freeN - d.f.reserve; surplus > 0 && d.stepUnits > 0 {
		covered := min(1, float64(surplus)*float64(d.f.unitsPerBlock)/d.stepUnits)
		reloc, erase = reloc*(1-covered), erase*(1-covered)
	}
	return reloc, erase
}

// idle lets background garbage collection run for dur of virtual time:
// with IdleGCShare of the dies' time it collects blocks until IdleFreeShare
// of the spare blocks are free. No host I/O.
func (d *Drive) idle(dur time.Duration) engine.Measurement {
	m, f := d.m, d.f
	// Die-seconds, with what the last idle period overspent or left: a
	// block is collected whole, however short the idle time.
	budget := d.idleCredit + dur.Seconds()*float64(m.Dies)*m.IdleGCShare
	userBlocks := (f.userUnits + f.unitsPerBlock - 1) / f.unitsPerBlock
	target := f.reserve + int(m.IdleFreeShare*float64(f.nBlocks-userBlocks))
	pagesPerUnit := float64(d.unitBytes) / float64(m.PageBytes)
	eraseCost := float64(int64(f.unitsPerBlock)*d.unitBytes/m.EraseBlockBytes) * m.TErase.Seconds()
	for f.freeN < target && budget > 0 && f.hostUnits > 0 {
		moved, ok := f.collect()
		if !ok {
			break
		}
		budget -= float64(moved)*pagesPerUnit*(m.TRead+m.TProg).Seconds() + eraseCost
	}
	d.idleCredit = min(budget, 0) // nothing is saved up while there is nothing to collect
	d.clock += dur
	return engine.Measurement{Engine: engine.Sim, Elapsed: dur, DeviceTime: d.clock}
}

// ioCost is what one I/O of one block size costs.
type ioCost struct {
	bytes     int64
	weight    float64 // share of I/Os
	progPages float64 // pages programmed for a host write, before GC
	rmw       bool    // sub-mapping-unit write: the old unit is read first
	effBytes  float64 // bytes the write occupies in flash
	lr0, lw0  float64 // base latency in seconds (no queueing, no waits)
}

func (d *Drive) costs(w engine.Workload) []ioCost {
	shares := w.BlockSplit
	if len(shares) == 0 {
		shares = []engine.BlockShare{{Bytes: w.BlockSize, Percent: 100}}
	}
	m := d.m
	page := float64(m.PageBytes)
	var out []ioCost
	for _, s := range shares {
		bs := s.Bytes
		eff := float64((bs + mapUnit - 1) / mapUnit * mapUnit)
		c := ioCost{
			bytes:     bs,
			weight:    s.Percent / 100,
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
		out = append(out, c)
	}
	return out
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
func (d *Drive) rates(w engine.Workload, cs []ioCost, l *layout, noise, capIOPS float64) rates {
	m := d.m
	r := float64(w.ReadPct) / 100
	wf := 1 - r
	reloc, erase := d.gcCost()
	tr, tp, te := m.TRead.Seconds(), m.TProg.Seconds(), m.TErase.Seconds()

	var readDie, writeDie, progDie, eraseDie, bytesR, bytesW, lr0, lw0 float64
	for _, c := range cs {
		pages, nandLat := d.readCost(l, c.bytes)
		readDie += c.weight * pages * tr
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
		bytesR += c.weight * float64(c.bytes)
		bytesW += c.weight * float64(c.bytes)
		lr0 += c.weight * (c.lr0 + nandLat)
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

// run executes the workload on the drive's virtual clock.
func (d *Drive) run(w engine.Workload, salt uint64) engine.Measurement {
	if w.Idle {
		return d.idle(w.Duration)
	}
	rng := rand.New(rand.NewPCG(w.Seed, salt))
	noise := 1 + d.m.Noise*rng.NormFloat64()
	cs := d.costs(w)
	st := newStreams(w, d.m.UserBytes, d.unitBytes, d.f.userUnits)
	r := float64(w.ReadPct) / 100
	lay := d.newLayout(st.arUnits)

	meas := engine.Measurement{Engine: engine.Sim}
	var elapsed float64
	var readCarry, ioCarry float64
	var doneBytes int64
	limit := w.Duration.Seconds()
	wantBytes := w.PassBytes(d.m.UserBytes)
	capIOPS := w.RateIOPSCap()
	ramp := w.Ramp.Seconds()
	var rampRead, rampWrite engine.DirStats // the ramp's I/Os: in the series only
	// The model steps a second at a time, whatever the series' interval:
	// its garbage-collection account decays per step, so shorter steps
	// would change what it measures. A step's I/Os are sampled into the
	// intervals it spans, each its share of the step's time.
	interval := w.SeriesInterval().Seconds()
	var iv engine.IntervalStats // the current interval's I/Os
	ivStart, ivEnd := 0.0, interval
	d.intervals = d.intervals[:0]
	closeInterval := func() {
		if iv.Empty() && elapsed <= ivStart {
			return
		}
		meas.Seconds = append(meas.Seconds, iv.Second(ivStart < ramp))
		if d.keepIntervals {
			// A set's series is summarised from its drives' histograms
			// merged: kept compact, a few hundred bytes an interval.
			k := engine.IntervalStats{Read: iv.Read, Write: iv.Write}
			k.Read.Hist, k.Write.Hist = cloneCompact(iv.Read.Hist), cloneCompact(iv.Write.Hist)
			d.intervals = append(d.intervals, k)
		}
		iv.Reset()
		ivStart, ivEnd = ivEnd, ivEnd+interval
	}
	for {
		dt := 1.0
		if (wantBytes <= 0 || limit > 0) && limit-elapsed < dt {
			dt = limit - elapsed // the time, alone or before the volume
		}
		if dt <= 1e-9 {
			break
		}
		rt := d.rates(w, cs, lay, noise, capIOPS)
		n := rt.iops*dt + ioCarry
		if wantBytes > 0 {
			per := w.MeanBlockSize()
			if rem := float64(wantBytes-doneBytes) / per; n >= rem {
				dt *= (rem - ioCarry) / (n - ioCarry)
				n = math.Ceil(rem - 1e-9)
			}
		}
		total := int64(n)
		ioCarry = n - float64(total)
		nr := int64(float64(total)*r + readCarry)
		readCarry = float64(total)*r + readCarry - float64(nr)
		nw := total - nr

		d.applyWrites(w, cs, st, lay, rng, nr, nw)
		// The step's pieces, one per interval it spans: whole intervals of
		// the ramp (Validate) or of the results.
		t0, t1 := elapsed, elapsed+dt
		var doneR, doneW int64
		for a := t0; a < t1-1e-9; {
			b := min(t1, ivEnd)
			cr, cw := int64(math.Round(float64(nr)*(b-t0)/dt)), int64(math.Round(float64(nw)*(b-t0)/dt))
			pr, pw := cr-doneR, cw-doneW
			doneR, doneW = cr, cw
			rd, wr := &meas.Read, &meas.Write
			if a < ramp {
				rd, wr = &rampRead, &rampWrite
			}
			before := iv.Read.Bytes + iv.Write.Bytes
			d.sample(rd, &iv, rng, cs, pr, rt.lr-rt.lrTail, rt.q, rt.lrTail, rt.readWaitP, true)
			d.sample(wr, &iv, rng, cs, pw, rt.lw-rt.lwTail, rt.q, rt.lwTail, rt.writeWaitP, false)
			doneBytes += iv.Read.Bytes + iv.Write.Bytes - before
			a = b
			if a >= ivEnd-1e-9 {
				elapsed = a
				closeInterval()
			}
		}
		elapsed = t1
		if wantBytes > 0 && doneBytes >= wantBytes {
			break
		}
		if wantBytes > 0 && total == 0 && rt.iops <= 0 {
			break // cannot progress; never loop forever
		}
	}
	closeInterval() // the last, cut short
	ran := time.Duration(elapsed * float64(time.Second))
	meas.Elapsed = max(ran-w.Ramp, 0)
	d.clock += ran
	meas.DeviceTime = d.clock
	d.hostRead += meas.Read.Bytes + rampRead.Bytes
	d.hostWritten += meas.Write.Bytes + rampWrite.Bytes
	return meas
}

// applyWrites sends nw host writes through the FTL and updates the GC cost.
// Sequential streams advance by reads and writes alike; the units they finish
// are written in proportion to the write share.
func (d *Drive) applyWrites(w engine.Workload, cs []ioCost, st *streams, lay *layout, rng *rand.Rand, nr, nw int64) {
	var rel, ers, host int64
	gran := gContig
	write := func(lu int32) {
		lay.moved(lu, d.f.gran[lu], gran)
		r, e := d.f.write(lu, gran)
		rel += r
		ers += e
		host++
	}
	switch {
	case w.Access == engine.Sequential:
		wf := float64(100-w.ReadPct) / 100
		st.advance(nr+nw, w.BlockSize, func(lu int32) {
			d.randCarry += wf
			if d.randCarry >= 1 {
				d.randCarry--
				write(lu)
			}
		})
	case nw > 0:
		var eff float64
		for _, c := range cs {
			eff += c.weight * c.effBytes
		}
		d.randCarry += float64(nw) * eff / float64(d.unitBytes)
		mean := w.MeanBlockSize()
		for d.randCarry >= 1 {
			d.randCarry--
			var lu int32
			lu, gran = st.writeUnit(rng, pickSize(rng, cs), mean)
			write(lu)
		}
	}
	d.decayGC(host, rel, ers)
}

// decayGC keeps an exponentially decayed account of garbage-collection work
// per host unit; a half-life of about four host units' worth of steps.
func (d *Drive) decayGC(host, rel, ers int64) {
	const keep = 0.97
	if host == 0 {
		return
	}
	d.stepUnits = 0.8*d.stepUnits + 0.2*float64(host)
	d.gcHost = d.gcHost*keep + float64(host)
	d.gcRel = d.gcRel*keep + float64(rel)
	d.gcErase = d.gcErase*keep + float64(ers)
}

const bodySamples = 24

// Slow paths and firmware pauses, per I/O.
const (
	slowReadP  = 3e-4 // read retried with soft decoding: 1–6 extra page reads
	slowWriteP = 4e-4 // write waits 20–100 % of a program for buffer space
	hiccupMin  = 0.002
	hiccupMax  = 0.008
	hiccupMean = (hiccupMin + hiccupMax) / 2
)

// sample records n I/Os' latencies for one second: a body of weighted
// samples around base + queueing (q), and tail events (waits behind an
// erase, slow paths, firmware pauses) that add their waits to that. base
// excludes the tail's expected waits, tailMean (per I/O): the I/Os average
// base + tailMean + q, the latency the step's IOPS were computed from, so
// that IOPS × mean latency is the I/Os in flight (Little's law).
//
// A second's few dozen records stand for thousands of I/Os, whose mean
// would not scatter by more than a fraction of a per cent. So the body's
// records are stratified (one from each equal slice of the distributions,
// at a random place in it) and matched to their means, and the queueing
// delay gives back what the tail events drawn this second took beyond
// their expected share: the mean is exact, the shape is the distributions',
// and a rare event keeps its own wait.
func (d *Drive) sample(ds *engine.DirStats, iv *engine.IntervalStats, rng *rand.Rand, cs []ioCost,
	n int64, base, q, tailMean, waitP float64, read bool) {
	if n <= 0 {
		return
	}
	m := d.m
	te, tp, tr := m.TErase.Seconds(), m.TProg.Seconds(), m.TRead.Seconds()
	// Tail events, counted per second.
	slowP := slowWriteP
	if read {
		slowP = slowReadP
	}
	// Their waits' means are the ones rates counts in lrTail and lwTail.
	type event struct {
		n    int64
		wait func(u float64) float64 // u-quantile of the wait
	}
	events := []event{
		{poisson(rng, float64(n)*waitP), func(u float64) float64 { return u * te }},
		{poisson(rng, float64(n)*slowP), func(u float64) float64 { return (1 + 5*u) * tr }},
		{poisson(rng, float64(n)*m.HiccupProb), func(u float64) float64 { return hiccupMin + (hiccupMax-hiccupMin)*u }},
	}
	if !read {
		events[0].wait = func(u float64) float64 { return u*te + tp }
		events[1].wait = func(u float64) float64 { return (0.2 + 0.8*u) * tp }
	}
	left := n
	for i := range events {
		events[i].n = min(events[i].n, left)
		left -= events[i].n
	}
	body := left

	// The records: k I/Os at fixed + q·g, g a queueing-delay quantile.
	type record struct {
		k        int64
		fixed, g float64
	}
	var recs []record
	var gSum float64
	add := func(r record) {
		recs = append(recs, r)
		gSum += float64(r.k) * r.g
	}
	// strata spreads count I/Os over up to most records, and calls f with
	// each record's I/Os and the places (0…1) of its strata.
	strata := func(count, most int64, f func(k int64, u, v float64)) {
		r := min(count, most)
		if r == 0 {
			return
		}
		u0, v0 := rng.Float64(), rng.Float64()
		shift := rng.Int64N(r)
		perm := rng.Perm(int(r)) // the queueing delay's strata go with the others' at random
		for j := int64(0); j < r; j++ {
			k := count / r
			if (j+shift)%r < count%r {
				k++
			}
			f(k, (float64(j)+u0)/float64(r), (float64(perm[j])+v0)/float64(r))
		}
	}
	// The body: base scattered by a log-normal of mean 1.
	const sigma = 0.08
	var lnSum float64
	strata(body, bodySamples, func(k int64, u, v float64) {
		ln := math.Exp(sigma*math.Sqrt2*math.Erfinv(2*max(u, 1e-12)-1) - sigma*sigma/2)
		lnSum += float64(k) * ln
		add(record{k: k, fixed: ln, g: gamma2Quantile(v)})
	})
	for i := range recs {
		recs[i].fixed *= base * float64(body) / lnSum
	}
	// The tail: its waits as drawn (a rare event's wait is its own), and
	// the queueing delay gives back what they took beyond their share.
	const tailRecords = 64
	var tailWait float64
	for _, ev := range events {
		strata(ev.n, max(1, tailRecords*ev.n/max(n-body, 1)), func(k int64, u, v float64) {
			w := ev.wait(u)
			tailWait += float64(k) * w
			add(record{k: k, fixed: base + w, g: gamma2Quantile(v)})
		})
	}
	q = max(0, q+tailMean-tailWait/float64(n))
	gScale := 0.0
	if gSum > 0 {
		gScale = float64(n) / gSum
	}

	for _, r := range recs {
		ns := max(int64(math.Round((r.fixed+q*r.g*gScale)*1e9)), 1)
		// The k I/Os of a record draw their sizes each: a multinomial over
		// the split, so that bytes per I/O scatter as the host's do.
		left, mass := r.k, 1.0
		for i, c := range cs {
			k := left
			if i < len(cs)-1 {
				k = binomial(rng, left, c.weight/mass)
				mass -= c.weight
			}
			if k > 0 {
				ds.Record(ns, k, c.bytes)
				iv.Record(read, ns, k, c.bytes)
			}
			if left -= k; left == 0 {
				break
			}
		}
	}
}

func pickSize(rng *rand.Rand, cs []ioCost) int64 {
	if len(cs) == 1 {
		return cs[0].bytes
	}
	u := rng.Float64()
	for _, c := range cs {
		if u < c.weight {
			return c.bytes
		}
		u -= c.weight
	}
	return cs[len(cs)-1].bytes
}

// gamma2Quantile is the u-quantile of Gamma(2, 1/2), mean 1, the shape of
// a queueing delay: y/2 where 1 − e^(−y)(1 + y) = u, by Newton's method
// kept inside a bracket, from gamma2Start.
func gamma2Quantile(u float64) float64 {
	if u <= 0 {
		return 0
	}
	return gamma2Root(u, gamma2Start(u)) / 2
}

// gamma2N is how many steps of u gamma2Roots tabulates.
const gamma2N = 1024

// gamma2Roots are the roots y at u = i/gamma2N, from which gamma2Start
// interpolates: a start within about 1e-7 of the root, which two Newton
// steps take to the tolerance where the closed-form start took four or
// five (the quantile was a quarter of the simulated drive's time). The
// root is the same, to the last bit or so.
var gamma2Roots = func() (y [gamma2N]float64) {
	for i := 1; i < gamma2N; i++ {
		u := float64(i) / gamma2N
		y[i] = gamma2Root(u, gamma2Guess(u))
	}
	return y
}()

// gamma2Start is where gamma2Root starts for u: between two tabulated
// roots, their interpolation; at the ends, where the quantile is steep,
// gamma2Guess.
func gamma2Start(u float64) float64 {
	x := u * gamma2N
	if x < 1 || x >= gamma2N-1 {
		return gamma2Guess(u)
	}
	i := int(x)
	return gamma2Roots[i] + (x-float64(i))*(gamma2Roots[i+1]-gamma2Roots[i])
}

// gamma2Guess is a closed-form start: F(y) ≈ y²/2 near 0, and the tail's
// asymptote above the median.
func gamma2Guess(u float64) float64 {
	if u > 0.5 {
		l := -math.Log1p(-u)
		return l + math.Log1p(l)
	}
	return math.Sqrt(2 * u)
}

// gamma2Root solves 1 − e^(−y)(1 + y) = u for y from y0, by Newton's
// method kept inside a bracket. A step within the tolerance ends it
// before the bracket is consulted: a Newton step that lands on y itself
// (F(y) − u rounds to 0) or on the bracket's end an ulp away is
// converged, not a reason to bisect (tested the other way round, one u in
// ten bisected some 40 times back to the same root).
func gamma2Root(u, y0 float64) float64 {
	lo, hi := 0.0, 80.0
	y := y0
	for range 100 {
		e := math.Exp(-y)
		f := -math.Expm1(-y) - y*e - u // F(y) − u
		if f > 0 {
			hi = y
		} else {
			lo = y
		}
		next := y - f/(y*e)
		if math.Abs(next-y) <= 1e-12*max(y, 1e-12) {
			y = next
			break
		}
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		y = next
	}
	return y
}

// binomial draws the number of successes of n trials of chance p: exact
// for few trials, else the normal or Poisson approximation.
func binomial(rng *rand.Rand, n int64, p float64) int64 {
	switch {
	case n <= 0 || p <= 0:
		return 0
	case p >= 1:
		return n
	case p > 0.5:
		return n - binomial(rng, n, 1-p)
	case n <= 64:
		var k int64
		for i := int64(0); i < n; i++ {
			if rng.Float64() < p {
				k++
			}
		}
		return k
	}
	mean := float64(n) * p
	if v := mean * (1 - p); v > 30 {
		return min(n, max(0, int64(math.Round(mean+math.Sqrt(v)*rng.NormFloat64()))))
	}
	return min(n, poisson(rng, mean))
}

func poisson(rng *rand.Rand, mean float64) int64 {
	switch {
	case mean <= 0:
		return 0
	case mean > 30:
		return max(0, int64(math.Round(mean+math.Sqrt(mean)*rng.NormFloat64())))
	}
	l := math.Exp(-mean)
	k, p := int64(0), rng.Float64()
	for p > l {
		k++
		p *= rng.Float64()
	}
	return k
}

// cloneCompact is a compact copy of h, nil for nil.
func cloneCompact(h *engine.Histogram) *engine.Histogram {
	if h == nil {
		return nil
	}
	c := h.Clone()
	c.Compact()
	return c
}
