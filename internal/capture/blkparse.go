package capture

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// parseBlkparse reads blkparse's default output:
//
//	8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]
//
// device (major,minor), CPU, sequence, seconds, PID, action, RWBS, then
// for the actions read here "SECTOR + BLOCKS [PROCESS]" ("[ERROR]" for a
// completion). The I/Os are the events of action ev (Q or D). A C event
// completes the request of its device with its sector and blocks that
// was issued (D) first; the I/Os of a request are its own D event, or the
// Q events within its range not yet issued when it was (a request is
// bios merged). A C with no such request (a trace of Q and C events only)
// completes the queued I/Os that lie within its range. Other actions are skipped; the per-CPU summary blkparse prints
// at the end ends the events.
func parseBlkparse(r io.Reader, name string, ev byte) (*Capture, error) {
	c := &Capture{Format: Blkparse, Timed: true}
	states := map[string]*blkState{}
	events, done := 0, false
	err := lines(r, name, func(n int, l string) error {
		if done {
			return nil
		}
		bad := func(format string, a ...any) error {
			return &Error{File: name, Line: n, Reason: fmt.Sprintf(format, a...)}
		}
		f := strings.Fields(l)
		if len(f) == 0 {
			return nil
		}
		if !isDevNum(f[0]) {
			if events > 0 && (strings.HasPrefix(f[0], "CPU") || f[0] == "Total") {
				done = true // the summary
				return nil
			}
			return bad("%q: not a blkparse event (DEV CPU SEQ TIME PID ACTION RWBS ...): blkparse's default format is read", clip(l))
		}
		if len(f) < 6 {
			return bad("%d fields: a blkparse event has at least DEV CPU SEQ TIME PID ACTION", len(f))
		}
		events++
		for i, what := range []string{"CPU", "sequence"} {
			if _, err := count(f[1+i]); err != nil {
				return bad("%s %q: %v", what, clip(f[1+i]), err)
			}
		}
		ns, err := fixed(f[3], 9)
		if err != nil {
			return bad("time %q: %v", clip(f[3]), err)
		}
		at := time.Duration(ns)
		pid, err := count(f[4])
		if err != nil || pid > 1<<31 {
			return bad("PID %q: not a PID", clip(f[4]))
		}
		act := f[5]
		if act != string(ev) && act != "C" && act != "D" {
			return nil // another action: not read
		}
		if len(f) < 10 || f[8] != "+" {
			if act == "C" || len(f) < 7 || strings.Contains(f[6], "N") || strings.Contains(f[6], "F") {
				// a completion of nothing, or a flush without a range
				if act == string(ev) {
					c.drop("flush")
				}
				return nil
			}
			return bad("%s event without SECTOR + BLOCKS", act)
		}
		rwbs := f[6]
		sector, err := count(f[7])
		if err != nil {
			return bad("sector %q: %v", clip(f[7]), err)
		}
		blocks, err := count(f[9])
		if err != nil {
			return bad("blocks %q: %v", clip(f[9]), err)
		}
		off, err1 := bytesOfSectors(sector)
		size, err2 := bytesOfSectors(blocks)
		if err1 != nil || err2 != nil || off > 1<<62-size {
			return bad("sector %s + %s: beyond any device", f[7], f[9])
		}
		dev := f[0]
		st := states[dev]
		if st == nil {
			st = &blkState{queued: map[int64][]int{}, requests: map[[2]int64][][]int{}}
			states[dev] = st
		}
		switch {
		case act == "C":
			for _, i := range st.complete(sector, blocks, c.IOs) {
				c.IOs[i].Done, c.IOs[i].Completed = at, true
			}
			return nil
		case act == "D" && ev == 'Q':
			st.dispatch(sector, blocks, c.IOs)
			return nil
		}
		var dir Dir
		switch {
		case strings.ContainsAny(rwbs, "DE"):
			c.drop("discard")
			return nil
		case strings.Contains(rwbs, "W"):
			dir = Write
		case strings.Contains(rwbs, "R"):
			dir = Read
		case strings.ContainsAny(rwbs, "NF"):
			c.drop("flush")
			return nil
		default:
			return bad("RWBS %q: neither read nor write, discard or flush", clip(rwbs))
		}
		if size == 0 {
			if strings.Contains(rwbs, "F") {
				c.drop("flush")
			} else {
				c.drop("empty")
			}
			return nil
		}
		proc := strings.Join(f[10:], " ")
		proc = strings.TrimSuffix(strings.TrimPrefix(proc, "["), "]")
		if ev == 'Q' {
			st.queued[sector] = append(st.queued[sector], len(c.IOs))
		} else {
			k := [2]int64{sector, blocks}
			st.requests[k] = append(st.requests[k], []int{len(c.IOs)})
		}
		c.IOs = append(c.IOs, IO{Start: at, Device: dev, Offset: off, Size: size, Dir: dir, PID: int(pid), Process: proc, Line: n})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if events == 0 {
		return nil, &Error{File: name, Reason: "no blkparse events"}
	}
	c.sortByStart()
	return c, nil
}

// blkState is what a device's events have left pending.
type blkState struct {
	queued   map[int64][]int      // Q events not yet issued, by first sector
	requests map[[2]int64][][]int // issued requests by sector and blocks, each its I/Os, oldest first
}

// take removes and returns the queued I/Os within sectors [s, s+n).
func (st *blkState) take(s, n int64, ios []IO) []int {
	var out []int
	at := func(x int64) {
		q := st.queued[x]
		var keep []int
		for _, i := range q {
			if ios[i].Offset+ios[i].Size <= (s+n)*sectorBytes {
				out = append(out, i)
			} else {
				keep = append(keep, i)
			}
		}
		if len(keep) == 0 {
			delete(st.queued, x)
		} else {
			st.queued[x] = keep
		}
	}
	if n <= 1<<16 {
		for x := s; x < s+max(n, 1); x++ {
			if _, ok := st.queued[x]; ok {
				at(x)
			}
		}
	} else {
		for x := range st.queued {
			if x >= s && x < s+n {
				at(x)
			}
		}
	}
	return out
}

// dispatch makes a request of the queued I/Os within [s, s+n).
func (st *blkState) dispatch(s, n int64, ios []IO) {
	if g := st.take(s, n, ios); len(g) > 0 {
		k := [2]int64{s, n}
		st.requests[k] = append(st.requests[k], g)
	}
}

// complete returns the I/Os a completion of [s, s+n) completes.
func (st *blkState) complete(s, n int64, ios []IO) []int {
	k := [2]int64{s, n}
	if r := st.requests[k]; len(r) > 0 {
		if len(r) == 1 {
			delete(st.requests, k)
		} else {
			st.requests[k] = r[1:]
		}
		return r[0]
	}
	return st.take(s, n, ios)
}
