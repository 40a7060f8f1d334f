package device

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// maxOurs is the most of an existing output that is read to tell whether
// ptsrun wrote it; a larger file is not taken for one of ptsrun's.
const maxOurs = 256 << 20

// CheckOutput decides whether ptsrun may write one of its outputs (a
// report, a comparison, a table) at path, an absolute path: absent, or a
// regular file that ours says ptsrun wrote, or with force any regular
// file. It never replaces a device node, a directory, a fifo, a socket or
// a symbolic link (an atomic write renames over the name, which would
// take the node's or the link's place), whatever force says, nor writes
// where another user could change the file or the path to it (CheckFile).
// A refusal wraps ErrUnsafe and names the file and why.
func CheckOutput(path string, force bool, ours func(data []byte) bool) error {
	if err := CheckFile(path); err != nil {
		return err
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("output %s: %w", path, err)
	}
	if kind := fileKind(st.Mode()); kind != "" {
		return fmt.Errorf("%w: refusing to write %s: it is %s, and ptsrun writes its outputs only as regular files of their own; name a file", ErrUnsafe, path, kind)
	}
	if force {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("output %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxOurs+1))
	if err != nil {
		return fmt.Errorf("output %s: %w", path, err)
	}
	if len(data) > maxOurs || !ours(data) {
		return fmt.Errorf("%w: refusing to replace %s: it exists and ptsrun did not write it; name another file, or add --force to replace it", ErrUnsafe, path)
	}
	return nil
}

// fileKind names what a file that is not a regular file is; "" for a
// regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a fifo"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}
