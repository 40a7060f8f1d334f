package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
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
	Access      Access       `json:"access"`
	ReadPct     int          `json:"read_pct"` // 0…100
	BlockSize   int64        `json:"bs"`       // bytes; with BlockSplit, the split wins
	BlockSplit  []BlockShare `json:"bs_split,omitempty"`
	Zones       []Zone       `json:"zones,omitempty"`
	TC          int          `json:"tc"` // threads (fio numjobs)
	QD          int          `json:"qd"` // outstanding I/Os per thread (fio iodepth)
	ActiveRange float64      `json:"active_range_pct"`
	// RangeStart moves the start of the active range from LBA 0 to this
	// percentage of the capacity: the range is [RangeStart, ActiveRange).
	// Preconditioning uses it to write in resumable pieces.
	RangeStart float64 `json:"range_start_pct,omitempty"`
	// Duration is the run time. Passes, when set, ends the workload instead
	// after that many passes over each target's active range (preconditioning
	// writes exactly twice the capacity: Passes 2).
	Duration time.Duration `json:"duration_ns,omitempty"`
	Passes   float64       `json:"passes,omitempty"`
	Seed     uint64        `json:"seed"`
	// Idle asks for no I/O at all for Duration (PTS host idle: HIR's wait
	// states). A real drive rests in wall time; the simulated one lets its
	// background garbage collection run on its virtual clock.
	Idle bool `json:"idle,omitempty"`
}

// Limits of what a workload may ask for.
const (
	MaxTC = 256
	MaxQD = 1024
)

// ErrBadWorkload wraps every validation failure.
var ErrBadWorkload = errors.New("invalid workload")

// Validate checks the workload against logical block size lbs (0 = 512).
func (w Workload) Validate(lbs int64) error {
	if lbs <= 0 {
		lbs = 512
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrBadWorkload, fmt.Sprintf(format, a...))
	}
	if w.Idle {
		if w.Duration <= 0 {
			return bad("an idle period of %v", w.Duration)
		}
		return nil
	}
	switch {
	case w.TC < 1 || w.TC > MaxTC:
		return bad("thread count %d outside 1…%d", w.TC, MaxTC)
	case w.QD < 1 || w.QD > MaxQD:
		return bad("queue depth %d outside 1…%d", w.QD, MaxQD)
	case w.ReadPct < 0 || w.ReadPct > 100:
		return bad("read percentage %d outside 0…100", w.ReadPct)
	case !(w.ActiveRange > 0 && w.ActiveRange <= 100):
		return bad("active range %v%% outside (0, 100]", w.ActiveRange)
	case !(w.RangeStart >= 0 && w.RangeStart < w.ActiveRange):
		return bad("active range start %v%% outside [0, %v%%)", w.RangeStart, w.ActiveRange)
	case w.Duration <= 0 && w.Passes <= 0:
		return bad("neither a duration nor a number of passes")
	case w.Duration < 0 || w.Passes < 0 || math.IsNaN(w.Passes) || math.IsInf(w.Passes, 0):
		return bad("negative or infinite duration or passes")
	}
	sizes := []int64{w.BlockSize}
	if len(w.BlockSplit) > 0 {
		sizes = sizes[:0]
		var sum float64
		for _, s := range w.BlockSplit {
			sizes = append(sizes, s.Bytes)
			if s.Percent < 0 {
				return bad("negative share %v%% for %s", s.Percent, FormatSize(s.Bytes))
			}
			sum += s.Percent
		}
		if sum < 99.99 || sum > 100.01 {
			return bad("block-size shares add up to %v%%, not 100%%", sum)
		}
	}
	for _, bs := range sizes {
		if bs <= 0 {
			return bad("block size %d is not positive", bs)
		}
		if bs%lbs != 0 {
			return bad("block size %s is not a multiple of the logical block size %d", FormatSize(bs), lbs)
		}
	}
	if len(w.Zones) > 0 {
		var io, rng float64
		for _, z := range w.Zones {
			if z.IOPercent < 0 || z.RangePercent <= 0 {
				return bad("zone %v%% of I/O over %v%% of the range is not valid", z.IOPercent, z.RangePercent)
			}
			io += z.IOPercent
			rng += z.RangePercent
		}
		if io < 99.99 || io > 100.01 || rng < 99.99 || rng > 100.01 {
			return bad("zones cover %v%% of the I/O and %v%% of the range, both must be 100%%", io, rng)
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
			ErrBadWorkload, w.ActiveRange-w.RangeStart, capacity, max(r, 0), FormatSize(w.maxBS()), w.TC, FormatSize(w.maxBS()))
	}
	return nil
}

func (w Workload) maxBS() int64 {
	bs := max(w.BlockSize, 512)
	for _, s := range w.BlockSplit {
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

// String is a compact human description: "RND 4 KiB 65/35 TC4/QD32".
func (w Workload) String() string {
	if w.Idle {
		return "idle " + w.Duration.String()
	}
	acc := "RND"
	if w.Access == Sequential {
		acc = "SEQ"
	}
	bs := FormatSize(w.BlockSize)
	if len(w.BlockSplit) > 0 {
		bs = "composite"
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

// FormatSize writes a block size the PTS way: binary units, 0.5 KiB for 512 B.
func FormatSize(b int64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", b>>30)
	case b >= 1<<20 && b%(1<<20) == 0 && b < 64<<20 && b != 1<<20:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1024 && b%1024 == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	case b%512 == 0:
		return fmt.Sprintf("%g KiB", float64(b)/1024)
	}
	return fmt.Sprintf("%d B", b)
}

// Block sizes are written in KiB, as the PTS writes them, in three forms made
// by one rule (whole KiB, else the fraction: 0.5): FormatSize's "4 KiB" for
// people, SizeLabel's "4KiB" for tables and CSV, SizeKey's "4k" for cell keys,
// stage IDs and flags.

// SizeLabel writes a block size for tables: "4KiB", "0.5KiB".
func SizeLabel(b int64) string { return kib(b) + "KiB" }

// SizeKey writes a block size for keys and flags: "4k", "0.5k".
func SizeKey(b int64) string { return kib(b) + "k" }

func kib(b int64) string {
	if b%1024 == 0 {
		return strconv.FormatInt(b/1024, 10)
	}
	return strconv.FormatFloat(float64(b)/1024, 'g', -1, 64)
}

// ParseSize reads a size: "512", "4k", "4KiB", "0.5k", "1m", "1MiB", "128K",
// "2g". Units are binary (k = 1024), as the PTS writes block sizes.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	t = strings.TrimSuffix(t, "b")
	t = strings.TrimSuffix(t, "i")
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1<<10, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1<<20, strings.TrimSuffix(t, "m")
	case strings.HasSuffix(t, "g"):
		mult, t = 1<<30, strings.TrimSuffix(t, "g")
	case strings.HasSuffix(t, "t"):
		mult, t = 1<<40, strings.TrimSuffix(t, "t")
	}
	t = strings.TrimSpace(t)
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q is not a number with an optional unit (512, 4k, 1MiB)", s)
	}
	v := f * float64(mult)
	if v <= 0 || v != float64(int64(v)) || v > 1<<62 {
		return 0, fmt.Errorf("size %q is not a positive whole number of bytes", s)
	}
	return int64(v), nil
}
