package capture

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// A coarse capture (`ptsrun capture --diskstats`) is a block device's
// counters in /proc/diskstats sampled at an interval, each interval a
// step: its reads and writes, their bytes, and the mean number of I/Os
// outstanding (the weighted time the kernel counts doing I/O, over the
// step's time: Little's law). It has no I/Os, so no offsets, sizes or
// order of its own: no random or sequential split, no stream. The file:
//
//	ptsrun diskstats coarse 1
//	# comments
//	device NAME interval_ms N
//	START_MS MS READS WRITES READ_BYTES WRITE_BYTES OUTSTANDING
//	0 1000 120 30 491520 122880 1.25
//	...

// Diskstats is the format of a coarse capture.
const Diskstats Format = "diskstats"

// coarseMagic is a coarse capture's first line.
const coarseMagic = "ptsrun diskstats coarse 1"

// CoarseLabel says what a coarse capture is, wherever one is shown.
const CoarseLabel = "coarse: /proc/diskstats sampled per step (IOPS, mix, mean size, outstanding I/O); no random/sequential split and no streams"

// Coarse is a coarse capture.
type Coarse struct {
	Device   string        `json:"device"`
	Interval time.Duration `json:"interval_ns"`
	Steps    []CoarseStep  `json:"steps"`
}

// CoarseStep is one interval of a coarse capture.
type CoarseStep struct {
	Start       time.Duration `json:"start_ns"` // from the first sample
	Length      time.Duration `json:"length_ns"`
	Reads       int64         `json:"reads"`
	Writes      int64         `json:"writes"`
	ReadBytes   int64         `json:"read_bytes"`
	WriteBytes  int64         `json:"write_bytes"`
	Outstanding float64       `json:"outstanding"` // mean I/Os in flight
}

var coarseHead = []string{"START_MS", "MS", "READS", "WRITES", "READ_BYTES", "WRITE_BYTES", "OUTSTANDING"}

// Bytes is the coarse capture as its file.
func (c *Coarse) Bytes() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n# %s\ndevice %s interval_ms %d\n%s\n", coarseMagic, CoarseLabel, c.Device, c.Interval.Milliseconds(), strings.Join(coarseHead, " "))
	for _, s := range c.Steps {
		fmt.Fprintf(&b, "%d %d %d %d %d %d %s\n", s.Start.Milliseconds(), s.Length.Milliseconds(), s.Reads, s.Writes, s.ReadBytes, s.WriteBytes,
			strconv.FormatFloat(s.Outstanding, 'f', -1, 64))
	}
	return b.Bytes()
}

// parseCoarse reads a coarse capture.
func parseCoarse(r io.Reader, name string) (*Capture, error) {
	co := &Coarse{}
	head := false
	err := lines(r, name, func(n int, l string) error {
		bad := func(format string, a ...any) error {
			return &Error{File: name, Line: n, Reason: fmt.Sprintf(format, a...)}
		}
		f := strings.Fields(l)
		switch {
		case n == 1:
			if strings.TrimSpace(l) != coarseMagic {
				return bad("not a coarse capture: the first line is %q, not %q", clip(l), coarseMagic)
			}
			return nil
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
			return nil
		case f[0] == "device":
			if len(f) != 4 || f[2] != "interval_ms" || co.Device != "" {
				return bad("want one line \"device NAME interval_ms N\"")
			}
			ms, err := count(f[3])
			if err != nil || ms == 0 || ms > int64(24*time.Hour/time.Millisecond) {
				return bad("interval %q: want milliseconds, from 1 to a day", clip(f[3]))
			}
			co.Device, co.Interval = f[1], time.Duration(ms)*time.Millisecond
			return nil
		case f[0] == coarseHead[0]:
			if strings.Join(f, " ") != strings.Join(coarseHead, " ") || co.Device == "" || head {
				return bad("want the head %q once, after the device line", strings.Join(coarseHead, " "))
			}
			head = true
			return nil
		case !head:
			return bad("a step before the device line and the head")
		case len(f) != len(coarseHead):
			return bad("%d fields: want %s", len(f), strings.Join(coarseHead, " "))
		}
		var v [6]int64
		for i := range v {
			x, err := count(f[i])
			if err != nil {
				return bad("%s %q: %v", coarseHead[i], clip(f[i]), err)
			}
			v[i] = x
		}
		out, err := strconv.ParseFloat(f[6], 64)
		if err != nil || out < 0 || out > 1e9 {
			return bad("OUTSTANDING %q: want a mean number of I/Os", clip(f[6]))
		}
		const maxMs = int64(1<<62) / int64(time.Millisecond)
		if v[0] > maxMs || v[1] > maxMs || v[1] == 0 {
			return bad("START_MS %d, MS %d: out of range", v[0], v[1])
		}
		s := CoarseStep{Start: time.Duration(v[0]) * time.Millisecond, Length: time.Duration(v[1]) * time.Millisecond,
			Reads: v[2], Writes: v[3], ReadBytes: v[4], WriteBytes: v[5], Outstanding: out}
		if k := len(co.Steps); k > 0 && s.Start < co.Steps[k-1].Start+co.Steps[k-1].Length {
			return bad("step at %d ms: before the end of the step before it", v[0])
		}
		co.Steps = append(co.Steps, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !head {
		return nil, &Error{File: name, Reason: "a coarse capture without its device line and head"}
	}
	return &Capture{Format: Diskstats, Timed: true, Coarse: co}, nil
}

// IsCoarse says whether data is a coarse capture's file: one ptsrun may
// replace.
func IsCoarse(data []byte) bool { return bytes.HasPrefix(data, []byte(coarseMagic+"\n")) }
