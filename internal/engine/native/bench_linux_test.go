package native

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// benchDevice returns a loop device backed by /dev/shm for the benchmark:
// PTSRUN_BENCH_DEV names one, else one is made (root only).
func benchDevice(b *testing.B) (string, int64) {
	if d := os.Getenv("PTSRUN_BENCH_DEV"); d != "" {
		out, err := exec.Command("blockdev", "--getsize64", d).Output()
		if err != nil {
			b.Fatalf("PTSRUN_BENCH_DEV=%s: %v", d, err)
		}
		n, _ := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		return d, n
	}
	if os.Geteuid() != 0 {
		b.Skip("needs root to make a loop device (or PTSRUN_BENCH_DEV=/dev/loopN)")
	}
	img := filepath.Join("/dev/shm", fmt.Sprintf("ptsrun-bench-%d.img", os.Getpid()))
	const size = 4 << 30
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		b.Skip("no /dev/shm: ", err)
	}
	if err := os.Truncate(img, size); err != nil {
		b.Fatal(err)
	}
	out, err := exec.Command("losetup", "-f", "--show", img).Output()
	if err != nil {
		os.Remove(img)
		b.Skip("losetup: ", err)
	}
	dev := strings.TrimSpace(string(out))
	b.Cleanup(func() {
		exec.Command("losetup", "-d", dev).Run()
		os.Remove(img)
	})
	// Fill the backing file so that reads hit memory, not holes.
	if err := exec.Command("dd", "if=/dev/zero", "of="+dev, "bs=1M", "count=4096", "oflag=direct", "status=none").Run(); err != nil {
		b.Fatal(err)
	}
	return dev, size
}

type benchCase struct {
	name   string
	w      engine.Workload
	rw     string
	metric string // iops, mbps, lat
	extra  []string
	poll   time.Duration // native.Options.Poll
}

// fioRun runs the same workload with fio (io_uring) and returns IOPS, MB/s
// and mean latency in ns.
func fioRun(b *testing.B, dev string, c benchCase, d time.Duration) (float64, float64, float64) {
	args := []string{"--name=bench", "--filename=" + dev, "--rw=" + c.rw, "--bs=" + strconv.FormatInt(c.w.BlockSize, 10),
		"--iodepth=" + strconv.Itoa(c.w.QD), "--numjobs=" + strconv.Itoa(max(1, c.w.TC)), "--group_reporting",
		"--ioengine=io_uring", "--direct=1", "--time_based",
		"--runtime=" + strconv.Itoa(int(d.Seconds())), "--norandommap", "--randrepeat=0", "--random_generator=tausworthe64",
		"--output-format=json"}
	args = append(args, c.extra...)
	out, err := exec.Command("fio", args...).Output()
	if err != nil {
		b.Fatalf("fio %v: %v", args, err)
	}
	var doc struct {
		Jobs []struct {
			Read, Write struct {
				IOPS  float64                `json:"iops"`
				BW    float64                `json:"bw_bytes"`
				LatNs struct{ Mean float64 } `json:"lat_ns"`
			}
		}
	}
	if i := strings.IndexByte(string(out), '{'); i > 0 {
		out = out[i:]
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		b.Fatalf("fio output: %v", err)
	}
	j := doc.Jobs[0] // group_reporting: every job in one
	dir := j.Read
	if c.w.ReadPct == 0 {
		dir = j.Write
	}
	if c.w.ReadPct > 0 && c.w.ReadPct < 100 {
		// A mix: both directions, latency weighted by I/Os.
		n := j.Read.IOPS + j.Write.IOPS
		return n, (j.Read.BW + j.Write.BW) / 1e6, (j.Read.LatNs.Mean*j.Read.IOPS + j.Write.LatNs.Mean*j.Write.IOPS) / n
	}
	return dir.IOPS, dir.BW / 1e6, dir.LatNs.Mean
}

// BenchmarkVsFio runs the native engine and fio alternately (A B A B A B) on
// the same /dev/shm-backed loop device and reports native ÷ fio (fio ÷ native
// for latency). PTSRUN_BENCH_SECONDS sets each run's length (default 10),
// PTSRUN_BENCH_PAIRS the number of pairs (default 3), PTSRUN_BENCH_CASES
// the cases by name (comma-separated; default all).
//
//	go test ./internal/engine/native -run '^$' -bench VsFio -benchtime 1x
func BenchmarkVsFio(b *testing.B) {
	if _, err := exec.LookPath("fio"); err != nil {
		b.Skip("fio is not installed")
	}
	dev, size := benchDevice(b)
	secs := 10
	if s, err := strconv.Atoi(os.Getenv("PTSRUN_BENCH_SECONDS")); err == nil && s > 0 {
		secs = s
	}
	pairs := 3
	if s, err := strconv.Atoi(os.Getenv("PTSRUN_BENCH_PAIRS")); err == nil && s > 0 {
		pairs = s
	}
	d := time.Duration(secs) * time.Second
	cases := []benchCase{
		{"4k-randread-qd32", engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: 1, QD: 32}, "randread", "iops", nil, 0},
		// fio's default write data is the same buffer per I/O with a few
		// bytes scrambled: 39 % compressible over a file, 9 % per 4 KiB
		// block. The native engine writes fresh incompressible data, as
		// fio does with refill_buffers; both comparisons are reported.
		{"4k-randwrite-qd32", engine.Workload{Access: engine.Random, ReadPct: 0, BlockSize: 4096, TC: 1, QD: 32}, "randwrite", "iops", nil, 0},
		{"4k-randwrite-qd32-refill", engine.Workload{Access: engine.Random, ReadPct: 0, BlockSize: 4096, TC: 1, QD: 32}, "randwrite", "iops", []string{"--refill_buffers=1"}, 0},
		{"1m-seqread-qd8", engine.Workload{Access: engine.Sequential, ReadPct: 100, BlockSize: 1 << 20, TC: 1, QD: 8}, "read", "mbps", nil, 0},
		// A DIRTH sweep's deepest cell: 32 threads of 32 I/Os on 2 cores,
		// where the per-I/O cost decides. fio: numjobs=32 iodepth=32.
		{"8k-65/35-tc32-qd32", engine.Workload{Access: engine.Random, ReadPct: 65, BlockSize: 8192, TC: 32, QD: 32}, "randrw", "iops", []string{"--rwmixread=65"}, 0},
		{"8k-65/35-tc32-qd32-refill", engine.Workload{Access: engine.Random, ReadPct: 65, BlockSize: 8192, TC: 32, QD: 32}, "randrw", "iops", []string{"--rwmixread=65", "--refill_buffers=1"}, 0},
		{"4k-randread-qd1", engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: 1, QD: 1}, "randread", "lat", nil, 0},
		// fio sleeps until each completion; the native engine polls for
		// DefaultPoll first. Without polling the two wait alike.
		{"4k-randread-qd1-nopoll", engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: 1, QD: 1}, "randread", "lat", nil, -1},
	}
	if only := os.Getenv("PTSRUN_BENCH_CASES"); only != "" {
		var keep []benchCase
		for _, c := range cases {
			if strings.Contains(only, c.name) {
				keep = append(keep, c)
			}
		}
		cases = keep
	}
	engines := map[time.Duration]*Engine{}
	open := func(poll time.Duration) *Engine {
		if e := engines[poll]; e != nil {
			return e
		}
		e, err := Open([]Target{{Name: dev, Path: dev, Size: size, LogicalBlock: 512}}, Options{Poll: poll})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { e.Close() })
		engines[poll] = e
		return e
	}
	for i := 0; i < b.N; i++ {
		for _, c := range cases {
			e := open(c.poll)
			var ratios []float64
			var lines []string
			for p := 0; p < pairs; p++ {
				w := c.w
				w.ActiveRange, w.Duration, w.Seed = 100, d, uint64(p+1)
				// Alternate who goes first (A B, B A, …) so that neither
				// gains from the other's warm-up.
				var fi, fm, fl float64
				if p%2 == 1 {
					fi, fm, fl = fioRun(b, dev, c, d)
				}
				m, err := e.run(context.Background(), w)
				if err != nil {
					b.Fatal(err)
				}
				if p%2 == 0 {
					fi, fm, fl = fioRun(b, dev, c, d)
				}
				var nv, fv, ratio float64
				switch c.metric {
				case "iops":
					nv, fv = m.IOPS(), fi
					ratio = nv / fv
				case "mbps":
					nv, fv = m.MBps(), fm
					ratio = nv / fv
				case "lat":
					nv, fv = m.Total().MeanLatNs(), fl
					ratio = fv / nv
				}
				ratios = append(ratios, ratio)
				lines = append(lines, fmt.Sprintf("native %.0f fio %.0f (%.3f)", nv, fv, ratio))
			}
			sort.Float64s(ratios)
			median := ratios[len(ratios)/2]
			if len(ratios)%2 == 0 {
				median = (ratios[len(ratios)/2-1] + median) / 2
			}
			b.Logf("%s [%s, %s]: %s; median ratio %.3f", c.name, e.Describe(), c.metric, strings.Join(lines, "; "), median)
			b.ReportMetric(median, c.name+"-ratio")
		}
	}
}
