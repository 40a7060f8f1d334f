package device

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// hold is a block device opened with O_EXCL.
type hold struct {
	path string
	f    *os.File
}

// HoldExclusive claims each block device of paths exclusively (O_EXCL)
// until Release: while it is held, the kernel refuses every other
// exclusive claim on it with EBUSY (a mount, md, dm, LVM, mkfs,
// blkdiscard, another ptsrun), and one on its whole disk too. Ordinary
// opens still work: the engines (ptsrun's own, fio) and the purge tools
// (nvme-cli, hdparm, sg3-utils) open it without O_EXCL. A device that another holds (mounted, in an array, held by
// another program) is refused with an error wrapping ErrUnsafe, and
// nothing stays held.
func HoldExclusive(paths []string) (*Holds, error) {
	h := &Holds{}
	for _, p := range paths {
		f, err := openExclusive(p)
		if err != nil {
			h.Release()
			if errors.Is(err, errBusy) {
				return nil, fmt.Errorf("%w: %s is in use: another program holds it exclusively (a mount, md, dm or LVM, "+
					"or a program that opened it with O_EXCL), so ptsrun cannot hold it while it writes", ErrUnsafe, p)
			}
			return nil, fmt.Errorf("holding %s exclusively: %w", p, err)
		}
		h.held = append(h.held, hold{path: p, f: f})
	}
	return h, nil
}

// Holds are the block devices a run holds exclusively.
type Holds struct {
	held []hold
}

// Paths are the devices held; none for a nil Holds.
func (h *Holds) Paths() []string {
	if h == nil {
		return nil
	}
	var out []string
	for _, x := range h.held {
		out = append(out, x.path)
	}
	return out
}

// Release lets go of every device; a nil Holds holds nothing.
func (h *Holds) Release() error {
	if h == nil {
		return nil
	}
	var errs []string
	for _, x := range h.held {
		if err := x.f.Close(); err != nil {
			errs = append(errs, err.Error())
		}
	}
	h.held = nil
	if len(errs) > 0 {
		return fmt.Errorf("releasing the devices held: %s", strings.Join(errs, "; "))
	}
	return nil
}
