package vdbench

import (
	"math"
	"strings"

	"github.com/ptsrun/ptsrun/internal/units"
)

// wdDef is a workload definition.
type wdDef struct {
	name     string
	pos      Pos
	sds      []string
	sdsPrm   *Param
	xfer     []float64 // a size, or size, share pairs
	xferPrm  *Param
	read     float64
	readPrm  *Param
	seek     float64 // 0 sequential … 100 random; -1 eof
	seekPrm  *Param
	lo, hi   float64
	rangePrm *Param
	skew     float64
	skewPrm  *Param
	direct   bool
}

func (t *translator) workloads(defs []Def) error {
	dflt := &wdDef{name: "default", xfer: []float64{defaultXfer}, read: 100, seek: 100, lo: unset, hi: unset}
	for _, d := range defs {
		w := dflt
		if d.Name != "default" {
			c := *dflt
			w = &c
			w.name, w.pos = d.Name, d.Pos
		}
		for _, prm := range d.Params {
			p := prm
			name := match(wdKeywords, prm.Key)
			switch name {
			case "":
				return unknown(prm, "workload definition (wd)")
			case "sd":
				w.sds, w.sdsPrm = names(prm), &p
			case "skew":
				v, err := oneNum(prm)
				if err != nil {
					return err
				}
				w.skew, w.skewPrm = v, &p
			case "xfersize":
				if err := xfersize(prm); err != nil {
					return err
				}
				w.xfer, w.xferPrm = nums(prm), &p
			case "rdpct", "wrpct":
				v, err := wholeIn(prm, 0, 100, "a percentage")
				if err != nil {
					return err
				}
				if name == "wrpct" {
					v = 100 - v
				}
				w.read, w.readPrm = float64(v), &p
			case "range":
				lo, hi, err := span(prm)
				if err != nil {
					return err
				}
				w.lo, w.hi, w.rangePrm = lo, hi, &p
			case "seekpct":
				v, err := seekpct(prm)
				if err != nil {
					return err
				}
				w.seek, w.seekPrm = v, &p
			case "rhpct", "whpct":
				if v, err := oneNum(prm); err != nil || v != 0 {
					return errAt(prm.Pos, prm.String(), "not supported: ptsrun runs no cache hits (a hit re-reads or rewrites a small area); only %s=0 is what it does", name)
				}
			case "openflags":
				if err := openFlags(prm); err != nil {
					return err
				}
				w.direct = true
			default:
				return refuse(prm, name)
			}
		}
		if w != dflt {
			t.wds = append(t.wds, w)
		}
	}
	t.wdDefault = dflt
	return nil
}

func nums(prm Param) []float64 {
	var out []float64
	for _, v := range prm.Values {
		out = append(out, v.Num)
	}
	return out
}

// xfersize checks a wd's xfersize=: one size, or size, share pairs whose
// shares add up to 100.
func xfersize(prm Param) error {
	for _, v := range prm.Values {
		if !v.IsNum {
			return errAt(prm.Pos, prm.String(), "%q is not a size", v.Text)
		}
	}
	vals := nums(prm)
	switch {
	case len(vals) == 1:
		return checkSize(prm, vals[0])
	case len(vals) == 3:
		return errAt(prm.Pos, prm.String(), "not supported: random sizes between a minimum and a maximum (min,max,align); give a distribution, xfersize=(4k,50,8k,50)")
	case len(vals)%2 != 0:
		return errAt(prm.Pos, prm.String(), "a distribution is size, percentage pairs: xfersize=(4k,25,8k,75)")
	}
	var sum float64
	for i := 0; i < len(vals); i += 2 {
		if err := checkSize(prm, vals[i]); err != nil {
			return err
		}
		if vals[i+1] < 0 {
			return errAt(prm.Pos, prm.String(), "a negative share")
		}
		for j := 0; j < i; j += 2 {
			if vals[j] == vals[i] {
				return errAt(prm.Pos, prm.String(), "%s appears twice", units.SizeKey(int64(vals[i])))
			}
		}
		sum += vals[i+1]
	}
	if sum < 99.99 || sum > 100.01 {
		return errAt(prm.Pos, prm.String(), "the shares add up to %g %%, not 100 %%", sum)
	}
	return nil
}

func checkSize(prm Param, v float64) error {
	if v <= 0 || v != math.Trunc(v) || int64(v)%512 != 0 || v > 1<<30 {
		return errAt(prm.Pos, prm.String(), "a transfer size is a multiple of 512 bytes (vdbench's rule) up to 1 GiB; %g is not", v)
	}
	return nil
}

// seekpct reads a wd's seekpct=: a percentage of random I/O, or seq
// (sequential: 0), random (100), eof (sequential, and the run ends at the
// end of the range).
func seekpct(prm Param) (float64, error) {
	if len(prm.Values) != 1 {
		return 0, errAt(prm.Pos, prm.String(), "one value")
	}
	v := prm.Values[0]
	if v.IsNum {
		if v.Num < 0 || v.Num > 100 {
			return 0, errAt(prm.Pos, prm.String(), "a percentage from 0 (sequential) to 100 (random)")
		}
		return v.Num, nil
	}
	w := strings.ToLower(v.Text)
	switch {
	case w == "eof":
		return -1, nil
	case strings.HasPrefix("sequential", w):
		return 0, nil
	case strings.HasPrefix("random", w):
		return 100, nil
	case strings.HasPrefix("poisson", w):
		return 0, errAt(prm.Pos, prm.String(), "not supported: ptsrun's random I/O is uniform, without vdbench's Poisson-distributed seek distances")
	}
	return 0, errAt(prm.Pos, prm.String(), "a percentage, seq, random or eof")
}
