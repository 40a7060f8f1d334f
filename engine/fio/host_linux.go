package fio

import (
	"os"
	"path/filepath"
	"regexp"

	"golang.org/x/sys/unix"
)

var cpuDir = regexp.MustCompile(`/cpu[0-9]+$`)

// LiveHost is what fio puts for $pagesize, $mb_memory and $ncpus on this
// host: the page size, the physical memory in MiB (sysconf
// _SC_PHYS_PAGES × _SC_PAGESIZE), and the CPUs configured (glibc counts
// /sys/devices/system/cpu/cpuN).
func LiveHost() Host {
	h := Host{PageSize: int64(os.Getpagesize())}
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil {
		h.MemMB = int64(uint64(si.Totalram) * uint64(si.Unit) / (1 << 20))
	}
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu*")
	for _, d := range dirs {
		if cpuDir.MatchString(d) {
			h.NCPUs++
		}
	}
	return h
}
