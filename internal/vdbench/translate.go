package vdbench

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Plan is a parameter file translated: the runs in the order vdbench runs
// them, each a cell of the run directory.
type Plan struct {
	File string `json:"file"`
	// Targets are the storage definitions the runs load, in the order
	// first loaded, each with the ptsrun target of its lun.
	Targets []Target `json:"targets"`
	Runs    []Run    `json:"runs"`
	// Notes are the parameters accepted without a bearing on what ptsrun
	// runs (vdbench's own reporting), each with why.
	Notes []Note `json:"notes,omitempty"`
}

// Target is a storage definition and the target ptsrun opens for it.
type Target struct {
	SD   string `json:"sd"`
	Lun  string `json:"lun"`
	Spec string `json:"target"` // a device path, file:PATH[:SIZE] or sim[:MODEL]
	Pos  Pos    `json:"pos"`
}

// Run is one run of a run definition: the rd, or one combination of its
// for-loop values.
type Run struct {
	// Name names the cell: the rd's name, then each for-loop of more than
	// one value with this run's value, in vdbench's loop order:
	// "rd1-threads=8-xfersize=64k".
	Name    string   `json:"name"`
	RD      string   `json:"rd"`
	Pos     Pos      `json:"pos"`
	SDs     []string `json:"sds"`
	Targets []string `json:"targets"`
	// Workload is the translation: Duration is warmup + elapsed, Ramp the
	// warm-up (vdbench's warmup=, else its first interval), RateIOPS each
	// target's share of iorate=.
	Workload engine.Workload `json:"workload"`
	Threads  int             `json:"threads"`          // vdbench threads per sd
	IORate   float64         `json:"iorate,omitempty"` // the run's I/O rate over all its sds; 0 is iorate=max
	Elapsed  time.Duration   `json:"elapsed_ns"`
	Warmup   time.Duration   `json:"warmup_ns,omitempty"`
	Pause    time.Duration   `json:"pause_ns,omitempty"` // vdbench's pause= before this run (never before the first)
	For      []Setting       `json:"for,omitempty"`      // this run's for-loop values, in loop order
	EOF      bool            `json:"eof,omitempty"`      // seekpct=eof: ends at the end of the range, or at elapsed
}

// Setting is one for-loop value of a run: "xfersize", "8k".
type Setting struct {
	Param string `json:"param"`
	Value string `json:"value"`
}

// Note is a parameter accepted without a bearing on what ptsrun runs.
type Note struct {
	Pos   Pos    `json:"pos"`
	Param string `json:"param"`
	Text  string `json:"text"`
}

// vdbench's defaults.
const (
	defaultThreads  = 8
	defaultXfer     = 4096
	defaultElapsed  = 30
	defaultInterval = 1
)

// Translate turns a parsed file into the runs ptsrun makes of it, refusing
// by name, with its line, every parameter it cannot honour.
func Translate(f *File) (*Plan, error) {
	t := &translator{plan: &Plan{File: f.Name}, luns: map[string]*sdDef{}, names: map[string]Pos{}}
	if err := t.general(f.General); err != nil {
		return nil, err
	}
	if err := t.storage(f.SDs); err != nil {
		return nil, err
	}
	if err := t.workloads(f.WDs); err != nil {
		return nil, err
	}
	if err := t.runDefs(f.RDs); err != nil {
		return nil, err
	}
	if len(t.rds) == 0 {
		return nil, errAt(Pos{File: f.Name, Line: 1}, "", "no run definition (rd=): nothing to run")
	}
	for _, r := range t.rds {
		if err := t.runsOf(r); err != nil {
			return nil, err
		}
	}
	return t.plan, nil
}

type translator struct {
	plan      *Plan
	sds       []*sdDef
	wds       []*wdDef
	wdDefault *wdDef
	rds       []*rdDef
	luns      map[string]*sdDef // lun → the sd that first gave it a target
	names     map[string]Pos    // run name → its rd
}

// note records a parameter accepted without a bearing on the runs.
func (t *translator) note(prm Param, format string, a ...any) {
	t.plan.Notes = append(t.plan.Notes, Note{Pos: prm.Pos, Param: prm.String(), Text: fmt.Sprintf(format, a...)})
}

// Why ptsrun refuses what it refuses, by vdbench keyword.
var refusals = map[string]string{
	// general
	"compression":     "ptsrun writes incompressible data (compratio=1)",
	"compratio":       "ptsrun writes incompressible data: only compratio=1 is what it does",
	"compressionseed": "ptsrun writes incompressible data (compratio=1)",
	"dedup":           "ptsrun writes no two blocks alike: only dedupratio=1 is what it does",
	"pattern":         "ptsrun writes its own random, incompressible data",
	"pattern_buffer":  "ptsrun writes its own random, incompressible data",
	"data_errors":     "ptsrun stops a workload at its first I/O error: only data_errors=1 is what it does",
	"swat":            "ptsrun does not replay I/O traces",
	"replay":          "ptsrun does not replay I/O traces",
	"validate":        "ptsrun measures performance and does not validate data (vdbench -v)",
	"journal":         "ptsrun measures performance and does not journal or validate data",
	"startcmd":        "ptsrun runs no commands from a parameter file",
	"endcmd":          "ptsrun runs no commands from a parameter file",
	"debug":           "vdbench's debugging switches change what it does in ways ptsrun cannot follow",
	"unix2windows":    "ptsrun runs on Linux only",
	"formatxfersize":  "ptsrun does not format (pre-write) storage definitions: run a sequential write rd first",
	"formatsds":       "ptsrun does not format (pre-write) storage definitions: run a sequential write rd first",
	"create_anchors":  "file system workloads (fsd, fwd) are not ptsrun's",
	"psrset":          "ptsrun does not bind to Solaris processor sets",
	"auxreport":       "ptsrun takes no external report class",
	"monitor":         "ptsrun is stopped with Ctrl-C (the runs done are recorded), not by a monitor file",
	"concatenatesds":  "ptsrun loads each sd as its own target and does not concatenate them",
	"misc":            "vdbench's miscellaneous switches change what it does in ways ptsrun cannot follow",
	"showlba":         "ptsrun writes no lba trace",
	"loop":            "ptsrun runs the rds once: repeat the command to repeat them",
	// sd
	"host":     "host definitions run vdbench on several hosts; ptsrun loads the targets of this host (ptsrun fio --fio-server loads several)",
	"offset":   "ptsrun does not shift I/O off the block boundaries: use range= for part of a lun",
	"align":    "ptsrun aligns I/O to its own size",
	"kstat":    "ptsrun reads no Solaris kstat statistics",
	"instance": "ptsrun reads no Solaris kstat statistics",
	"resetlun": "ptsrun sends no SCSI resets",
	"resetbus": "ptsrun sends no SCSI resets",
	"streams":  "ptsrun's sequential I/O is one stream per sd",
	// wd
	"hotband":  "ptsrun has no hot bands",
	"stride":   "ptsrun's random I/O is uniform over the range, without strides",
	"priority": "ptsrun runs one workload at a time",
	"iorate":   "a workload's own fixed rate is not ptsrun's: give the rate in the rd (iorate=)",
	"user":     "ptsrun runs no user classes",
	"threads":  "threads belong to the sd (sd threads=, or rd threads=/forthreads=); a wd's threads need concatenatesds, which ptsrun does not do",
	// rd
	"fsd":            "file system workloads (fsd, fwd) are not ptsrun's",
	"fwd":            "file system workloads (fsd, fwd) are not ptsrun's",
	"fwdrate":        "file system workloads (fsd, fwd) are not ptsrun's",
	"operations":     "file system workloads (fsd, fwd) are not ptsrun's",
	"format":         "file system workloads (fsd, fwd) are not ptsrun's",
	"mount":          "ptsrun mounts nothing",
	"maxdata":        "ptsrun runs for a time: use elapsed=",
	"curve":          "ptsrun runs no performance curves (a maximum run, then a share of it): list the rates, iorate=(100,200,...)",
	"stopcurve":      "ptsrun runs no performance curves: list the rates, iorate=(100,200,...)",
	"distribution":   "ptsrun caps the rate of its I/O loop and has no arrival-time distribution",
	"forhitarea":     "ptsrun runs no cache hits (rhpct, whpct), whose area hitarea sizes",
	"forcompression": "ptsrun writes incompressible data (compratio=1)",
	"fordepth":       "file system workloads (fsd, fwd) are not ptsrun's",
	"forwidth":       "file system workloads (fsd, fwd) are not ptsrun's",
	"forfiles":       "file system workloads (fsd, fwd) are not ptsrun's",
	"forsizes":       "file system workloads (fsd, fwd) are not ptsrun's",
	"fortotalsize":   "file system workloads (fsd, fwd) are not ptsrun's",
	"forwss":         "file system workloads (fsd, fwd) are not ptsrun's",
	"foroperations":  "file system workloads (fsd, fwd) are not ptsrun's",
}

func refuse(prm Param, name string) error {
	return errAt(prm.Pos, prm.String(), "not supported: %s", refusals[name])
}

func unknown(prm Param, where string) error {
	msg := "vdbench knows no such " + where + " parameter"
	switch prm.Key {
	case "seqpct":
		msg += ": a sequential workload is seekpct=seq (seekpct=0), or seekpct=eof to stop at the end of the lun"
	case "include":
		msg += ": include= starts its own line"
	}
	return errAt(prm.Pos, prm.String(), "%s", msg)
}

// general checks the general parameters: the few that only set up
// vdbench's own reporting are accepted, with a note.
func (t *translator) general(params []Param) error {
	for _, prm := range params {
		name := match(generalKeywords, prm.Key)
		switch name {
		case "":
			return unknown(prm, "general")
		case "report", "report_run_totals", "histogram", "messagescan", "ios_per_jvm", "port", "heartbeat_error", "abort_failed_skew":
			t.note(prm, "vdbench's own reporting and machinery: no bearing on what ptsrun runs, which reports its own way")
		case "data_errors":
			if !isOne(prm) {
				return refuse(prm, name)
			}
			t.note(prm, "ptsrun stops a workload at its first I/O error")
		case "compratio":
			if !isOne(prm) {
				return refuse(prm, name)
			}
			t.note(prm, "ptsrun writes incompressible data")
		case "dedup":
			if prm.Key != "dedupratio" || !isOne(prm) {
				return refuse(prm, name)
			}
			t.note(prm, "ptsrun writes no two blocks alike")
		default:
			return refuse(prm, name)
		}
	}
	return nil
}

func isOne(prm Param) bool {
	return len(prm.Values) == 1 && prm.Values[0].IsNum && prm.Values[0].Num == 1
}

// oneNum is a parameter's one number.
func oneNum(prm Param) (float64, error) {
	if len(prm.Values) != 1 || !prm.Values[0].IsNum {
		return 0, errAt(prm.Pos, prm.String(), "one number expected")
	}
	return prm.Values[0].Num, nil
}

// wholeIn is a parameter's one whole number in [lo, hi].
func wholeIn(prm Param, lo, hi float64, what string) (int64, error) {
	v, err := oneNum(prm)
	if err != nil {
		return 0, err
	}
	return wholeValue(prm, v, lo, hi, what)
}

func wholeValue(prm Param, v, lo, hi float64, what string) (int64, error) {
	if v != math.Trunc(v) || v < lo || v > hi {
		if hi >= math.MaxInt32 {
			return 0, errAt(prm.Pos, prm.String(), "%s: a whole number from %g up", what, lo)
		}
		return 0, errAt(prm.Pos, prm.String(), "%s: a whole number from %g to %g", what, lo, hi)
	}
	return int64(v), nil
}

// openFlags checks openflags=: O_DIRECT is what ptsrun always does.
func openFlags(prm Param) error {
	for _, v := range prm.Values {
		switch strings.ToLower(v.Text) {
		case "o_direct", "directio":
		default:
			return errAt(prm.Pos, prm.String(), "not supported: ptsrun opens every target with O_DIRECT and nothing else (openflags=o_direct); %s is not what it does", v.Text)
		}
	}
	return nil
}

// names are a parameter's names (sd=(sd1-sd4,x*)).
func names(prm Param) []string {
	var out []string
	for _, v := range prm.Values {
		out = append(out, v.Text)
	}
	return out
}

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
				return errAt(prm.Pos, prm.String(), "%s appears twice", engine.SizeKey(int64(vals[i])))
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
			text = engine.SizeKey(int64(vals[i]))
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
