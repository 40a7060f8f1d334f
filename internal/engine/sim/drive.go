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
	th          thermalState // temperature, throttling, NAND bytes, wear (thermal.go)

	// keepIntervals asks run to keep each interval's histograms in
	// intervals, for a set's series to be merged from its drives'.
	keepIntervals bool
	intervals     []engine.IntervalStats
}

func newDrive(m Model) *Drive {
	unit := (m.UserBytes + userUnitsTarget - 1) / userUnitsTarget
	units := int32((m.UserBytes + unit - 1) / unit)
	return &Drive{m: m, f: newFTL(units, m.OP), unitBytes: unit, wce: true, th: newThermalState(m.Thermal)}
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
	var relocated int64
	for f.freeN < target && budget > 0 && f.hostUnits > 0 {
		moved, ok := f.collect()
		if !ok {
			break
		}
		relocated += moved
		budget -= float64(moved)*pagesPerUnit*(m.TRead+m.TProg).Seconds() + eraseCost
	}
	d.heat(dur.Seconds(), 0, 0, 0, relocated*d.unitBytes, relocated*d.unitBytes)
	d.idleCredit = min(budget, 0) // nothing is saved up while there is nothing to collect
	d.clock += dur
	return engine.Measurement{Engine: engine.Sim, Elapsed: dur, DeviceTime: d.clock}
}

// run executes the workload on the drive's virtual clock.
func (d *Drive) run(w engine.Workload, salt uint64) engine.Measurement {
	if w.Idle {
		return d.idle(w.Duration)
	}
	rng := rand.New(rand.NewPCG(w.Seed, salt))
	noise := 1 + d.m.Noise*rng.NormFloat64()
	csR, csW := d.costs(w)
	st := newStreams(w, d.m.UserBytes, d.unitBytes, d.f.userUnits)
	if len(w.Streams) > 0 {
		st.mix = newMixState(w, d.m.UserBytes, d.unitBytes, csW)
	}
	r := w.ReadShare()
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
		rt := d.rates(w, csR, csW, lay, noise, capIOPS)
		if sh := d.throttleShare(); sh < 1 && rt.iops > 0 {
			// Throttled: the controller runs at a share of its rates, and
			// the I/Os in flight wait the longer (Little's law).
			oio := float64(w.OIO())
			rt.q += oio/(rt.iops*sh) - oio/rt.iops
			rt.iops *= sh
		}
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

		hostUnits, relUnits := d.applyWrites(w, csW, st, lay, rng, nr, nw)
		nandW := (hostUnits + relUnits) * d.unitBytes
		d.heat(dt, nr, nw, w.MeanBlockSize(), int64(float64(nr)*w.MeanBlockSize())+relUnits*d.unitBytes, nandW)
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
			d.sample(rd, &iv, rng, csR, pr, rt.lr-rt.lrTail, rt.q, rt.lrTail, rt.readWaitP, true)
			d.sample(wr, &iv, rng, csW, pw, rt.lw-rt.lwTail, rt.q, rt.lwTail, rt.writeWaitP, false)
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
// It returns the units the FTL wrote for the host and relocated.
func (d *Drive) applyWrites(w engine.Workload, cs []ioCost, st *streams, lay *layout, rng *rand.Rand, nr, nw int64) (host, rel int64) {
	var ers int64
	gran := gContig
	write := func(lu int32) {
		lay.moved(lu, d.f.gran[lu], gran)
		r, e := d.f.write(lu, gran)
		rel += r
		ers += e
		host++
	}
	switch {
	case len(w.Streams) > 0:
		d.mixWrites(st, rng, nw, write, &gran)
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
	return host, rel
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
