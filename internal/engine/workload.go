package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/units"
)

// Access is the address pattern of a workload.
type Access int

const (
	Random Access = iota
	Sequential
)

func (a Access) String() string {
	if a == Sequential {
		return "seq"
	}
	return "random"
}

// ParseAccess accepts "random"/"rnd" and "seq"/"sequential".
func ParseAccess(s string) (Access, error) {
	switch strings.ToLower(s) {
	case "random", "rnd", "rand":
		return Random, nil
	case "seq", "sequential":
		return Sequential, nil
	}
	return 0, fmt.Errorf("unknown access pattern %q: want random or seq", s)
}

func (a Access) MarshalJSON() ([]byte, error) { return json.Marshal(a.String()) }

func (a *Access) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := ParseAccess(s)
	*a = v
	return err
}

// BlockShare is one entry of a composite block-size split (PTS ECW).
type BlockShare struct {
	Bytes   int64   `json:"bs"`
	Percent float64 `json:"pct"` // share of I/Os
}

// Zone sends IOPercent of the I/Os to the next RangePercent of the active range
// (PTS ECW: 50 % of I/Os to the first 5 %, …).
type Zone struct {
	IOPercent    float64 `json:"io_pct"`
	RangePercent float64 `json:"range_pct"`
}

// Workload is one thing an engine is asked to do.
type Workload struct {
	Access     Access       `json:"access"`
	ReadPct    int          `json:"read_pct"` // 0…100
	BlockSize  int64        `json:"bs"`       // bytes; with BlockSplit, the split wins
	BlockSplit []BlockShare `json:"bs_split,omitempty"`
	Zones      []Zone       `json:"zones,omitempty"`
	// Streams make the workload a stream mix (mix.go, MixWorkload): each
	// I/O's direction, size and access drawn by share; Access, ReadPct
	// and BlockSize then only label it.
	Streams     []Stream `json:"streams,omitempty"`
	TC          int      `json:"tc"` // threads (fio numjobs)
	QD          int      `json:"qd"` // outstanding I/Os per thread (fio iodepth)
	ActiveRange float64  `json:"active_range_pct"`
	// RangeStart moves the start of the active range from LBA 0 to this
	// percentage of the capacity: the range is [RangeStart, ActiveRange).
	// Preconditioning uses it to write in resumable pieces.
	RangeStart float64 `json:"range_start_pct,omitempty"`
	// Duration is the run time. Passes ends the workload after that many
	// passes over each target's active range (preconditioning writes
	// exactly twice the capacity: Passes 2), each thread moving its share.
	// With both, it ends at whichever comes first: a time series' step cut
	// at what is left of a volume budget (WSAT's 4 × the capacity).
	Duration time.Duration `json:"duration_ns,omitempty"`
	Passes   float64       `json:"passes,omitempty"`
	Seed     uint64        `json:"seed"`
	// Idle asks for no I/O at all for Duration (PTS host idle: HIR's wait
	// states). A real drive rests in wall time; the simulated one lets its
	// background garbage collection run on its virtual clock.
	Idle bool `json:"idle,omitempty"`

	// Options of the workloads people run outside the PTS (`ptsrun
	// workload`, presets, vdbench and fio job files); zero is "not asked".
	//
	// Ramp is a warm-up at the start of Duration: the engine runs it, its
	// seconds stay in the series (Second.Ramp), and the measurement's
	// totals leave it out: Elapsed is Duration − Ramp (fio ramp_time,
	// vdbench warmup).
	Ramp time.Duration `json:"ramp_ns,omitempty"`
	// RandomPct is the share of a random workload's I/Os at random offsets,
	// the rest continuing sequentially where the thread's previous I/O of
	// the same direction ended (fio percentage_random: fio keeps the last
	// position per direction, io_u.c get_next_seq_offset; vdbench seekpct,
	// which continues from the previous I/O of either direction: the two
	// agree on workloads of one direction); 0 is all random. A
	// continuation that would pass the end of the active range starts
	// again at its beginning.
	RandomPct float64 `json:"random_pct,omitempty"`
	// RateIOPS and RateMBps cap each target's I/O rate, spread over its
	// threads (fio rate_iops and rate, vdbench iorate); 0 is as fast as
	// it goes.
	RateIOPS float64 `json:"rate_iops,omitempty"`
	RateMBps float64 `json:"rate_mbps,omitempty"`
	// Interval is the length of each entry of the measurement's series
	// (Measurement.Seconds); 0 is one second. Whole milliseconds, at
	// least MinInterval (fio's log_avg_msec and log_hist_msec).
	Interval time.Duration `json:"interval_ns,omitempty"`
}

// MinInterval is the shortest series interval: shorter ones would record
// more than they measure (a histogram per thread per interval).
const MinInterval = 100 * time.Millisecond

// SeriesInterval is the length of each entry of the series: Interval, or
// one second.
func (w Workload) SeriesInterval() time.Duration {
	if w.Interval > 0 {
		return w.Interval
	}
	return time.Second
}

// IntervalOf is the index of the series entry that time since the start
// falls in.
func (w Workload) IntervalOf(since time.Duration) int {
	return int(since / w.SeriesInterval())
}

// RampSeconds is how many of the series' first intervals are the ramp's:
// every interval that began before the ramp ended (seconds by default).
func (w Workload) RampSeconds() int {
	if w.Ramp <= 0 {
		return 0
	}
	iv := w.SeriesInterval()
	return int((w.Ramp + iv - 1) / iv)
}

// Measured is how long the measurement's totals cover: Duration without
// the ramp.
func (w Workload) Measured() time.Duration { return w.Duration - w.Ramp }

// RateIOPSCap is the I/O rate each target is capped at, from RateIOPS and
// RateMBps (whichever binds, at the mean block size); 0 without a cap.
func (w Workload) RateIOPSCap() float64 {
	c := w.RateIOPS
	if w.RateMBps > 0 {
		if b := w.RateMBps * 1e6 / w.MeanBlockSize(); c == 0 || b < c {
			c = b
		}
	}
	return c
}

// Limits of what a workload may ask for.
const (
	MaxTC = 256
	MaxQD = 1024
)

// ErrBadWorkload wraps every validation failure.
var ErrBadWorkload = errors.New("invalid workload")

// A WorkloadError is a workload Validate refuses: the setting at fault,
// by its name in the workload's JSON ("tc", "read_pct"; "" for several),
// and why, so that a command line can name its flag. It is an
// ErrBadWorkload.
type WorkloadError struct {
	Field  string
	Reason string
}

func (e *WorkloadError) Error() string { return ErrBadWorkload.Error() + ": " + e.Reason }
func (e *WorkloadError) Unwrap() error { return ErrBadWorkload }

// Validate checks the workload against logical block size lbs (0 = 512).
func (w Workload) Validate(lbs int64) error {
	if lbs <= 0 {
		lbs = 512
	}
	bad := func(field, format string, a ...any) error {
		return &WorkloadError{Field: field, Reason: fmt.Sprintf(format, a...)}
	}
	if w.Idle {
		if w.Duration <= 0 {
			return bad("duration_ns", "an idle period of %v", w.Duration)
		}
		return nil
	}
	switch {
	case w.TC < 1 || w.TC > MaxTC:
		return bad("tc", "thread count %d outside 1…%d", w.TC, MaxTC)
	case w.QD < 1 || w.QD > MaxQD:
		return bad("qd", "queue depth %d outside 1…%d", w.QD, MaxQD)
	case w.ReadPct < 0 || w.ReadPct > 100:
		return bad("read_pct", "read percentage %d outside 0…100", w.ReadPct)
	case !(w.ActiveRange > 0 && w.ActiveRange <= 100):
		return bad("active_range_pct", "active range %v%% outside (0, 100]", w.ActiveRange)
	case !(w.RangeStart >= 0 && w.RangeStart < w.ActiveRange):
		return bad("range_start_pct", "active range start %v%% outside [0, %v%%)", w.RangeStart, w.ActiveRange)
	case w.Duration <= 0 && w.Passes <= 0:
		return bad("duration_ns", "neither a duration nor a number of passes")
	case w.Duration < 0 || w.Passes < 0 || math.IsNaN(w.Passes) || math.IsInf(w.Passes, 0):
		return bad("duration_ns", "negative or infinite duration or passes")
	case w.Ramp < 0 || w.Ramp > 0 && w.Ramp >= w.Duration:
		return bad("ramp_ns", "a ramp of %v in a run of %v: the ramp must be shorter than the run", w.Ramp, w.Duration)
	case !(w.RandomPct >= 0 && w.RandomPct <= 100):
		return bad("random_pct", "random share %v%% outside 0…100", w.RandomPct)
	case w.RandomPct > 0 && w.Access == Sequential:
		return bad("random_pct", "a random share of %v%% for a sequential workload", w.RandomPct)
	case !(w.RateIOPS >= 0) || !(w.RateMBps >= 0) || math.IsInf(w.RateIOPS, 0) || math.IsInf(w.RateMBps, 0):
		return bad("", "a rate of %v IOPS or %v MB/s: a rate is above zero", w.RateIOPS, w.RateMBps)
	case w.Interval < 0 || w.Interval > 0 && (w.Interval < MinInterval || w.Interval%time.Millisecond != 0):
		return bad("interval_ns", "an interval of %v: the series takes whole milliseconds from %v", w.Interval, MinInterval)
	case w.Interval > 0 && w.Duration > 0 && w.Interval > w.Duration:
		return bad("interval_ns", "an interval of %v in a run of %v: the interval must not be longer than the run", w.Interval, w.Duration)
	case w.Ramp > 0 && w.Ramp%w.SeriesInterval() != 0:
		// An interval the ramp ends in would be the ramp's in the series
		// and partly the results' in the totals.
		return bad("ramp_ns", "a ramp of %v is not a whole number of the series' intervals (%v)", w.Ramp, w.SeriesInterval())
	}
	if len(w.Streams) > 0 {
		return w.validateMix(lbs)
	}
	sizes := []int64{w.BlockSize}
	if len(w.BlockSplit) > 0 {
		sizes = sizes[:0]
		var sum float64
		for _, s := range w.BlockSplit {
			sizes = append(sizes, s.Bytes)
			if s.Percent < 0 {
				return bad("bs_split", "negative share %v%% for %s", s.Percent, units.FormatSize(s.Bytes))
			}
			sum += s.Percent
		}
		if !hundred(sum) {
			return bad("bs_split", "block-size shares add up to %v%%, not 100%%", sum)
		}
	}
	for _, bs := range sizes {
		if bs <= 0 {
			return bad("bs", "block size %d is not positive", bs)
		}
		if bs%lbs != 0 {
			return bad("bs", "block size %s is not a multiple of the logical block size %d", units.FormatSize(bs), lbs)
		}
	}
	if len(w.Zones) > 0 {
		var io, rng float64
		for _, z := range w.Zones {
			if z.IOPercent < 0 || z.RangePercent <= 0 {
				return bad("zones", "zone %v%% of I/O over %v%% of the range is not valid", z.IOPercent, z.RangePercent)
			}
			io += z.IOPercent
			rng += z.RangePercent
		}
		if !hundred(io) || !hundred(rng) {
			return bad("zones", "zones cover %v%% of the I/O and %v%% of the range, both must be 100%%", io, rng)
		}
	}
	return nil
}

// Fits checks the workload against a target of capacity bytes and logical
// block size lbs: valid, and an active range that gives every thread at
// least one block of the largest size.
func (w Workload) Fits(capacity, lbs int64) error {
	if err := w.Validate(lbs); err != nil || w.Idle {
		return err
	}
	if r := w.RangeBytes(capacity); r/int64(w.TC) < w.maxBS() {
		return fmt.Errorf("%w: %g %% of %d bytes leaves %d bytes of active range (in whole %s blocks), too little for %d thread(s) of %s",
			ErrBadWorkload, w.ActiveRange-w.RangeStart, capacity, max(r, 0), units.FormatSize(w.maxBS()), w.TC, units.FormatSize(w.maxBS()))
	}
	for k, s := range w.Streams {
		if lo, hi := w.MixRegion(capacity, k, 0, w.TC); s.Access == Sequential && hi-lo < s.Bytes {
			return fmt.Errorf("%w: %g %% of %d bytes in a region per thread and sequential stream leaves %d bytes to %s, less than one I/O",
				ErrBadWorkload, w.ActiveRange-w.RangeStart, capacity, hi-lo, s.Label())
		}
	}
	return nil
}

func (w Workload) maxBS() int64 {
	bs := max(w.BlockSize, 512)
	for _, s := range w.BlockSplit {
		bs = max(bs, s.Bytes)
	}
	for _, s := range w.Streams {
		bs = max(bs, s.Bytes)
	}
	return bs
}

// MaxBlockSize is the largest I/O the workload issues: its block size,
// or the largest of its split's or mix's.
func (w Workload) MaxBlockSize() int64 {
	bs := w.BlockSize
	for _, s := range w.BlockSplit {
		bs = max(bs, s.Bytes)
	}
	for _, s := range w.Streams {
		bs = max(bs, s.Bytes)
	}
	return bs
}

// RangeStartBytes is where the active range starts on a target of the given
// capacity, aligned down to the block size.
func (w Workload) RangeStartBytes(capacity int64) int64 {
	bs := w.maxBS()
	return int64(float64(capacity)*w.RangeStart/100) / bs * bs
}

// RangeBytes is the length of the active range of a target of the given
// capacity, both ends aligned down to the block size (the largest of a split).
func (w Workload) RangeBytes(capacity int64) int64 {
	bs := w.maxBS()
	return int64(float64(capacity)*w.ActiveRange/100)/bs*bs - w.RangeStartBytes(capacity)
}

// PassBytes is the volume Passes asks of a target of the given capacity.
func (w Workload) PassBytes(capacity int64) int64 {
	return int64(w.Passes * float64(w.RangeBytes(capacity)))
}

// MeanBlockSize is the I/O-weighted average block size.
func (w Workload) MeanBlockSize() float64 {
	if len(w.Streams) > 0 {
		var s float64
		for _, m := range w.Streams {
			s += float64(m.Bytes) * m.Percent / 100
		}
		return s
	}
	if len(w.BlockSplit) == 0 {
		return float64(w.BlockSize)
	}
	var s float64
	for _, b := range w.BlockSplit {
		s += float64(b.Bytes) * b.Percent / 100
	}
	return s
}

// OIO is the total number of outstanding I/Os the workload asks for.
func (w Workload) OIO() int { return w.TC * w.QD }

// String is a compact human description: "RND 4 KiB 65/35 TC4/QD32"; a
// block-size split is "composite" and zones add "zoned" (Description names
// them in full); a random share is "RND80%" (80 % of the I/Os at random
// offsets, the rest sequential).
func (w Workload) String() string {
	s := w.brief()
	if len(w.Zones) > 0 && !w.Idle {
		s += " zoned"
	}
	return s
}

// Description is String with the block-size split and the zones written
// out: "RND composite 40/60 TC1/QD32 — block sizes 0.5 KiB 4 %, …, 64 KiB
// 3 %; zones: 50 % of I/O → first 5 %, 30 % → next 15 %, 20 % → last 80 %".
// Without either it is String.
//
// A rate cap and a ramp follow, written out: "…, at most 5000 IOPS per
// target, the first 15m0s a ramp".
func (w Workload) Description() string {
	if w.Idle {
		return w.String()
	}
	s := w.String()
	var parts []string
	if len(w.BlockSplit) > 0 {
		parts = append(parts, "block sizes "+w.SplitLabel())
	}
	if len(w.Streams) > 0 {
		parts = append(parts, "streams "+w.MixLabel())
	}
	if len(w.Zones) > 0 {
		parts = append(parts, "zones: "+w.ZonesLabel())
	}
	if len(parts) > 0 {
		s = w.brief() + " — " + strings.Join(parts, "; ")
	}
	if r := w.RateLabel(); r != "" {
		s += ", " + r
	}
	if w.Ramp > 0 {
		s += fmt.Sprintf(", the first %v a ramp", w.Ramp)
	}
	return s
}

// RateLabel names the rate cap: "at most 5000 IOPS per target", "at most
// 200 MB/s per target", or both; "" without one.
func (w Workload) RateLabel() string {
	var caps []string
	if w.RateIOPS > 0 {
		caps = append(caps, pct(w.RateIOPS)+" IOPS")
	}
	if w.RateMBps > 0 {
		caps = append(caps, pct(w.RateMBps)+" MB/s")
	}
	if len(caps) == 0 {
		return ""
	}
	return "at most " + strings.Join(caps, " and ") + " per target"
}

func (w Workload) brief() string {
	if w.Idle {
		return "idle " + w.Duration.String()
	}
	acc := "RND"
	if w.Access == Sequential {
		acc = "SEQ"
	}
	bs := units.FormatSize(w.BlockSize)
	if len(w.BlockSplit) > 0 {
		bs = "composite"
	}
	if len(w.Streams) > 0 {
		acc, bs = "MIX", fmt.Sprintf("%d streams", len(w.Streams))
	}
	if w.Access == Random && w.RandomPct > 0 && w.RandomPct < 100 {
		acc += pct(w.RandomPct) + "%"
	}
	s := fmt.Sprintf("%s %s %d/%d TC%d/QD%d", acc, bs, w.ReadPct, 100-w.ReadPct, w.TC, w.QD)
	switch {
	case w.RangeStart > 0:
		s += fmt.Sprintf(" AR %g–%g%%", w.RangeStart, w.ActiveRange)
	case w.ActiveRange != 100:
		s += fmt.Sprintf(" AR %g%%", w.ActiveRange)
	}
	return s
}

// SplitLabel names the block-size split for people, in its order: "0.5 KiB
// 4 %, 1 KiB 1 %, …, 64 KiB 3 %"; "" without a split.
func (w Workload) SplitLabel() string {
	var parts []string
	for _, s := range w.BlockSplit {
		parts = append(parts, fmt.Sprintf("%s %s %%", units.FormatSize(s.Bytes), pct(s.Percent)))
	}
	return strings.Join(parts, ", ")
}

// ZonesLabel names the zones for people: "50 % of I/O → first 5 %, 30 % →
// next 15 %, 20 % → last 80 %" (of the active range); "" without zones.
func (w Workload) ZonesLabel() string {
	var parts []string
	for i, z := range w.Zones {
		where := "next"
		switch {
		case len(w.Zones) == 1:
			where = "all"
		case i == 0:
			where = "first"
		case i == len(w.Zones)-1:
			where = "last"
		}
		io := pct(z.IOPercent) + " %"
		if i == 0 {
			io += " of I/O"
		}
		parts = append(parts, fmt.Sprintf("%s → %s %s %%", io, where, pct(z.RangePercent)))
	}
	return strings.Join(parts, ", ")
}

// SplitKey writes the block-size split as --bs takes it: "0.5k:4,1k:1,…,64k:3";
// "" without a split.
func (w Workload) SplitKey() string {
	var parts []string
	for _, s := range w.BlockSplit {
		parts = append(parts, units.SizeKey(s.Bytes)+":"+pct(s.Percent))
	}
	return strings.Join(parts, ",")
}

// ZonesKey writes the zones as --zones takes them and fio writes them
// (random_distribution=zoned:…): "50/5:30/15:20/80"; "" without zones.
func (w Workload) ZonesKey() string {
	var parts []string
	for _, z := range w.Zones {
		parts = append(parts, pct(z.IOPercent)+"/"+pct(z.RangePercent))
	}
	return strings.Join(parts, ":")
}

func pct(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// WholePercentages says whether every share of the block-size split and of
// the zones is a whole percentage, as the PTS writes them and as fio reads
// them (fio takes the integer part of "1.5" without a word).
func (w Workload) WholePercentages() error {
	for _, s := range w.BlockSplit {
		if s.Percent != math.Trunc(s.Percent) {
			return fmt.Errorf("%w: the share %s %% of %s is not a whole percentage", ErrBadWorkload, pct(s.Percent), units.FormatSize(s.Bytes))
		}
	}
	for _, z := range w.Zones {
		if z.IOPercent != math.Trunc(z.IOPercent) || z.RangePercent != math.Trunc(z.RangePercent) {
			return fmt.Errorf("%w: the zone %s/%s is not in whole percentages", ErrBadWorkload, pct(z.IOPercent), pct(z.RangePercent))
		}
	}
	return nil
}

// ParseBlockSizes reads what --bs takes: a block size ("4k"), or a
// block-size split ("4k:67,8k:33", ParseBlockSplit); a split of one size
// is that size. The size is 0 for a split of several.
func ParseBlockSizes(s string) (int64, []BlockShare, error) {
	if !strings.Contains(s, ":") {
		bs, err := units.ParseSize(s)
		return bs, nil, err
	}
	split, err := ParseBlockSplit(s)
	if err != nil {
		return 0, nil, err
	}
	if len(split) == 1 {
		return split[0].Bytes, nil, nil
	}
	return 0, split, nil
}

// BlockSizes are the sizes of w's I/Os: its block size, or its split's.
func (w Workload) BlockSizes() []int64 {
	if len(w.Streams) > 0 {
		var out []int64
		for _, s := range w.Streams {
			if !slices.Contains(out, s.Bytes) {
				out = append(out, s.Bytes)
			}
		}
		return out
	}
	if len(w.BlockSplit) == 0 {
		return []int64{w.BlockSize}
	}
	var out []int64
	for _, s := range w.BlockSplit {
		out = append(out, s.Bytes)
	}
	return out
}

// BSKey writes w's block size, or split, as --bs takes it: "4k",
// "4k:67,8k:33".
func (w Workload) BSKey() string {
	if len(w.BlockSplit) > 0 {
		return w.SplitKey()
	}
	return units.SizeKey(w.BlockSize)
}

// ParseBlockSplit reads a block-size split as --bs takes it: SIZE:PERCENT
// entries, comma-separated ("0.5k:4,4k:67,8k:10,…"), PERCENT the share of
// the I/Os. Every size is a size ParseSize reads and appears once; every
// share is positive; the shares add up to 100.
func ParseBlockSplit(s string) ([]BlockShare, error) {
	var out []BlockShare
	var sum float64
	for _, e := range strings.Split(s, ",") {
		size, share, ok := strings.Cut(strings.TrimSpace(e), ":")
		if !ok {
			return nil, fmt.Errorf("block-size split %q: entry %q is not SIZE:PERCENT (4k:67)", s, strings.TrimSpace(e))
		}
		b, err := units.ParseSize(size)
		if err != nil {
			return nil, fmt.Errorf("block-size split %q: %w", s, err)
		}
		p, err := parsePercent(share)
		if err != nil {
			return nil, fmt.Errorf("block-size split %q: the share of %s: %w", s, units.FormatSize(b), err)
		}
		for _, o := range out {
			if o.Bytes == b {
				return nil, fmt.Errorf("block-size split %q: %s appears twice", s, units.FormatSize(b))
			}
		}
		out = append(out, BlockShare{Bytes: b, Percent: p})
		sum += p
	}
	if !hundred(sum) {
		return nil, fmt.Errorf("block-size split %q: the shares add up to %s %%, not 100 %%", s, pct(round6(sum)))
	}
	return out, nil
}

// ParseZones reads zones as --zones takes them and fio writes them
// (random_distribution=zoned:…): IO%/RANGE% pairs, colon-separated,
// "50/5:30/15:20/80": 50 % of the I/Os go to the first 5 % of the active
// range, 30 % to the next 15 %, 20 % to the last 80 %. Every share is
// positive, and the zones cover 100 % of the I/O and of the range.
func ParseZones(s string) ([]Zone, error) {
	if strings.Contains(s, ",") {
		return nil, fmt.Errorf("zones %q: separate the zones with ':', as fio does (50/5:30/15:20/80)", s)
	}
	var out []Zone
	var io, rng float64
	for _, e := range strings.Split(s, ":") {
		a, b, ok := strings.Cut(strings.TrimSpace(e), "/")
		if !ok {
			return nil, fmt.Errorf("zones %q: entry %q is not IO%%/RANGE%% (50/5)", s, strings.TrimSpace(e))
		}
		ip, err := parsePercent(a)
		if err != nil {
			return nil, fmt.Errorf("zones %q: the I/O share of %q: %w", s, strings.TrimSpace(e), err)
		}
		rp, err := parsePercent(b)
		if err != nil {
			return nil, fmt.Errorf("zones %q: the range share of %q: %w", s, strings.TrimSpace(e), err)
		}
		out = append(out, Zone{IOPercent: ip, RangePercent: rp})
		io += ip
		rng += rp
	}
	if !hundred(io) {
		return nil, fmt.Errorf("zones %q: the zones take %s %% of the I/O, not 100 %%", s, pct(round6(io)))
	}
	if !hundred(rng) {
		return nil, fmt.Errorf("zones %q: the zones cover %s %% of the range, not 100 %%", s, pct(round6(rng)))
	}
	return out, nil
}

// parsePercent reads a share: a positive number, "%" allowed after it.
func parsePercent(s string) (float64, error) {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	v, err := strconv.ParseFloat(t, 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%q is not a percentage", strings.TrimSpace(s))
	case v <= 0:
		return 0, fmt.Errorf("%s %% is not positive", pct(v))
	case v > 100:
		return 0, fmt.Errorf("%s %% is more than 100 %%", pct(v))
	}
	return v, nil
}

// hundred is the tolerance shares are summed with (Validate's).
func hundred(sum float64) bool { return sum >= 99.99 && sum <= 100.01 }

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
