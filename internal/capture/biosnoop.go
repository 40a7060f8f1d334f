package capture

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// parseBiosnoop reads bcc's biosnoop output: a header naming the columns
// (TIME(s) COMM PID DISK T SECTOR BYTES, then P with -P, QUE(ms) with -Q,
// and LAT(ms)), then a line per completed I/O in the order they completed:
//
//	TIME(s)     COMM           PID    DISK    T SECTOR     BYTES  QUE(ms) LAT(ms)
//	0.000000    kworker/u72:1  13379  nvme1n1 W 1142400    4096      0.01    0.55
//
// TIME is the completion, in seconds from the first; LAT is from the issue
// to the device to the completion, QUE from the queueing to the issue.
// COMM may hold spaces. biosnoop tells reads from writes only: a discard
// or a flush is a read in its output, and is read so here. Lines before
// the header (biosnoop's "Tracing block I/O..." and the like) are skipped.
func parseBiosnoop(r io.Reader, name string) (*Capture, error) {
	c := &Capture{Format: Biosnoop, Timed: true}
	var cols []string
	col := map[string]int{}
	err := lines(r, name, func(n int, l string) error {
		bad := func(format string, a ...any) error {
			return &Error{File: name, Line: n, Reason: fmt.Sprintf(format, a...)}
		}
		f := strings.Fields(l)
		if len(f) == 0 {
			return nil
		}
		if cols == nil {
			if f[0] != "TIME(s)" {
				return nil
			}
			cols = f
			for i, h := range f {
				col[h] = i
			}
			for _, need := range []string{"COMM", "PID", "DISK", "T", "SECTOR", "BYTES", "LAT(ms)"} {
				if _, ok := col[need]; !ok {
					return bad("biosnoop's header has no %s column", need)
				}
			}
			if col["COMM"] != 1 || slices.Index(f[2:], "COMM") >= 0 {
				return bad("biosnoop's header must have COMM second, once")
			}
			return nil
		}
		if len(f) < len(cols) {
			return bad("%d fields: biosnoop's header names %d (%s)", len(f), len(cols), strings.Join(cols, " "))
		}
		// COMM may hold spaces: the fields beyond the header's are its.
		if extra := len(f) - len(cols); extra > 0 {
			f = slices.Concat(f[:1], []string{strings.Join(f[1:2+extra], " ")}, f[2+extra:])
		}
		get := func(h string) string { return f[col[h]] }
		done, err := fixed(get("TIME(s)"), 9)
		if err != nil {
			return bad("TIME(s) %q: %v", clip(get("TIME(s)")), err)
		}
		lat, err := fixed(get("LAT(ms)"), 6)
		if err != nil {
			return bad("LAT(ms) %q: %v", clip(get("LAT(ms)")), err)
		}
		var que int64
		if _, ok := col["QUE(ms)"]; ok {
			if que, err = fixed(get("QUE(ms)"), 6); err != nil {
				return bad("QUE(ms) %q: %v", clip(get("QUE(ms)")), err)
			}
		}
		if lat > 1<<50 || que > 1<<50 || done > 1<<60 {
			return bad("times beyond any capture")
		}
		pid, err := count(get("PID"))
		if err != nil || pid > 1<<31 {
			return bad("PID %q: not a PID", clip(get("PID")))
		}
		var dir Dir
		switch get("T") {
		case "R":
			dir = Read
		case "W":
			dir = Write
		default:
			return bad("T %q: want R or W", clip(get("T")))
		}
		sector, err := count(get("SECTOR"))
		if err != nil {
			return bad("SECTOR %q: %v", clip(get("SECTOR")), err)
		}
		size, err := count(get("BYTES"))
		if err != nil {
			return bad("BYTES %q: %v", clip(get("BYTES")), err)
		}
		off, err := bytesOfSectors(sector)
		if err != nil || off > 1<<62-size {
			return bad("SECTOR %s: beyond any device", get("SECTOR"))
		}
		if size == 0 {
			c.drop("empty")
			return nil
		}
		c.IOs = append(c.IOs, IO{
			Start: time.Duration(done - lat - que), Done: time.Duration(done), Completed: true,
			Device: get("DISK"), Offset: off, Size: size, Dir: dir,
			PID: int(pid), Process: get("COMM"), Line: n,
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if cols == nil {
		return nil, &Error{File: name, Reason: "no biosnoop header (TIME(s) COMM PID DISK T SECTOR BYTES ... LAT(ms))"}
	}
	c.sortByStart()
	return c, nil
}
