package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/matrix"
)

func TestWorkloadOnLoopDevice(t *testing.T) {
	t.Parallel() // real I/O of fixed times on devices of its own: beside the other device tests
	dev := enginetest.LoopDevice(t, 256<<20, "")
	for _, eng := range []string{"native", "fio"} {
		t.Run(eng, func(t *testing.T) {
			if eng == "fio" {
				enginetest.NeedFio(t)
			}
			code, stdout, stderr := ptsrun("workload", "--target", dev, "--engine", eng, "--read", "70", "--bs", "4k",
				"--tc", "2", "--qd", "8", "--time", "2s", "--destroy-data", dev, "--json")
			require.Equal(t, 0, code, stderr)
			var r workloadResult
			require.NoError(t, json.Unmarshal([]byte(stdout), &r))
			assert.Contains(t, r.Engine, eng)
			assert.Positive(t, r.Total.IOPS)
			// Five standard deviations of a binomial share of the run's I/Os.
			n := float64(r.Total.IOs)
			assert.InDelta(t, 70, 100*float64(r.Read.IOs)/n, 100*5*math.Sqrt(0.7*0.3/n)+0.01, "the read share of %.0f I/Os", n)
			assert.Contains(t, r.Total.Percentiles, "99.999")
			assert.GreaterOrEqual(t, r.Elapsed, 1.9)

			// Recording a directory with the per-second series.
			out := filepath.Join(t.TempDir(), "w")
			code, stdout, stderr = ptsrun("workload", "--target", dev, "--engine", eng, "--access", "seq", "--read", "100",
				"--bs", "128k", "--tc", "1", "--qd", "4", "--time", "2s", "--out", out)
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, stdout, "read")
			csv, err := os.ReadFile(filepath.Join(out, "seconds.csv"))
			require.NoError(t, err)
			assert.GreaterOrEqual(t, strings.Count(string(csv), "\n"), 2)
		})
	}
	// Writing without naming the device is refused, and nothing is written.
	code, _, stderr := ptsrun("workload", "--target", dev, "--read", "0", "--time", "1s")
	assert.Equal(t, 4, code)
	assert.Contains(t, stderr, "--destroy-data "+dev)
	// Reading needs no confirmation.
	code, _, stderr = ptsrun("workload", "--target", dev, "--read", "100", "--time", "1s")
	assert.Equal(t, 0, code, stderr)
}

func TestRunOnLoopDeviceWithEachEngine(t *testing.T) {
	// Mostly waiting on cells of real I/O: beside the other long device tests,
	// each on a loop device of its own.
	t.Parallel()
	for _, eng := range []string{"native", "fio"} {
		t.Run(eng, func(t *testing.T) {
			t.Parallel()
			dev := enginetest.LoopDevice(t, 128<<20, "")
			if eng == "fio" {
				enginetest.NeedFio(t)
			}
			dir := filepath.Join(t.TempDir(), "run")
			// A blank loop device has no PTS purge: auto takes discard.
			code, _, stderr := ptsrun("run", "--target", dev, "--engine", eng, "--tests", "lat", "--cell-time", "1s",
				"--ss-window", "2", "--max-rounds", "2", "--destroy-data", dev, "--out", dir)
			require.Contains(t, []int{0, 3}, code, stderr)
			res, ri, err := matrix.Load(dir)
			require.NoError(t, err)
			assert.True(t, res.Complete)
			assert.Contains(t, ri.Engine, eng)
			st := res.Tests[0].Stages[0]
			assert.GreaterOrEqual(t, st.Rounds, 2)
			for _, c := range st.Cells {
				assert.Positive(t, c.IOPS, c.Key)
				assert.Equal(t, 1, c.TC)
			}
			assert.Equal(t, "block", ri.Targets[0].Kind)
			assert.Equal(t, int64(128<<20), ri.Targets[0].CapacityBytes)
			if eng == "fio" {
				jobs, _ := filepath.Glob(filepath.Join(dir, "fio", "lat-r01-c*.fio"))
				assert.Len(t, jobs, 9, "one job file per cell, kept")
			}
			codes := map[string]bool{}
			for _, d := range res.Deviations {
				codes[d.Code] = true
			}
			assert.True(t, codes["purge_substitute"] && codes["cell_time"] && codes["write_cache"], "%v", codes)
			require.NotNil(t, st.Purge)
			assert.Equal(t, "discard", st.Purge.Method)
			assert.False(t, st.Purge.Compliant)
			assert.Contains(t, st.Purge.Verified, "read back as zeros")
			require.NotNil(t, st.Precondition)
			assert.Equal(t, int64(2*(128<<20)), st.Precondition.Bytes, "WIPC writes exactly twice the capacity")
		})
	}
}

// A 4Kn device cannot do 0.5 KiB I/O: those cells are left out, the
// results say so, and the rest of the matrix runs.
func TestRunOn4KnLoopDevice(t *testing.T) {
	t.Parallel() // real I/O of fixed times on devices of its own: beside the other device tests
	dev := enginetest.LoopDeviceSector(t, 128<<20, "", 4096)
	dir := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := ptsrun("plan", "--target", dev, "--tests", "lat")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "0.5 KiB")
	code, _, stderr = ptsrun("run", "--target", dev, "--tests", "lat", "--cell-time", "1s",
		"--ss-window", "2", "--max-rounds", "2", "--destroy-data", dev, "--out", dir)
	require.Contains(t, []int{0, 3}, code, stderr)
	res, ri, err := matrix.Load(dir)
	require.NoError(t, err)
	assert.Equal(t, int64(4096), ri.Config.MinBlock)
	assert.Equal(t, int64(4096), ri.Targets[0].LogicalBlock)
	st := res.Tests[0].Stages[0]
	assert.Len(t, st.Cells, 6, "3 mixes × 4 and 8 KiB")
	for _, c := range st.Cells {
		assert.NotEqual(t, int64(512), c.BlockSize)
		assert.Positive(t, c.IOPS, c.Key)
	}
	codes := map[string]string{}
	for _, d := range res.Deviations {
		codes[d.Code] = d.Text
	}
	assert.Equal(t, "The 0.5 KiB cells were left out: the target's logical block size is 4096 bytes, and no I/O can be smaller.", codes["block_sizes"])
	csv, err := os.ReadFile(filepath.Join(dir, "tables", "lat_mean_ms.csv"))
	require.NoError(t, err)
	assert.Contains(t, string(csv), "\n0.5KiB,,,\n", "the PTS row is there, empty")
}

// ptsrun devices lists a fresh loop device with its verdict.
func TestDevicesCommand(t *testing.T) {
	dev := enginetest.LoopDevice(t, 64<<20, "")
	code, stdout, stderr := ptsrun("devices", "--json")
	require.Equal(t, 0, code, stderr)
	var list []deviceEntry
	require.NoError(t, json.Unmarshal([]byte(stdout), &list))
	found := false
	for _, e := range list {
		if e.Path == dev {
			found = true
			assert.Equal(t, "loop", e.Interface)
			assert.Equal(t, int64(64<<20), e.CapacityBytes)
			assert.True(t, e.Verdict.Usable)
			assert.Equal(t, dev, e.Verdict.Confirm)
			assert.Contains(t, e.Notes, "backed by /dev/shm/")
		}
		if root := rootDevice(t); root != "" && e.Path == root {
			assert.False(t, e.Verdict.Usable, "the root disk is refused")
		}
	}
	assert.True(t, found, "%s is listed", dev)
	code, stdout, _ = ptsrun("devices")
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, filepath.Base(dev))
	assert.Contains(t, stdout, "usable with --destroy-data "+dev)
}

// Two fio servers on this host, each loading its own loop device: one run
// loads both at once and reports each.
func TestRunAcrossTwoFioServers(t *testing.T) {
	t.Parallel() // real I/O of fixed times on devices of its own: beside the other device tests
	enginetest.NeedRoot(t, "losetup", "fio")
	a := enginetest.LoopDevice(t, 128<<20, "")
	b := enginetest.LoopDevice(t, 128<<20, "")
	servers := enginetest.FioServers(t, 2)
	sa, sb := servers[0]+"="+a, servers[1]+"="+b
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--fio-server", sa, "--fio-server", sb, "--tests", "tp", "--profile", "client",
		"--cell-time", "1s", "--ss-window", "2", "--max-rounds", "2", "--purge", "none", "--out", dir}
	code, _, stderr := ptsrun(args...)
	assert.Equal(t, 4, code, "remote targets need --destroy-data")
	assert.Contains(t, stderr, "--destroy-data "+sa)
	code, _, stderr = ptsrun(append(args, "--destroy-data", sa, "--destroy-data", sb)...)
	require.Contains(t, []int{0, 3}, code, stderr)
	res, _, err := matrix.Load(dir)
	require.NoError(t, err)
	st := res.Tests[0].Stages[0]
	require.NotEmpty(t, st.Cells)
	for _, c := range st.Cells {
		require.Len(t, c.Targets, 2, "per target: %s", c.Key)
		assert.Equal(t, sa, c.Targets[0].Target)
		assert.Equal(t, sb, c.Targets[1].Target)
		assert.InDelta(t, c.MBps, c.Targets[0].MBps+c.Targets[1].MBps, 0.01*c.MBps, "aggregate is the sum")
		// Host CPU from fio's usr_cpu and sys_cpu, per target and summed.
		require.NotNil(t, c.CPU, "host CPU of %s", c.Key)
		assert.Equal(t, engine.CPUOfOne, c.CPU.Of)
		for _, tc := range c.Targets {
			// fio's figure, passed on (jobCPU's arithmetic is unit-tested):
			// a job thread starved by a loaded host may show less than one
			// clock tick of CPU, 0 %.
			require.NotNil(t, tc.CPU, "host CPU of %s on %s", c.Key, tc.Target)
			assert.GreaterOrEqual(t, tc.CPU.Pct(), 0.0, "host CPU of %s on %s", c.Key, tc.Target)
		}
		assert.InDelta(t, c.CPU.Pct(), c.Targets[0].CPU.Pct()+c.Targets[1].CPU.Pct(), 1e-6)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "tables", "targets_mbps.csv"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(csv), "cell,"+sa+","+sb+"\n"), "one column per server's target: %s", csv)
	csv, err = os.ReadFile(filepath.Join(dir, "tables", "targets_cpu_pct.csv"))
	require.NoError(t, err, "host CPU per target")
	assert.True(t, strings.HasPrefix(string(csv), "cell,"+sa+","+sb+"\n"), "%s", csv)
	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", filepath.Join(dir, "report.pdf"), "-").Output()
		require.NoError(t, err)
		assert.Contains(t, string(out), "Host CPU per target, user + system, % of one CPU")
	}

	code, stdout, stderr := ptsrun("workload", "--fio-server", sa, "--fio-server", sb, "--read", "100", "--time", "1s", "--json")
	require.Equal(t, 0, code, stderr)
	var r workloadResult
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	require.Len(t, r.PerTgt, 2)
	assert.NotEmpty(t, r.PerTgt[0].Host)
	// Measured on the servers' hosts (fio's usr_cpu and sys_cpu, which a
	// starved job thread may show as 0), per target and summed.
	assert.Equal(t, engine.CPUOfOne, r.CPU.Of, "host CPU of the servers' hosts")
	var sum float64
	for _, tg := range r.PerTgt {
		require.NotNil(t, tg.CPU, tg.Target)
		assert.GreaterOrEqual(t, tg.CPU.User+tg.CPU.Sys, 0.0, tg.Target)
		sum += tg.CPU.User + tg.CPU.Sys
	}
	assert.InDelta(t, sum, r.CPU.User+r.CPU.Sys, 1e-9, "the set's CPU is its targets'")
}

func TestRealTargetBadInput(t *testing.T) {
	dev := enginetest.LoopDevice(t, 64<<20, "")
	out := func() string { return filepath.Join(t.TempDir(), "run") }
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing device", []string{"run", "--target", "/dev/nonexistent-ptsrun", "--purge", "none"}, 1, "no such device"},
		{"not a block device", []string{"run", "--target", "/etc/hostname", "--purge", "none"}, 1, "is not a block device (for a file, write file:/etc/hostname)"},
		{"file too big", []string{"run", "--target", "file:" + filepath.Join(t.TempDir(), "big.img") + ":100T", "--purge", "none"}, 1, "does not fit"},
		{"file on tmpfs", []string{"run", "--target", "file:/dev/shm/ptsrun-test.img:1m", "--purge", "none"}, 1, "cannot do direct I/O"},
		{"unconfirmed", []string{"run", "--target", dev, "--purge", "none"}, 4, "--destroy-data " + dev},
		{"tc zero", []string{"workload", "--target", dev, "--tc", "0"}, 1, "thread count 0"},
		{"bad block size", []string{"workload", "--target", dev, "--bs", "3000"}, 1, "not a multiple"},
		{"unreachable fio server", []string{"workload", "--fio-server", "127.0.0.1:1=" + dev, "--read", "100", "--time", "1s"}, 1, "is not reachable"},
		{"target too small for the test", []string{"run", "--target", dev, "--destroy-data", dev, "--tests", "iops", "--active-range", "3"}, 1,
			"cannot take IOPS RND 1024 KiB 100/0 TC4/QD32 AR 3%: invalid workload: 3 % of 67108864 bytes leaves 1048576 bytes"},
		{"purge method for another interface", []string{"run", "--target", dev, "--destroy-data", dev, "--purge", "nvme-sanitize"}, 1,
			"purge method nvme-sanitize does not apply to " + dev + " (loop)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			dir := ""
			if args[0] == "run" {
				dir = out()
				args = append(args, "--out", dir)
			}
			code, _, stderr := ptsrun(args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.msg)
			if dir != "" {
				_, err := os.Stat(dir)
				assert.True(t, os.IsNotExist(err), "nothing made")
			}
		})
	}
	_, err := os.Stat("/dev/shm/ptsrun-test.img")
	assert.True(t, os.IsNotExist(err))

	// A read-only device is refused for writing whatever --destroy-data says.
	ro := enginetest.LoopDevice(t, 64<<20, "")
	require.NoError(t, exec.Command("blockdev", "--setro", ro).Run())
	code, _, stderr := ptsrun("workload", "--target", ro, "--read", "0", "--time", "1s", "--destroy-data", ro)
	assert.Equal(t, 4, code)
	assert.Contains(t, stderr, "read-only")

	// The mounted root filesystem's disk is refused.
	if root := rootDevice(t); root != "" {
		code, _, stderr = ptsrun("workload", "--target", root, "--read", "0", "--time", "1s", "--destroy-data", root)
		assert.Equal(t, 4, code)
		assert.Contains(t, stderr, "refusing to write to "+root)
	}

	// fio missing: a clear message, exit 1.
	t.Setenv("PATH", t.TempDir())
	code, _, stderr = ptsrun("workload", "--target", dev, "--engine", "fio", "--read", "100", "--time", "1s")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "fio is not available")
}

// rootDevice is the block device mounted at /, when it is one.
func rootDevice(t *testing.T) string {
	out, err := exec.Command("findmnt", "-n", "-o", "SOURCE", "/").Output()
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(out))
	if !strings.HasPrefix(s, "/dev/") {
		return ""
	}
	return s
}

// A device that fails its writes (a loop device whose backing tmpfs is full)
// stops the run with exit 1 and the error in the journal, results and report;
// the journal stays valid and the workload command says what failed.
func TestIOErrorStopsTheRunCleanly(t *testing.T) {
	t.Parallel() // devices and directories of its own: beside the other device tests
	dev := enginetest.FullLoopDevice(t, 64<<20, 8<<20)
	for _, eng := range []string{"native", "fio"} {
		t.Run(eng, func(t *testing.T) {
			if eng == "fio" {
				enginetest.NeedFio(t)
			}
			code, _, stderr := ptsrun("workload", "--target", dev, "--engine", eng, "--access", "seq", "--read", "0",
				"--bs", "128k", "--qd", "4", "--time", "3s", "--destroy-data", dev)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, "I/O error")
			assert.Contains(t, stderr, dev)
			assert.Contains(t, strings.ToLower(stderr), "no space left on device")

			// The discard purge frees the tmpfs; preconditioning then fills it.
			dir := filepath.Join(t.TempDir(), "run")
			code, _, stderr = ptsrun("run", "--target", dev, "--engine", eng, "--tests", "iops,lat", "--cell-time", "1s",
				"--destroy-data", dev, "--out", dir)
			require.Equal(t, 1, code, stderr)
			assert.Contains(t, stderr, "preconditioning before IOPS: I/O error")

			journal, err := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(journal)), "\n")
			for i, l := range lines {
				require.True(t, json.Valid([]byte(l)), "journal line %d: %s", i+1, l)
			}
			assert.Contains(t, lines[len(lines)-1], `"type":"error"`)

			code, stdout, stderr := ptsrun("report", dir)
			require.Equal(t, 0, code, stderr)
			res, _, err := matrix.Load(dir)
			require.NoError(t, err)
			assert.False(t, res.Complete)
			iops, lat := res.Tests[0].Stages[0], res.Tests[1].Stages[0]
			assert.True(t, iops.Started)
			assert.Contains(t, iops.Error, "no space left on device")
			assert.False(t, lat.Started)
			codes := map[string]string{}
			for _, d := range res.Deviations {
				codes[d.Code] = d.Text
			}
			assert.Contains(t, codes["error"], "IOPS: stopped by an error after 0 complete rounds")
			assert.Equal(t, "Latency: not run; the run stopped before it.", codes["not_run"])
			assert.Contains(t, stdout, "IOPS:                  stopped by an error before its first round", "the summary is stdout's")

			if _, err := exec.LookPath("pdftotext"); err == nil {
				out, err := exec.Command("pdftotext", filepath.Join(dir, "report.pdf"), "-").Output()
				require.NoError(t, err)
				text := string(out)
				assert.Contains(t, text, "No results: IOPS")
				assert.Contains(t, text, "STAGE NOT RUN")
				assert.Contains(t, text, "IOPS — stopped by an error")
			}
		})
	}
}

// liveProcesses lists the processes, other than zombies, whose command line
// mentions dir.
func liveProcesses(dir string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmdline, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), dir) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(p, "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		out = append(out, filepath.Base(p)+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}

// Stopping ptsrun in the middle of a fio cell stops fio with it. SIGINT
// exits 130 with the journal intact, without waiting on the cell held ready
// behind the running one; SIGKILL takes fio down too, so that no orphan goes
// on writing (nor the held cell starting) while the user resumes on the same
// device. Either way, resume then completes the run.
func TestStopDuringFioCell(t *testing.T) {
	enginetest.NeedFio(t)
	// Mostly waiting on fio: beside the other long device tests, each
	// signal on a device of its own.
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dev := enginetest.LoopDevice(t, 128<<20, "")
			dir := filepath.Join(t.TempDir(), "run")
			cmd := exec.Command(binary, "run", "--target", dev, "--engine", "fio", "--tests", "tp", "--cell-time", "1s",
				"--ss-window", "2", "--max-rounds", "2", "--destroy-data", dev, "--out", dir)
			require.NoError(t, cmd.Start())
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				if b, _ := os.ReadFile(filepath.Join(dir, "journal.jsonl")); strings.Contains(string(b), `"round_start"`) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			// Inside the first cell: its fio is running. Polled, not slept
			// for: a loaded host starts fio when it can.
			fios := 0
			for end := time.Now().Add(60 * time.Second); fios == 0 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				for _, p := range liveProcesses(dir) {
					if strings.Contains(p, "fio ") {
						fios++
					}
				}
			}
			require.Positive(t, fios, "a fio cell should be running")
			require.NoError(t, cmd.Process.Signal(sig))
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if sig == syscall.SIGINT {
					var ee *exec.ExitError
					require.ErrorAs(t, err, &ee)
					assert.Equal(t, 130, ee.ExitCode())
				}
			case <-time.After(60 * time.Second): // a hang, not a slow stop
				_ = cmd.Process.Kill()
				t.Fatalf("ptsrun did not stop within 60 s of %v", sig)
			}
			var left []string
			for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				if left = liveProcesses(dir); len(left) == 0 {
					break
				}
			}
			assert.Empty(t, left, "processes of the stopped run still alive")

			code, _, stderr := ptsrun("resume", dir, "--destroy-data", dev) // whoever resumes confirms again
			require.Contains(t, []int{0, 3}, code, stderr)
			res, _, err := matrix.Load(dir)
			require.NoError(t, err)
			assert.True(t, res.Complete)
		})
	}
}

// watchWriter calls f, as it is written, with every line that holds
// match: the runner waits for the write, so f sees the moment it reports.
type watchWriter struct {
	bytes.Buffer
	match string
	f     func(line string)
}

func (w *watchWriter) Write(b []byte) (int, error) {
	if strings.Contains(string(b), w.match) {
		w.f(string(b))
	}
	return w.Buffer.Write(b)
}

// zeroDevice says whether a device holds only zeros.
func zeroDevice(t *testing.T, dev string) bool {
	t.Helper()
	b, err := os.ReadFile(dev)
	require.NoError(t, err)
	require.NotEmpty(t, b)
	return bytes.Count(b, []byte{0}) == len(b)
}

// fillRandom writes random data over a whole device.
func fillRandom(t *testing.T, dev string) {
	t.Helper()
	out, err := exec.Command("dd", "if=/dev/urandom", "of="+dev, "bs=1M", "oflag=direct", "status=none").CombinedOutput()
	if err != nil && !strings.Contains(string(out), "No space left") {
		t.Fatalf("filling %s: %v: %s", dev, err, out)
	}
	require.False(t, zeroDevice(t, dev))
}

// Targets on fio servers are purged by the substitutes the servers can
// run, an fio trim or zero-fill job, labelled as not a PTS purge; the PTS
// purges are refused for them.
func TestRunPurgesFioServerTargets(t *testing.T) {
	// Mostly waiting on cells of real I/O: beside the other long device tests,
	// each on a loop device of its own.
	t.Parallel()
	enginetest.NeedRoot(t, "losetup", "fio", "dd")
	// Two loop devices, each behind a fio server: a set of its own for
	// each subtest, which run beside each other.
	devices := func(t *testing.T) (a, b, sa, sb string, servers []string) {
		a, b = enginetest.LoopDevice(t, 64<<20, ""), enginetest.LoopDevice(t, 64<<20, "")
		servers = enginetest.FioServers(t, 2)
		return a, b, servers[0] + "=" + a, servers[1] + "=" + b, servers
	}
	_, _, sa, sb, _ := devices(t)
	args := func(dir, purge, sa, sb string) []string {
		return []string{"ptsrun", "run", "--fio-server", sa, "--fio-server", sb, "--destroy-data", sa, "--destroy-data", sb,
			// One stage: the client profile's throughput test runs 1024
			// and 128 KiB (both PTS 2.0 forks' reading).
			"--tests", "tp", "--profile", "client", "--block-sizes", "1024k", "--cell-time", "1s", "--ss-window", "2", "--max-rounds", "2",
			"--purge", purge, "--out", dir}
	}
	for _, purge := range []string{"nvme-sanitize", "ata-secure-erase", "sim-format"} {
		dir := filepath.Join(t.TempDir(), "run")
		var o, e bytes.Buffer
		assert.Equal(t, 1, run(args(dir, purge, sa, sb), &o, &e), purge)
		if purge == "sim-format" {
			assert.Contains(t, e.String(), "applies only to simulated drives")
		} else {
			assert.Contains(t, e.String(), "purge method "+purge+" cannot reach targets on fio servers")
			assert.Contains(t, e.String(), "use --purge auto, discard or zero-fill")
		}
		_, err := os.Stat(dir)
		assert.True(t, os.IsNotExist(err), "nothing made")
	}

	for _, tc := range []struct{ purge, method, checked string }{
		{"zero-fill", "zero-fill", "64 random 4 KiB blocks read back as zeros"},
		{"discard", "discard", "bytes trimmed without an error"},
		{"auto", "discard", "bytes trimmed without an error"}, // loop devices take discards
	} {
		t.Run(tc.purge, func(t *testing.T) {
			t.Parallel()
			a, b, sa, sb, servers := devices(t)
			fillRandom(t, a)
			fillRandom(t, b)
			dir := filepath.Join(t.TempDir(), "run")
			seen := 0
			// The moment the purge is reported, before preconditioning
			// writes over it: both devices read as zeros (a loop device
			// reads trimmed blocks as zeros).
			stderr := &watchWriter{match: "NOT a PTS purge", f: func(line string) {
				seen++
				assert.True(t, zeroDevice(t, a), "%s purged: %s", a, line)
				assert.True(t, zeroDevice(t, b), "%s purged: %s", b, line)
			}}
			var stdout bytes.Buffer
			code := run(args(dir, tc.purge, sa, sb), &stdout, stderr)
			require.Contains(t, []int{0, 3}, code, stderr.String())
			assert.Equal(t, 1, seen, "one purge reported: %s", stderr.String())

			res, _, err := matrix.Load(dir)
			require.NoError(t, err)
			st := res.Tests[0].Stages[0]
			require.NotNil(t, st.Purge)
			p := st.Purge
			assert.Equal(t, tc.method, p.Method)
			assert.False(t, p.Compliant)
			assert.Contains(t, p.Note, "not a PTS purge")
			for _, s := range []string{sa, sb} {
				assert.Contains(t, p.Verified, s+": fio reports 67108864 bytes")
			}
			assert.Contains(t, p.Verified, tc.checked)
			require.Len(t, p.Commands, 1, "one fio invocation through both servers")
			cmd := strings.Join(p.Commands[0].Args, " ")
			for _, s := range servers {
				assert.Contains(t, cmd, "--client=ip:"+strings.Replace(s, ":", ",", 1))
			}
			assert.Zero(t, p.Commands[0].Exit)
			job := p.Commands[0].Args[len(p.Commands[0].Args)-1]
			assert.FileExists(t, job, "the job file is kept in the run directory")

			var dev string
			for _, d := range res.Deviations {
				if d.Code == "purge_substitute" {
					dev = d.Text
				}
			}
			assert.Equal(t, "Throughput 1024 KiB: the device was prepared with "+tc.method+", a substitute that is not a PTS purge.", dev)
			if _, err := exec.LookPath("pdftotext"); err == nil {
				out, err := exec.Command("pdftotext", filepath.Join(dir, "report.pdf"), "-").Output()
				require.NoError(t, err)
				text := strings.Join(strings.Fields(string(out)), " ")
				assert.Contains(t, text, tc.method+" (substitute, NOT a PTS purge)")
				assert.Contains(t, text, "purge "+tc.method+" (a substitute, NOT a PTS purge)")
			}
		})
	}
}
