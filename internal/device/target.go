package device

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptsrun/ptsrun/internal/units"
)

// Spec is a target as the user wrote it: "sim[:MODEL]", "file:PATH[:SIZE]",
// or a block device path.
type Spec struct {
	// Raw is the target as written, with a relative path made absolute:
	// what a run records, so that resume finds the same one.
	Raw   string
	Kind  string
	Path  string // absolute
	Size  int64  // file: the size to create it with; 0: use the file as it is
	Model string // sim: the model name
}

// ParseSpec reads a target spec without touching anything. A relative
// path is made absolute against the working directory here, before
// anything looks at it: the gate, the file it makes and the engine that
// writes it must all mean the same file.
func ParseSpec(s string) (Spec, error) {
	sp := Spec{Raw: s}
	if err := CheckControl(s); err != nil {
		return sp, fmt.Errorf("target %q: %w", s, err)
	}
	switch {
	case s == "":
		return sp, errors.New("empty target")
	case s == "sim" || strings.HasPrefix(s, "sim:") || strings.HasPrefix(s, "sim?"):
		sp.Kind, sp.Model = KindSim, strings.TrimPrefix(strings.TrimPrefix(s, "sim"), ":")
	case strings.HasPrefix(s, "file:"):
		sp.Kind = KindFile
		rest := strings.TrimPrefix(s, "file:")
		if i := strings.LastIndexByte(rest, ':'); i > 0 {
			if n, err := units.ParseSize(rest[i+1:]); err == nil {
				sp.Size = n
				rest = rest[:i]
			}
		}
		if rest == "" {
			return sp, fmt.Errorf("target %q: no file path (file:PATH[:SIZE])", s)
		}
		p, err := AbsPath(rest)
		if err != nil {
			return sp, fmt.Errorf("target %q: %w", s, err)
		}
		sp.Path = p
		if !filepath.IsAbs(rest) {
			sp.Raw = "file:" + p + strings.TrimPrefix(s, "file:"+rest)
		}
	default:
		p, err := AbsPath(s)
		if err != nil {
			return sp, fmt.Errorf("target %q: %w", s, err)
		}
		sp.Kind, sp.Path = KindBlock, p
		if !filepath.IsAbs(s) {
			sp.Raw = p
		}
	}
	return sp, nil
}

// AbsPath is p made absolute against the working directory and cleaned:
// how every path a user names is read before it is inspected.
func AbsPath(p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	a, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", p, err)
	}
	return a, nil
}

// CheckControl refuses control characters (below 0x20, and 0x7f) in a
// target or a path: no device or file is named with one by mistake, and in
// a fio job file a newline ends the option and starts another (exec_prerun
// runs a command).
func CheckControl(s string) error {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return fmt.Errorf("control character %q at byte %d is not allowed in a target or path", c, i)
		}
	}
	return nil
}

// Target is an inspected block device or file.
type Target struct {
	Spec
	Identity     Identity
	Block        *Block // block devices
	Capacity     int64
	LogicalBlock int64
	Exists       bool // files: it is there already (and would be overwritten)
}

// Errors callers branch on.
var (
	// ErrUnsafe: the target must not be written (mounted, in use, read-only,
	// not confirmed). The command line exits 4.
	ErrUnsafe = errors.New("unsafe target")
)

// Inspect looks at a block device or file target without changing it.
func (fs FS) Inspect(sp Spec) (Target, error) {
	t := Target{Spec: sp}
	switch sp.Kind {
	case KindBlock:
		return fs.inspectBlock(t)
	case KindFile:
		return fs.inspectFile(t)
	}
	return t, fmt.Errorf("target %q is not a block device or a file", sp.Raw)
}

func (fs FS) inspectBlock(t Target) (Target, error) {
	real, err := filepath.EvalSymlinks(fs.path(t.Path))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return t, fmt.Errorf("target %s: no such device", t.Path)
		}
		return t, fmt.Errorf("target %s: %w", t.Path, err)
	}
	var dev string
	var isBlock bool
	if fs.live() {
		dev, isBlock, err = deviceNumber(real)
		if err != nil {
			return t, fmt.Errorf("target %s: %w", t.Path, err)
		}
	} else {
		// Fixture trees stand a device node in with a text file "block MAJ:MIN".
		dev, isBlock = strings.CutPrefix(fs.read(t.Path), "block ")
	}
	if !isBlock {
		return t, fmt.Errorf("target %s is not a block device (for a file, write file:%s)", t.Path, t.Path)
	}
	name := filepath.Base(fs.link("sys/dev/block/" + dev))
	if name == "." || name == "" {
		return t, fmt.Errorf("target %s: block device %s is not in %s", t.Path, dev, fs.path("sys/dev/block"))
	}
	b, err := fs.Block(name)
	if err != nil {
		return t, fmt.Errorf("target %s: %w", t.Path, err)
	}
	t.Block = &b
	t.Capacity, t.LogicalBlock = b.SizeBytes, b.LogicalBlock
	if fs.live() {
		// The kernel's word on size and sector size (BLKGETSIZE64, BLKSSZGET).
		// Where the device cannot even be opened for reading, sysfs's
		// numbers stand, and the safety check still sees its mounts.
		if size, lbs, ro, err := blockGeometry(real); err == nil {
			t.Capacity, t.LogicalBlock = size, lbs
			t.Block.ReadOnly = b.ReadOnly || ro
		}
	}
	if t.LogicalBlock <= 0 {
		t.LogicalBlock = 512
	}
	t.Identity = Identity{Spec: t.Raw, Kind: KindBlock, Path: "/dev/" + b.Name, Vendor: b.Vendor, Model: b.Model,
		Serial: b.Serial, Firmware: b.Firmware, WWN: b.WWN, CapacityBytes: t.Capacity, LogicalBlock: t.LogicalBlock,
		PhysicalBlock: b.PhysicalBlock, Rotational: b.Rotational, Interface: b.Interface, Transport: b.Transport,
		PCIeLink: b.PCIeLink, WriteCache: b.WriteCache, HBA: b.HBA, Facts: b.Facts}
	if b.BackingFile != "" {
		t.Identity.BackingFile = b.BackingFile
		t.Identity.Notes = "backed by " + b.BackingFile
	}
	t.Identity.Loops = fs.stackedLoops(t.Path)
	return t, nil
}

func (fs FS) inspectFile(t Target) (Target, error) {
	p := fs.path(t.Path)
	st, err := os.Stat(p)
	switch {
	case err == nil:
		if !st.Mode().IsRegular() {
			return t, fmt.Errorf("target %s is not a regular file", t.Path)
		}
		t.Exists = true
		t.Capacity = st.Size()
		if t.Size > 0 && t.Size != st.Size() {
			return t, fmt.Errorf("target %s exists with %d bytes, not the %d asked for", t.Path, st.Size(), t.Size)
		}
		if t.Capacity == 0 {
			return t, fmt.Errorf("target %s is empty: give a size to make it (file:%s:SIZE)", t.Path, t.Path)
		}
	case errors.Is(err, os.ErrNotExist):
		if t.Size <= 0 {
			return t, fmt.Errorf("target %s does not exist: give a size to make it (file:%s:SIZE)", t.Path, t.Path)
		}
		t.Capacity = t.Size
	default:
		return t, fmt.Errorf("target %s: %w", t.Path, err)
	}
	dir := filepath.Dir(p)
	info, err := fsInfo(dir)
	if err != nil {
		return t, fmt.Errorf("target %s: %w", t.Path, err)
	}
	if !info.directIO {
		return t, fmt.Errorf("target %s is on %s, which cannot do direct I/O (O_DIRECT): put it on a disk filesystem", t.Path, info.name)
	}
	if !t.Exists && info.free < t.Size {
		return t, fmt.Errorf("target %s: %s does not fit, %d bytes free in %s", t.Path, units.FormatSize(t.Size), info.free, dir)
	}
	t.LogicalBlock = max(info.dioAlign, 512)
	t.Identity = Identity{Spec: t.Raw, Kind: KindFile, Path: t.Path, Model: "file on " + info.name,
		CapacityBytes: t.Capacity, LogicalBlock: t.LogicalBlock, Interface: "file", WriteCache: "unknown"}
	t.Identity.Loops = fs.stackedLoops(t.Path)
	return t, nil
}

// Prepare makes a file target that does not exist yet: created, allocated to
// its size, and checked for direct I/O.
func (t *Target) Prepare(fs FS) error {
	if t.Kind != KindFile || t.Exists {
		return nil
	}
	p := fs.path(t.Path)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("making target %s: %w", t.Path, err)
	}
	if err := allocate(f, t.Size); err != nil {
		f.Close()
		os.Remove(p)
		return fmt.Errorf("allocating %s for target %s: %w", units.FormatSize(t.Size), t.Path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(p)
		return err
	}
	if err := checkDirectIO(p); err != nil {
		os.Remove(p)
		return fmt.Errorf("target %s: %w", t.Path, err)
	}
	t.Exists = true
	return nil
}

// fsDetails is what a file target's filesystem allows.
type fsDetails struct {
	name     string
	directIO bool
	free     int64
	dioAlign int64
}
