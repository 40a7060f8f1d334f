package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ptsrun/ptsrun/internal/engine"
)

func TestIntervalLine(t *testing.T) {
	w := engine.Workload{Duration: 75 * time.Second, Interval: 500 * time.Millisecond}
	s := engine.Second{ReadIOs: 6150, ReadBytes: 6150 * 4096, WriteIOs: 2600, WriteBytes: 2600 * 4096, Ramp: true,
		Read:  &engine.IntervalLat{MeanNs: 412_000, P99Ns: 1_210_000, P999Ns: 3_400_000, MaxNs: 8_100_000},
		Write: &engine.IntervalLat{MeanNs: 90_000, P99Ns: 200_000, P999Ns: 450_000, MaxNs: 990_000, Of: engine.LatCompletion}}
	assert.Equal(t, "dbms 35.0s/1m15s ramp | read 12.3k IOPS 50.4 MB/s avg 0.412 p99 1.21 p99.9 3.4 max 8.1 ms"+
		" | write 5200 IOPS 21.3 MB/s avg 0.09 p99 0.2 p99.9 0.45 max 0.99 ms (clat)", intervalLine("dbms", w, 69, s))

	// An engine with only a mean per interval; a direction without I/O is left out.
	s = engine.Second{ReadIOs: 1_500_000, ReadBytes: 1_500_000 * 512, LatMeanNs: 21_000}
	assert.Equal(t, "RND 0.5 KiB 2.0s/1m15s | read 1.5M IOPS 768.0 MB/s avg 0.021 ms", intervalLine("RND 0.5 KiB", engine.Workload{Duration: 75 * time.Second}, 1, s))

	// The last interval, cut short, is a rate over its own length; the I/Os
	// in flight at the end, counted after it, are at the end.
	w = engine.Workload{Duration: 2500 * time.Millisecond}
	s = engine.Second{WriteIOs: 500, WriteBytes: 500 * 4096, Write: &engine.IntervalLat{MeanNs: 2e5}}
	assert.Equal(t, "x 2.5s/2.5s | write 1000 IOPS 4.1 MB/s avg 0.2 ms", intervalLine("x", w, 2, s), "a mean, no percentiles")
	assert.Equal(t, "x 2.5s/2.5s | write 500 IOPS 2.0 MB/s avg 0.2 ms", intervalLine("x", w, 3, s))

	// An interval in which nothing completed says so.
	assert.Equal(t, "x 0.5s/2.5s ramp | no I/O completed", intervalLine("x", engine.Workload{Duration: 2500 * time.Millisecond, Interval: 500 * time.Millisecond}, 0, engine.Second{Ramp: true}))
}

// Off a terminal, the intervals come as lines every ten seconds at most;
// with --json, not at all.
func TestIntervalProgressOffTerminal(t *testing.T) {
	var errw, out bytes.Buffer
	ip := &intervalProgress{p: New(&errw, &out, false, "test", 0)}
	ip.running("x", engine.Workload{Duration: 3 * time.Second})
	for i := 0; i < 3; i++ {
		ip.interval(i, engine.Second{ReadIOs: 10})
	}
	assert.Equal(t, "x 1.0s/3.0s | read 10 IOPS 0.0 MB/s\n", errw.String())

	errw.Reset()
	ip = &intervalProgress{p: New(&errw, &out, true, "test", 0)}
	ip.interval(0, engine.Second{ReadIOs: 10})
	assert.Empty(t, errw.String())
	assert.Empty(t, out.String())
}

// A status line longer than the terminal is cut to fit: one that wrapped
// could not be overwritten in place.
func TestStatusLineFitsTheTerminal(t *testing.T) {
	var errw bytes.Buffer
	p := &Display{w: &errw, tty: true, width: 20}
	p.status("RND 4 KiB 70/30 TC1/QD8 0.5s/4.0s | read 50.2k IOPS")
	p.status("short")
	assert.Equal(t, "\rRND 4 KiB 70/30 TC…\rshort"+strings.Repeat(" ", 19-5), errw.String())
	assert.Equal(t, 5, p.lastLen)
	p = &Display{w: &errw, tty: true}
	assert.Equal(t, "unknown width", p.fit("unknown width"))
}
