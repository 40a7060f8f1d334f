package pts

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Reading is a value or rule of ptsrun's that rests on a reading of PTS
// 2.0.2 rather than on its verified text: the official text of its test
// chapters could not be read here, so the value comes from another
// harness, from an older PTS, or from summaries of the PTS.
// Readings holds every one, in one place: the report prints them as its
// appendix ("How this report reads PTS 2.0.2"), the verdict names that
// appendix, `ptsrun plan` lists those a run depends on, and each flag's
// --help names its reading's source. A reading is never printed as the
// spec.
type Reading struct {
	ID    string
	Tests []TestID // the tests it concerns; nil: every test
	// Profile limits it to a profile's runs ("client"); "": both.
	Profile string
	Topic   string // "WSAT's stop rule"
	Ours    string // ptsrun's reading, with its default values
	// Source is where ours comes from, by name: "PTS-E 1.1 as TKperf
	// applies it", "both PTS 2.0 forks of cloudharmony".
	Source string
	Others []Alternative // how other harnesses read it
	Why    string        // why ptsrun reads it so
	// Flags choose another reading; Choose says how, where the flags
	// alone do not ("--block-sizes 1024k, listed as a deviation").
	Flags  []string
	Choose string
}

// Alternative is another harness's reading of the same thing.
type Alternative struct {
	Harness string // "ADATA SSS-PTS-TEST"
	Reading string
	// Values are the flags that choose this reading, by name without
	// "--": a run with them reads the PTS as that harness does, which is
	// no deviation. Nil: ptsrun offers no such run.
	Values map[string]string
}

// The harnesses readings name, as they call themselves.
const (
	harnessCH     = "cloudharmony/block-storage"
	harnessADATA  = "ADATA SSS-PTS-TEST (PTS 2.0 fork of cloudharmony)"
	harnessForks  = "ADATA SSS-PTS-TEST and Transcend SNIA-SSS-PTS (the PTS 2.0 forks of cloudharmony)"
	harnessTKperf = "TKperf (Thomas-Krenn)"
	harnessBefore = "ptsrun before issue 20"
	flagNone      = "none: "
)

// ReadingsAppendix is the letter of the report's appendix that prints the
// readings, which the verdict names.
const ReadingsAppendix = "C"

// Readings are every reading of the PTS that ptsrun rests on, by test.
var Readings = []Reading{
	{ID: "wsat-stop", Tests: []TestID{WSAT}, Topic: "WSAT's stop rule",
		Ours: "the first of 4 × the user capacity written (--wsat-fills 4) and 24 h (--wsat-time 24h); with the optional " +
			"steady-state method (--wsat-ss), steady state too, whichever of the three comes first",
		Source: "PTS-E 1.1's 24 h or 4 × the capacity, as TKperf applies it",
		Others: []Alternative{
			{Harness: harnessForks, Reading: "4 × the capacity, an operator's time of 6 to 24 h (6 h by default) or steady state, " +
				"whichever comes first; steady state always checked, in rounds of 31 one-minute intervals, the 31st tracked",
				Values: map[string]string{"wsat-time": "6h", "wsat-ss": "true"}},
			{Harness: harnessTKperf, Reading: "4 × the capacity or 24 h, whichever comes first",
				Values: map[string]string{"wsat-time": "24h"}},
			{Harness: harnessCH, Reading: "rounds of 31 one-minute intervals to steady state, at most 25 rounds; no 4 × capacity stop"},
		},
		Why: "the forks and TKperf agree on 4 × the capacity; the time limit differs (6 h, 24 h) and PTS-E 1.1 has 24 h, so " +
			"that 4 × the capacity is what ends a run on most drives",
		Flags: []string{"wsat-fills", "wsat-time", "wsat-ss"}},
	{ID: "wsat-budget", Tests: []TestID{WSAT}, Topic: "WSAT's 4 × the capacity, to the byte",
		Ours: "the interval that reaches 4 × the capacity is cut at it: a series the fills end writes 4.000 fills, " +
			"with or without the steady-state method",
		Source: "WSAT's stop rule (4 × the user capacity or the time, whichever first), read to the byte",
		Others: []Alternative{
			{Harness: harnessForks, Reading: "the capacity written is checked after each 1-minute interval: a series overshoots by " +
				"up to an interval's writes"},
			{Harness: harnessTKperf, Reading: "the same, after each 1-minute round"},
		},
		Why:    "the spec's own stop rule is clear, and on a small or fast target one interval writes more than a fill",
		Choose: flagNone + "no option runs past the spec's own stop rule"},
	{ID: "wsat-interval", Tests: []TestID{WSAT}, Topic: "WSAT's sample",
		Ours:   "one sample per minute of the stimulus (--wsat-interval 1m)",
		Source: "cloudharmony, TKperf and both PTS 2.0 forks (60 s intervals)",
		Why:    "every harness samples every minute",
		Flags:  []string{"wsat-interval"}},
	{ID: "tgbw", Tests: []TestID{WSAT}, Topic: "TGBW's unit",
		Ours:   "GB of 10^9 bytes (--wsat-tgbw GB); drive fills are TGBW over the capacity either way",
		Source: "PTS 2.0.2 §2.4.1 as quoted: capacities and data volumes are decimal",
		Others: []Alternative{
			{Harness: "SNIA's glossary", Reading: "\"Total GiB Written\"", Values: map[string]string{"wsat-tgbw": "GiB"}},
			{Harness: harnessForks, Reading: "TGBW and 4 × the capacity in GiB (bytes ÷ 2^30)", Values: map[string]string{"wsat-tgbw": "GiB"}},
		},
		Why:   "§2.4.1 is quoted text and makes volumes decimal; the glossary's name is not a definition",
		Flags: []string{"wsat-tgbw"}},
	{ID: "hir", Tests: []TestID{HIR}, Topic: "HIR's bursts, wait states and returns to the baseline",
		Ours: "for each wait state (1, 2, 3, 5, 10), 360 bursts of 5 s of RND 4 KiB writes, each followed by the wait state × 5 s " +
			"of no I/O, then 30 min of continuous writes back to the baseline",
		Source: "cloudharmony and ADATA",
		Others: []Alternative{{Harness: harnessCH, Reading: "the 30 min back to the baseline as 360 writes of 5 s with the wait " +
			"state's idle time between them"}},
		Why:   "both harnesses agree on the bursts; the return to the baseline is continuous, as its name says",
		Flags: []string{"hir-wait-states", "hir-cycles", "hir-baseline"}},
	{ID: "hir-pc", Tests: []TestID{HIR}, Topic: "HIR's preconditioning rounds",
		Ours:   "rounds of 30 min of RND 4 KiB writes, the IOPS of each round's last minute the tracking variable",
		Source: "cloudharmony and ADATA (30 one-minute intervals a round, the 30th tracked)",
		Why:    "both harnesses agree",
		Flags:  []string{"hir-pc-round", "hir-pc-track"}},
	{ID: "xsr", Tests: []TestID{XSR}, Topic: "XSR's access groups",
		Ours:   "SEQ 1024 KiB writes 8 h, RND 8 KiB writes 6 h, SEQ 1024 KiB writes 8 h, at TC1/QD32, a sample every minute",
		Source: "ADATA",
		Why:    "the only open harness of XSR",
		Flags:  []string{"xsr-groups", "xsr-interval"}},
	{ID: "xsr-recovery", Tests: []TestID{XSR}, Topic: "XSR's recovery time",
		Ours:   "the minutes from the start of access group 3 to the end of its first minute at group 1's mean throughput",
		Source: "ADATA",
		Why: "the only open harness of XSR; ptsrun gives its sustained recovery (that recovery held five minutes in a row within " +
			"10 %) beside it, never instead",
		Choose: flagNone + "both figures are in results.json, with every sample to read another from"},
	{ID: "demand-pc-track", Tests: []TestID{DIRTH, ECW}, Topic: "DIRTH's and ECW's preconditioning: which minute of a round is tracked",
		Ours:   "the last minute of each 30-minute round (--dirth-pc-track-at last)",
		Source: "HIR's preconditioning, the same procedure: cloudharmony and ADATA track HIR's round at its end",
		Others: []Alternative{{Harness: harnessADATA, Reading: "DIRTH and CBW (ECW) track the first minute of each round, and " +
			"end the round there at steady state", Values: map[string]string{"dirth-pc-track-at": "first", "ecw-pc-track-at": "first"}}},
		Why:   "the round's end shows the state its writes leave, as in HIR's preconditioning, the same procedure",
		Flags: []string{"dirth-pc-track-at", "ecw-pc-track-at"}},
	{ID: "demand-io", Tests: []TestID{DIRTH, ECW}, Topic: "DIRTH's and ECW's tracking variable and ART ceiling: all I/O or writes",
		Ours: "all I/O: the tracking variable is the highest TC/QD's IOPS, reads and writes, and the ceiling is on the mean " +
			"response time of every I/O (--dirth-io all)",
		Source: "the PTS's IOPS of a mixed workload is read plus write IOPS, as in the IOPS test (§7)",
		Others: []Alternative{{Harness: harnessADATA, Reading: "DIRTH and CBW track, choose and cap on the writes only: write IOPS, write ART",
			Values: map[string]string{"dirth-io": "writes", "ecw-io": "writes"}}},
		Why:   "the test's stimulus is the mix; its response time is every I/O's",
		Flags: []string{"dirth-io", "ecw-io"}},
	{ID: "demand-pick", Tests: []TestID{DIRTH, ECW}, Topic: "Where DIRTH's and ECW's operating points are read",
		Ours: "from the measurement window's last round (--dirth-pick last); MinIOPS is TC1/QD1 and MidIOPS's target the " +
			"mean of MaxIOPS's and MinIOPS's IOPS",
		Source: "ADATA, which reads them from the final round of the window (its MidIOPS target differs)",
		Others: []Alternative{
			{Harness: "ptsrun's tables", Reading: "each cell's average over the measurement window", Values: map[string]string{"dirth-pick": "window", "ecw-pick": "window"}},
			{Harness: harnessADATA, Reading: "the final round, and MidIOPS's target the mean of MaxIOPS and the lowest IOPS under the " +
				"ceiling, not TC1/QD1's"},
		},
		Why:   "ptsrun's reading, and ADATA's; the window average is one flag away, and the points name the rounds they are of",
		Flags: []string{"dirth-pick", "ecw-pick"}},
	{ID: "demand-ceiling", Tests: []TestID{DIRTH, ECW}, Topic: "DIRTH's and ECW's response-time ceiling",
		Ours: "5 ms (--dirth-art-ceiling 5ms)", Source: "ADATA", Why: "the only open harness of DIRTH and ECW",
		Flags: []string{"dirth-art-ceiling", "ecw-art-ceiling"}},
	{ID: "demand-times", Tests: []TestID{DIRTH, ECW}, Topic: "DIRTH's and ECW's durations",
		Ours: "preconditioning rounds of 30 min, a 5 min pre-write before each demand-variation round, a 60 min pre-write and " +
			"a 10 min histogram run at each point",
		Source: "ADATA", Why: "the only open harness of DIRTH and ECW",
		Flags: []string{"dirth-pc-round", "dirth-pc-track", "dirth-round-prewrite", "dirth-prewrite", "dirth-histogram",
			"ecw-pc-round", "ecw-pc-track", "ecw-round-prewrite", "ecw-prewrite", "ecw-histogram"}},
	{ID: "demand-loops", Tests: []TestID{DIRTH, ECW}, Topic: "DIRTH's and ECW's loops",
		Ours:   "TC 32, 16, 8, 6, 4, 2, 1 (outer) × QD the same (inner), high to low; TC is fio's numjobs, QD its iodepth",
		Source: "ADATA",
		Others: []Alternative{{Harness: harnessADATA, Reading: "the same loops, with TC passed to fio's iodepth and QD to numjobs"}},
		Why:    "the loops are ADATA's; TC is threads and QD the depth of each, as everywhere in the PTS",
		Flags:  []string{"dirth-tc", "dirth-qd", "ecw-tc", "ecw-qd"}},
	{ID: "dirth-stimulus", Tests: []TestID{DIRTH}, Topic: "DIRTH's stimulus",
		Ours: "RND 8 KiB 65/35, OLTP (--dirth-bs 8k --dirth-mix 65/35)", Source: "ADATA's default (the operator's choice in the PTS)",
		Why: "the only open harness of DIRTH", Flags: []string{"dirth-bs", "dirth-mix"}},
	{ID: "client-ar", Tests: []TestID{IOPS, TP, LAT}, Profile: "client", Topic: "The client profile's active range",
		Ours: "75 % for the IOPS, throughput and latency tests",
		Source: "IOPS: PTS 2.0.2 §7 as quoted; throughput and latency: both PTS 2.0 forks, which set 75 % for every test of the " +
			"client profile, the PTS text at hand being silent",
		Others: []Alternative{{Harness: harnessBefore, Reading: "100 % for throughput and latency"},
			{Harness: harnessForks, Reading: "75 % for the client profile's WSAT too; ptsrun keeps WSAT's 100 % (§10)"}},
		Why:    "both forks agree and the PTS text at hand says nothing for throughput and latency",
		Flags:  []string{"tp-active-range", "lat-active-range"},
		Choose: "--tp-active-range 100, --lat-active-range 100 (listed as deviations)"},
	{ID: "client-tp-sizes", Tests: []TestID{TP}, Profile: "client", Topic: "The client profile's throughput block sizes",
		Ours:   "1024 KiB and 128 KiB, a stage each",
		Source: "both PTS 2.0 forks, which run both for every profile; PTS-C 1.x has 1024 KiB, summaries of 2.0.x both",
		Others: []Alternative{{Harness: "PTS-C 1.x, per SNIA's test pages", Reading: "1024 KiB only"}},
		Why:    "both forks agree, and no text of 2.0.2 at hand says otherwise",
		Choose: "--block-sizes 1024k (a quick look, listed as a deviation)"},
	{ID: "wipc", Tests: []TestID{IOPS, TP, LAT}, Topic: "The workload-independent preconditioning's load",
		Ours:   "one thread at QD32 writing 2 × the capacity sequentially (fio loops=2), whatever the test's TC",
		Source: "cloudharmony and ADATA",
		Others: []Alternative{{Harness: harnessTKperf, Reading: "the test's TC/QD"}, {Harness: "py-sss-pts", Reading: "the test's TC, the volume split between the threads"}},
		Why:    "one stream keeps the writes sequential and the volume exactly 2 × the capacity",
		Choose: flagNone + "a WIPC of any other load would not be the sequential pass the PTS describes"},
	{ID: "tp-load", Tests: []TestID{TP}, Topic: "The throughput test's load",
		Ours: "TC1/QD32", Source: "ADATA and summaries of PTS 2.0.x",
		Why: "one stream keeps the I/O sequential", Choose: flagNone + "the throughput test's TC/QD is fixed"},
	{ID: "response-time", Topic: "Response time",
		Ours:   "from submission to completion: fio's total latency (lat), not its completion latency (clat)",
		Source: "ptsrun's reading of the PTS's host-observed response time",
		Others: []Alternative{{Harness: harnessCH + " and " + harnessADATA, Reading: "lat and clat, mixed"}},
		Why:    "the PTS's response time is what the host sees",
		Choose: flagNone + "the fio engine reads clat only where fio printed no lat, and the results say so"},
}

// ReadingByID is the reading of that ID, nil when there is none.
func ReadingByID(id string) *Reading {
	for i := range Readings {
		if Readings[i].ID == id {
			return &Readings[i]
		}
	}
	return nil
}

// Concerns says the reading applies to a run of these tests with this
// profile.
func (r Reading) Concerns(tests []TestID, profile string) bool {
	if r.Profile != "" && r.Profile != profile {
		return false
	}
	if len(r.Tests) == 0 {
		return true
	}
	for _, t := range r.Tests {
		if slices.Contains(tests, t) {
			return true
		}
	}
	return false
}

// ReadingsOf are the readings a run of c depends on, in register order.
func ReadingsOf(c Config) []Reading {
	var out []Reading
	for _, r := range Readings {
		if r.Concerns(c.Tests, c.Profile) {
			out = append(out, r)
		}
	}
	return out
}

// ChooseWords says how to choose another reading: the flags, and how.
func (r Reading) ChooseWords() string {
	if r.Choose != "" {
		return r.Choose
	}
	var f []string
	for _, x := range r.Flags {
		f = append(f, "--"+x)
	}
	return strings.Join(f, ", ")
}

// ReadingOfFlag is the reading a flag's default rests on, nil for a flag
// of spec text.
func ReadingOfFlag(flag string) *Reading {
	for i := range Readings {
		if slices.Contains(Readings[i].Flags, flag) {
			return &Readings[i]
		}
	}
	return nil
}

// Another is the other harness's reading a parameter's value is, when it
// is one: a run with it reads the PTS as that harness does, which is no
// deviation (the report's readings appendix says which it read).
func (p Param) Another(v string) (Alternative, bool) {
	r := ReadingOfFlag(p.Flag)
	if r == nil {
		return Alternative{}, false
	}
	for _, a := range r.Others {
		if w, ok := a.Values[p.Flag]; ok && sameValue(w, v) {
			return a, true
		}
	}
	return Alternative{}, false
}

// sameValue says two values of a flag are the same: as durations or
// numbers where both read as one, else as words.
func sameValue(a, b string) bool {
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if x, err := time.ParseDuration(a); err == nil {
		y, err := time.ParseDuration(b)
		return err == nil && x == y
	}
	if x, err := strconv.ParseFloat(a, 64); err == nil {
		y, err := strconv.ParseFloat(b, 64)
		return err == nil && x == y
	}
	return strings.EqualFold(a, b)
}

// HelpSource is what a flag's --help says of its reading: "(a reading of
// the PTS: ADATA …)", "" for a flag of spec text.
func HelpSource(flag string) string {
	if r := ReadingOfFlag(flag); r != nil {
		return "(a reading of the PTS: " + r.Source + ")"
	}
	return ""
}

// InRun says how a run of c reads it when not as ptsrun does: the flags
// it set otherwise and whose reading each value is; "" when the run reads
// it as ptsrun does.
func (r Reading) InRun(c Config, p Profile) string {
	var parts []string
	for _, flag := range r.Flags {
		switch flag {
		case "tp-active-range", "lat-active-range":
			test := map[string]TestID{"tp-active-range": TP, "lat-active-range": LAT}[flag]
			if slices.Contains(c.Tests, test) && c.ActiveRangeOf(test) != p.ActiveRangeOf(test) {
				parts = append(parts, fmt.Sprintf("--%s %g (a deviation)", flag, c.ActiveRangeOf(test)))
			}
			continue
		}
		v, set := c.Params[flag]
		param, known := paramOf(flag)
		if !set || !known || v == param.Default {
			continue
		}
		if a, ok := param.Another(v); ok {
			parts = append(parts, fmt.Sprintf("--%s %s, as %s reads it", flag, v, a.Harness))
		} else if param.Method {
			parts = append(parts, fmt.Sprintf("--%s %s, an option of the PTS", flag, v))
		} else {
			parts = append(parts, fmt.Sprintf("--%s %s (a deviation)", flag, v))
		}
	}
	return strings.Join(parts, "; ")
}

// paramOf is the test parameter of that flag.
func paramOf(flag string) (Param, bool) {
	for _, p := range AllParams() {
		if p.Flag == flag {
			return p, true
		}
	}
	return Param{}, false
}
