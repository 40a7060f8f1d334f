package fio

import (
	"bytes"
	"context"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// liveFeed turns fio's status lines into the series' intervals as they
// run, for progress (engine.ReportInterval): fio writes its logs only when
// it ends, so the figures of the interval just past come from the line it
// prints every --eta-interval (`--eta=always`), the rates over its last
// eta interval: IOPS and MB/s per direction, no latency. They are fio's
// display, rounded to three digits, and fio shows none in a run's first
// second or two; the series the measurement keeps comes from the logs.
type liveFeed struct {
	rep *engine.IntervalReporter // from a goroutine of its own: a slow receiver must not block fio's output
	w   engine.Workload

	mu    sync.Mutex
	start time.Time // when the cell's I/O began: zero while held
	last  int       // the last interval reported
	buf   []byte
}

func newLiveFeed(ctx context.Context, w engine.Workload) *liveFeed {
	return &liveFeed{rep: engine.NewIntervalReporter(ctx), w: w, last: -1}
}

// close passes on what is queued, once fio has ended.
func (f *liveFeed) close() { f.rep.Close() }

// liveArgs are the options that make fio print its status lines to a
// pipe, one per interval (fio takes 250 ms at least).
func liveArgs(w engine.Workload) []string {
	ms := max(w.SeriesInterval(), 250*time.Millisecond).Milliseconds()
	return []string{"--eta=always", "--eta-newline=1", "--eta-interval=" + strconv.FormatInt(ms, 10) + "ms"}
}

// begin marks the start of the cell's I/O (when a held fio is let go).
func (f *liveFeed) begin(at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.start = at
}

// Write takes fio's standard output.
func (f *liveFeed) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf = append(f.buf, b...)
	for {
		i := bytes.IndexAny(f.buf, "\r\n")
		if i < 0 {
			break
		}
		line := string(f.buf[:i])
		f.buf = f.buf[i+1:]
		f.line(line, time.Now())
	}
	if len(f.buf) > 4096 { // not a status line: keep nothing of it
		f.buf = f.buf[:0]
	}
	return len(b), nil
}

// line reports a status line's rates as the interval now in, once.
func (f *liveFeed) line(s string, now time.Time) {
	if f.start.IsZero() {
		return
	}
	sec, ok := parseStatus(s, f.w.SeriesInterval())
	if !ok {
		return
	}
	i := f.w.IntervalOf(now.Sub(f.start))
	if n := int((f.w.Duration + f.w.SeriesInterval() - 1) / f.w.SeriesInterval()); f.w.Duration > 0 && i >= n {
		i = n - 1 // fio's start-up and its lines' lag: still the last interval
	}
	if i <= f.last {
		return
	}
	f.last = i
	sec.Ramp = i < f.w.RampSeconds()
	f.rep.Report(i, sec)
}

// fio's status line: "Jobs: 1 (f=1): [m(1)][40.0%][r=150MiB/s,w=64.5MiB/s][r=38.3k,w=16.5k IOPS][eta 00m:03s]";
// one direction is "[r=266MiB/s][r=68.1k IOPS]" or "[w=…][w=… IOPS]".
var (
	statusBW   = regexp.MustCompile(`\[((?:[rwt]=[0-9.]+[KMGTP]?i?B/s,?)+)\]`)
	statusIOPS = regexp.MustCompile(`\[((?:[rwt]=[0-9.]+[kMGT]?,?)+) IOPS\]`)
	statusPart = regexp.MustCompile(`([rwt])=([0-9.]+)([KMGTPk]?)(i?)(B/s)?`)
)

// parseStatus reads one status line's rates as an interval of length iv.
func parseStatus(s string, iv time.Duration) (engine.Second, bool) {
	bw, iops := statusBW.FindStringSubmatch(s), statusIOPS.FindStringSubmatch(s)
	if bw == nil || iops == nil {
		return engine.Second{}, false
	}
	sec := iv.Seconds()
	var out engine.Second
	for _, m := range statusPart.FindAllStringSubmatch(iops[1], -1) {
		v := scaled(m[2], m[3], false) * sec
		switch m[1] {
		case "r":
			out.ReadIOs = int64(v + 0.5)
		case "w":
			out.WriteIOs = int64(v + 0.5)
		}
	}
	for _, m := range statusPart.FindAllStringSubmatch(bw[1], -1) {
		v := scaled(m[2], m[3], m[4] == "i") * sec
		switch m[1] {
		case "r":
			out.ReadBytes = int64(v + 0.5)
		case "w":
			out.WriteBytes = int64(v + 0.5)
		}
	}
	return out, out.ReadIOs+out.WriteIOs > 0
}

// scaled is a number with fio's unit prefix: k, M… of IOPS and K, M… of
// bytes in 1000s, Ki, Mi… of bytes in 1024s.
func scaled(num, prefix string, binary bool) float64 {
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || prefix == "" {
		return v
	}
	base := 1000.0
	if binary {
		base = 1024
	}
	return v * math.Pow(base, float64(strings.IndexByte("KMGTP", strings.ToUpper(prefix)[0])+1))
}
