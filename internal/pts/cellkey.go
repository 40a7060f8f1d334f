package pts

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/units"
)

// CellKey names a cell of a test: its access pattern, block size and R/W
// mix. It is written "rnd-4k-65/35" in run.json, the journal and
// results.json; every package compares cells by it, never by that string.
// A workload outside the PTS matrices (an imported fio job with a block-size
// split, say) is named instead, by what it ran.
type CellKey struct {
	Access    engine.Access
	BlockSize int64
	ReadPct   int
	Name      string // a workload outside the matrices; the rest is then zero
}

// Named is the key of a workload outside the matrices.
func Named(name string) CellKey { return CellKey{Name: name} }

// Key is the key of a cell of access, block size and read percentage.
func Key(acc engine.Access, bs int64, read int) CellKey {
	return CellKey{Access: acc, BlockSize: bs, ReadPct: read}
}

// KeyOf is the key of the cell that runs w.
func KeyOf(w engine.Workload) CellKey {
	if len(w.BlockSplit) > 0 {
		return Named(stemOf(w)) // no one block size: "composite-40/60"
	}
	return Key(w.Access, w.BlockSize, w.ReadPct)
}

// IsZero reports a key that names no cell.
func (k CellKey) IsZero() bool { return k == CellKey{} }

// String is the key as stored: "rnd-4k-65/35", or the name.
func (k CellKey) String() string {
	if k.Name != "" {
		return k.Name
	}
	acc := "rnd"
	if k.Access == engine.Sequential {
		acc = "seq"
	}
	return fmt.Sprintf("%s-%s-%s", acc, units.SizeKey(k.BlockSize), MixLabel(k.ReadPct))
}

// ParseCellKey reads a key as String writes it.
func ParseCellKey(s string) (CellKey, error) {
	parts := strings.SplitN(s, "-", 3)
	if len(parts) != 3 {
		return CellKey{}, fmt.Errorf("cell key %q: want ACCESS-SIZE-R/W such as rnd-4k-65/35", s)
	}
	var k CellKey
	switch parts[0] {
	case "rnd":
		k.Access = engine.Random
	case "seq":
		k.Access = engine.Sequential
	default:
		return CellKey{}, fmt.Errorf("cell key %q: access %q is neither rnd nor seq", s, parts[0])
	}
	bs, err := units.ParseSize(parts[1])
	if err != nil {
		return CellKey{}, fmt.Errorf("cell key %q: %w", s, err)
	}
	k.BlockSize = bs
	r, w, ok := strings.Cut(parts[2], "/")
	read, err1 := strconv.Atoi(r)
	write, err2 := strconv.Atoi(w)
	if !ok || err1 != nil || err2 != nil || read < 0 || read+write != 100 {
		return CellKey{}, fmt.Errorf("cell key %q: mix %q is not R/W adding up to 100", s, parts[2])
	}
	k.ReadPct = read
	return k, nil
}

// MarshalText writes the key as String does.
func (k CellKey) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads what MarshalText wrote: a matrix cell's key, else
// the name of a workload outside the matrices.
func (k *CellKey) UnmarshalText(b []byte) error {
	v, err := ParseCellKey(string(b))
	if err != nil {
		v = Named(string(b))
	}
	*k = v
	return nil
}

// Label names the cell the PTS way: "RND 4 KiB 65/35".
func (k CellKey) Label() string {
	if k.Name != "" {
		return k.Name
	}
	return fmt.Sprintf("%s %s %s", AccessLabel(k.Access), units.FormatSize(k.BlockSize), MixLabel(k.ReadPct))
}

// Words names the cell for people who quote it: "RND 4 KiB read",
// "SEQ 1024 KiB write", "RND 4 KiB 65/35".
func (k CellKey) Words() string {
	if k.Name != "" {
		return k.Name
	}
	mix := MixLabel(k.ReadPct)
	switch k.ReadPct {
	case 100:
		mix = "read"
	case 0:
		mix = "write"
	}
	return fmt.Sprintf("%s %s %s", AccessLabel(k.Access), units.FormatSize(k.BlockSize), mix)
}

// AccessLabel writes an access pattern the PTS way: RND or SEQ.
func AccessLabel(a engine.Access) string {
	if a == engine.Sequential {
		return "SEQ"
	}
	return "RND"
}

// MixLabel writes a read percentage as R/W: "65/35".
func MixLabel(read int) string { return fmt.Sprintf("%d/%d", read, 100-read) }

// WorkloadKey names the cell of a workload recorded outside the PTS: its
// matrix key ("rnd-4k-70/30"), or, with a block-size split or zones, a
// name that holds them as the flags write them, so that results.json and
// the tables carry them: "rnd-4k:67,8k:33-40/60-zoned:50/5:30/15:20/80".
func WorkloadKey(w engine.Workload) CellKey {
	if len(w.BlockSplit) == 0 && len(w.Zones) == 0 {
		return KeyOf(w)
	}
	name := strings.ToLower(AccessLabel(w.Access)) + "-" + w.BSKey() + "-" + MixLabel(w.ReadPct) // rnd, seq
	if len(w.Zones) > 0 {
		name += "-zoned:" + w.ZonesKey()
	}
	return Named(name)
}
