package native

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/procfs"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/ptsrun/ptsrun/internal/cpuidle"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// hostBusy is the CPU time the whole host has spent busy so far (every
// CPU's user, system, interrupt and steal time), in seconds. The cost of
// an I/O is not only its engine's: the loop device's kernel workers do the
// copying, and its completions run in softirq, in whichever task they
// interrupt or in ksoftirqd, charged to neither engine: only the host's
// busy time counts all of it. It is a noisier figure than the engines'
// own, as it counts whatever else the host does meanwhile. steal is the
// part of it that the hypervisor gave to other guests while this one had
// work (/proc/stat's steal): a run with much of it was not run on a quiet
// host, whatever its engine did.
func hostBusy(b *testing.B) (busy, steal float64) {
	fs, err := procfs.NewFS("/proc")
	if err != nil {
		b.Fatal(err)
	}
	st, err := fs.Stat()
	if err != nil {
		b.Fatal(err)
	}
	c := st.CPUTotal
	return c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal, c.Steal
}

// deviceThreads is the CPU time each of the kernel's worker threads
// (kworker, ksoftirqd) has spent so far, in seconds, by thread ID. On a
// loop device they are the device: one worker copies every request, and
// the completions of its one hardware queue run as soft interrupts on the
// worker's CPU, in ksoftirqd when there are many. Near one CPU of it over
// a run, the device is the limit, whichever engine drives it. Other kernel
// work counts too, so it is read on a quiet host; soft interrupts that run
// in the task they interrupt are not in it.
func deviceThreads(b *testing.B) map[int]float64 {
	fs, err := procfs.NewFS("/proc")
	if err != nil {
		b.Fatal(err)
	}
	procs, err := fs.AllProcs()
	if err != nil {
		b.Fatal(err)
	}
	t := map[int]float64{}
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			continue // gone meanwhile
		}
		if strings.HasPrefix(st.Comm, "kworker") || strings.HasPrefix(st.Comm, "ksoftirqd") {
			t[p.PID] = st.CPUTime()
		}
	}
	return t
}

// deviceBusy is the CPU time the worker threads spent since the snapshot
// from: thread by thread, so that a worker that ends meanwhile (the kernel
// retires idle kworkers) takes its time out of neither side; a sum of the
// two snapshots' totals went negative when one did. A worker that started
// meanwhile counts whole, one that ended counts nothing.
func deviceBusy(b *testing.B, from map[int]float64) float64 {
	var d float64
	for pid, t := range deviceThreads(b) {
		if t0, ok := from[pid]; ok && t0 <= t {
			t -= t0
		} // else new, or a new thread with a used ID: whole
		d += t
	}
	return d
}

// benchDevice returns a loop device backed by /dev/shm for the benchmark:
// PTSRUN_BENCH_DEV names one, else one is made (root only).
func benchDevice(b *testing.B) (string, int64) {
	benchCPUIdle(b)
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
	// And read it once: the first seconds of I/O after the fill ran 5–10 %
	// slower, whichever engine ran them (fio's 4 KiB reads at TC1/QD32:
	// 231 k, 240 k, then 257 k IOPS in 3 s runs; 254 k at once after a
	// read), which made the first pair's first side lose.
	if err := exec.Command("dd", "if="+dev, "of=/dev/null", "bs=1M", "iflag=direct", "status=none").Run(); err != nil {
		b.Fatal(err)
	}
	return dev, size
}

// benchCPUIdle holds the host's idle CPUs for the whole benchmark, both
// engines' sides alike, as ptsrun holds them while it measures a device
// (--cpu-idle, package cpuidle): PTSRUN_BENCH_CPUIDLE, shallow by default;
// "host" measures them as the host has them. At TC1/QD1 on a host whose
// idle CPUs halt, a wake-up is most of the response time. It sets
// benchIdlePolls, which the engines are opened with, as targets.Open
// opens them.
func benchCPUIdle(b *testing.B) {
	s, err := cpuidle.Parse(os.Getenv("PTSRUN_BENCH_CPUIDLE"))
	if err != nil {
		b.Fatalf("PTSRUN_BENCH_CPUIDLE: %v", err)
	}
	h, st := cpuidle.Take(s, "/", cpuidle.QoSPath)
	b.Cleanup(h.Release)
	benchIdlePolls, benchIdleLabel = st.Polls(), st.Label()
	b.Logf("CPU idle: %s", benchIdleLabel)
}

// benchIdlePolls: the host's idle CPUs poll (benchCPUIdle), as
// benchIdleLabel says.
var (
	benchIdlePolls bool
	benchIdleLabel string
)

// benchEngines opens the native engine on dev once per polling setting,
// closed when the benchmark ends.
func benchEngines(b *testing.B, dev string, size int64) func(poll time.Duration) *Engine {
	engines := map[time.Duration]*Engine{}
	return func(poll time.Duration) *Engine {
		if e := engines[poll]; e != nil {
			return e
		}
		e, err := Open([]Target{{Name: dev, Path: dev, Size: size, LogicalBlock: 512}}, Options{ForcePread: os.Getenv("PTSRUN_BENCH_PREAD") != "", Poll: poll, NoPin: os.Getenv("PTSRUN_BENCH_NOPIN") != "", IdlePolls: benchIdlePolls})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { e.Close() })
		engines[poll] = e
		return e
	}
}

type benchCase struct {
	name   string
	w      engine.Workload
	rw     string
	metric string // iops, mbps, lat
	extra  []string
	poll   time.Duration // native.Options.Poll
}

// fioResult is what fio measured of a case.
type fioResult struct {
	iops, mbps, meanNs, p999Ns float64
	// pct is fio's latency percentiles in ns, by fio's own key
	// ("99.900000"), of a one-direction case.
	pct map[string]float64
	// cpuS is the CPU time of fio's whole process tree over the run, less
	// what the same job costs to start and stop (fioStartCPU). It counts
	// fio's io_uring workers, as the native engine's own figure does
	// (RUSAGE_SELF). fio's reported usr_cpu and sys_cpu (jobCPUS) are each
	// job thread's RUSAGE_THREAD (fio's lib/getrusage.c): they leave out the
	// iou-wrk threads that take a submission the device cannot queue at
	// once. At 8 KiB 65/35 TC32/QD32 on a loop device (1 024 I/Os in
	// flight, 128 requests in its queue) fio ran 256 of them, and its
	// process tree used 3.5 CPU-seconds in 4 s where its jobs reported 1.7.
	cpuS    float64
	jobCPUS float64
}

// fioRun runs the same workload with fio (io_uring at its best settings for
// the point: fixedbufs, registerfiles; sqthread_poll would take one of this
// host's two CPUs) and returns what it measured.
func fioRun(b *testing.B, dev string, c benchCase, d time.Duration) fioResult {
	args := []string{"--name=bench", "--filename=" + dev, "--rw=" + c.rw,
		"--iodepth=" + strconv.Itoa(c.w.QD), "--numjobs=" + strconv.Itoa(max(1, c.w.TC)), "--group_reporting",
		"--direct=1", "--time_based", "--lat_percentiles=1",
		"--runtime=" + strconv.Itoa(int(d.Seconds())), "--norandommap", "--randrepeat=0", "--random_generator=tausworthe64",
		"--output-format=json"}
	if !slices.ContainsFunc(c.extra, func(a string) bool { return strings.HasPrefix(a, "--ioengine=") }) {
		// io_uring's own options: fio refuses them with another engine
		// (latencyFloor's).
		args = append(args, "--ioengine=io_uring", "--fixedbufs", "--registerfiles")
	}
	if c.w.BlockSize > 0 { // else the case's --bssplit
		args = append(args, "--bs="+strconv.FormatInt(c.w.BlockSize, 10))
	}
	args = append(args, c.extra...)
	out, treeCPU := fioExec(b, args)
	var doc struct {
		Jobs []struct {
			Read, Write struct {
				IOPS  float64 `json:"iops"`
				BW    float64 `json:"bw_bytes"`
				LatNs struct {
					Mean       float64            `json:"mean"`
					Percentile map[string]float64 `json:"percentile"`
				} `json:"lat_ns"`
			}
			UsrCPU float64 `json:"usr_cpu"` // % of one CPU, over the job's run
			SysCPU float64 `json:"sys_cpu"`
		}
	}
	if i := strings.IndexByte(string(out), '{'); i > 0 {
		out = out[i:]
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		b.Fatalf("fio output: %v", err)
	}
	j := doc.Jobs[0] // group_reporting: every job in one
	jobCPU := (j.UsrCPU + j.SysCPU) / 100 * d.Seconds() * float64(max(1, c.w.TC))
	cpu := max(treeCPU-fioStartCPU(b, args), 0)
	dir := j.Read
	if c.w.ReadPct == 0 {
		dir = j.Write
	}
	if c.w.ReadPct > 0 && c.w.ReadPct < 100 {
		// A mix: both directions, latency weighted by I/Os.
		n := j.Read.IOPS + j.Write.IOPS
		return fioResult{n, (j.Read.BW + j.Write.BW) / 1e6, (j.Read.LatNs.Mean*j.Read.IOPS + j.Write.LatNs.Mean*j.Write.IOPS) / n, 0, nil, cpu, jobCPU}
	}
	return fioResult{dir.IOPS, dir.BW / 1e6, dir.LatNs.Mean, dir.LatNs.Percentile["99.900000"], dir.LatNs.Percentile, cpu, jobCPU}
}

// fioExec runs fio and returns its output and the CPU seconds of its whole
// process tree: fio waits for its job processes, so the kernel's rusage of
// fio counts theirs, with every thread of each (their io_uring workers).
func fioExec(b *testing.B, args []string) ([]byte, float64) {
	var out bytes.Buffer
	cmd := exec.Command("fio", args...)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		b.Fatalf("fio %v: %v", args, err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Fatal("fio: no rusage")
	}
	return out.Bytes(), float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// fioStartCPU is the CPU time fio's process tree spends to start and stop
// the job of args, measured with each job doing one I/O instead of running
// for its time: parsing, forking a process per job, setting up its ring and
// buffers, and the report. 32 jobs cost 0.2 CPU-seconds, which would be 5 %
// of a 4 s run's.
func fioStartCPU(b *testing.B, args []string) float64 {
	var once []string
	for _, a := range args {
		if a == "--time_based" || strings.HasPrefix(a, "--runtime=") {
			continue
		}
		once = append(once, a)
	}
	_, cpu := fioExec(b, append(once, "--number_ios=1"))
	return cpu
}

// cpuScale turns a measurement's CPU share into CPUs busy: a share of
// the host's CPUs, or of one.
func cpuScale(m engine.Measurement) float64 {
	if m.CPU.Of == engine.CPUOfHost {
		return float64(runtime.NumCPU())
	}
	return 1
}

// crossCPU is the time the host takes to hand a cache line from one CPU
// to another and back (two threads pinned to the first two allowed CPUs,
// each waiting for the other's store), the median of 5 runs of n.
// Every I/O on a loop device crosses between CPUs several times (the
// submitter wakes the device's worker, its completion wakes the
// submitter), and on a virtual machine the hypervisor may place the
// virtual CPUs near each other or apart: on the 2026-12-07 host the round
// trip moved between about 80 and 390 ns from one minute to the next, and
// fio's TC1/QD1 latency with it (8.7 and 11.5 us). It is printed with each
// case, so that a case measured in one state is not read as the engine's.
func crossCPU(b testing.TB, n int) time.Duration {
	var set unix.CPUSet // to put back
	cpus := allowedCPUs()
	if len(cpus) < 2 || unix.SchedGetaffinity(0, &set) != nil {
		return 0
	}
	var runs []float64
	for range 5 {
		var flag atomic.Int32
		done := make(chan struct{})
		// pin locks the goroutine to its thread on cpu until it ends, and
		// its return puts the thread's CPUs back as they were; the thread
		// ends with the goroutine (no UnlockOSThread). No thread pinned to
		// one CPU may go back to the pool, where fio and the engine's
		// threads started after it would inherit it.
		pin := func(cpu int) func() {
			runtime.LockOSThread()
			var one unix.CPUSet
			one.Set(cpu)
			if err := unix.SchedSetaffinity(0, &one); err != nil {
				b.Error(err)
			}
			return func() {
				if err := unix.SchedSetaffinity(0, &set); err != nil {
					b.Error(err)
				}
			}
		}
		go func() {
			defer close(done)
			defer pin(cpus[1])()
			for range n {
				for flag.Load() != 1 {
				}
				flag.Store(0)
			}
		}()
		got := make(chan time.Duration, 1)
		go func() {
			unpin := pin(cpus[0])
			t := time.Now()
			for range n {
				flag.Store(1)
				for flag.Load() != 0 {
				}
			}
			d := time.Since(t) / time.Duration(n)
			unpin()
			got <- d
		}()
		runs = append(runs, float64(<-got))
		<-done
	}
	return time.Duration(median(runs))
}

// fioSetting is a way of running fio that may be its best at a load point,
// beside the case's own options.
type fioSetting struct {
	name string
	args []string
}

// fioSettings are the settings that may be fio's best at the case's load
// point on this host: as it comes; with each job pinned to a CPU of its own
// (cpus_allowed_policy=split), as the native engine pins its threads, while
// there are no more jobs than CPUs; and with a kernel thread polling each
// job's submission ring (sqthread_poll) where there is a CPU for every job,
// every polling thread and the device besides. On a 2-CPU host there is
// never room for the last: it took TC1/QD32 4 KiB reads from 394 k to 120 k
// IOPS and the TC4 points to 5-6 k (2026-12-07, 3 alternating rounds).
// PTSRUN_BENCH_FIO names one of them for every case instead.
func fioSettings(b *testing.B, c benchCase) []fioSetting {
	all := []fioSetting{{name: "default"}}
	var cpus []string
	for _, c := range allowedCPUs() {
		cpus = append(cpus, strconv.Itoa(c))
	}
	tc := max(1, c.w.TC)
	if tc <= len(cpus) {
		all = append(all, fioSetting{"pinned", []string{"--cpus_allowed=" + strings.Join(cpus, ","), "--cpus_allowed_policy=split"}})
	}
	if len(cpus) >= 2*tc+1 {
		all = append(all, fioSetting{"sqthread_poll", []string{"--sqthread_poll=1"}})
	}
	if only := os.Getenv("PTSRUN_BENCH_FIO"); only != "" {
		for _, s := range all {
			if s.name == only {
				return []fioSetting{s}
			}
		}
		b.Fatalf("PTSRUN_BENCH_FIO=%s: not a fio setting for %s here (%d CPUs)", only, c.name, len(cpus))
	}
	return all
}

// fioBest finds fio's best setting at the case's load point on this host:
// each candidate run PTSRUN_BENCH_CALIBRATE times (default 2), alternating,
// the best median kept. The pairs that follow run it afresh, so that the
// ratio is not of the luckiest of several fio runs. It returns the setting
// and what the calibration measured.
func fioBest(b *testing.B, dev string, c benchCase, d time.Duration) (fioSetting, string) {
	set := fioSettings(b, c)
	if len(set) == 1 {
		return set[0], ""
	}
	rounds := benchInt("PTSRUN_BENCH_CALIBRATE", 2)
	vals := make([][]float64, len(set))
	for r := range rounds {
		for k := range set {
			if r%2 == 1 {
				k = len(set) - 1 - k
			}
			f := fioRun(b, dev, c.with(set[k]), d)
			vals[k] = append(vals[k], fioMetric(c, f))
		}
	}
	best := 0
	var parts []string
	for k := range set {
		m := median(slices.Clone(vals[k]))
		if better(c, m, median(slices.Clone(vals[best]))) {
			best = k
		}
		parts = append(parts, fmt.Sprintf("%s %.0f", set[k].name, m))
	}
	return set[best], strings.Join(parts, ", ")
}

// with is the case with fio run in setting s.
func (c benchCase) with(s fioSetting) benchCase {
	c.extra = append(slices.Clone(c.extra), s.args...)
	return c
}

// fioMetric is the figure of f that the case compares: IOPS, MB/s or the
// mean latency in ns.
func fioMetric(c benchCase, f fioResult) float64 {
	switch c.metric {
	case "mbps":
		return f.mbps
	case "lat":
		return f.meanNs
	}
	return f.iops
}

// better says whether the case's figure x is better than y: lower for a
// latency, higher for the rest.
func better(c benchCase, x, y float64) bool {
	if c.metric == "lat" {
		return x < y
	}
	return x > y
}

// BenchmarkVsFio runs the native engine and fio alternately (A B A B A B) on
// the same /dev/shm-backed loop device and reports native ÷ fio (fio ÷ native
// for latency), fio in its best setting for the case on this host (fioBest,
// found first). PTSRUN_BENCH_SECONDS sets each run's length (default 10),
// PTSRUN_BENCH_PAIRS the number of pairs (default 3), PTSRUN_BENCH_CASES
// the cases by name (comma-separated; default all), PTSRUN_BENCH_NOPIN=1
// leaves the native threads unpinned (Options.NoPin), PTSRUN_BENCH_FIO and
// PTSRUN_BENCH_CALIBRATE choose fio's setting (fioSettings, fioBest).
//
//	go test ./internal/engine/native -run '^$' -bench VsFio -benchtime 1x -v
//
// (-v: go test keeps only a benchmark's first ten lines of log without it.)
func BenchmarkVsFio(b *testing.B) {
	if _, err := exec.LookPath("fio"); err != nil {
		b.Skip("fio is not installed")
	}
	dev, size := benchDevice(b)
	secs := benchInt("PTSRUN_BENCH_SECONDS", 10)
	pairs := benchInt("PTSRUN_BENCH_PAIRS", 3)
	d := time.Duration(secs) * time.Second
	cases := benchCases()
	open := benchEngines(b, dev, size)
	for i := 0; i < b.N; i++ {
		for _, c := range cases {
			e := open(c.poll)
			xcpu := crossCPU(b, 20000)
			setting, calibration := fioBest(b, dev, c, d)
			fc := c.with(setting)
			var ratios, cpuRatios, tailRatios, iopsRatios []float64
			var lines []string
			for p := 0; p < pairs; p++ {
				w := c.w
				w.ActiveRange, w.Duration, w.Seed = 100, d, uint64(p+1)
				// Alternate who goes first (A B, B A, …) so that neither
				// gains from the other's warm-up.
				var f fioResult
				var fioHost, fioSteal, fioDev float64
				runFio := func() {
					h, st := hostBusy(b)
					k := deviceThreads(b)
					f = fioRun(b, dev, fc, d)
					h1, st1 := hostBusy(b)
					fioHost, fioSteal, fioDev = h1-h, st1-st, deviceBusy(b, k)
				}
				if p%2 == 1 {
					runFio()
				}
				h, st := hostBusy(b)
				k := deviceThreads(b)
				m, err := e.run(context.Background(), w)
				if err != nil {
					b.Fatal(err)
				}
				h1, st1 := hostBusy(b)
				nativeHost, nativeSteal, nativeDev := h1-h, st1-st, deviceBusy(b, k)
				if p%2 == 0 {
					runFio()
				}
				var nv, fv, ratio float64
				switch c.metric {
				case "iops":
					nv, fv = m.IOPS(), f.iops
					ratio = nv / fv
				case "mbps":
					nv, fv = m.MBps(), f.mbps
					ratio = nv / fv
				case "lat":
					nv, fv = m.Total().MeanLatNs(), f.meanNs
					ratio = fv / nv
				}
				ratios = append(ratios, ratio)
				line := fmt.Sprintf("native %.0f fio %.0f (%.3f)", nv, fv, ratio)
				if c.metric == "lat" {
					np := m.Total().PercentileNs(99.9)
					line += fmt.Sprintf(", p99.9 native %d fio %.0f ns", np, f.p999Ns)
					if np > 0 && f.p999Ns > 0 {
						tailRatios = append(tailRatios, f.p999Ns/float64(np))
					}
					// The whole distribution, for where the two part: on a
					// 2-CPU guest both have a cluster above the 99.5th
					// percentile, at 3-5 times the median.
					line += ", µs native/fio"
					for _, q := range []float64{50, 90, 99, 99.5, 99.9, 99.99} {
						line += fmt.Sprintf(" p%g %.1f/%.1f", q, float64(m.Total().PercentileNs(q))/1e3, f.pct[fmt.Sprintf("%f", q)]/1e3)
					}
					// At QD1 the IOPS are the whole cycle, each engine's
					// own work between its I/Os too, which neither's
					// latency counts.
					line += fmt.Sprintf(", IOPS native %.0f fio %.0f (%.3f)", m.IOPS(), f.iops, m.IOPS()/f.iops)
					iopsRatios = append(iopsRatios, m.IOPS()/f.iops)
				}
				if busy := (m.CPU.User + m.CPU.Sys) * m.Elapsed.Seconds() * cpuScale(m); busy > 0 && f.cpuS > 0 && f.jobCPUS > 0 {
					nc, fc := m.IOPS()*m.Elapsed.Seconds()/busy, f.iops*d.Seconds()/f.cpuS
					line += fmt.Sprintf(", IOPS per CPU-second native %.0f fio %.0f (%.3f; by fio's own usr+sys %.0f)", nc, fc, nc/fc, f.iops*d.Seconds()/f.jobCPUS)
					cpuRatios = append(cpuRatios, nc/fc)
				}
				// The host's busy time spans each engine's start and end
				// too (fio's start-up, the engine's open is outside).
				if nativeHost > 0 && fioHost > 0 {
					line += fmt.Sprintf(", IOPS per host CPU-second native %.0f fio %.0f", m.IOPS()*m.Elapsed.Seconds()/nativeHost, f.iops*d.Seconds()/fioHost)
				}
				// fio's start-up does no I/O: its device time is over its
				// run time.
				line += fmt.Sprintf(", device workers %.2f CPUs native, %.2f fio, steal %.0f ms native, %.0f ms fio", nativeDev/m.Elapsed.Seconds(), fioDev/d.Seconds(), nativeSteal*1e3, fioSteal*1e3)
				lines = append(lines, line)
			}
			sum := fmt.Sprintf("ratio %s, per CPU-second %s", spread(ratios), spread(cpuRatios))
			if c.metric == "lat" {
				sum += fmt.Sprintf(", p99.9 (fio ÷ native) %s, IOPS %s", spread(tailRatios), spread(iopsRatios))
			}
			fioSaid := "fio " + setting.name
			if calibration != "" {
				fioSaid += " (calibration: " + calibration + ")"
			}
			b.Logf("%s [%s, %s, %s; cross-CPU round trip %v]: %s; %s", c.name, e.Describe(), fioSaid, c.metric, xcpu, strings.Join(lines, "; "), sum)
			b.ReportMetric(median(ratios), c.name+"-ratio")
			if c.poll < 0 && len(cpuRatios) > 0 {
				b.ReportMetric(median(cpuRatios), c.name+"-cpu-ratio")
			}
		}
	}
}

// benchCases are the PTS's own load points, fio's options beside each;
// PTSRUN_BENCH_CASES keeps those it names (comma-separated).
func benchCases() []benchCase {
	// The PTS's own load points (fio's options beside each).
	split := "512/4:1k/1:1536/1:2k/1:2560/1:3k/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3"
	ecw := engine.Workload{Access: engine.Random, ReadPct: 40, BlockSplit: enginetest.ECWSplit, Zones: enginetest.ECWZones, TC: 4, QD: 32}
	rnd := func(read int, bs int64, tc, qd int) engine.Workload {
		return engine.Workload{Access: engine.Random, ReadPct: read, BlockSize: bs, TC: tc, QD: qd}
	}
	seq := func(read int, bs int64) engine.Workload {
		return engine.Workload{Access: engine.Sequential, ReadPct: read, BlockSize: bs, TC: 1, QD: 32}
	}
	// The native engine writes fresh incompressible data, as fio does with
	// refill_buffers (fio's default rewrites one buffer with a few bytes
	// scrambled): fio writes with it here.
	refill := []string{"--refill_buffers=1"}
	return selectCases([]benchCase{
		{"rnd4k-read-tc1qd1", rnd(100, 4096, 1, 1), "randread", "lat", nil, 0},
		{"rnd4k-read-tc1qd32", rnd(100, 4096, 1, 32), "randread", "iops", nil, 0},
		{"rnd4k-read-tc4qd32", rnd(100, 4096, 4, 32), "randread", "iops", nil, 0},
		{"rnd4k-write-tc4qd32", rnd(0, 4096, 4, 32), "randwrite", "iops", refill, 0},
		{"rnd4k-65/35-tc4qd32", rnd(65, 4096, 4, 32), "randrw", "iops", append([]string{"--rwmixread=65"}, refill...), 0},
		{"rnd8k-65/35-tc32qd32", rnd(65, 8192, 32, 32), "randrw", "iops", append([]string{"--rwmixread=65"}, refill...), 0},
		{"seq128k-read-tc1qd32", seq(100, 128<<10), "read", "mbps", nil, 0},
		{"seq128k-write-tc1qd32", seq(0, 128<<10), "write", "mbps", refill, 0},
		{"seq1m-read-tc1qd32", seq(100, 1<<20), "read", "mbps", nil, 0},
		{"seq1m-write-tc1qd32", seq(0, 1<<20), "write", "mbps", refill, 0},
		{"ecw-tc4qd32", ecw, "randrw", "iops", append([]string{"--rwmixread=40", "--bssplit=" + split, "--random_distribution=zoned:50/5:30/15:20/80"}, refill...), 0},
		// fio's synchronous engine, one I/O at a time: what the native
		// engine's pread path (PTSRUN_BENCH_PREAD=1) is to be held to
		// where there is no io_uring.
		{"rnd4k-read-tc1qd1-psync", rnd(100, 4096, 1, 1), "randread", "lat", []string{"--ioengine=psync"}, -1},
		// With polling off, the native engine waits as fio does: IOPS per
		// CPU-second is the cost of an I/O.
		{"rnd4k-read-tc1qd1-nopoll", rnd(100, 4096, 1, 1), "randread", "lat", nil, -1},
		{"rnd4k-read-tc1qd32-nopoll", rnd(100, 4096, 1, 32), "randread", "iops", nil, -1},
		{"rnd4k-65/35-tc4qd32-nopoll", rnd(65, 4096, 4, 32), "randrw", "iops", append([]string{"--rwmixread=65"}, refill...), -1},
		{"rnd8k-65/35-tc32qd32-nopoll", rnd(65, 8192, 32, 32), "randrw", "iops", append([]string{"--rwmixread=65"}, refill...), -1},
		{"seq128k-read-tc1qd32-nopoll", seq(100, 128<<10), "read", "mbps", nil, -1},
		{"seq128k-write-tc1qd32-nopoll", seq(0, 128<<10), "write", "mbps", refill, -1},
		{"seq1m-read-tc1qd32-nopoll", seq(100, 1<<20), "read", "mbps", nil, -1},
		{"seq1m-write-tc1qd32-nopoll", seq(0, 1<<20), "write", "mbps", refill, -1},
	})
}

// selectCases keeps the cases PTSRUN_BENCH_CASES names, or all.
func selectCases(cases []benchCase) []benchCase {
	only := os.Getenv("PTSRUN_BENCH_CASES")
	if only == "" {
		return cases
	}
	var keep []benchCase
	for _, c := range cases {
		if slices.Contains(strings.Split(only, ","), c.name) {
			keep = append(keep, c)
		}
	}
	return keep
}

// BenchmarkCeiling measures how much each load point's device can give:
// the case's workload with 1, 2 and 4 times its threads (up to 64), each
// thread as deep as the case's, once with the native engine and once with
// fio in each of its settings (fioSettings), one after the other; fio's
// best of those counts.
// The best of all is the device's ceiling at that block size and mix; the
// load point's own figure beside it says how near each engine gets at the
// PTS's thread count. At the latency point (TC1/QD1) it measures the
// floor instead (latencyFloor): the lowest latency any way of doing that
// I/O reaches, PTSRUN_BENCH_PAIRS rounds. PTSRUN_BENCH_SECONDS,
// PTSRUN_BENCH_CASES and PTSRUN_BENCH_FIO as for BenchmarkVsFio (the
// polling-off cases are left out).
//
//	PTSRUN_BENCH_SECONDS=4 go test ./internal/engine/native -run '^$' -bench Ceiling -benchtime 1x -v
func BenchmarkCeiling(b *testing.B) {
	if _, err := exec.LookPath("fio"); err != nil {
		b.Skip("fio is not installed")
	}
	dev, size := benchDevice(b)
	secs := benchInt("PTSRUN_BENCH_SECONDS", 4)
	d := time.Duration(secs) * time.Second
	open := benchEngines(b, dev, size)
	for i := 0; i < b.N; i++ {
		for _, c := range benchCases() {
			if c.poll < 0 {
				continue
			}
			if c.metric == "lat" {
				latencyFloor(b, dev, c, d, open)
				continue
			}
			unit := "IOPS"
			if c.metric == "mbps" {
				unit = "MB/s"
			}
			var at [2]float64 // native, fio at the case's own TC
			var best [2]float64
			var bestTC [2]int
			var runs []string
			for _, mult := range []int{1, 2, 4} {
				w := c.w
				w.TC *= mult
				if w.TC > 64 {
					break
				}
				w.ActiveRange, w.Duration, w.Seed = 100, d, 1
				m, err := open(c.poll).run(context.Background(), w)
				if err != nil {
					b.Fatal(err)
				}
				pt := benchCase{name: c.name, w: w, rw: c.rw, metric: c.metric, extra: c.extra}
				var fv float64
				for _, s := range fioSettings(b, pt) {
					fv = max(fv, fioMetric(pt, fioRun(b, dev, pt.with(s), d)))
				}
				v := [2]float64{m.IOPS(), fv}
				if c.metric == "mbps" {
					v[0] = m.MBps()
				}
				for k := range v {
					if mult == 1 {
						at[k] = v[k]
					}
					if v[k] > best[k] {
						best[k], bestTC[k] = v[k], w.TC
					}
				}
				runs = append(runs, fmt.Sprintf("TC%d native %.0f fio %.0f", w.TC, v[0], v[1]))
			}
			ceiling := max(best[0], best[1])
			b.Logf("%s (%s): %s; ceiling %.0f; at TC%d native %.0f (%.2f of the ceiling) fio %.0f (%.2f); best native %.0f at TC%d, fio %.0f at TC%d",
				c.name, unit, strings.Join(runs, ", "), ceiling, c.w.TC, at[0], at[0]/ceiling, at[1], at[1]/ceiling, best[0], bestTC[0], best[1], bestTC[1])
			b.ReportMetric(at[0]/ceiling, c.name+"-native/ceiling")
			b.ReportMetric(at[1]/ceiling, c.name+"-fio/ceiling")
		}
	}
}

// latencyFloor is BenchmarkCeiling's answer at a latency point (TC1/QD1),
// where no engine is held back by the device's throughput: the lowest
// mean and 99.9 % latency that any way of doing the I/O reaches on the
// device. The ways: the native engine sleeping and polling (DefaultPoll),
// and fio with each engine that does this I/O (io_uring, libaio, and the
// synchronous psync and pvsync2, whose thread sleeps in the read itself
// and is woken by the block layer, with no completion ring between) in
// each of its settings. Each way runs PTSRUN_BENCH_PAIRS times (default
// 3), in turn, the order reversed every other round; medians.
func latencyFloor(b *testing.B, dev string, c benchCase, d time.Duration, open func(time.Duration) *Engine) {
	type way struct {
		name string
		run  func(round int) (meanNs, p999Ns float64)
	}
	var ways []way
	var uring []int // fio io_uring's ways, in its settings
	for _, poll := range []time.Duration{-1, DefaultPoll} {
		name := "native sleeping"
		if poll > 0 {
			name = fmt.Sprintf("native polling %v", poll)
		}
		ways = append(ways, way{name, func(round int) (float64, float64) {
			w := c.w
			w.ActiveRange, w.Duration, w.Seed = 100, d, uint64(round+1)
			m, err := open(poll).run(context.Background(), w)
			if err != nil {
				b.Fatal(err)
			}
			return m.Total().MeanLatNs(), float64(m.Total().PercentileNs(99.9))
		}})
	}
	for _, eng := range []string{"io_uring", "libaio", "psync", "pvsync2"} {
		pt := c
		if eng != "io_uring" {
			pt.extra = append(slices.Clone(c.extra), "--ioengine="+eng)
		}
		for _, s := range fioSettings(b, pt) {
			if s.name == "sqthread_poll" && eng != "io_uring" {
				continue
			}
			fc := pt.with(s)
			if eng == "io_uring" {
				uring = append(uring, len(ways))
			}
			ways = append(ways, way{"fio " + eng + " " + s.name, func(int) (float64, float64) {
				f := fioRun(b, dev, fc, d)
				return f.meanNs, f.p999Ns
			}})
		}
	}
	rounds := benchInt("PTSRUN_BENCH_PAIRS", 3)
	means, tails := make([][]float64, len(ways)), make([][]float64, len(ways))
	for r := range rounds {
		for k := range ways {
			if r%2 == 1 {
				k = len(ways) - 1 - k
			}
			mn, tl := ways[k].run(r)
			means[k], tails[k] = append(means[k], mn), append(tails[k], tl)
		}
	}
	var parts []string
	mean, tail := make([]float64, len(ways)), make([]float64, len(ways))
	floorMean, floorTail := 0, 0
	uringMean, uringTail := math.Inf(1), math.Inf(1)
	for k, w := range ways {
		mean[k], tail[k] = median(means[k]), median(tails[k])
		parts = append(parts, fmt.Sprintf("%s %.1f/%.1f", w.name, mean[k]/1e3, tail[k]/1e3))
		if mean[k] < mean[floorMean] {
			floorMean = k
		}
		if tail[k] < tail[floorTail] {
			floorTail = k
		}
		if slices.Contains(uring, k) {
			uringMean, uringTail = min(uringMean, mean[k]), min(uringTail, tail[k])
		}
	}
	// The floor's figures over each way's: at most 1, 1 at the floor.
	b.Logf("%s (latency floor; mean/99.9 %% in µs, medians of %d rounds): %s; floor: mean %.1f (%s), 99.9 %% %.1f (%s); floor ÷ each, mean and 99.9 %% (1: at the floor): native sleeping %.2f and %.2f, native polling %.2f and %.2f, fio io_uring at its best %.2f and %.2f",
		c.name, rounds, strings.Join(parts, ", "), mean[floorMean]/1e3, ways[floorMean].name, tail[floorTail]/1e3, ways[floorTail].name,
		mean[floorMean]/mean[0], tail[floorTail]/tail[0], mean[floorMean]/mean[1], tail[floorTail]/tail[1],
		mean[floorMean]/uringMean, tail[floorTail]/uringTail)
	b.ReportMetric(mean[floorMean]/mean[0], c.name+"-native/floor-mean")
	b.ReportMetric(tail[floorTail]/tail[0], c.name+"-native/floor-p99.9")
}

// benchInt is the positive whole number the environment variable name
// holds, or def.
func benchInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// median is the middle of xs (the mean of the two middle ones for an even
// count), 0 for none; xs is sorted in place.
// spread is xs' median with its min and max: "1.180 (1.070–1.360)".
func spread(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f (%.3f–%.3f)", median(xs), slices.Min(xs), slices.Max(xs))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	m := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		m = (xs[len(xs)/2-1] + m) / 2
	}
	return m
}

// crossCPU pins two threads of its own to a CPU each; none of them may go
// back to the pool so, or fio and the engine's threads started after it
// would inherit one CPU (a sitting ran so once: every thread count on one
// CPU).
func TestCrossCPULeavesNoPinnedThread(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs 2 CPUs")
	}
	want := allowedList(t, "/proc/self/status")
	require.NotZero(t, crossCPU(t, 100)) // few: a loaded CI host makes each slow
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	require.NoError(t, err)
	for _, task := range tasks {
		if got := allowedList(t, task); got != "" { // "": the thread ended meanwhile
			require.Equal(t, want, got, task)
		}
	}
}

// allowedList is the Cpus_allowed_list of a /proc status file, "" when it
// is gone.
func allowedList(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return ""
	}
	require.NoError(t, err)
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("%s: no Cpus_allowed_list", path)
	return ""
}
