package device

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// A run directory that ptsrun writes into again (resume, report) may have
// been copied, unpacked or handed over: a symbolic link in it (to another
// file, or a directory) or a hard link sends the writes of ptsrun and fio
// (journal, job files, fio's output and logs, tables, the report) to what
// it points at. Nothing of a run directory is a link of ptsrun's making,
// so the gate refuses every one, and everything that another user than
// root or the invoking one owns or may change.

// CheckRunTree refuses a run directory (dir, absolute) that ptsrun is to
// write into again, unless the path to it is one only root and the
// invoking user can change (CheckDir), and every entry below it is a
// directory or a regular file with one link, owned by one of them and
// writable by no one else. The error wraps ErrUnsafe and names the entry
// and what the user can do instead.
func CheckRunTree(dir string) error {
	if err := CheckDir(dir); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(dir) // the path to it was judged: its links are safe to follow
	if err != nil {
		return fmt.Errorf("run directory %s: %w", dir, err)
	}
	return filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("run directory %s: %w", dir, err)
		}
		st, err := os.Lstat(p)
		if err != nil {
			return fmt.Errorf("run directory %s: %w", dir, err)
		}
		if why := runEntry(st); why != "" {
			return fmt.Errorf("%w: refusing to write into the run directory %s: %s %s; ptsrun writes only the run directory's own files, "+
				"and follows no link in it: copy the run directory (cp -r, as you) without it and use the copy", ErrUnsafe, dir, p, why)
		}
		return nil
	})
}

// runEntry says what is wrong with an entry of a run directory, "" when
// nothing: a symbolic link, not a directory or regular file, a file with
// other hard links, an owner other than root or the invoking user, or
// write for others than the owner.
func runEntry(st fs.FileInfo) string {
	m := st.Mode()
	if m&fs.ModeSymlink != 0 {
		return "is a symbolic link"
	}
	if !m.IsDir() && !m.IsRegular() {
		return "is " + fileKind(m)
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return "has no owner to check"
	}
	if !trusted(sys.Uid) {
		return fmt.Sprintf("is owned by %s, not by you or root", userName(sys.Uid))
	}
	if othersMayWrite(m) {
		return fmt.Sprintf("may be written by others than its owner (mode %v)", m)
	}
	if m.IsRegular() && sys.Nlink != 1 {
		return fmt.Sprintf("has %d hard links: writing it writes the file of every other name", sys.Nlink)
	}
	return ""
}

// OpenRunFile opens a file of a run directory that ptsrun writes in place
// (the journal, a lock, a log appended to) with flag (os.O_RDWR,
// os.O_CREATE, …): never through a symbolic link (O_NOFOLLOW), and only a
// regular file with one link (checked on the open file, so nothing can be
// swapped in between). The error wraps ErrUnsafe for a file that is not.
func OpenRunFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	// Truncated only once judged: O_TRUNC at the open would empty the
	// file of another name first. O_NONBLOCK: a fifo's open does not wait
	// for a reader, and is then refused.
	trunc := flag&os.O_TRUNC != 0
	f, err := os.OpenFile(path, flag&^os.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%w: refusing to open %s: it is a symbolic link, and ptsrun follows no link in a run directory", ErrUnsafe, path)
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: refusing to write %s: it is %s, not a file of the run's own", ErrUnsafe, path, fileKind(st.Mode()))
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Nlink != 1 {
		f.Close()
		return nil, fmt.Errorf("%w: refusing to write %s: it has %d hard links, and writing it would write the file of every other name", ErrUnsafe, path, sys.Nlink)
	}
	if trunc {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// WriteRunFile writes data to a file of a run directory as os.WriteFile
// does, opened as OpenRunFile says.
func WriteRunFile(path string, data []byte, perm fs.FileMode) error {
	f, err := OpenRunFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
