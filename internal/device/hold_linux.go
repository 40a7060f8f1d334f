package device

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

var errBusy = unix.EBUSY

// openExclusive opens a block device read-only with O_EXCL, which on
// Linux claims it exclusively for as long as the file is open.
func openExclusive(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_EXCL|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFBLK {
		f.Close()
		if err == nil {
			err = errors.New("not a block device")
		}
		return nil, err
	}
	return f, nil
}
