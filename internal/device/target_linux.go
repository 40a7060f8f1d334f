package device

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

func deviceNumber(path string) (string, bool, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", false, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return "", false, nil
	}
	return fmt.Sprintf("%d:%d", unix.Major(uint64(st.Rdev)), unix.Minor(uint64(st.Rdev))), true, nil
}

// blockGeometry asks the kernel for a block device's size (BLKGETSIZE64),
// logical block size (BLKSSZGET) and read-only flag (BLKROGET).
func blockGeometry(path string) (size, lbs int64, ro bool, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, false, err
	}
	defer f.Close()
	fd := f.Fd()
	var sz uint64
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, fd, unix.BLKGETSIZE64, uintptr(unsafe.Pointer(&sz))); e != 0 {
		return 0, 0, false, fmt.Errorf("BLKGETSIZE64: %w", e)
	}
	ss, err := unix.IoctlGetInt(int(fd), unix.BLKSSZGET)
	if err != nil {
		return 0, 0, false, fmt.Errorf("BLKSSZGET: %w", err)
	}
	r, err := unix.IoctlGetInt(int(fd), unix.BLKROGET)
	if err != nil {
		return 0, 0, false, fmt.Errorf("BLKROGET: %w", err)
	}
	return int64(sz), int64(ss), r != 0, nil
}

// Filesystems that refuse O_DIRECT.
const (
	tmpfsMagic = 0x01021994
	ramfsMagic = 0x858458f6
)

func fsInfo(dir string) (fsDetails, error) {
	var s unix.Statfs_t
	if err := unix.Statfs(dir, &s); err != nil {
		return fsDetails{}, err
	}
	d := fsDetails{name: fmt.Sprintf("a filesystem of type %#x", s.Type), directIO: true,
		free: int64(s.Bavail) * int64(s.Bsize), dioAlign: 512}
	switch s.Type {
	case tmpfsMagic:
		d.name, d.directIO = "tmpfs", false
	case ramfsMagic:
		d.name, d.directIO = "ramfs", false
	case unix.EXT4_SUPER_MAGIC:
		d.name = "ext4"
	case unix.XFS_SUPER_MAGIC:
		d.name = "xfs"
	case unix.BTRFS_SUPER_MAGIC:
		d.name = "btrfs"
	}
	var stx unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, dir, 0, unix.STATX_DIOALIGN, &stx) == nil && stx.Mask&unix.STATX_DIOALIGN != 0 && stx.Dio_offset_align > 0 {
		d.dioAlign = int64(stx.Dio_offset_align)
	}
	return d, nil
}

func allocate(f *os.File, size int64) error {
	return unix.Fallocate(int(f.Fd()), 0, 0, size)
}

func checkDirectIO(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|unix.O_DIRECT, 0)
	if err != nil {
		return fmt.Errorf("cannot be opened with O_DIRECT: %w", err)
	}
	return f.Close()
}

// loopStatus asks loop device path what it is bound to (LOOP_GET_STATUS64):
// the backing file's filesystem device and inode, and its device number
// ("MAJ:MIN") when it is a block device, "" for a file.
//
// want is the loop device's number as sysfs gives it ("MAJ:MIN"): a node
// under that name that is another device (a stale or hand-made /dev) is
// an error, never that device's answer.
func loopStatus(path, want string) (dev, ino uint64, rdev string, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, 0, "", err
	}
	defer f.Close()
	var fst unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &fst); err != nil {
		return 0, 0, "", fmt.Errorf("%s: %w", path, err)
	}
	if got := fmt.Sprintf("%d:%d", unix.Major(uint64(fst.Rdev)), unix.Minor(uint64(fst.Rdev))); fst.Mode&unix.S_IFMT != unix.S_IFBLK || got != want {
		return 0, 0, "", fmt.Errorf("%s is device %s, not the loop device %s that sysfs names", path, got, want)
	}
	st, err := unix.IoctlLoopGetStatus64(int(f.Fd()))
	if err != nil {
		return 0, 0, "", fmt.Errorf("LOOP_GET_STATUS64: %w", err)
	}
	if st.Rdevice != 0 {
		rdev = fmt.Sprintf("%d:%d", unix.Major(st.Rdevice), unix.Minor(st.Rdevice))
	}
	return st.Device, st.Inode, rdev, nil
}

// MountRoot says path is where a mount is attached (statx's
// STATX_ATTR_MOUNT_ROOT): a file or directory bind-mounted there is
// another name of something elsewhere, as a hard link is. A kernel that
// cannot tell is an error.
func MountRoot(path string) (bool, error) {
	var stx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS, &stx); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if stx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT == 0 {
		return false, fmt.Errorf("%s: the kernel does not say whether a mount is attached there (statx)", path)
	}
	return stx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0, nil
}
