package vdbench

import (
	"fmt"
	"math"
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
