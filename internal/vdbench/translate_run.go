package vdbench

import (
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/units"
)

// cellName is what a run's name may hold: a cell key, and with the fio
// engine the name of its job file.
var cellName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.=+-]*$`)

// run makes one run: the workloads of rd r at one combination of its
// for-loop values.
func (t *translator) run(r *rdDef, v variant, wds []*wdDef, loops []loop, vals []float64) error {
	name := v.name
	var settings []Setting
	over := map[string]float64{}
	for i, l := range loops {
		text := strconv.FormatFloat(vals[i], 'f', -1, 64)
		if l.kind == "xfersize" {
			text = units.SizeKey(int64(vals[i]))
		}
		settings = append(settings, Setting{Param: l.kind, Value: text})
		over[l.kind] = vals[i]
		if len(l.vals) > 1 {
			name += "-" + l.kind + "=" + text
		}
	}
	if !cellName.MatchString(name) {
		return errAt(r.pos, "rd="+r.name, "not supported: the run's name %q: ptsrun names a cell, and the fio engine its files, after the run: letters, digits and _ - . = + only", name)
	}
	if at, ok := t.names[name]; ok {
		return errAt(r.pos, "rd="+r.name, "a second run named %s (the first from %s): rd names are one each", name, at)
	}
	t.names[name] = r.pos

	rate := 0.0
	if len(r.rates) > 0 {
		rate = r.rates[0]
	}
	if v, ok := over["iorate"]; ok {
		rate = v
	}
	type part struct {
		wd  *wdDef
		sds []*sdDef
		w   engine.Workload
		th  int
		eof bool
	}
	var parts []part
	for _, w := range wds {
		if w.skewPrm != nil && (len(wds) > 1 || w.skew != 100) {
			return errAt(w.skewPrm.Pos, w.skewPrm.String(), "not supported: ptsrun runs the workloads of an rd as one, so a skew between them is not its (one wd has skew=100)")
		}
		sds, err := t.sdsOf(w, v, r)
		if err != nil {
			return err
		}
		wl, th, eof, err := t.workload(r, w, sds, over)
		if err != nil {
			return err
		}
		parts = append(parts, part{wd: w, sds: sds, w: wl, th: th, eof: eof})
	}
	// Several workloads at once run as one only when they are one: the
	// same workload on different sds (vdbench's wd=wd* over a wd per sd).
	first := parts[0]
	var sds []*sdDef
	for _, p := range parts {
		if !sameWorkload(p.w, first.w) {
			return errAt(r.pos, "rd="+r.name, "not supported: wd=%s and wd=%s run at once and differ (%s; %s): ptsrun runs one workload at a time on a set of targets",
				first.wd.name, p.wd.name, p.w.Description(), first.w.Description())
		}
		if rate > 0 && len(p.sds) != len(first.sds) {
			return errAt(r.ratePrm.Pos, r.ratePrm.String(), "not supported: wd=%s and wd=%s share the rate but load %d and %d sds, so their sds run at different rates; ptsrun gives each target the same", first.wd.name, p.wd.name, len(first.sds), len(p.sds))
		}
		for _, s := range p.sds {
			if slices.Contains(sds, s) {
				return errAt(r.pos, "rd="+r.name, "not supported: sd=%s is loaded by two workloads at once; ptsrun runs one workload on a target", s.name)
			}
			sds = append(sds, s)
		}
	}
	run := Run{Name: name, RD: r.name, Pos: r.pos, Workload: first.w, Threads: first.th, IORate: rate,
		Elapsed: time.Duration(r.elapsed) * time.Second, Warmup: time.Duration(r.warmup) * time.Second, For: settings, EOF: first.eof}
	if len(t.plan.Runs) > 0 {
		run.Pause = time.Duration(r.pause) * time.Second
	}
	if rate > 0 {
		// vdbench spreads an rd's rate over its workloads (equal skews),
		// and a workload's over its sds; ptsrun caps each target.
		run.Workload.RateIOPS = rate / float64(len(sds))
	}
	lunOf := map[string]*sdDef{}
	for _, s := range sds {
		if s.specErr != nil {
			return s.specErr
		}
		if o, ok := lunOf[s.lun]; ok {
			return errAt(r.pos, "rd="+r.name, "sd=%s and sd=%s load the same lun %s at once", o.name, s.name, s.lun)
		}
		lunOf[s.lun] = s
		if o, ok := t.luns[s.lun]; ok && o.spec != s.spec {
			return errAt(s.pos, "sd="+s.name, "lun %s is %s here and %s in sd=%s: one lun, one size", s.lun, s.spec, o.spec, o.name)
		} else if !ok {
			t.luns[s.lun] = s
			t.plan.Targets = append(t.plan.Targets, Target{SD: s.name, Lun: s.lun, Spec: s.spec, Pos: s.pos})
		}
		run.SDs = append(run.SDs, s.name)
		run.Targets = append(run.Targets, s.spec)
	}
	if err := run.Workload.Validate(512); err != nil {
		return errAt(r.pos, "rd="+name, "%v", err)
	}
	t.plan.Runs = append(t.plan.Runs, run)
	return nil
}

// sameWorkload compares two workloads field by field.
func sameWorkload(a, b engine.Workload) bool {
	return a.Description() == b.Description() && a.RandomPct == b.RandomPct && a.Passes == b.Passes &&
		a.Duration == b.Duration && a.Ramp == b.Ramp
}

// workload translates a workload definition on its sds, with the run
// definition's for-loop values over: the workload, the threads per sd,
// and whether it ends at the end of the range (seekpct=eof).
func (t *translator) workload(r *rdDef, w *wdDef, sds []*sdDef, over map[string]float64) (engine.Workload, int, bool, error) {
	var wl engine.Workload
	// Per sd: its threads (or the rd's), its range (or the wd's), and
	// O_DIRECT asked for somewhere. ptsrun gives every target of a run
	// the same threads and range.
	first := sds[0]
	threads := func(s *sdDef) int {
		if v, ok := over["threads"]; ok {
			return int(v)
		}
		return s.threads
	}
	spanOf := func(s *sdDef) (float64, float64) {
		if w.rangePrm != nil {
			return w.lo, w.hi
		}
		return s.lo, s.hi
	}
	for _, s := range sds {
		if !s.direct && !w.direct && !r.direct {
			return wl, 0, false, errAt(s.pos, "sd="+s.name, "no openflags=o_direct: vdbench would read and write lun %s through the page cache (and refuses a /dev/ lun on Linux); ptsrun always opens with O_DIRECT: add openflags=o_direct to the sd, wd or rd", s.lun)
		}
		if threads(s) != threads(first) {
			return wl, 0, false, errAt(r.pos, "rd="+r.name, "not supported: wd=%s loads sd=%s with %d threads and sd=%s with %d; ptsrun loads every target of a run alike (rd threads= gives them one count)",
				w.name, first.name, threads(first), s.name, threads(s))
		}
		lo, hi := spanOf(s)
		flo, fhi := spanOf(first)
		if lo != flo || hi != fhi {
			return wl, 0, false, errAt(r.pos, "rd="+r.name, "not supported: wd=%s loads sd=%s and sd=%s over different ranges; ptsrun loads every target of a run over one (a wd range= gives them one)",
				w.name, first.name, s.name)
		}
	}
	lo, hi := spanOf(first)
	if lo == unset {
		lo, hi = 0, 100
	}
	wl.RangeStart, wl.ActiveRange = lo, hi

	if v, ok := over["xfersize"]; ok {
		wl.BlockSize = int64(v)
	} else if len(w.xfer) == 1 {
		wl.BlockSize = int64(w.xfer[0])
	} else {
		for i := 0; i < len(w.xfer); i += 2 {
			wl.BlockSplit = append(wl.BlockSplit, engine.BlockShare{Bytes: int64(w.xfer[i]), Percent: w.xfer[i+1]})
		}
	}
	read := w.read
	if v, ok := over["rdpct"]; ok {
		read = v
	}
	wl.ReadPct = int(read)
	seek := w.seek
	if v, ok := over["seekpct"]; ok {
		seek = v
	}
	eof := seek < 0
	switch {
	case seek >= 100:
		wl.Access = engine.Random
	case seek <= 0:
		wl.Access = engine.Sequential
	default:
		wl.Access, wl.RandomPct = engine.Random, seek
	}
	if eof {
		// vdbench's seekpct=eof: sequential, the run ending at the end of
		// the range or at elapsed, whichever comes first.
		wl.Passes = 1
	}

	// vdbench's threads are an sd's I/Os in flight: as many I/O threads,
	// each with one synchronous I/O outstanding, fed by one generator
	// per workload and sd. Random I/O is threads=N as ptsrun's N threads
	// with one I/O each (TC=N, QD=1): the same number in flight, the
	// same one-I/O-per-thread CPU work. Where any I/O is sequential, the
	// generator keeps one position for all the sd's threads (vdbench's
	// WG_entry.next_seq), so its N threads advance one stream with N in
	// flight; ptsrun's threads each own a region of the range and stream
	// through it, so threads=N is one thread with N in flight (TC=1,
	// QD=N): one stream, as vdbench runs it.
	n := threads(first)
	if wl.Access == engine.Random && wl.RandomPct == 0 {
		wl.TC, wl.QD = n, 1
	} else {
		wl.TC, wl.QD = 1, n
	}

	// vdbench runs warmup= and then elapsed=, and leaves the warm-up out
	// of its totals; without warmup= it leaves out the first interval.
	wl.Duration = time.Duration(r.elapsed+r.warmup) * time.Second
	wl.Ramp = time.Duration(r.interval) * time.Second
	if r.interval != defaultInterval {
		wl.Interval = time.Duration(r.interval) * time.Second
	}
	if r.warmup > 0 {
		wl.Ramp = time.Duration(r.warmup) * time.Second
	}
	return wl, n, eof, nil
}
