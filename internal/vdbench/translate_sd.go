package vdbench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The span of a range= unset.
const unset = -1

// sdDef is a storage definition.
type sdDef struct {
	name       string
	pos        Pos
	lun        string
	lunPrm     Param
	size       int64
	sizePrm    *Param
	threads    int
	lo, hi     float64
	direct     bool
	countStart int
	count      int
	spec       string // the ptsrun target
	specErr    error  // why there is none
}

func (t *translator) storage(defs []Def) error {
	dflt := &sdDef{threads: defaultThreads, lo: unset, hi: unset}
	var counted []*sdDef
	for _, d := range defs {
		s := dflt
		if d.Name != "default" {
			c := *dflt
			s = &c
			s.name, s.pos = d.Name, d.Pos
		}
		for _, prm := range d.Params {
			name := match(sdKeywords, prm.Key)
			switch name {
			case "":
				return unknown(prm, "storage definition (sd)")
			case "lun":
				if s == dflt {
					return errAt(prm.Pos, prm.String(), "sd=default takes no lun= (vdbench refuses it)")
				}
				if s.lun != "" {
					return errAt(prm.Pos, prm.String(), "sd=%s has a lun already (%s)", s.name, s.lunPrm)
				}
				if len(prm.Values) != 1 {
					return errAt(prm.Pos, prm.String(), "one lun per sd")
				}
				s.lun, s.lunPrm = prm.Values[0].Text, prm
			case "count":
				if len(prm.Values) != 2 || !prm.Values[0].IsNum || !prm.Values[1].IsNum {
					return errAt(prm.Pos, prm.String(), "count=(start,count) takes two numbers")
				}
				start, err := wholeValue(prm, prm.Values[0].Num, 0, 1e9, "the start")
				if err != nil {
					return err
				}
				n, err := wholeValue(prm, prm.Values[1].Num, 1, 1024, "the count")
				if err != nil {
					return err
				}
				s.countStart, s.count = int(start), int(n)
			case "size":
				if len(prm.Values) != 1 {
					return errAt(prm.Pos, prm.String(), "not supported: one size (size=(size,divisor) is not ptsrun's)")
				}
				v, err := wholeIn(prm, 1, 1<<62, "the size in bytes")
				if err != nil {
					return err
				}
				p := prm
				s.size, s.sizePrm = v, &p
			case "threads":
				if len(prm.Values) != 1 {
					return errAt(prm.Pos, prm.String(), "not supported: one thread count (threads=(n,divisor) is not ptsrun's)")
				}
				v, err := wholeIn(prm, 1, math.MaxInt32, "the thread count")
				if err != nil {
					return err
				}
				s.threads = int(v)
			case "hitarea":
				t.note(prm, "the area of cache hits (rhpct, whpct), which ptsrun does not run: no bearing")
			case "openflags":
				if err := openFlags(prm); err != nil {
					return err
				}
				s.direct = true
			case "range":
				lo, hi, err := span(prm)
				if err != nil {
					return err
				}
				s.lo, s.hi = lo, hi
			case "replay":
				return refuse(prm, "replay")
			case "dedup":
				return refuse(prm, "dedup")
			default:
				return refuse(prm, name)
			}
		}
		if s == dflt {
			continue
		}
		if s.lun == "" {
			return errAt(d.Pos, "sd="+d.Name, "no lun= (vdbench refuses an sd without one)")
		}
		if s.count > 0 {
			counted = append(counted, s)
			continue
		}
		t.sds = append(t.sds, s)
	}
	// vdbench's count=(start,n): n copies named NAME<start>… with the lun
	// numbered the same way (a * or a printf % in it takes the number),
	// listed after the other sds.
	for _, s := range counted {
		for i := range s.count {
			c := *s
			c.name, c.lun = countingName(s.name, s.countStart+i), countingName(s.lun, s.countStart+i)
			c.count = 0
			t.sds = append(t.sds, &c)
		}
	}
	seen := map[string]*sdDef{}
	for _, s := range t.sds {
		if o, ok := seen[s.name]; ok {
			return errAt(s.pos, "sd="+s.name, "sd=%s is defined twice (first at %s)", s.name, o.pos)
		}
		seen[s.name] = s
		s.spec, s.specErr = targetSpec(s)
	}
	return nil
}

func countingName(name string, n int) string {
	switch {
	case strings.Contains(name, "%"):
		return fmt.Sprintf(name, n)
	case strings.Contains(name, "*"):
		return strings.ReplaceAll(name, "*", strconv.Itoa(n))
	}
	return name + strconv.Itoa(n)
}

// targetSpec is an sd's ptsrun target: a lun under /dev/ is a block
// device, "sim" or "sim:MODEL" ptsrun's simulated drive (not vdbench's: a
// way to try a file without hardware), anything else a file, of size=.
func targetSpec(s *sdDef) (string, error) {
	lun := s.lun
	bad := func(format string, a ...any) error {
		return errAt(s.lunPrm.Pos, s.lunPrm.String(), format, a...)
	}
	switch {
	case lun == "sim" || strings.HasPrefix(lun, "sim:"):
		if s.sizePrm != nil {
			return "", bad("a simulated drive has its model's size: no size= (sd=%s)", s.name)
		}
		return lun, nil
	case strings.HasPrefix(lun, "/dev/"):
		if s.sizePrm != nil {
			return "", errAt(s.sizePrm.Pos, s.sizePrm.String(), "not supported: size= on a device (sd=%s, lun=%s): ptsrun loads the whole device; use range=(0,PCT) for part of it", s.name, lun)
		}
		return lun, nil
	case strings.Contains(lun, ":"):
		return "", bad("not supported: a ':' in a file's name, which ptsrun's file:PATH:SIZE targets cannot hold")
	case strings.HasPrefix(lun, `\\`):
		return "", bad("not supported: a Windows device; ptsrun runs on Linux")
	}
	if s.sizePrm != nil {
		return "file:" + lun + ":" + strconv.FormatInt(s.size, 10), nil
	}
	return "file:" + lun, nil
}

// span reads range=(lo,hi): percentages of the lun, lo below hi, hi at
// most 100. vdbench also takes byte addresses (above 100) and ranges that
// wrap around the end (hi from 100 to 200); ptsrun does not.
func span(prm Param) (float64, float64, error) {
	if len(prm.Values) != 2 || !prm.Values[0].IsNum || !prm.Values[1].IsNum {
		return 0, 0, errAt(prm.Pos, prm.String(), "range=(lo,hi) takes two numbers (vdbench refuses one)")
	}
	lo, hi := prm.Values[0].Num, prm.Values[1].Num
	switch {
	case lo > 100 || hi > 200:
		return 0, 0, errAt(prm.Pos, prm.String(), "not supported: a range in bytes; give it in percent of the lun, range=(10,20)")
	case hi > 100:
		return 0, 0, errAt(prm.Pos, prm.String(), "not supported: a range that wraps around the end of the lun (above 100 %%)")
	case lo < 0 || lo >= hi:
		return 0, 0, errAt(prm.Pos, prm.String(), "range=(lo,hi): percentages, lo below hi")
	}
	return lo, hi, nil
}
