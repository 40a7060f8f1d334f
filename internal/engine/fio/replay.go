package fio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
)

// A timed replay through fio (`ptsrun replay --engine fio`): the I/Os
// written as a fio iolog of version 3, which one job replays with
// read_iolog onto the target (replay_redirect), honouring the times
// (replay_no_stall=0) scaled by replay_time_scale, with Depth I/Os in
// flight at most (iodepth).
//
// What fio 3.33 can tell of it (iolog.c iolog_delay, stat.c
// add_log_sample): it waits before each I/O for the log's time since the
// previous one, measured from when the previous one was issued, and
// catches up only the oversleep of its last wait: it keeps no schedule,
// so it cannot say how late an I/O was, nor that one waited for a free
// slot (iodepth). Its logs stamp every entry in whole milliseconds since
// the job's start. ptsrun takes each I/O's issue time from the
// submission latency log (write_lat_log's _slat log: one entry per I/O,
// at its submission, with log_offset=1 its offset) and its latency from
// the _lat log, matching entries to I/Os by direction, offset and size in
// the order issued: lateness to within 1 ms, and the delayed count
// unknown. fio's _lat log leaves out the last I/Os, those in flight when
// the job ends (fewer than iodepth); its output counts them.

// ReplayNote is what TimedResult.Note says of a replay through fio.
const ReplayNote = "fio keeps no schedule and logs in whole milliseconds: lateness from its submission log, to within 1 ms, " +
	"counted from its first I/O; the I/Os delayed by a full queue are unknown to it; " +
	"its latency log leaves out the last I/Os in flight when it ends, which its totals count"

// Replay replays t on the engine's one local target with fio.
func (e *Engine) Replay(ctx context.Context, t engine.Timed) (engine.TimedResult, error) {
	if len(e.targets) != 1 || e.targets[0].Server != "" {
		return engine.TimedResult{}, errors.New("fio engine: a replay is of one target on this host")
	}
	tg := e.targets[0]
	p, err := e.newProc("replay")
	if err != nil {
		return engine.TimedResult{}, err
	}
	iolog := p.base + ".iolog"
	// fio scales the capture's times by whole percentages; other speeds
	// come scaled in the log.
	scale, speed := 100, 1.0
	if pct := t.Speed * 100; t.Speed > 0 && pct == math.Round(pct) && pct >= 1 {
		scale, speed = int(pct), t.Speed
	}
	if err := device.WriteRunFile(iolog, IologV3(tg.Path, t.IOs, speed), 0o644); err != nil {
		return engine.TimedResult{}, fmt.Errorf("fio engine: %w", err)
	}
	logs := filepath.Join(p.logDir, "replay")
	job := ReplayJobFile(e.ioeng, tg.Path, iolog, logs, max(t.Depth, 1), scale)
	if err := device.WriteRunFile(p.base+".fio", []byte(job), 0o644); err != nil {
		return engine.TimedResult{}, fmt.Errorf("fio engine: %w", err)
	}
	start := time.Now()
	if err := e.start(p, []string{"--output-format=json+", "--output=" + p.base + ".json", p.base + ".fio"}); err != nil {
		return engine.TimedResult{}, err
	}
	out, _, runErr, err := e.wait(ctx, p)
	res := engine.TimedResult{Engine: "fio " + e.version.String(), Delayed: -1, Resolution: time.Millisecond, Note: ReplayNote,
		Elapsed: time.Since(start)}
	if err != nil {
		return res, err
	}
	if runErr != nil {
		return res, runErr
	}
	if len(out.Jobs) != 1 {
		return res, fmt.Errorf("fio replay: %d jobs in fio's output, want 1", len(out.Jobs))
	}
	slat, err := readLog(logs + "_slat.1.log")
	if err != nil {
		return res, fmt.Errorf("fio replay: its submission log: %w", err)
	}
	lat, err := readLog(logs + "_lat.1.log")
	if err != nil {
		return res, fmt.Errorf("fio replay: its latency log: %w", err)
	}
	res.Issue, res.Lat = MatchReplay(t.IOs, slat, lat)
	j := out.Jobs[0]
	res.Completed = int(j.Read.IOs + j.Write.IOs)
	if n := j.Read.IOs + j.Write.IOs; n != int64(len(t.IOs)) {
		return res, fmt.Errorf("fio replay: fio did %d I/Os of the %d replayed (job file %s)", n, len(t.IOs), p.base+".fio")
	}
	return res, nil
}

// IologV3 is ios as a fio iolog of version 3 on file, times in
// microseconds, multiplied by speed. fio waits for the difference of two lines' times and
// none before its first line, so every line is 1 µs later than its I/O:
// a time of 0 would be taken for none.
func IologV3(file string, ios []engine.TimedIO, speed float64) []byte {
	var b bytes.Buffer
	b.Grow(len(ios) * 48)
	fmt.Fprintf(&b, "fio version 3 iolog\n1 %s add\n1 %s open\n", file, file)
	var last int64 = 1
	for _, io := range ios {
		us := 1 + int64(float64(io.At/time.Microsecond)*speed)
		dir := "write"
		if io.Read {
			dir = "read"
		}
		fmt.Fprintf(&b, "%d %s %s %d %d\n", us, file, dir, io.Offset, io.Size)
		last = us
	}
	fmt.Fprintf(&b, "%d %s close\n", last, file)
	return b.Bytes()
}

// ReplayJobFile is the job file of a replay: one job reading iolog onto
// target with depth I/Os in flight, the log's times scaled by scale %,
// its latency logs under logs.
func ReplayJobFile(ioengine, target, iolog, logs string, depth, scale int) string {
	return fmt.Sprintf(`; ptsrun replay: the capture's I/Os at their times (iolog %s)
; run by hand: fio --output-format=json+ %s.fio
[replay]
ioengine=%s
direct=1
thread
clocksource=clock_gettime
disk_util=0
read_iolog=%s
replay_redirect=%s
replay_no_stall=0
replay_time_scale=%d
iodepth=%d
write_lat_log=%s
log_offset=1
`, filepath.Base(iolog), "replay", ioengine, filenameValue(iolog), filenameValue(target), scale, depth, filenameValue(logs))
}

// MatchReplay gives each I/O of ios its issue time (from slat, the
// submission log: the entry's millisecond less that of the first entry,
// in nanoseconds) and its latency (from lat), matching log entries to
// I/Os by direction, offset and size in the order they came; -1 where
// no entry matches.
func MatchReplay(ios []engine.TimedIO, slat, lat []logEntry) (issue, latency []int64) {
	type key struct {
		read      bool
		off, size int64
	}
	at := map[key][]int{}
	for i, io := range ios {
		k := key{io.Read, io.Offset, io.Size}
		at[k] = append(at[k], i)
	}
	match := func(entries []logEntry, set func(i int, e logEntry)) {
		next := map[key]int{}
		for _, e := range entries {
			k := key{e.dir == 0, e.off, e.size}
			if n := next[k]; n < len(at[k]) {
				set(at[k][n], e)
				next[k] = n + 1
			}
		}
	}
	issue, latency = make([]int64, len(ios)), make([]int64, len(ios))
	for i := range ios {
		issue[i], latency[i] = -1, -1
	}
	var origin int64 = math.MaxInt64
	for _, e := range slat {
		origin = min(origin, e.ms)
	}
	match(slat, func(i int, e logEntry) { issue[i] = (e.ms - origin) * int64(time.Millisecond) })
	match(lat, func(i int, e logEntry) { latency[i] = int64(e.val) })
	return issue, latency
}
