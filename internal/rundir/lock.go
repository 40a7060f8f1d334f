package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptsrun/ptsrun/internal/device"
)

// LockFile is the run lock: the process that runs the run (run, resume)
// holds it with flock(2) for as long as it lives, and says in it who it
// is. The file stays when the process ends (removing a file that another
// process may have opened to lock would let two hold "the" lock); a lock
// nobody holds is stale, and the next run takes it over.
const LockFile = "lock.json"

// LockInfo is what the lock file says of the process that holds it.
type LockInfo struct {
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Command string    `json:"command"` // run, resume, workload, fio
}

// ErrLocked means another process holds a run directory's lock: the run
// is running.
var ErrLocked = errors.New("the run is running")

// Lock is a run directory's lock, held.
type Lock struct {
	f *os.File
}

// lockTries is how often Lock tries a lock that is held before it
// refuses: `ptsrun status` tests the lock by holding it shared for an
// instant, which must not refuse a resume that starts meanwhile.
const lockTries = 10

// TakeLock takes dir's run lock for command (run, resume), or refuses
// when another process holds it (ErrLocked, naming its host and pid). The
// file is opened as a run directory's own (device.OpenRunFile: never
// through a link, only a regular file with one link), and only written
// once it is held: a stale lock is taken over, a live one left as it is.
func TakeLock(dir, command string) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := device.OpenRunFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("run lock %s: %w", path, err)
	}
	for try := 0; ; try++ {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) || try == lockTries-1 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		info, rerr := readLock(f)
		f.Close()
		if rerr != nil {
			return nil, fmt.Errorf("%w in %s: another process holds its lock %s (%v)", ErrLocked, dir, path, rerr)
		}
		return nil, fmt.Errorf("%w in %s: ptsrun %s holds its lock on host %s, pid %d, since %s (%s); "+
			"wait for it to end, or stop it, then resume", ErrLocked, dir, info.Command, info.Host, info.PID,
			info.Started.Local().Format(time.RFC3339), path)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("run lock %s: %w", path, err)
	}
	host, _ := os.Hostname()
	b, _ := json.MarshalIndent(LockInfo{Host: host, PID: os.Getpid(), Started: time.Now().UTC(), Command: command}, "", "  ")
	if err := writeLock(f, append(b, '\n')); err != nil {
		f.Close()
		return nil, fmt.Errorf("run lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

func writeLock(f *os.File, b []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.WriteAt(b, 0); err != nil {
		return err
	}
	return f.Sync()
}

func readLock(f *os.File) (LockInfo, error) {
	var info LockInfo
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<16))
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, fmt.Errorf("it says no process: %w", err)
	}
	return info, nil
}

// Release lets the lock go; the file stays, stale.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	l.f.Close()
	l.f = nil
}

// LockState is what a reader finds of a run directory's lock.
type LockState struct {
	Info *LockInfo // what the file says; nil without a lock file (or one that says nothing)
	// Held: a live process holds the lock. Checked says whether that
	// could be found out here: a lock taken on another host is not (flock
	// over a network file system is not to be relied on), nor one the
	// reader may not open.
	Held, Checked bool
	Why           string // why it could not be checked
}

// ReadLock reads dir's lock without writing anything: the file is opened
// read-only, never through a link, and tested by holding it shared for
// an instant (TakeLock tries again meanwhile).
func ReadLock(dir string) LockState {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return LockState{Checked: true}
	}
	if err != nil {
		return LockState{Why: fmt.Sprintf("%s cannot be read: %v", path, err)}
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return LockState{Why: fmt.Sprintf("%s is not a regular file", path)}
	}
	var ls LockState
	if info, err := readLock(f); err == nil {
		ls.Info = &info
	}
	if host, _ := os.Hostname(); ls.Info != nil && ls.Info.Host != host {
		ls.Why = fmt.Sprintf("the lock was taken on host %s, not this one (%s): whether its process lives cannot be checked from here", ls.Info.Host, host)
		return ls
	}
	switch err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); {
	case err == nil:
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		ls.Checked = true
	case errors.Is(err, syscall.EWOULDBLOCK):
		ls.Held, ls.Checked = true, true
	default:
		ls.Why = fmt.Sprintf("%s cannot be tested: %v", path, err)
	}
	return ls
}
