package device

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Verdict says whether a target may be written.
type Verdict struct {
	Target  string   `json:"target"`
	Usable  bool     `json:"usable"`            // may be written once confirmed with --destroy-data
	Refused []string `json:"refused,omitempty"` // why it may never be written
	Confirm string   `json:"confirm,omitempty"` // what --destroy-data must name
	Carries []string `json:"carries,omitempty"` // what is on it now (partition table, filesystem, …)
	New     bool     `json:"new,omitempty"`     // a file ptsrun will make: nothing to destroy
	// names are what --destroy-data may say to name the target (Confirmed):
	// none in a Verdict that Check did not make, which confirms nothing.
	names []string
}

// System is the state of the machine the safety check needs.
type System struct {
	Mounts []Mount
	Swaps  []string
	// loops are the bound loop devices (loopsRead: read; a System made
	// without them reads them when needed).
	loops     []loopBinding
	loopsRead bool
	// ids counts how many disks (block devices that are not partitions)
	// report each serial and WWID: an identifier names a device only when
	// it is that device's alone. nil: counted when needed.
	ids map[string]int
}

// System reads the mount table, active swap and the devices' identifiers.
func (fs FS) System() (System, error) {
	m, err := fs.Mounts()
	if err != nil {
		return System{}, err
	}
	return System{Mounts: m, Swaps: fs.Swaps(), ids: fs.identifiers(), loops: fs.loopBindings(), loopsRead: true}, nil
}

// identifiers counts the serials and WWIDs of every disk. A partition
// reports its disk's, and every namespace of an NVMe controller the
// controller's serial: those are counted once, for the disk.
func (fs FS) identifiers() map[string]int {
	ids := map[string]int{}
	for _, n := range fs.list("sys/class/block") {
		b, err := fs.Block(n)
		if err != nil || b.Partition {
			continue
		}
		for _, id := range []string{b.Serial, b.WWN} {
			if id != "" {
				ids[id]++
			}
		}
	}
	return ids
}

// names are what --destroy-data may say to name a block device: its path
// as given and its device node; for a disk (not a partition), its serial
// when no other disk reports the same, and for an NVMe namespace its WWID
// when it is its own too. A partition carries its disk's serial, and the
// namespaces of an NVMe controller share the controller's: naming one of
// those would name more than the target. confirm is the one to ask for:
// the serial when it names the device, else the device node.
func (fs FS) names(t Target, sys System) (names []string, confirm string) {
	b := t.Block
	names, confirm = []string{t.Path, b.Path()}, b.Path()
	if b.Partition {
		return names, confirm
	}
	ids := sys.ids
	if ids == nil {
		ids = fs.identifiers()
	}
	if b.Interface == "NVMe" && b.WWN != "" && ids[b.WWN] == 1 {
		names = append(names, b.WWN)
	}
	if b.Serial != "" && ids[b.Serial] == 1 {
		names = append(names, b.Serial)
		confirm = b.Serial
	}
	return names, confirm
}

// Check decides whether a target may be written: devices in use are refused
// whatever the user says; everything else with data on it needs
// --destroy-data naming it.
func (fs FS) Check(t Target, sys System) Verdict {
	v := Verdict{Target: t.Raw}
	switch t.Kind {
	case KindFile:
		if !t.Exists {
			v.Usable, v.New = true, true
			return v
		}
		v.Confirm, v.names = t.Path, []string{t.Path}
		refused, loops := fs.stacked(t, sys)
		refused = append(refused, fs.swapFile(t.Path, sys)...)
		v.Refused, v.Usable = refused, len(refused) == 0
		v.Carries = stackedCarries(loops)
		return v
	case KindBlock:
	default:
		v.Usable = true
		return v
	}
	b := t.Block
	v.names, v.Confirm = fs.names(t, sys)
	v.Refused = fs.inUse(*b, sys)
	refused, loops := fs.stacked(t, sys)
	v.Refused = append(v.Refused, refused...)
	if b.ReadOnly {
		v.Refused = append(v.Refused, "it is read-only")
	}
	v.Refused = dedupe(v.Refused)
	v.Usable = len(v.Refused) == 0
	v.Carries = append(fs.carries(b), stackedCarries(loops)...)
	return v
}

// inUse lists why writing block device b would destroy what is in use:
// a mount or swap on it, its disk or any of the disk's partitions, and
// holders (device-mapper, md, LVM) of it or its partitions.
func (fs FS) inUse(b Block, sys System) []string {
	var out []string
	disk := b.Name
	if b.Partition {
		disk = b.Parent
	}
	related := map[string]bool{}
	devOf := map[string]string{}
	for _, x := range fs.family(b) {
		related[x.Name] = true
		devOf[x.Dev] = x.Name
	}
	for _, m := range sys.Mounts {
		name, ok := devOf[m.Dev]
		if !ok {
			continue
		}
		switch {
		case name == b.Name && m.MountPoint == "/":
			out = append(out, "it holds the root filesystem (/)")
		case name == b.Name:
			out = append(out, fmt.Sprintf("it is mounted at %s (%s)", m.MountPoint, m.FSType))
		case name == disk:
			out = append(out, fmt.Sprintf("its disk %s is mounted at %s", disk, m.MountPoint))
		default:
			out = append(out, fmt.Sprintf("partition %s of the same disk is mounted at %s", name, m.MountPoint))
		}
	}
	for _, s := range sys.Swaps {
		if name := filepath.Base(s); strings.HasPrefix(s, "/dev/") && related[name] {
			out = append(out, fmt.Sprintf("%s is active swap", s))
		}
	}
	holders := slices.Clone(b.Holders)
	for _, p := range b.Partitions {
		if pb, err := fs.Block(p); err == nil {
			holders = append(holders, pb.Holders...)
		}
	}
	if len(holders) > 0 {
		out = append(out, fmt.Sprintf("it is in use by %s (device-mapper, md or LVM holds it)", strings.Join(holders, ", ")))
	}
	return out
}

// family is a block device, its disk, and the disk's partitions (and a
// disk's own): a mount, swap or stacked device on any of them makes
// writing this one destroy a live filesystem. In name order.
func (fs FS) family(b Block) []Block {
	disk := b.Name
	if b.Partition {
		disk = b.Parent
	}
	names := map[string]bool{b.Name: true}
	if db, err := fs.Block(disk); err == nil {
		names[db.Name] = true
		for _, p := range db.Partitions {
			names[p] = true
		}
	}
	for _, p := range b.Partitions {
		names[p] = true
	}
	var out []Block
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if x, err := fs.Block(n); err == nil {
			out = append(out, x)
		}
	}
	return out
}

// carries names what is on a block device: its partitions and the
// signatures at its start and end.
func (fs FS) carries(b *Block) []string {
	var out []string
	if len(b.Partitions) > 0 {
		out = append(out, "partitions "+strings.Join(b.Partitions, ", "))
	}
	if fs.live() {
		if sig, err := Signatures(b.Path()); err == nil {
			out = append(out, sig...)
		}
	} else if sig, err := Signatures(fs.path("dev/" + b.Name + ".img")); err == nil {
		// Fixture trees may stand a device's content in as dev/NAME.img.
		out = append(out, sig...)
	}
	return out
}

func dedupe(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// Confirmed reports whether --destroy-data names the target exactly: its
// path (as given or as the device node; relative paths are read against
// the working directory), or an identifier that is the device's own
// (FS.Check says which). t is the target v is the verdict of.
func (v Verdict) Confirmed(t Target, destroy []string) bool {
	if v.New {
		return true
	}
	return named(v.names, destroy)
}

// named reports whether any of destroy is one of names, as written or as
// an absolute path.
func named(names, destroy []string) bool {
	for _, d := range destroy {
		if d == "" {
			continue
		}
		if slices.Contains(names, d) {
			return true
		}
		if p, err := AbsPath(d); err == nil && slices.Contains(names, p) {
			return true
		}
	}
	return false
}

// Gate checks every target and returns an error wrapping ErrUnsafe for the
// first one that may not be written: in use, or not confirmed.
func (fs FS) Gate(ts []Target, sys System, destroy []string) error {
	for _, t := range ts {
		v := fs.Check(t, sys)
		if !v.Usable {
			return fmt.Errorf("%w: refusing to write to %s: %s", ErrUnsafe, t.Raw, strings.Join(v.Refused, "; "))
		}
		if !v.Confirmed(t, destroy) {
			what := "its data"
			if len(v.Carries) > 0 {
				what = strings.Join(v.Carries, ", ")
			}
			return fmt.Errorf("%w: writing to %s destroys %s: confirm with --destroy-data %s", ErrUnsafe, t.Raw, what, v.Confirm)
		}
	}
	return nil
}

// BlockTargets are block devices by path (/dev/NAME), as targets: what a
// purge whose scope is larger than its target erases besides it (the whole
// disk of a partition, the other namespaces of an NVMe controller), to be
// put to the gate (GateErased).
func (fs FS) BlockTargets(paths []string) ([]Target, error) {
	var out []Target
	for _, p := range paths {
		b, err := fs.Block(filepath.Base(p))
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnsafe, p, err)
		}
		out = append(out, Target{Spec: Spec{Raw: b.Path(), Kind: KindBlock, Path: b.Path()}, Block: &b,
			Capacity: b.SizeBytes, LogicalBlock: b.LogicalBlock})
	}
	return out, nil
}

// GateErased checks what a purge of t erases besides t (erased: the whole
// disk of a partition, the other namespaces of its NVMe controller) with
// the rules of a target: one in use refuses the purge; the others must
// each be named by --destroy-data, by path or by an identifier of their
// own (a disk named covers its partitions; the controller's serial names
// none of its namespaces, it is the target's too). what names the purge
// ("NVMe sanitize"). The error wraps ErrUnsafe and names every device.
func (fs FS) GateErased(t Target, erased []Target, sys System, destroy []string, what string) error {
	if len(erased) == 0 {
		return nil
	}
	var inUse, unconfirmed, flags []string
	for _, o := range erased {
		v := fs.Check(o, sys)
		if !v.Usable {
			inUse = append(inUse, fmt.Sprintf("%s (%s)", o.Block.Path(), strings.Join(v.Refused, "; ")))
			continue
		}
		if !v.Confirmed(o, destroy) {
			what := o.Block.Path()
			if len(v.Carries) > 0 {
				what += ", which carries " + strings.Join(v.Carries, ", ")
			}
			unconfirmed = append(unconfirmed, what)
			flags = append(flags, "--destroy-data "+o.Block.Path())
		}
	}
	scope := what + " of " + t.Block.Path() + " erases " + scopeOf(t, erased)
	if len(inUse) > 0 {
		return fmt.Errorf("%w: refusing: %s; in use: %s", ErrUnsafe, scope, strings.Join(inUse, "; "))
	}
	if len(unconfirmed) > 0 {
		msg := fmt.Sprintf("%s; confirm that %s may be destroyed with %s", scope, strings.Join(unconfirmed, "; "), strings.Join(flags, " "))
		if t.Block.Partition {
			msg += ", or purge the partition alone with --purge discard or --purge zero-fill (substitutes, not a PTS purge)"
		}
		return fmt.Errorf("%w: %s", ErrUnsafe, msg)
	}
	return nil
}

// scopeOf says what erasing erased besides t means: the whole disk of a
// partition, every namespace of a controller.
func scopeOf(t Target, erased []Target) string {
	var disk string
	var others []string
	for _, o := range erased {
		if t.Block.Partition && o.Block.Name == t.Block.Parent {
			disk = o.Block.Path()
			continue
		}
		others = append(others, o.Block.Path())
	}
	var parts []string
	if disk != "" {
		parts = append(parts, fmt.Sprintf("the whole disk %s, not only the partition", disk))
	}
	if len(others) > 0 {
		parts = append(parts, fmt.Sprintf("every namespace of controller %s, not only the target: also %s",
			t.Block.Controller, strings.Join(others, ", ")))
	}
	return strings.Join(parts, ", and ")
}

// swapFile says why file path may not be written when it is active swap
// (a swap file, under any of its names).
func (fs FS) swapFile(path string, sys System) []string {
	k, err := fs.keyOf(path)
	if err != nil || k.Block != "" || k.zero() {
		return nil // stacked reports a file it cannot tell
	}
	var out []string
	for _, s := range sys.Swaps {
		if sk, err := fs.keyOf(s); err == nil && sk == k {
			out = append(out, "it is active swap ("+s+")")
		}
	}
	return out
}
