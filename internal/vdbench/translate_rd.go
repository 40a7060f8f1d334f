package vdbench

import (
	"math"
	"slices"
	"strings"
)

// loop is a for-loop of a run definition.
type loop struct {
	kind string // xfersize, threads, rdpct, seekpct
	vals []float64
	prm  Param
}

// rdDef is a run definition.
type rdDef struct {
	name     string
	pos      Pos
	wds      []string
	wdsPrm   *Param
	sds      []string
	sdsPrm   *Param
	rates    []float64 // > 0; empty with max
	max      bool
	ratePrm  *Param
	elapsed  int64
	interval int64
	warmup   int64
	pause    int64
	direct   bool
	loops    []loop
}

func (t *translator) runDefs(defs []Def) error {
	dflt := &rdDef{elapsed: defaultElapsed, interval: defaultInterval}
	for _, d := range defs {
		r := dflt
		if d.Name != "default" {
			c := *dflt
			r = &c
			r.name, r.pos = d.Name, d.Pos
			r.loops = slices.Clone(dflt.loops)
		}
		for _, prm := range d.Params {
			if err := t.rdParam(r, prm); err != nil {
				return err
			}
		}
		if r == dflt {
			continue
		}
		// vdbench: elapsed at least two intervals, a whole number of them,
		// and warmup too.
		if r.elapsed < 2*r.interval {
			return errAt(r.pos, "rd="+r.name, "elapsed=%d: at least twice the interval (%d s): vdbench reports a warm-up interval and one more at least", r.elapsed, r.interval)
		}
		if r.elapsed%r.interval != 0 || r.warmup%r.interval != 0 {
			return errAt(r.pos, "rd="+r.name, "elapsed=%d, warmup=%d: whole numbers of intervals (%d s), as vdbench reports them", r.elapsed, r.warmup, r.interval)
		}
		t.rds = append(t.rds, r)
	}
	return nil
}

func (t *translator) rdParam(r *rdDef, prm Param) error {
	p := prm
	name := match(rdKeywords, prm.Key)
	switch name {
	case "":
		return unknown(prm, "run definition (rd)")
	case "wd":
		if r.wdsPrm != nil {
			return errAt(prm.Pos, prm.String(), "rd=%s has its wd= already (%s at %s): vdbench takes one, wd=(wd1,wd2)", r.name, r.wdsPrm, r.wdsPrm.Pos)
		}
		r.wds, r.wdsPrm = names(prm), &p
	case "sd":
		r.sds, r.sdsPrm = names(prm), &p
		if len(r.sds) == 1 && strings.HasPrefix(strings.ToLower(r.sds[0]), "setsof") {
			return errAt(prm.Pos, prm.String(), "not supported: sets of sds chosen at random by vdbench's own generator; list them, or use sd=single or sd=range")
		}
	case "iorate":
		r.rates, r.max, r.ratePrm = nil, false, &p
		if len(prm.Values) == 1 && !prm.Values[0].IsNum {
			switch strings.ToLower(prm.Values[0].Text) {
			case "max":
				r.max = true
				return nil
			case "curve":
				return refuse(prm, "curve")
			}
		}
		for _, v := range prm.Values {
			if !v.IsNum || !(v.Num > 0) {
				return errAt(prm.Pos, prm.String(), "iorate= is max, or I/O rates above zero (a list runs each)")
			}
			r.rates = append(r.rates, v.Num)
		}
	case "elapsed", "warmup", "pause":
		lo := 0.0
		if name == "elapsed" {
			lo = 1
		}
		v, err := wholeIn(prm, lo, math.MaxInt32, "seconds (or m, h)")
		if err != nil {
			return err
		}
		switch name {
		case "elapsed":
			r.elapsed = v
		case "warmup":
			r.warmup = v
		case "pause":
			r.pause = v
		}
	case "interval":
		v, err := oneNum(prm)
		if err != nil {
			return err
		}
		if v != math.Trunc(v) || v < 1 {
			return errAt(prm.Pos, prm.String(), "whole seconds of 1 or more (vdbench reports each interval= seconds)")
		}
		r.interval = int64(v)
	case "forxfersize", "xfersize", "forthreads", "threads", "forrdpct", "rdpct", "forseekpct", "seekpct":
		kind := strings.TrimPrefix(name, "for")
		l := loop{kind: kind, prm: prm}
		for _, v := range prm.Values {
			if !v.IsNum {
				return errAt(prm.Pos, prm.String(), "numbers only (vdbench's for-loops take numbers)")
			}
			switch kind {
			case "xfersize":
				if err := checkSize(prm, v.Num); err != nil {
					return err
				}
			case "threads":
				if _, err := wholeValue(prm, v.Num, 1, math.MaxInt32, "a thread count"); err != nil {
					return err
				}
			case "rdpct":
				if _, err := wholeValue(prm, v.Num, 0, 100, "a percentage"); err != nil {
					return err
				}
			case "seekpct":
				if v.Num < 0 || v.Num > 100 {
					return errAt(prm.Pos, prm.String(), "a percentage from 0 (sequential) to 100 (random)")
				}
			}
			if slices.Contains(l.vals, v.Num) {
				return errAt(prm.Pos, prm.String(), "%s appears twice: two runs of one name", v.Text)
			}
			l.vals = append(l.vals, v.Num)
		}
		// vdbench: a for-loop given again replaces the first, and goes
		// last (innermost).
		r.loops = slices.DeleteFunc(r.loops, func(o loop) bool { return o.kind == kind })
		r.loops = append(r.loops, l)
	case "forrhpct", "rhpct", "forwhpct", "whpct":
		if len(prm.Values) != 1 || !prm.Values[0].IsNum || prm.Values[0].Num != 0 {
			return errAt(prm.Pos, prm.String(), "not supported: ptsrun runs no cache hits (a hit re-reads or rewrites a small area); only %s=0 is what it does", strings.TrimPrefix(name, "for"))
		}
	case "forcompratio", "compratio":
		if !isOne(prm) {
			return refuse(prm, "compratio")
		}
		t.note(prm, "ptsrun writes incompressible data")
	case "hitarea":
		return refuse(prm, "forhitarea")
	case "compression":
		return refuse(prm, "forcompression")
	case "depth", "width", "files", "sizes", "totalsize", "wss":
		return refuse(prm, "for"+name)
	case "openflags":
		if err := openFlags(prm); err != nil {
			return err
		}
		r.direct = true
	case "replay":
		return refuse(prm, "replay")
	default:
		return refuse(prm, name)
	}
	return nil
}

// variant is a run definition with its sds: vdbench's sd=single repeats
// an rd for each sd, sd=range for the first sd, the first two, …
type variant struct {
	name string
	sds  []string
}

// runsOf makes the runs of a run definition.
func (t *translator) runsOf(r *rdDef) error {
	if r.ratePrm == nil {
		return errAt(r.pos, "rd="+r.name, "no iorate=: write iorate=max to run as fast as the target goes, or a rate")
	}
	variants := []variant{{name: r.name, sds: r.sds}}
	if len(r.sds) == 1 {
		switch strings.ToLower(r.sds[0]) {
		case "single":
			variants = nil
			for _, s := range t.sds {
				variants = append(variants, variant{name: r.name + "_" + s.name, sds: []string{s.name}})
			}
		case "range":
			variants = nil
			for i, s := range t.sds {
				var list []string
				for _, o := range t.sds[:i+1] {
					list = append(list, o.name)
				}
				variants = append(variants, variant{name: r.name + "_" + t.sds[0].name + "-" + s.name, sds: list})
			}
		}
	}
	wds, err := t.wdsOf(r)
	if err != nil {
		return err
	}
	loops := slices.Clone(r.loops)
	if len(r.rates) > 1 {
		// vdbench runs a list of rates as the innermost loop.
		loops = append(loops, loop{kind: "iorate", vals: r.rates, prm: *r.ratePrm})
	}
	for _, v := range variants {
		err := combos(loops, func(vals []float64) error {
			return t.run(r, v, wds, loops, vals)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// combos calls f with every combination of the loops' values, the first
// loop outermost.
func combos(loops []loop, f func([]float64) error) error {
	vals := make([]float64, len(loops))
	var walk func(i int) error
	walk = func(i int) error {
		if i == len(loops) {
			return f(slices.Clone(vals))
		}
		for _, v := range loops[i].vals {
			vals[i] = v
			if err := walk(i + 1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(0)
}

// wdsOf finds the workloads an rd runs: by name or NAME* wildcard in the
// order defined; without wd= but with sd=, vdbench's latest wd=default.
func (t *translator) wdsOf(r *rdDef) ([]*wdDef, error) {
	if r.wdsPrm == nil {
		if r.sdsPrm == nil {
			return nil, errAt(r.pos, "rd="+r.name, "no wd= (and no sd=): nothing to run")
		}
		c := *t.wdDefault
		c.name, c.pos = "rd="+r.name, r.pos
		return []*wdDef{&c}, nil
	}
	var out []*wdDef
	for _, pat := range r.wds {
		found := false
		for _, w := range t.wds {
			if wildcard(pat, w.name) {
				found = true
				if !slices.Contains(out, w) {
					out = append(out, w)
				}
			}
		}
		if !found {
			return nil, errAt(r.wdsPrm.Pos, r.wdsPrm.String(), "no wd=%s is defined", pat)
		}
	}
	return out, nil
}

// wildcard is vdbench's: a trailing * matches any rest.
func wildcard(pat, name string) bool {
	if p, ok := strings.CutSuffix(pat, "*"); ok {
		return strings.HasPrefix(name, p)
	}
	return pat == name
}

// sdsOf finds the sds a workload loads, by name or wildcard in the order
// defined.
func (t *translator) sdsOf(w *wdDef, v variant, r *rdDef) ([]*sdDef, error) {
	list, prm := w.sds, w.sdsPrm
	if v.sds != nil {
		list, prm = v.sds, r.sdsPrm
	}
	if prm == nil {
		return nil, errAt(w.pos, "wd="+w.name, "no sd=: the workload loads no storage")
	}
	var out []*sdDef
	for _, pat := range list {
		found := false
		for _, s := range t.sds {
			if wildcard(pat, s.name) {
				found = true
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
		if !found {
			return nil, errAt(prm.Pos, prm.String(), "no sd=%s is defined", pat)
		}
	}
	return out, nil
}
