package device

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Live is the running system.
var Live = FS{Root: "/"}

func (fs FS) live() bool { return fs.Root == "/" || fs.Root == "" }

func (fs FS) exists(p string) bool {
	_, err := os.Lstat(fs.path(p))
	return err == nil
}

func (fs FS) readRaw(p string) []byte {
	b, _ := os.ReadFile(fs.path(p))
	return b
}

func (fs FS) readInt(p string) (int64, bool) {
	s := fs.read(p)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

func (fs FS) list(p string) []string {
	entries, err := os.ReadDir(fs.path(p))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// link resolves a symlink inside the root, relative to the root.
func (fs FS) link(p string) string {
	target, err := os.Readlink(fs.path(p))
	if err != nil {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p), target)
	}
	return filepath.Clean(strings.TrimPrefix(target, fs.Root))
}

// realPath resolves every symlink of a path inside the root; "" when it
// does not exist.
func (fs FS) realPath(p string) string {
	r, err := filepath.EvalSymlinks(fs.path(p))
	if err != nil {
		return ""
	}
	return r
}

// Path, Read, Names and RealPath are the reads of sysfs and /proc that
// other packages make of a root (telemetry's hwmon), the same ones device
// makes: a path below the root; a file's trimmed text, "" when it cannot
// be read; a directory's names, none when it cannot be listed; where a
// path's links lead, "" when they cannot be followed.
func (fs FS) Path(p string) string { return fs.path(p) }

// Read is the trimmed text of the file p below the root, "" when unreadable.
func (fs FS) Read(p string) string { return fs.read(p) }

// Names is the names in the directory p below the root, none when unlistable.
func (fs FS) Names(p string) []string { return fs.list(p) }

// RealPath is where p's links lead, "" when they cannot be followed.
func (fs FS) RealPath(p string) string {
	r, err := filepath.EvalSymlinks(fs.path(p))
	if err != nil {
		return ""
	}
	return r
}
