package pts

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/units"
)

// SpecRevision is the PTS revision ptsrun implements.
const SpecRevision = "2.0.2"

const (
	KiB = 1 << 10
	MiB = 1 << 20
)

// Spec constants: the cell time, the round limit and the WIPC (PTS 2.0.2 §7–9).
const (
	DefaultCellTime  = 60 * time.Second
	DefaultMaxRounds = 25
	WIPCPasses       = 2.0
	WIPCBlockSize    = 128 * KiB
	WIPCTC, WIPCQD   = 1, 32
)

// Profile is PTS-E or PTS-C.
type Profile struct {
	Name  string `json:"name"`  // enterprise, client
	Short string `json:"short"` // PTS-E, PTS-C
	// ActiveRange is the IOPS test's active range: PTS 2.0.2 §7 gives
	// 100 % for PTS-E and 75 % for PTS-C (quoted text).
	ActiveRange float64 `json:"active_range_pct"`
	// The throughput and latency tests' active ranges (PTS 2.0.2 §8–9):
	// 100 % for PTS-E, nothing stated for PTS-C; for PTS-C both PTS 2.0
	// forks use 75 %, as for IOPS (the reading "client-ar");
	// --tp-active-range and --lat-active-range change it.
	TPActiveRange  float64 `json:"tp_active_range_pct,omitempty"`
	LATActiveRange float64 `json:"lat_active_range_pct,omitempty"`
	TC             int     `json:"tc"`
	QD             int     `json:"qd"`
	WriteCache     bool    `json:"write_cache_enabled"` // E: WCD, C: WCE
	TPBlocks       []int64 `json:"tp_block_sizes"`
}

// Profiles are the two PTS profiles.
var Profiles = []Profile{
	{Name: "enterprise", Short: "PTS-E", ActiveRange: 100, TPActiveRange: 100, LATActiveRange: 100, TC: 4, QD: 32, WriteCache: false, TPBlocks: EntTPBlocks},
	{Name: "client", Short: "PTS-C", ActiveRange: 75, TPActiveRange: 75, LATActiveRange: 75, TC: 2, QD: 16, WriteCache: true, TPBlocks: ClientTPBlocks},
}

// ActiveRangeOf is the profile's active range for a test. A profile
// recorded before the tests had their own (an older run.json) had one for all.
func (p Profile) ActiveRangeOf(test TestID) float64 {
	switch {
	case test == TP && p.TPActiveRange > 0:
		return p.TPActiveRange
	case test == LAT && p.LATActiveRange > 0:
		return p.LATActiveRange
	}
	if td := Def(test); td != nil && td.ActiveRange > 0 {
		return td.ActiveRange // a test of its own range, whatever the profile
	}
	return p.ActiveRange
}

// LookupProfile finds a profile by name (or its short name).
func LookupProfile(name string) (Profile, error) {
	for _, p := range Profiles {
		if strings.EqualFold(name, p.Name) || strings.EqualFold(name, p.Short) {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("unknown profile %q: want enterprise or client", name)
}

// WriteCacheLabel is WCE or WCD.
func (p Profile) WriteCacheLabel() string {
	if p.WriteCache {
		return "WCE"
	}
	return "WCD"
}

// Cell is one workload of a round.
type Cell struct {
	Index    int             `json:"index"`
	Key      CellKey         `json:"key"` // "rnd-4k-65/35"
	Workload engine.Workload `json:"workload"`
	// PreWrite marks a demand-intensity round's between-round pre-write:
	// part of the round, not a cell of its TC × QD matrix.
	PreWrite bool `json:"prewrite,omitempty"`
}

// Tracking is a steady-state tracking variable: one metric of one cell.
type Tracking struct {
	Name   string `json:"name"`
	Cell   int    `json:"cell"`
	Metric Metric `json:"metric"`
}

// Stage is a unit of a test: purged and preconditioned as it asks, then
// run by its procedure (Kind), which reads the fields of its kind. IOPS
// and latency have one stage of rounds; throughput one per block size
// (PTS §8: purge and precondition again for each block size); the tests
// over time a timeline, after rounds of preconditioning for HIR; a
// demand-intensity test rounds of preconditioning, its sweep and a stage
// per operating point.
type Stage struct {
	// Kind is the stage's procedure (Procedure): it is not recorded, as
	// its fields say it (UnmarshalJSON); the zero kind is rounds.
	Kind         Kind             `json:"-"`
	ID           string           `json:"id"`   // iops, tp-1024k, lat
	Test         TestID           `json:"test"` // iops, tp, lat
	Title        string           `json:"title"`
	Purge        bool             `json:"purge"`
	Precondition *engine.Workload `json:"precondition,omitempty"`
	// Cells are a round's, in loop order (rounds, a demand sweep's);
	// Tracking its tracking variables, of its cells or, in a timeline in
	// rounds, of the steps of its round; MaxRounds the round limit.
	Cells     []Cell     `json:"cells"`
	Tracking  []Tracking `json:"tracking"`
	MaxRounds int        `json:"max_rounds"`
	// Timeline are the segments of a time series (a timeline, an
	// operating point's pre-write and histogram run), run one after the
	// other, a sample journaled per interval.
	Timeline []Segment `json:"timeline,omitempty"`
	// StopFills ends a timeline stage once this many times the targets'
	// capacity has been written in it (WSAT's drive fills); 0: no such rule.
	StopFills float64 `json:"stop_fills,omitempty"`
	// StopAfter ends a timeline stage once it has run this long, idle
	// time included; 0: its segments' own time (WSAT's steady-state
	// method: its rounds, its fills and its time, whichever first).
	StopAfter Duration `json:"stop_after,omitempty"`
	// Stimulus is a timeline's stimulus in one line, for report headers
	// and summaries ("SEQ 1024 KiB W 8h, RND 8 KiB W 6h, …"); "" lists
	// the segments.
	Stimulus string `json:"stimulus,omitempty"`
	// Point makes a demand sweep's stage one at an operating point (DIRTH,
	// ECW): its segments run at the TC/QD chosen from the stage Point
	// names when the runner gets to it (ResolvePoint).
	Point *PointRef `json:"point,omitempty"`
}

// Workloads are the workloads the stage runs, its preconditioning apart:
// its cells' and its segments', in order.
func (s Stage) Workloads() []engine.Workload {
	var out []engine.Workload
	for _, c := range s.Cells {
		out = append(out, c.Workload)
	}
	for _, g := range s.Timeline {
		out = append(out, g.Workload)
	}
	return out
}

// RoundTime is the nominal duration of one round.
func (s Stage) RoundTime() time.Duration {
	var d time.Duration
	for _, c := range s.Cells {
		d += c.Workload.Duration
	}
	return d
}

var mixLabel = regexp.MustCompile(`^(?i)\s*r?\s*(\d{1,3}(?:\.\d+)?)\s*%?\s*[/:]\s*w?\s*(\d{1,3}(?:\.\d+)?)\s*%?\s*$`)

// ParseMix reads an R/W mix label as its read percentage: "65/35",
// "R65/W35", "65:35". Imported tables and --mixes both read it.
func ParseMix(s string) (int, error) {
	m := mixLabel.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("mix %q: want read/write percentages such as 65/35, R65/W35 or 65:35", s)
	}
	r, _ := strconv.ParseFloat(m[1], 64)
	w, _ := strconv.ParseFloat(m[2], 64)
	if r+w != 100 || r != math.Trunc(r) {
		return 0, fmt.Errorf("mix %q: read and write must be whole percentages adding up to 100", s)
	}
	return int(r), nil
}

// ParseMixes reads a comma-separated list of R/W mixes ("100/0,65/35");
// Config.Resolve checks them against the tests.
func ParseMixes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		m, err := ParseMix(f)
		if err != nil {
			return nil, fmt.Errorf("--mixes: %w", err)
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--mixes %q: no mix named", s)
	}
	return out, nil
}

// ParseBlockSizes reads a comma-separated list of block sizes ("4k,128k",
// binary units as units.ParseSize reads them); Config.Resolve checks them
// against the tests.
func ParseBlockSizes(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		bs, err := units.ParseSize(f)
		if err != nil {
			return nil, fmt.Errorf("--block-sizes: block %w", err)
		}
		out = append(out, bs)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--block-sizes %q: no block size named", s)
	}
	return out, nil
}

// SizeFlag writes a block size as --block-sizes takes it: "4k", "0.5k".
func SizeFlag(bs int64) string {
	if bs%512 != 0 {
		return fmt.Sprint(bs)
	}
	return units.SizeKey(bs)
}

func sizeFlags(v []int64) string {
	var s []string
	for _, bs := range v {
		s = append(s, SizeFlag(bs))
	}
	return strings.Join(s, ",")
}

func mixFlags(v []int) string {
	var s []string
	for _, m := range v {
		s = append(s, MixLabel(m))
	}
	return strings.Join(s, ",")
}

// JoinAnd lists names the English way: "a", "a and b", "a, b and c".
func JoinAnd(v []string) string {
	if len(v) < 2 {
		return strings.Join(v, "")
	}
	return strings.Join(v[:len(v)-1], ", ") + " and " + v[len(v)-1]
}

// CheckTargets checks, before anything is written, that every workload of
// the stages (preconditioning and cells) fits every target: a target too
// small for a test is bad input, not an error found after its purge.
func CheckTargets(stages []Stage, targets []device.Identity) error {
	for _, t := range targets {
		if t.CapacityBytes <= 0 {
			continue // not known here (a target on a fio server)
		}
		name := t.Path
		if name == "" {
			name = t.Model
		}
		for _, s := range stages {
			var ws []engine.Workload
			if s.Precondition != nil {
				ws = append(ws, *s.Precondition)
			}
			for _, w := range append(ws, s.Workloads()...) {
				if w.Duration <= 0 && w.Passes <= 0 {
					w.Duration = DefaultCellTime
				}
				if err := w.Fits(t.CapacityBytes, t.LogicalBlock); err != nil {
					return fmt.Errorf("target %s (%d bytes) cannot take %s %s: %w", name, t.CapacityBytes, s.Title, w, err)
				}
			}
		}
	}
	return nil
}
