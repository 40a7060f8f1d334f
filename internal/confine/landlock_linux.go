package confine

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ABI is the kernel's Landlock ABI version, 0 when it has none (not
// built, or not enabled at boot).
func ABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// writes are the rights the rules govern, for an ABI: everything that
// changes the file system. Reading and executing stay free (fio reads its
// libraries, /proc, /sys and the files a job only reads), and so do the
// ioctls on devices.
func writes(abi int) uint64 {
	w := uint64(unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	if abi >= 2 {
		w |= unix.LANDLOCK_ACCESS_FS_REFER // linking or renaming across directories
	}
	if abi >= 3 {
		w |= unix.LANDLOCK_ACCESS_FS_TRUNCATE // truncate(2), O_TRUNC
	}
	return w
}

// fileRights are the rights a rule on a file (not a directory) may hold.
const fileRights = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE

// rulesetAttr is struct landlock_ruleset_attr as of ABI 1: a kernel takes
// a shorter struct than its own, the rest zero.
type rulesetAttr struct{ handledAccessFS uint64 }

// restrictAndExec confines this thread, which then execs path: the
// process the command runs in is confined (Landlock holds across exec and
// for every child).
func restrictAndExec(rules []Rule, path string, argv []string) error {
	runtime.LockOSThread() // Landlock confines the calling thread: it must be the one that execs
	abi := ABI()
	if abi == 0 {
		return fmt.Errorf("the kernel has no Landlock")
	}
	handled := writes(abi)
	attr := rulesetAttr{handledAccessFS: handled}
	rfd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	for _, r := range rules {
		fd := r.FD
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return fmt.Errorf("%s: %w", r.Path, err)
		}
		allowed := handled
		isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
		switch {
		case r.Dir && !isDir:
			return fmt.Errorf("%s is not a directory", r.Path)
		case !isDir:
			allowed &= fileRights
		}
		pb := unix.LandlockPathBeneathAttr{Allowed_access: allowed, Parent_fd: int32(fd)}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, rfd, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&pb)), 0, 0, 0); errno != 0 {
			return fmt.Errorf("landlock_add_rule %s: %w", r.Path, errno)
		}
		unix.Close(fd) // what the command inherits is only what it had
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, rfd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	unix.Close(int(rfd))
	return syscall.Exec(path, argv, os.Environ())
}

// openPath holds path open without reading it (O_PATH), links followed.
func openPath(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}
