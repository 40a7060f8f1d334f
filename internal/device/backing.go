package device

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
)

// A loop device is no holder of the file or device it is bound to: sysfs
// lists it under neither, and it claims nothing exclusively, so a
// filesystem mounted through a loop device stacked on a target is seen
// neither by the holders check nor by O_EXCL. The loop devices are found
// from their side instead: /sys/block/loopN/loop/backing_file exists while
// loopN is bound, and names its file as the kernel prints the path it
// opened (d_path: it follows renames, says " (deleted)" once the name is
// gone, and is relative to the binding process's root). A path can thus
// name the file under another name, or a file that has since replaced it:
// the file is matched by what the kernel holds open instead, its device
// and inode (a block device: its device number) from LOOP_GET_STATUS64 on
// the loop device, and by the path only where that cannot be asked.

// nodeKey is what identifies the file or device a loop device is bound
// to: a block device by its number, a file by its filesystem's device
// and its inode.
type nodeKey struct {
	Block    string // "MAJ:MIN" of a block device
	Dev, Ino uint64 // a regular file
}

func (k nodeKey) zero() bool { return k == nodeKey{} }

// loopBinding is one bound loop device.
type loopBinding struct {
	Name string  // loop3
	File string  // backing_file as the kernel prints it
	key  nodeKey // what it is bound to; zero with err
	err  error   // why what it is bound to cannot be told
}

// errUnbound is a loop device let go between reading its backing_file and
// asking the kernel (LOOP_GET_STATUS64's ENXIO on the node that is that
// device, and its backing_file gone from sysfs on a second look): it is
// bound to nothing, so nothing is stacked on a target through it. Parallel tests
// detaching their own loop devices made the gate refuse others' targets.
var errUnbound = errors.New("no longer bound")

// deletedSuffix is what d_path appends to a name that was removed.
const deletedSuffix = " (deleted)"

// loopBindings reads every bound loop device: the block devices whose
// sysfs directory has loop/backing_file.
func (fs FS) loopBindings() []loopBinding {
	var out []loopBinding
	for _, n := range fs.list("sys/class/block") {
		attr := "sys/class/block/" + n + "/loop/backing_file"
		if !fs.exists(attr) {
			continue
		}
		lb := loopBinding{Name: n, File: strings.TrimRight(string(fs.readRaw(attr)), "\n")}
		lb.key, lb.err = fs.bindingKey(lb)
		if errors.Is(lb.err, errUnbound) {
			continue
		}
		out = append(out, lb)
	}
	slices.SortFunc(out, func(a, b loopBinding) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// bindingKey is what loop device lb is bound to: the kernel's own answer
// (LOOP_GET_STATUS64: the backing file's device and inode, and its device
// number when it is a block device) on the running system; else, and in
// fixture trees, the file its path names now.
func (fs FS) bindingKey(lb loopBinding) (nodeKey, error) {
	if fs.live() {
		attr := "sys/class/block/" + lb.Name
		dev, ino, rdev, err := loopStatus("/dev/"+lb.Name, fs.read(attr+"/dev"))
		if errors.Is(err, syscall.ENXIO) && !fs.exists(attr+"/loop/backing_file") {
			// The kernel says unbound on the very device, and sysfs
			// agrees: it was let go after its backing_file was read.
			return nodeKey{}, errUnbound
		}
		if err == nil {
			if rdev != "" {
				return nodeKey{Block: rdev}, nil
			}
			return nodeKey{Dev: dev, Ino: ino}, nil
		}
		if lb.File == "" || strings.HasSuffix(lb.File, deletedSuffix) {
			return nodeKey{}, fmt.Errorf("loop device /dev/%s is bound to %q, and its backing file cannot be asked for (%v)", lb.Name, lb.File, err)
		}
	}
	if lb.File == "" || strings.HasSuffix(lb.File, deletedSuffix) {
		return nodeKey{}, fmt.Errorf("loop device /dev/%s is bound to %q, a file whose name is gone", lb.Name, lb.File)
	}
	k, err := fs.keyOf(lb.File)
	if err != nil {
		return nodeKey{}, fmt.Errorf("loop device /dev/%s is bound to %s: %w", lb.Name, lb.File, err)
	}
	return k, nil
}

// keyOf is what path names, links followed: a block device or a regular
// file; zero for anything else (no loop device is bound to a directory or
// a character device). Fixture trees stand a device node in with a text
// file "block MAJ:MIN".
func (fs FS) keyOf(path string) (nodeKey, error) {
	if !fs.live() {
		if dev, ok := strings.CutPrefix(fs.read(path), "block "); ok {
			return nodeKey{Block: dev}, nil
		}
	}
	st, err := os.Stat(fs.path(path))
	if err != nil {
		return nodeKey{}, err
	}
	switch m := st.Mode(); {
	case m.IsRegular():
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			return nodeKey{}, fmt.Errorf("%s: no device and inode", path)
		}
		return nodeKey{Dev: uint64(sys.Dev), Ino: uint64(sys.Ino)}, nil
	case m&os.ModeDevice != 0 && m&os.ModeCharDevice == 0:
		dev, _, err := deviceNumber(fs.path(path))
		if err != nil {
			return nodeKey{}, err
		}
		return nodeKey{Block: dev}, nil
	}
	return nodeKey{}, nil
}

// LoopsBackedBy names the loop devices (kernel names: loop3) bound to the
// file or block device path names (links followed), in name order. A
// loop device whose backing file cannot be told (not asked as root, and
// its name gone or naming nothing) is reported in the error, beside the
// ones found: the caller cannot be sure that path backs none.
func LoopsBackedBy(fs FS, path string) ([]string, error) {
	k, err := fs.keyOf(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // a file not made yet backs nothing
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return fs.loopsOn(k, fs.loopBindings())
}

// loopsOn names the loop devices of bindings bound to k.
func (fs FS) loopsOn(k nodeKey, bindings []loopBinding) ([]string, error) {
	if k.zero() {
		return nil, nil
	}
	var out []string
	var unknown []error
	for _, lb := range bindings {
		switch {
		case lb.err != nil:
			unknown = append(unknown, lb.err)
		case lb.key == k:
			out = append(out, lb.Name)
		}
	}
	return out, errors.Join(unknown...)
}
