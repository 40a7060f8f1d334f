//go:build !linux

package fio

import (
	"os"
	"runtime"
)

// LiveHost is what fio puts for $pagesize and $ncpus on this host; the
// memory size is not known here.
func LiveHost() Host {
	return Host{PageSize: int64(os.Getpagesize()), NCPUs: int64(runtime.NumCPU())}
}
