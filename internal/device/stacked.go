package device

import (
	"fmt"
	"strings"
)

// Loop devices stacked on a target, and what a loop device target is
// stacked on. Writing a device or file writes every loop device bound to
// it (and through them, whatever those show), and writing a loop device
// writes its backing file or device: a filesystem mounted anywhere in
// that stack is lost. The kernel lists none of it as holders, so the
// gate follows the stack itself (backing.go reads it).

// maxStack is how deep the gate follows loop devices stacked on loop
// devices before it gives up and refuses: the kernel forbids cycles, but
// nothing else bounds a chain.
const maxStack = 8

// bindings are the bound loop devices sys was read with, or read now for
// a System made without them.
func (fs FS) bindings(sys System) []loopBinding {
	if sys.loopsRead {
		return sys.loops
	}
	return fs.loopBindings()
}

// stacked lists why writing t destroys something in use through loop
// devices (refused), and the loop devices stacked on it that are not in
// use (loops: writing it rewrites what they show, which its confirmation
// covers). A loop device is in use when it is mounted, holds a mounted
// partition, has holders, is swap, or has a loop device stacked on it in
// turn. A binding the gate cannot tell refuses: it may be this one.
func (fs FS) stacked(t Target, sys System) (refused, loops []string) {
	bs := fs.bindings(sys)
	switch {
	case t.Kind == KindFile && t.Exists:
		k, err := fs.keyOf(t.Path)
		if err != nil {
			return []string{fmt.Sprintf("cannot tell which loop devices are stacked on it: %v", err)}, nil
		}
		return fs.loopsOver([]stackPart{{key: k, where: "on it", own: true}}, bs, sys, map[string]bool{})
	case t.Kind == KindBlock && t.Block != nil:
		seen := map[string]bool{t.Block.Name: true}
		refused, loops = fs.loopsOver(fs.parts(*t.Block), bs, sys, seen)
		refused = append(refused, fs.under(*t.Block, bs, sys, seen, 0)...)
		return dedupe(refused), loops
	}
	return nil, nil
}

// stackPart is one device a loop device stacked on would share data with
// a target: the target itself, its disk, the disk's partitions. own: the
// target's own data (itself or its partitions), not only its disk's.
type stackPart struct {
	key   nodeKey
	where string // "on it", "on its disk sda", …
	own   bool
}

// parts are the devices of b's family, each with how it relates to b.
func (fs FS) parts(b Block) []stackPart {
	var out []stackPart
	for _, x := range fs.family(b) {
		p := stackPart{key: nodeKey{Block: x.Dev}}
		switch {
		case x.Name == b.Name:
			p.where, p.own = "on it", true
		case b.Partition && x.Name == b.Parent:
			p.where = "on its disk " + x.Name
		case !b.Partition:
			p.where, p.own = "on its partition "+x.Name, true
		default:
			p.where = "on partition " + x.Name + " of the same disk"
		}
		out = append(out, p)
	}
	return out
}

// loopsOver judges the loop devices bound to any of parts, but those in
// seen: refused for each in use, else listed in loops when on the
// target's own data.
func (fs FS) loopsOver(parts []stackPart, bs []loopBinding, sys System, seen map[string]bool) (refused, loops []string) {
	for _, p := range parts {
		names, err := fs.loopsOn(p.key, bs)
		if err != nil {
			refused = append(refused, fmt.Sprintf("cannot tell which loop devices are stacked on it (%v): detach that loop device, or run as root", err))
		}
		for _, n := range names {
			if seen[n] {
				continue
			}
			if use := fs.loopInUse(n, bs, sys); len(use) > 0 {
				refused = append(refused, fmt.Sprintf("loop device /dev/%s %s is in use: %s", n, p.where, strings.Join(use, "; ")))
			} else if p.own {
				loops = append(loops, "/dev/"+n)
			}
		}
	}
	return dedupe(refused), dedupe(loops)
}

// loopInUse lists why loop device name is in use: mounted, swap, held, or
// stacked on in turn (itself or a partition of it).
func (fs FS) loopInUse(name string, bs []loopBinding, sys System) []string {
	b, err := fs.Block(name)
	if err != nil {
		return []string{err.Error()}
	}
	use := fs.inUse(b, sys)
	for _, x := range fs.family(b) {
		names, err := fs.loopsOn(nodeKey{Block: x.Dev}, bs)
		if err != nil {
			use = append(use, fmt.Sprintf("cannot tell what is stacked on it (%v)", err))
		}
		for _, n := range names {
			use = append(use, fmt.Sprintf("loop device /dev/%s is stacked on %s in turn", n, x.Name))
		}
	}
	return use
}

// under lists why writing b, when it is a loop device, destroys something
// in use below it: its backing device in use (mounted partitions, holders,
// other loop devices on it in use), or its backing file under another loop
// device in use; down the stack, as deep as maxStack.
func (fs FS) under(b Block, bs []loopBinding, sys System, seen map[string]bool, depth int) []string {
	var lb *loopBinding
	for i := range bs {
		if bs[i].Name == b.Name {
			lb = &bs[i]
		}
	}
	if lb == nil {
		return nil // not a bound loop device
	}
	if lb.err != nil {
		return []string{fmt.Sprintf("cannot tell what it is bound to (%v)", lb.err)}
	}
	if depth >= maxStack {
		return []string{fmt.Sprintf("it is a loop device stacked more than %d deep: ptsrun does not follow the stack further", maxStack)}
	}
	if lb.key.Block == "" {
		// A file: every other loop device bound to it shows what b does.
		refused, _ := fs.loopsOver([]stackPart{{key: lb.key, where: "on its backing file " + lb.File}}, bs, sys, seen)
		return refused
	}
	name := fs.blockName(lb.key.Block)
	if name == "" {
		return []string{fmt.Sprintf("it is bound to block device %s, which is not in %s", lb.key.Block, fs.path("sys/dev/block"))}
	}
	if seen[name] {
		return nil
	}
	seen[name] = true
	bb, err := fs.Block(name)
	if err != nil {
		return []string{fmt.Sprintf("it is bound to %s: %v", name, err)}
	}
	var out []string
	for _, u := range fs.inUse(bb, sys) {
		out = append(out, fmt.Sprintf("it is bound to /dev/%s, in use: %s", name, u))
	}
	refused, _ := fs.loopsOver(fs.parts(bb), bs, sys, seen)
	for _, r := range refused {
		out = append(out, fmt.Sprintf("it is bound to /dev/%s, and %s", name, r))
	}
	return append(out, fs.under(bb, bs, sys, seen, depth+1)...)
}

// blockName is the kernel name of block device MAJ:MIN; "" when sysfs has
// none.
func (fs FS) blockName(dev string) string {
	n := fs.link("sys/dev/block/" + dev)
	if n == "" {
		return ""
	}
	return n[strings.LastIndexByte(n, '/')+1:]
}

// stackedCarries says what is on a target of the loop devices stacked on
// it that are not in use: what the confirmation destroys besides its data.
func stackedCarries(loops []string) []string {
	var out []string
	for _, l := range loops {
		out = append(out, "loop device "+l+" stacked on it")
	}
	return out
}

// stackedLoops are the loop devices bound to path, as device nodes, for
// the target's identity; what cannot be told is the gate's to refuse.
func (fs FS) stackedLoops(path string) []string {
	names, _ := LoopsBackedBy(fs, path)
	var out []string
	for _, n := range names {
		out = append(out, "/dev/"+n)
	}
	return out
}
