package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/ptsrun/ptsrun/internal/custom"
	"github.com/ptsrun/ptsrun/internal/engine"
)

// intervalProgress shows each interval of a running workload as the
// engine completes it: on a terminal as the status line (at most five
// times a second: the simulated drive reports a run's intervals at once),
// otherwise a line every ten seconds.
type intervalProgress struct {
	p     *Display
	mu    sync.Mutex
	label string // the workload running
	w     engine.Workload
	shown time.Time
}

// Live is where a command of workloads prints: results on stdout, what
// it does on stderr, the running workload's intervals on the status line
// (progress's JSON events, if any, on events).
func Live(stdout, stderr, events io.Writer, asJSON bool, version string) custom.Output {
	return custom.Output{Stdout: stdout, Stderr: stderr, Progress: &intervalProgress{p: New(stderr, events, asJSON, version, 0)}}
}

// Running, Interval and Done show a command's workloads (custom.Progress).
func (ip *intervalProgress) Running(label string, w engine.Workload) { ip.running(label, w) }
func (ip *intervalProgress) Interval(i int, s engine.Second)         { ip.interval(i, s) }
func (ip *intervalProgress) Done()                                   { ip.p.Finish() }

// running names the workload whose intervals come next.
func (ip *intervalProgress) running(label string, w engine.Workload) {
	ip.mu.Lock()
	defer ip.mu.Unlock()
	ip.label, ip.w = label, w
}

func (ip *intervalProgress) interval(i int, s engine.Second) {
	ip.mu.Lock()
	defer ip.mu.Unlock()
	if ip.p.json || ip.p.tty && time.Since(ip.shown) < 200*time.Millisecond {
		return
	}
	ip.shown = time.Now()
	ip.p.Note(intervalLine(ip.label, ip.w, i, s))
}

// intervalLine is one interval's figures: its time in the run, each
// direction's IOPS, MB/s and response times (ms).
func intervalLine(label string, w engine.Workload, i int, s engine.Second) string {
	iv := w.SeriesInterval()
	end := time.Duration(i+1) * iv
	if w.Duration > 0 {
		end = min(end, w.Duration) // I/Os in flight at the end complete after it
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", label, short(end))
	if w.Duration > 0 {
		fmt.Fprintf(&b, "/%s", short(w.Duration))
	}
	if s.Ramp {
		b.WriteString(" ramp")
	}
	sec := iv.Seconds()
	if rest := w.Duration - time.Duration(i)*iv; w.Duration > 0 && rest > 0 && rest < iv {
		sec = rest.Seconds() // the last interval, cut short
	}
	for _, d := range []struct {
		name     string
		ios, byt int64
		lat      *engine.IntervalLat
	}{{"read", s.ReadIOs, s.ReadBytes, s.Read}, {"write", s.WriteIOs, s.WriteBytes, s.Write}} {
		if d.ios == 0 {
			continue
		}
		fmt.Fprintf(&b, " | %s %s IOPS %.1f MB/s", d.name, siCount(float64(d.ios)/sec), float64(d.byt)/1e6/sec)
		switch l := d.lat; {
		case l != nil && l.P99Ns == 0 && l.MeanNs > 0: // the mean only
			fmt.Fprintf(&b, " avg %.3g ms", l.MeanNs/1e6)
		case l != nil && l.P99Ns > 0:
			fmt.Fprintf(&b, " avg %.3g p99 %.3g p99.9 %.3g max %.3g ms", l.MeanNs/1e6, float64(l.P99Ns)/1e6, float64(l.P999Ns)/1e6, float64(l.MaxNs)/1e6)
			if l.Of == engine.LatCompletion {
				b.WriteString(" (clat)") // fio's histogram logs: the percentiles and max are of completion latency
			}
		case l == nil && s.LatMeanNs > 0 && (s.ReadIOs == 0 || s.WriteIOs == 0):
			fmt.Fprintf(&b, " avg %.3g ms", s.LatMeanNs/1e6)
		}
	}
	if s.ReadIOs == 0 && s.WriteIOs == 0 {
		// Said, not left blank: the first interval of a loaded host, a
		// stalled device.
		b.WriteString(" | no I/O completed")
	}
	return b.String()
}

// siCount writes a rate readably: 812, 12.3k, 1.25M.
func siCount(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.3gM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.3gk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
