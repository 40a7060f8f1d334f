package device

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Where ptsrun writes a run directory or an output, everything after the
// check is reached by path: the files it opens, fio's --output and logs,
// the atomic renames. Anyone who can change a directory on that path
// (rename an entry, put a link in its place) can send those writes
// anywhere, as root, while the run goes on. So, as secure_path(3) and
// OpenSSH's StrictModes do, every directory from / down to the one
// written must be owned by root or the invoking user and writable by no
// one else: not by its group (a group may hold other users) nor by
// others. A sticky directory (/tmp) is the one exception on the way, for
// an entry root or the invoking user owns, which nobody else may rename
// or remove. Links on the way are followed and their targets checked the
// same way. POSIX ACLs need no check of their own: an entry granting
// another user write shows as group write in the mode (the ACL mask).

// maxLinks is how many symbolic links a path may pass through, as the
// kernel's limit (ELOOP after 40).
const maxLinks = 40

// Invoking is who ptsrun writes for: root, the process's user and,
// under sudo as root, the user sudo ran it for (SUDO_UID: sudo's word for
// the invoking user, whose directories they can change anyway).
func Invoking() []uint32 {
	ids := []uint32{0, uint32(os.Geteuid()), uint32(os.Getuid())}
	if os.Getuid() == 0 {
		if n, err := strconv.ParseUint(os.Getenv("SUDO_UID"), 10, 32); err == nil {
			ids = append(ids, uint32(n))
		}
	}
	return ids
}

func trusted(uid uint32) bool {
	for _, id := range Invoking() {
		if id == uid {
			return true
		}
	}
	return false
}

// ownerOf is a file's owner's uid.
func ownerOf(st fs.FileInfo) (uint32, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return sys.Uid, true
}

// userName names a uid for a message: "nobody (uid 65534)".
func userName(uid uint32) string {
	if u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10)); err == nil && u.Username != "" {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}

// othersMayWrite reports whether a mode lets a user other than the owner
// change the directory's entries: group or other write.
func othersMayWrite(m fs.FileMode) bool { return m.Perm()&0o022 != 0 }

// unsafeDir is a refusal naming what is wrong on the way to dir, and
// what to do instead.
func unsafeDir(dir, what string) error {
	as := "uid " + strconv.Itoa(os.Geteuid())
	if u, err := user.LookupId(strconv.Itoa(os.Geteuid())); err == nil && u.Username != "" {
		as = u.Username
	}
	return fmt.Errorf("%w: refusing to write into %s: %s; another user who can change a directory on the way could make ptsrun, running as %s, "+
		"write elsewhere: use a directory that only you and root can change, below directories that are the same (a new directory in /tmp will do)",
		ErrUnsafe, dir, what, as)
}

// CheckDir refuses a directory ptsrun is to write into (dir, absolute)
// that another user than root or the invoking one could change, or could
// change the path to: dir itself (owned by one of them, group and others
// without write) and every directory above it (the same, or sticky with
// the next entry owned by one of them). dir may be missing: what exists
// of it is checked, and the directory it would be made in. The error
// wraps ErrUnsafe, naming the directory, its owner and mode.
func CheckDir(dir string) error {
	_, err := walkDir(dir, false, false)
	return err
}

// CheckFile refuses a file ptsrun is to write (path, absolute: an output,
// replaced by renaming a new file over it) where another user could
// change it or the path to it: its directory and every one above it as
// CheckDir says, but the directory may be sticky (/tmp) when path is
// absent (ptsrun makes it) or owned by root or the invoking user.
func CheckFile(path string) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("file %q: not an absolute path", path)
	}
	dir, err := walkDir(filepath.Dir(path), false, true)
	if err != nil || dir == "" {
		return err
	}
	dst, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("file %s: %w", path, err)
	}
	st, err := os.Lstat(filepath.Join(dir, filepath.Base(path)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("file %s: %w", path, err)
	}
	return entryIn(path, dir, dst, path, st)
}

// MakeDir makes dir (absolute) and its missing parents, one directory at a
// time and each checked as CheckDir says: a directory someone else made in
// the meantime is judged as found, never taken for ptsrun's own. made is
// the topmost directory it made, "" when dir was there.
func MakeDir(dir string) (made string, err error) {
	return walkDir(dir, true, false)
}

// walkDir resolves dir component by component from /, following links,
// and checks every directory on the way (and with create, makes the
// missing ones). With sticky, dir itself may be sticky and writable by
// others (CheckFile judges the entry), and it returns dir resolved, ""
// when missing; else it returns the topmost directory it made.
func walkDir(dir string, create, sticky bool) (string, error) {
	made := ""
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("directory %q: not an absolute path", dir)
	}
	if err := CheckControl(dir); err != nil {
		return "", fmt.Errorf("directory %q: %w", dir, err)
	}
	cur := "/"
	curSt, err := os.Lstat(cur)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	if err := ownDir(dir, cur, curSt); err != nil {
		return "", err
	}
	todo := strings.Split(filepath.Clean(dir), "/")
	links := 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			// cur is resolved (no links in it): its parent is its text's.
			cur = filepath.Dir(cur)
			if curSt, err = os.Lstat(cur); err != nil {
				return made, fmt.Errorf("directory %s: %w", dir, err)
			}
			continue
		}
		next := filepath.Join(cur, name)
		st, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			if err := madeIn(dir, cur, curSt); err != nil {
				return made, err
			}
			if !create {
				return "", nil // the rest would be made here, by ptsrun
			}
			if err := os.Mkdir(next, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return made, fmt.Errorf("making directory %s: %w", next, err)
			} else if err == nil && made == "" {
				made = next
			}
			todo = append([]string{name}, todo...) // judged as found: ptsrun's or someone's
			continue
		}
		if err != nil {
			return made, fmt.Errorf("directory %s: %w", dir, err)
		}
		if err := entryIn(dir, cur, curSt, next, st); err != nil {
			return made, err
		}
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			if links++; links > maxLinks {
				return made, fmt.Errorf("directory %s: more than %d symbolic links on the way", dir, maxLinks)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return made, fmt.Errorf("directory %s: %w", dir, err)
			}
			if filepath.IsAbs(target) {
				cur = "/"
				if curSt, err = os.Lstat(cur); err != nil {
					return made, err
				}
			}
			todo = append(strings.Split(target, "/"), todo...)
		case st.IsDir():
			if err := ownDir(dir, next, st); err != nil {
				return made, err
			}
			cur, curSt = next, st
		default:
			return made, fmt.Errorf("directory %s: %s is not a directory", dir, next)
		}
	}
	if sticky {
		return cur, madeIn(dir, cur, curSt)
	}
	// The directory written itself: no sticky exception, nobody else
	// may add an entry to it.
	if othersMayWrite(curSt.Mode()) {
		return made, unsafeDir(dir, fmt.Sprintf("%s may be written by others than its owner (mode %v)", cur, curSt.Mode()))
	}
	return made, nil
}

// ownDir refuses a directory on the way that is not owned by root or the
// invoking user.
func ownDir(dir, p string, st fs.FileInfo) error {
	uid, ok := ownerOf(st)
	if !ok {
		return fmt.Errorf("directory %s: %s has no owner to check", dir, p)
	}
	if !trusted(uid) {
		return unsafeDir(dir, fmt.Sprintf("%s is owned by %s, not by you or root (mode %v)", p, userName(uid), st.Mode()))
	}
	return nil
}

// entryIn refuses an entry (next) of directory cur that someone else may
// replace: cur writable by others, unless it is sticky and the entry is
// root's or the invoking user's.
func entryIn(dir, cur string, curSt fs.FileInfo, next string, st fs.FileInfo) error {
	if !othersMayWrite(curSt.Mode()) {
		return nil
	}
	if curSt.Mode()&fs.ModeSticky == 0 {
		return unsafeDir(dir, fmt.Sprintf("%s may be written by others than its owner (mode %v), and is not sticky", cur, curSt.Mode()))
	}
	uid, ok := ownerOf(st)
	if !ok || !trusted(uid) {
		return unsafeDir(dir, fmt.Sprintf("%s, in the sticky directory %s, is owned by %s, not by you or root", next, cur, userName(uid)))
	}
	return nil
}

// madeIn refuses to make an entry in cur when someone else could then
// replace it: cur writable by others and not sticky. In a sticky one
// ptsrun's entry is its own (and one made first by someone else is found
// by Mkdir, and judged as found).
func madeIn(dir, cur string, curSt fs.FileInfo) error {
	if othersMayWrite(curSt.Mode()) && curSt.Mode()&fs.ModeSticky == 0 {
		return unsafeDir(dir, fmt.Sprintf("%s may be written by others than its owner (mode %v), and is not sticky", cur, curSt.Mode()))
	}
	return nil
}
