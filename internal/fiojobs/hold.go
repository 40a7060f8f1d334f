package fiojobs

import (
	"slices"

	"github.com/ptsrun/ptsrun/internal/device"
)

// holdWritten holds exclusively (device.HoldExclusive) every block device
// on this host that job file k writes, for as long as its fio runs: fio
// opens them without O_EXCL, so a mount, md, dm or LVM claim fails with
// EBUSY meanwhile.
func (f *Jobs) holdWritten(k int) (*device.Holds, error) {
	var paths []string
	for _, th := range f.Plan.Threads {
		if th.File != k || !th.Writes {
			continue
		}
		for _, i := range th.Targets {
			t := f.Plan.Targets[i]
			if t.Kind == kindBlock && t.Written && t.Host == "" && !slices.Contains(paths, t.Path) {
				paths = append(paths, t.Path)
			}
		}
	}
	return device.HoldExclusive(paths)
}
