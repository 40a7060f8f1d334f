package capture

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// parseIolog reads a fio iolog of version 2 or 3, as fio's read_iolog
// reads it: "TIME FILE ACTION [OFFSET LENGTH]" (version 3, TIME in
// microseconds from the job's start) or "FILE ACTION [OFFSET LENGTH]"
// (version 2, with "FILE wait MICROSECONDS 0" lines). ACTION is add,
// open or close for a file, read, write, trim, sync or datasync for an
// I/O (and wait in version 2). Unlike fio, a line fio would skip with a
// complaint is an error here.
func parseIolog(r io.Reader, name string) (*Capture, error) {
	c := &Capture{Format: Iolog}
	var now time.Duration // version 2: the sum of the waits
	waits := false
	err := lines(r, name, func(n int, l string) error {
		bad := func(format string, a ...any) error {
			return &Error{File: name, Line: n, Reason: fmt.Sprintf(format, a...)}
		}
		if n == 1 {
			switch strings.TrimSpace(l) {
			case "fio version 2 iolog":
				c.Version = 2
			case "fio version 3 iolog":
				c.Version, c.Timed = 3, true
			default:
				if strings.HasPrefix(l, "fio version") {
					return bad("%q: only iologs of version 2 and 3 are read (fio reads no others)", l)
				}
				return bad("not a fio iolog: the first line is %q, not \"fio version 2 iolog\" or \"fio version 3 iolog\"", clip(l))
			}
			return nil
		}
		f := strings.Fields(l)
		if len(f) == 0 {
			return nil
		}
		fields, at := len(f), now
		if c.Version == 3 {
			us, err := count(f[0])
			if err != nil {
				return bad("time %q: %v (version 3 starts each line with microseconds)", clip(f[0]), err)
			}
			if us > math.MaxInt64/int64(time.Microsecond) {
				return bad("time %q: too large", f[0])
			}
			at = time.Duration(us) * time.Microsecond
			f = f[1:]
		}
		switch len(f) {
		case 2:
			switch f[1] {
			case "add", "open", "close":
				return nil
			}
			return bad("%q: a line of a file and its action wants add, open or close", clip(f[1]))
		case 4:
		default:
			return bad("%d fields: want %sFILE ACTION [OFFSET LENGTH]", fields, map[bool]string{true: "TIME "}[c.Version == 3])
		}
		off, err := count(f[2])
		if err != nil {
			return bad("offset %q: %v", clip(f[2]), err)
		}
		size, err := count(f[3])
		if err != nil {
			return bad("length %q: %v", clip(f[3]), err)
		}
		var dir Dir
		switch f[1] {
		case "read":
			dir = Read
		case "write":
			dir = Write
		case "trim", "sync", "datasync":
			c.drop(f[1])
			return nil
		case "wait":
			if c.Version == 3 {
				c.drop("wait") // fio ignores waits in version 3
				return nil
			}
			if off > math.MaxInt64/int64(time.Microsecond) || now > math.MaxInt64-time.Duration(off)*time.Microsecond {
				return bad("wait %q: too long", f[2])
			}
			now += time.Duration(off) * time.Microsecond
			waits = true
			return nil
		default:
			return bad("action %q: want read, write, trim, sync, datasync or wait (or add, open, close without offset and length)", clip(f[1]))
		}
		if size == 0 {
			c.drop("empty")
			return nil
		}
		c.IOs = append(c.IOs, IO{Start: at, Device: f[0], Offset: off, Size: size, Dir: dir, Line: n})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if c.Version == 0 {
		return nil, &Error{File: name, Line: 1, Reason: "empty: not a fio iolog"}
	}
	if c.Version == 2 {
		c.Timed = waits
	}
	c.sortByStart()
	return c, nil
}

// clip is s cut to a length an error message can quote.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
