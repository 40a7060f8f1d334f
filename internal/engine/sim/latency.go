package sim

import (
	"math"
	"math/rand/v2"

	"github.com/ptsrun/ptsrun/internal/engine"
)

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
	// At most bodySamples and about tailRecords of them: room for all on
	// the stack (a second's latency is sampled millions of times a run).
	recs := make([]record, 0, 128)
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
