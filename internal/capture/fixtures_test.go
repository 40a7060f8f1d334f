package capture

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/golden/goldentest"
)

var update = flag.Bool("update", false, "rewrite testdata/fio-v3.iolog from a new fio run, and the fixtures reconstructed from it")

const (
	iologFixture = "testdata/fio-v3.iolog"
	fioJob       = `[global]
ioengine=libaio
direct=1
iodepth=4
randseed=25
[mix]
filename=%s
rw=randrw
rwmixread=70
percentage_random=60
bssplit=4k/50:8k/10:64k/25:128k/15
size=32M
number_ios=600
write_iolog=%s
`
)

// runFio writes a real fio version 3 iolog of a mixed workload on two
// loop devices, and returns its path.
func runFio(t *testing.T) string {
	t.Helper()
	enginetest.NeedRoot(t, "fio", "losetup")
	a := enginetest.LoopDevice(t, 32<<20, "")
	b := enginetest.LoopDevice(t, 32<<20, "")
	dir := t.TempDir()
	log := filepath.Join(dir, "mix.iolog")
	job := filepath.Join(dir, "mix.fio")
	require.NoError(t, os.WriteFile(job, fmt.Appendf(nil, fioJob, a+":"+b, log), 0o644))
	out, err := exec.Command("fio", "--output-format=terse", job).CombinedOutput()
	require.NoError(t, err, "fio: %s", out)
	return log
}

// TestRealFioIolog runs fio, reads its iolog and counts each (direction,
// size) by the log's own lines; -update keeps the log as the fixture the
// other tests read.
func TestRealFioIolog(t *testing.T) {
	log := runFio(t)
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(b), "fio version 3 iolog\n"), "fio 3.33 writes version 3")
	c, err := Parse(strings.NewReader(string(b)), log, Options{})
	require.NoError(t, err)
	require.Equal(t, Iolog, c.Format)
	require.Len(t, c.Devices(), 2)
	require.Equal(t, directCount(t, string(b)), countBy(c))
	if *update {
		require.NoError(t, os.WriteFile(iologFixture, b, 0o644))
	}
}

// directCount counts an iolog's read and write lines by direction and
// size, by splitting them and nothing else.
func directCount(t *testing.T, log string) map[string]int {
	out := map[string]int{}
	for _, l := range strings.Split(log, "\n") {
		f := strings.Fields(l)
		if len(f) == 5 && (f[2] == "read" || f[2] == "write") && f[4] != "0" {
			out[f[2]+" "+f[4]]++
		}
	}
	return out
}

func countBy(c *Capture) map[string]int {
	out := map[string]int{}
	for _, io := range c.IOs {
		out[fmt.Sprintf("%s %d", io.Dir, io.Size)]++
	}
	return out
}

// The blkparse and biosnoop fixtures are made from the iolog's I/Os
// (kernel tracing is not possible where the tests run): each I/O gets a
// latency made of its index, and the completions come in the order of
// the I/Os. -update rewrites them; otherwise they must be what the
// conversion makes.
func TestReconstructedFixtures(t *testing.T) {
	c := readFixture(t, iologFixture)
	for _, f := range []struct {
		path string
		make func(*Capture) string
	}{
		{"testdata/reconstructed.blkparse", toBlkparse},
		{"testdata/reconstructed.biosnoop", func(c *Capture) string { return toBiosnoop(c, false) }},
		{"testdata/reconstructed-q.biosnoop", func(c *Capture) string { return toBiosnoop(c, true) }},
	} {
		goldentest.File(t, f.path, []byte(f.make(c)), *update)
	}
}

func readFixture(t *testing.T, path string) *Capture { return parseFile(t, path, Options{}) }

// latencies gives each I/O a latency of 60 µs to 2 ms in steps of 10 µs,
// from its index, raised where needed so that each completes after the
// one before it.
func latencies(c *Capture) []time.Duration {
	out := make([]time.Duration, len(c.IOs))
	var last time.Duration
	for i, io := range c.IOs {
		lat := time.Duration(60+(i*370)%1950) * time.Microsecond / 10 * 10
		lat = lat.Truncate(10 * time.Microsecond)
		for io.Start+lat <= last {
			lat += 10 * time.Microsecond
		}
		out[i], last = lat, io.Start+lat
	}
	return out
}

// devNum is a loop device's number ("/dev/loop3" is 7,3); another name gets 8,N.
func devNum(c *Capture) map[string]string {
	out := map[string]string{}
	for i, d := range c.Devices() {
		if n, ok := strings.CutPrefix(d.Device, "/dev/loop"); ok {
			out[d.Device] = "7," + n
		} else {
			out[d.Device] = fmt.Sprintf("8,%d", 16*i)
		}
	}
	return out
}

// toBlkparse writes c as blkparse would have: Q, D and C events per I/O
// (G and I for every tenth), a flush and a discard at the start, sorted by time, and the summary.
func toBlkparse(c *Capture) string {
	type event struct {
		at                        time.Duration
		dev, pid, act, rwbs, rest string
	}
	devs := devNum(c)
	lat := latencies(c)
	first := devs[c.IOs[0].Device]
	evs := []event{
		{0, first, "412", "Q", "FWS", "[jbd2/loop0-8]"},
		{0, first, "412", "D", "FWS", "[jbd2/loop0-8]"},
		{0, first, "412", "Q", "DS", "0 + 2048 [fstrim]"},
		{0, first, "0", "C", "FWS", "0 [0]"},
	}
	for i, io := range c.IOs {
		dev := devs[io.Device]
		rw := "R"
		if io.Dir == Write {
			rw = "WS"
		}
		r := fmt.Sprintf("%d + %d", io.Offset/512, io.Size/512)
		evs = append(evs, event{io.Start, dev, "2231", "Q", rw, r + " [fio]"})
		if i%10 == 0 { // the events between, for some
			evs = append(evs, event{io.Start, dev, "2231", "G", rw, r + " [fio]"}, event{io.Start, dev, "2231", "I", rw, r + " [fio]"})
		}
		evs = append(evs,
			event{io.Start + time.Microsecond, dev, "2231", "D", rw, r + " [fio]"},
			event{io.Start + lat[i], dev, "0", "C", rw, r + " [0]"})
	}
	slices.SortStableFunc(evs, func(a, b event) int { return int(a.at - b.at) })
	var sb strings.Builder
	seq := map[string]int{}
	for _, e := range evs {
		seq[e.dev]++
		fmt.Fprintf(&sb, "%5s %3d %8d %14.9f %5s  %s %3s %s\n", e.dev, 1, seq[e.dev], e.at.Seconds(), e.pid, e.act, e.rwbs, e.rest)
	}
	sb.WriteString("CPU1 (" + first + "):\n Reads Queued:           0,        0KiB\t Writes Queued:           0,        0KiB\n")
	sb.WriteString("Total (" + first + "):\n Reads Queued:           0,        0KiB\t Writes Queued:           0,        0KiB\n\n")
	sb.WriteString("Throughput (R/W): 0KiB/s / 0KiB/s\nEvents (" + first + "): 0 entries\nSkips: 0 forward (0 -   0.0%)\n")
	return sb.String()
}

// toBiosnoop writes c as biosnoop (-Q when queue) would have: a line per
// I/O at its completion, the times from the first completion.
func toBiosnoop(c *Capture, queue bool) string {
	lat := latencies(c)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-11s %-14s %-7s %-9s %-1s %-10s %-7s", "TIME(s)", "COMM", "PID", "DISK", "T", "SECTOR", "BYTES")
	if queue {
		fmt.Fprintf(&sb, "%7s ", "QUE(ms)")
	}
	sb.WriteString("LAT(ms)\n")
	origin := c.IOs[0].Start + lat[0]
	for i, io := range c.IOs {
		q := time.Duration(0)
		if queue {
			q = time.Duration(i%3) * 10 * time.Microsecond
		}
		done := io.Start + lat[i] + q - origin
		t := "R"
		if io.Dir == Write {
			t = "W"
		}
		comm := "fio"
		if i%7 == 3 {
			comm = "fio worker" // a COMM with a space
		}
		fmt.Fprintf(&sb, "%-11.6f %-14.14s %-7d %-9s %-1s %-10d %-7d", done.Seconds(), comm, 2231,
			strings.TrimPrefix(io.Device, "/dev/"), t, io.Offset/512, io.Size)
		if queue {
			fmt.Fprintf(&sb, "%7.2f ", float64(q)/1e6)
		}
		fmt.Fprintf(&sb, "%7.2f\n", float64(lat[i])/1e6)
	}
	return sb.String()
}
