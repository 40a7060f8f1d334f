package capture

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Dir is an I/O's direction.
type Dir uint8

const (
	Read Dir = iota
	Write
)

func (d Dir) String() string {
	if d == Write {
		return "write"
	}
	return "read"
}

// IO is one read or write of a capture.
type IO struct {
	// Start is when the I/O was issued (fio, blkparse's D) or queued
	// (blkparse's Q, biosnoop -Q), from the capture's own origin.
	Start time.Duration `json:"start_ns"`
	// Done is its completion, when Completed.
	Done      time.Duration `json:"done_ns,omitempty"`
	Completed bool          `json:"completed,omitempty"`
	Device    string        `json:"device"`
	Offset    int64         `json:"offset"`
	Size      int64         `json:"size"`
	Dir       Dir           `json:"dir"`
	PID       int           `json:"pid,omitempty"`
	Process   string        `json:"process,omitempty"`
	// Line is the capture's line the I/O was read from.
	Line int `json:"line"`
}

// Latency is Done − Start; ok is false when the I/O has no completion.
func (io IO) Latency() (d time.Duration, ok bool) {
	if !io.Completed {
		return 0, false
	}
	return io.Done - io.Start, true
}

// Format names a capture's format.
type Format string

const (
	Auto     Format = "auto"
	Iolog    Format = "iolog"
	Blkparse Format = "blkparse"
	Biosnoop Format = "biosnoop"
)

// Formats are the formats Parse reads, Auto first.
var Formats = []Format{Auto, Iolog, Blkparse, Biosnoop, Diskstats}

// Capture is a capture's I/Os, in order of their start.
type Capture struct {
	Format Format `json:"format"`
	// Version is the iolog's version (2 or 3); 0 for the others.
	Version int  `json:"version,omitempty"`
	IOs     []IO `json:"ios"`
	// Dropped counts what is not a read or a write, by kind: "trim",
	// "discard", "flush", "sync", "datasync", "wait", "empty" (no bytes).
	Dropped map[string]int `json:"dropped,omitempty"`
	// Timed is false when the times are not the I/Os' own (a version 2
	// iolog without wait lines).
	Timed bool `json:"timed"`
	// Coarse is a coarse capture's steps (format diskstats), which has
	// no I/Os.
	Coarse *Coarse `json:"coarse,omitempty"`
}

// DeviceCount is one device of a capture and its I/Os.
type DeviceCount struct {
	Device string `json:"device"`
	IOs    int    `json:"ios"`
}

// Devices lists the capture's devices in the order they first appear.
func (c *Capture) Devices() []DeviceCount {
	var out []DeviceCount
	at := map[string]int{}
	for _, io := range c.IOs {
		i, ok := at[io.Device]
		if !ok {
			i = len(out)
			at[io.Device] = i
			out = append(out, DeviceCount{Device: io.Device})
		}
		out[i].IOs++
	}
	return out
}

// Select is the capture of one device; "" or "all" keeps them all. A
// device the capture does not hold is an error that lists those it holds.
func (c *Capture) Select(device string) (*Capture, error) {
	if device == "" || device == "all" {
		return c, nil
	}
	out := *c
	out.IOs = nil
	for _, io := range c.IOs {
		if io.Device == device {
			out.IOs = append(out.IOs, io)
		}
	}
	if len(out.IOs) == 0 {
		var names []string
		for _, d := range c.Devices() {
			names = append(names, d.Device)
		}
		return nil, fmt.Errorf("the capture has no I/O on device %q: it has %s", device, strings.Join(names, ", "))
	}
	return &out, nil
}

func (c *Capture) drop(kind string) {
	if c.Dropped == nil {
		c.Dropped = map[string]int{}
	}
	c.Dropped[kind]++
}

// sortByStart puts the I/Os in order of their start, keeping the
// capture's order among equal starts.
func (c *Capture) sortByStart() {
	slices.SortStableFunc(c.IOs, func(a, b IO) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
}

// Error is a capture that cannot be read: the file, the line (0 for the
// file as a whole) and why.
type Error struct {
	File   string
	Line   int
	Reason string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Reason
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
}

// Options say how to read a capture.
type Options struct {
	// Format is the capture's format; "" or Auto tells it from the content.
	Format Format
	// Event is blkparse's event taken as the I/O: 'Q' (queue, the
	// default) or 'D' (issue to the driver).
	Event byte
}

// maxLine is the longest line read; a longer one is an error.
const maxLine = 1 << 20

// Parse reads the capture in r, whose name (a file's path) its errors name.
func Parse(r io.Reader, name string, opt Options) (*Capture, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	f := opt.Format
	if f == "" || f == Auto {
		head, _ := br.Peek(32 << 10)
		var err error
		if f, err = Detect(head); err != nil {
			return nil, &Error{File: name, Reason: err.Error()}
		}
	}
	switch f {
	case Iolog:
		return parseIolog(br, name)
	case Blkparse:
		ev := opt.Event
		if ev == 0 {
			ev = 'Q'
		}
		if ev != 'Q' && ev != 'D' {
			return nil, fmt.Errorf("blkparse event %q: want Q (queue) or D (issue)", string(ev))
		}
		return parseBlkparse(br, name, ev)
	case Biosnoop:
		return parseBiosnoop(br, name)
	case Diskstats:
		return parseCoarse(br, name)
	}
	return nil, fmt.Errorf("capture format %q: want one of auto, iolog, blkparse, biosnoop, diskstats", f)
}

// Detect tells a capture's format from its first bytes.
func Detect(head []byte) (Format, error) {
	sc := bufio.NewScanner(strings.NewReader(string(head)))
	sc.Buffer(nil, len(head)+1)
	for n := 0; sc.Scan() && n < 50; n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			continue
		}
		switch {
		case strings.HasPrefix(l, "fio version "):
			return Iolog, nil
		case strings.HasPrefix(l, "ptsrun diskstats "):
			return Diskstats, nil
		case strings.HasPrefix(l, "TIME(s)"):
			return Biosnoop, nil
		case isDevNum(strings.Fields(l)[0]):
			return Blkparse, nil
		}
	}
	return "", fmt.Errorf("cannot tell the capture's format (not a fio iolog, blkparse output or biosnoop output): name it with --format")
}

// lines calls fn with each line of r and its number, without its line end.
func lines(r io.Reader, name string, fn func(n int, l string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		if err := fn(n, strings.TrimRight(sc.Text(), "\r")); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return &Error{File: name, Line: n + 1, Reason: fmt.Sprintf("a line longer than %d bytes", maxLine)}
		}
		return &Error{File: name, Line: n + 1, Reason: err.Error()}
	}
	return nil
}

// OptionsOf reads the command line's --format and --event.
func OptionsOf(format, event string) (Options, error) {
	ev := strings.ToUpper(event)
	if ev != "Q" && ev != "D" {
		return Options{}, fmt.Errorf("--event %s: want Q (queued) or D (issued)", event)
	}
	return Options{Format: Format(format), Event: ev[0]}, nil
}
