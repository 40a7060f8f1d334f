package fio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// histLine is a histogram log line of direction d with n I/Os in bin idx.
func histLine(ms int64, d, idx int, n int64) string {
	b := make([]string, 1856)
	for i := range b {
		b[i] = "0"
	}
	b[idx] = strconv.FormatInt(n, 10)
	return fmt.Sprintf("%d, %d, 4096, %s\n", ms, d, strings.Join(b, ", "))
}

// fio's memory for histogram logs: windows × threads × directions ×
// 1856 counts of 8 bytes, within 256 MiB.
func TestHistLogFits(t *testing.T) {
	mix := engine.Workload{Access: engine.Random, ReadPct: 70, BlockSize: 4096, TC: 16, QD: 32, ActiveRange: 100, Duration: 75 * time.Minute}
	one := func(f func(*engine.Workload)) engine.Workload {
		w := mix
		f(&w)
		return w
	}
	const win = 1856 * 8
	for _, c := range []struct {
		name    string
		w       engine.Workload
		targets int
		ok      bool
		need    int64
		min     time.Duration
	}{
		{"1 h 15 min of TC16 mixed, 1 s", mix, 1, false, 4500 * 16 * 2 * win, 8 * time.Second},
		{"at 8 s it fits", one(func(w *engine.Workload) { w.Interval = 8 * time.Second }), 1, true, 563 * 16 * 2 * win, 8 * time.Second},
		{"reads only: one direction", one(func(w *engine.Workload) { w.ReadPct = 100 }), 1, false, 4500 * 16 * win, 4 * time.Second},
		{"two targets: twice the threads", one(func(w *engine.Workload) { w.ReadPct = 0 }), 2, false, 4500 * 32 * win, 8 * time.Second},
		{"a minute of one thread", one(func(w *engine.Workload) { w.TC, w.Duration = 1, time.Minute }), 1, true, 60 * 2 * win, time.Second},
		{"the ramp's windows apart", one(func(w *engine.Workload) {
			w.TC, w.Duration, w.Ramp, w.Interval = 1, 10*time.Second, 1500*time.Millisecond, time.Second
		}), 1, true, (2 + 9) * 2 * win, time.Second},
		{"short intervals", one(func(w *engine.Workload) { w.TC, w.Duration, w.Interval = 1, 10*time.Minute, 100*time.Millisecond }), 1,
			true, 6000 * 2 * win, time.Second},
		{"short intervals, more threads", one(func(w *engine.Workload) { w.TC, w.Duration, w.Interval = 4, 10*time.Minute, 100*time.Millisecond }), 1,
			false, 6000 * 4 * 2 * win, time.Second},
		{"so many threads only a few windows fit", one(func(w *engine.Workload) { w.TC, w.Duration = 256, time.Hour }), 8,
			false, 3600 * 256 * 8 * 2 * win, 900 * time.Second},
		{"not even one window fits", one(func(w *engine.Workload) { w.TC = 1024 }), 16, false, 4500 * 1024 * 16 * 2 * win, 0},
		{"passes: no estimate, no histogram logs", one(func(w *engine.Workload) { w.Duration, w.Passes = 0, 2 }), 1, false, 0, 0},
	} {
		ok, need, minIv := HistLogFits(c.w, c.targets)
		assert.Equal(t, c.ok, ok, c.name)
		assert.Equal(t, c.need, need, c.name)
		assert.Equal(t, c.min, minIv, c.name)
		if c.min > 0 {
			w := c.w
			w.Interval = c.min
			fits, _, _ := HistLogFits(w, c.targets)
			assert.True(t, fits, "%s: at its minInterval", c.name)
			if c.min > time.Second {
				w.Interval = c.min - time.Second
				fits, _, _ = HistLogFits(w, c.targets)
				assert.False(t, fits, "%s: a second less", c.name)
			}
		}
	}
}

// Past the budget the engine's job files ask for no histogram log, the
// ramp's sections included; within it they do.
func TestJobFileHistLogBudget(t *testing.T) {
	e := &Engine{bin: "true", opts: Options{WorkDir: t.TempDir()}, version: Version{Major: 3, Minor: 33}, hosts: []string{""},
		targets: []Target{{Name: "a", Path: "/dev/a", Size: 1 << 30, LogicalBlock: 512}, {Name: "b", Path: "/dev/b", Size: 1 << 30, LogicalBlock: 512}},
		ioeng:   "psync"}
	job := func(w engine.Workload) string {
		p, err := e.launch(context.Background(), w, "cell", false)
		require.NoError(t, err)
		_ = p.cmd.Wait()
		b, err := os.ReadFile(p.base + ".fio")
		require.NoError(t, err)
		return string(b)
	}
	w := engine.Workload{Access: engine.Random, ReadPct: 70, BlockSize: 4096, TC: 16, QD: 32, ActiveRange: 100,
		Duration: 75 * time.Minute, Ramp: time.Minute}
	big := job(w)
	assert.NotContains(t, big, "write_hist_log")
	assert.NotContains(t, big, "log_hist_msec")
	assert.Len(t, optionLines(big, "write_lat_log"), 1+2*16, "the other logs stay, the ramp's too")
	assert.Equal(t, []string{"log_avg_msec=1000"}, optionLines(big, "log_avg_msec"))

	w.Interval = 20 * time.Second
	small := job(w)
	assert.Len(t, optionLines(small, "write_hist_log"), 1+2*16)
	assert.Equal(t, []string{"log_hist_msec=20000"}, optionLines(small, "log_hist_msec"))
}

// logSet writes a thread's iops, clat and lat logs: per interval of 1 s
// (its end's stamp) the reads, the clat and the lat mean.
func logSet(t *testing.T, dir, prefix string, th int, ios []int64, clat, lat float64) {
	var iops, bw, cl, l strings.Builder
	for i, n := range ios {
		ms := int64(i+1) * 1000
		fmt.Fprintf(&iops, "%d, %d, 0, 0, 0\n", ms, n)
		fmt.Fprintf(&bw, "%d, %d, 0, 0, 0\n", ms, n*4)
		fmt.Fprintf(&cl, "%d, %g, 0, 0, 0\n", ms, clat)
		fmt.Fprintf(&l, "%d, %g, 0, 0, 0\n", ms, lat)
	}
	// The last, unlogged interval's mean.
	fmt.Fprintf(&cl, "%d, %g, 0, 0, 0\n", (len(ios)+1)*1000, clat)
	fmt.Fprintf(&l, "%d, %g, 0, 0, 0\n", (len(ios)+1)*1000, lat)
	for kind, text := range map[string]string{"iops": iops.String(), "bw": bw.String(), "clat": cl.String(), "lat": l.String()} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s_%s.%d.log", prefix, kind, th)), []byte(text), 0o644))
	}
}

// One thread's histogram log is cut short (fio killed, a full disk): the
// lines before the cut count, an interval where the thread has I/Os but
// no histogram keeps its mean without percentiles (the other thread's
// alone would be wrong), and the last interval is not rebuilt from the
// totals, which would give it the thread's whole run.
func TestPartSeriesTruncatedHistLog(t *testing.T) {
	e := &Engine{version: Version{Major: 3, Minor: 33}, hosts: []string{""}, targets: []Target{{Name: "a", Path: "/a"}}}
	w := engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: 2, QD: 1, ActiveRange: 100, Duration: 3 * time.Second}
	var j Job
	j.Read.IOs, j.Read.Bytes = 600, 600*4096
	j.Read.Clat = Latency{Max: 2e6, Bins: map[int64]int64{platIdxToVal(200): 300, platIdxToVal(1000): 300}}
	slow := platIdxToVal(1000)
	for _, cut := range []struct {
		name string
		cut  func(string) string
	}{
		{"a line cut short", func(s string) string { return s[:len(s)-40] }},
		{"no end of line", func(s string) string { return s[:len(s)-1] }},
		{"garbage", func(s string) string { return s + "3001, 0, 4096, x\n" }},
	} {
		t.Run(cut.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, th := range []int{1, 2} {
				logSet(t, dir, "h0t", th, []int64{100, 100}, 1000*float64(th), 1500*float64(th))
			}
			write := func(name, text string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
			}
			write("h0t_clat_hist.1.log", histLine(1001, 0, 200, 100)+histLine(2001, 0, 200, 100))
			write("h0t_clat_hist.2.log", cut.cut(histLine(1001, 0, 1000, 100)+histLine(2001, 0, 1000, 100)))
			whole, _ := e.partSeries(dir, "", []Job{j}, w, 3)
			require.Len(t, whole, 3)
			assert.Equal(t, []int64{200, 200, 200}, []int64{whole[0].ReadIOs, whole[1].ReadIOs, whole[2].ReadIOs})
			r := whole[0].Read
			require.NotNil(t, r)
			assert.Equal(t, slow, r.P99Ns, "both threads' histograms of the first interval")
			if cut.name == "garbage" {
				// Every window was read: only the last is in doubt.
				assert.Equal(t, slow, whole[1].Read.P99Ns)
			} else {
				assert.Equal(t, &engine.IntervalLat{MeanNs: 1500, Of: engine.LatCompletion}, whole[1].Read,
					"thread 2's histogram of it was cut: the mean only")
			}
			assert.Equal(t, &engine.IntervalLat{MeanNs: 1500, Of: engine.LatCompletion}, whole[2].Read,
				"the last interval: not the totals less an incomplete log")
			assert.InDelta(t, 2250, whole[2].LatMeanNs, 1e-9, "the lat log's total latency")
		})
	}

	// A thread without a histogram log at all is the same, every interval.
	dir := t.TempDir()
	for _, th := range []int{1, 2} {
		logSet(t, dir, "h0t", th, []int64{100, 100}, 1000, 1000)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "h0t_clat_hist.1.log"), []byte(histLine(1001, 0, 200, 100)+histLine(2001, 0, 200, 100)), 0o644))
	whole, _ := e.partSeries(dir, "", []Job{j}, w, 3)
	for i, s := range whole {
		assert.Equal(t, &engine.IntervalLat{MeanNs: 1000, Of: engine.LatCompletion}, s.Read, "interval %d", i)
	}
}

// Without histogram logs (past the budget) every interval keeps its
// counts and means, its percentiles and maximum 0: unknown.
func TestPartSeriesWithoutHistLogs(t *testing.T) {
	dir := t.TempDir()
	e := &Engine{version: Version{Major: 3, Minor: 33}, hosts: []string{""}, targets: []Target{{Name: "a", Path: "/a"}, {Name: "b", Path: "/b"}}}
	w := engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: 1, QD: 1, ActiveRange: 100, Duration: 3 * time.Second}
	logSet(t, dir, "h0t", 1, []int64{100, 100}, 1000, 1200)
	logSet(t, dir, "h0t", 2, []int64{300, 300}, 3000, 3200)
	var a, b Job
	a.Read.IOs, b.Read.IOs = 250, 700
	a.Read.Clat = Latency{Max: 2e6, Bins: map[int64]int64{platIdxToVal(200): 250}}
	whole, per := e.partSeries(dir, "", []Job{a, b}, w, 3)
	require.Len(t, whole, 3)
	assert.Equal(t, []int64{400, 400, 150}, []int64{whole[0].ReadIOs, whole[1].ReadIOs, whole[2].ReadIOs})
	for i, s := range whole {
		mean := (1000*100 + 3000*300) / 400.0
		if i == 2 {
			mean = (1000*50 + 3000*100) / 150.0
		}
		require.NotNil(t, s.Read, "interval %d", i)
		assert.InDelta(t, mean, s.Read.MeanNs, 1e-9, "interval %d", i)
		assert.Equal(t, [3]int64{}, [3]int64{s.Read.P99Ns, s.Read.P999Ns, s.Read.MaxNs}, "interval %d", i)
		assert.InDelta(t, mean+200, s.LatMeanNs, 1e-9, "interval %d", i)
	}
	assert.Equal(t, &engine.IntervalLat{MeanNs: 1000, Of: engine.LatCompletion}, per[0][2].Read, "a target's totals hold bins, its threads' logs none")
}

// Reading histogram logs keeps the target's sums, not the threads': the
// memory partSeries allocates for one target does not grow with its
// threads, and scanning a log allocates the same for any number of lines.
func TestHistLogMemory(t *testing.T) {
	const n = 60
	var log strings.Builder
	for i := range n {
		log.WriteString(histLine(int64(i+1)*1000+1, 0, 200+i, 100))
		log.WriteString(histLine(int64(i+1)*1000+1, 1, 300+i, 50))
	}
	scan := func(text string) float64 {
		return testing.AllocsPerRun(5, func() {
			require.NoError(t, scanHistLog(strings.NewReader(text), func(histEntry) {}))
		})
	}
	short := histLine(1001, 0, 200, 100) + histLine(1001, 1, 300, 50)
	assert.LessOrEqual(t, scan(log.String()), scan(short)+2, "allocations per log, not per line")

	alloc := func(threads int) uint64 {
		dir := t.TempDir()
		ios := make([]int64, n)
		for i := range ios {
			ios[i] = 100
		}
		for th := 1; th <= threads; th++ {
			logSet(t, dir, "h0t", th, ios, 1000, 1000)
			require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("h0t_clat_hist.%d.log", th)), []byte(log.String()), 0o644))
		}
		e := &Engine{version: Version{Major: 3, Minor: 33}, hosts: []string{""}, targets: []Target{{Name: "a", Path: "/a"}}}
		w := engine.Workload{Access: engine.Random, ReadPct: 70, BlockSize: 4096, TC: threads, QD: 1, ActiveRange: 100, Duration: n * time.Second}
		var j Job
		j.Read.IOs, j.Write.IOs = int64(threads*n*100), int64(threads*n*50)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		whole, _ := e.partSeries(dir, "", []Job{j}, w, n)
		runtime.ReadMemStats(&after)
		require.Len(t, whole, n)
		require.NotNil(t, whole[0].Read)
		require.Equal(t, platIdxToVal(200), whole[0].Read.P99Ns)
		return after.TotalAlloc - before.TotalAlloc
	}
	one, eight := alloc(1), alloc(8)
	hists := uint64(n * 2 * histWindowBytes) // a thread's histograms, every interval and direction
	t.Logf("partSeries allocates %d KB for one thread, %d KB for eight (a thread's histograms: %d KB)", one>>10, eight>>10, hists>>10)
	assert.Less(t, one, 2*hists, "the target's histograms, and a few buffers")
	assert.Less(t, (eight-one)/7, hists/4, "each further thread adds the buffers of its reading, not its histograms")
}
