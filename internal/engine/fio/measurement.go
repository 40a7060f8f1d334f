package fio

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// measurement maps fio's jobs to the targets and merges them.
func (e *Engine) measurement(out *Output, w engine.Workload) (engine.Measurement, error) {
	m := engine.Measurement{Engine: e.Describe()}
	found := make([]bool, len(e.targets))
	per := make([]engine.TargetStats, len(e.targets))
	jobs := make([]Job, len(e.targets))
	for _, j := range out.Jobs {
		if j.Error != 0 {
			return m, fmt.Errorf("%w: fio job %s%s ended with error %d (%s)", engine.ErrIO, j.Name, onHost(j),
				j.Error, syscall.Errno(j.Error).Error())
		}
		if isRampJob(j.Name) {
			continue // its I/Os are in the series only
		}
		idx := e.targetIndex(j, "t")
		if idx < 0 || found[idx] {
			return m, fmt.Errorf("fio output has an unexpected job %q%s", j.Name, onHost(j))
		}
		found[idx] = true
		jobs[idx] = j
		r, wr := j.Read.Stats(), j.Write.Stats()
		per[idx] = engine.TargetStats{Target: e.targets[idx].Name, Host: e.targets[idx].Server, Read: r, Write: wr}
		m.Read.Merge(r)
		m.Write.Merge(wr)
		m.Elapsed = max(m.Elapsed, j.Elapsed())
		m.MaxDepth = max(m.MaxDepth, j.MaxDepth)
	}
	for i, ok := range found {
		if !ok {
			return m, fmt.Errorf("fio output has no result for %s", e.targets[i].Name)
		}
	}
	// Through fio servers, fio's own account of its job threads is the only
	// CPU figure there is; on this host wait measures the whole process.
	if e.hosts[0] != "" {
		m.CPU.Of = engine.CPUOfOne
	}
	for i := range per {
		c := jobCPU(jobs[i], w.TC, m.Elapsed)
		per[i].CPU = &c
		if e.hosts[0] != "" {
			m.CPU = m.CPU.Add(c)
		}
	}
	if len(e.targets) > 1 {
		m.Targets = per
	}
	return m, nil
}

// jobCPU is the CPU time of one target's job threads per second of
// elapsed, in CPUs. fio's usr_cpu and sys_cpu are percent of the group's
// summed thread run time (job_runtime, the sum over its tc threads), so
// they are the mean per thread; fio before job_runtime ran each thread for
// about the elapsed time.
func jobCPU(j Job, tc int, elapsed time.Duration) engine.CPU {
	c := engine.CPU{Of: engine.CPUOfOne}
	if elapsed <= 0 {
		return c
	}
	threads := float64(max(tc, 1))
	if j.JobRuntime > 0 {
		threads = j.JobRuntime.Seconds() / elapsed.Seconds()
	}
	c.User = j.UsrCPU / 100 * threads
	c.Sys = j.SysCPU / 100 * threads
	return c
}

// targetIndex is the target of job <prefix><n>: the n-th target of the
// job's host; -1 for other jobs.
func (e *Engine) targetIndex(j Job, prefix string) int {
	rest, ok := strings.CutPrefix(j.Name, prefix)
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return -1
	}
	k := 0
	for ti, t := range e.targets {
		if addrMatches(t.Server, j) {
			if k == n {
				return ti
			}
			k++
		}
	}
	return -1
}

func onHost(j Job) string {
	if j.Host == "" {
		return ""
	}
	return fmt.Sprintf(" on %s:%d", j.Host, j.Port)
}

func addrMatches(server string, j Job) bool {
	if server == "" {
		return j.Host == ""
	}
	host, port, _ := strings.Cut(server, ":")
	p, _ := strconv.Atoi(port)
	return j.Port == p && (j.Host == host || host == "localhost" || j.Host == "")
}

// readIOLog reads one I/O log ("fio version 3 iolog": time, file, action,
// offset, length).
func readIOLog(path string, target, thread, limit int) []engine.TraceIO {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []engine.TraceIO
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < limit {
		fs := strings.Fields(sc.Text())
		if len(fs) != 5 || (fs[2] != "read" && fs[2] != "write") {
			continue
		}
		off, err1 := strconv.ParseInt(fs[3], 10, 64)
		size, err2 := strconv.ParseInt(fs[4], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, engine.TraceIO{Target: target, Thread: thread, Offset: off, Size: size, Read: fs[2] == "read"})
	}
	return out
}

// readIOLogs reads fio's write_iolog files, one per thread.
func (e *Engine) readIOLogs(dir string) []engine.TraceIO {
	var out []engine.TraceIO
	for hi, h := range e.hosts {
		k := 0
		for ti, t := range e.targets {
			if t.Server != h {
				continue
			}
			logs, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("iolog.h%d.t%d.*", hi, k)))
			k++
			sort.Strings(logs)
			for _, l := range logs {
				th, _ := strconv.Atoi(l[strings.LastIndexByte(l, '.')+1:])
				out = append(out, readIOLog(l, ti, th, e.opts.Trace)...)
			}
		}
	}
	return out
}
