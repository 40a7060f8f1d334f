package device

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/ptsrun/ptsrun/internal/cpuidle"
)

// Host is the test platform (PTS §5: test system hardware and software).
type Host struct {
	Hostname    string `json:"hostname"`
	OS          string `json:"os"`
	Kernel      string `json:"kernel"`
	Arch        string `json:"arch"`
	CPUModel    string `json:"cpu_model"`
	CPUs        int    `json:"cpus"`
	MemoryBytes int64  `json:"memory_bytes"`
	// DMI names the motherboard; absent in run.json files older than it.
	DMI    DMI    `json:"dmi,omitzero"`
	Ptsrun string `json:"ptsrun_version"`
	Go     string `json:"go_version"`
	Fio    string `json:"fio_version,omitempty"`
	// CPUIdle is the idle states of the host's CPUs and what ptsrun held
	// of them while it measured; absent for simulated drives and fio
	// servers, and in run.json files older than it.
	CPUIdle *cpuidle.State `json:"cpu_idle,omitempty"`
}

// FS is a root to read /proc, /sys and /etc from; "/" on a live system.
type FS struct{ Root string }

func (fs FS) path(p string) string { return filepath.Join(fs.Root, p) }

func (fs FS) read(p string) string {
	b, err := os.ReadFile(fs.path(p))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// ProbeHost describes the host from fs.
func (fs FS) ProbeHost(version string) Host {
	h := Host{
		Hostname: fs.read("proc/sys/kernel/hostname"),
		Kernel:   fs.read("proc/sys/kernel/osrelease"),
		Arch:     runtime.GOARCH,
		Ptsrun:   version,
		Go:       runtime.Version(),
	}
	h.OS = parseOSRelease(fs.read("etc/os-release"))
	h.CPUModel, h.CPUs = parseCPUInfo([]byte(fs.read("proc/cpuinfo")))
	h.MemoryBytes = parseMemTotal([]byte(fs.read("proc/meminfo")))
	h.DMI = fs.ProbeDMI()
	return h
}

func parseOSRelease(s string) string {
	vals := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok {
			vals[k] = strings.Trim(v, `"'`)
		}
	}
	if v := vals["PRETTY_NAME"]; v != "" {
		return v
	}
	return strings.TrimSpace(vals["NAME"] + " " + vals["VERSION"])
}

func parseCPUInfo(b []byte) (model string, n int) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			n++
		case "model name":
			if model == "" {
				model = strings.TrimSpace(v)
			}
		}
	}
	return model, n
}

func parseMemTotal(b []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}
