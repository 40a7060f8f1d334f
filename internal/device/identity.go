package device

import (
	"fmt"
	"strconv"
)

// FormatCapacity writes a capacity in decimal units, as drives are sold.
func FormatCapacity(b int64) string {
	switch {
	case b <= 0:
		return "unknown"
	case b >= 1e12:
		return fmt.Sprintf("%.2f TB", float64(b)/1e12)
	case b >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(b)/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(b)/1e6)
	}
	return fmt.Sprintf("%d B", b)
}

// Kinds of target.
const (
	KindSim   = "sim"
	KindBlock = "block"
	KindFile  = "file"
	// KindRemote is a path on a fio server's host, which ptsrun reaches
	// only through fio.
	KindRemote = "remote"
)

// Identity is what a run records about one target: in run.json, in the report
// header, and to check on resume that the target is still the same one.
type Identity struct {
	Spec          string `json:"spec"` // as the user wrote it
	Kind          string `json:"kind"` // sim, block, file
	Path          string `json:"path,omitempty"`
	Vendor        string `json:"vendor,omitempty"`
	Model         string `json:"model,omitempty"`
	Serial        string `json:"serial,omitempty"`
	Firmware      string `json:"firmware,omitempty"`
	WWN           string `json:"wwn,omitempty"`
	CapacityBytes int64  `json:"capacity_bytes"`
	LogicalBlock  int64  `json:"logical_block_bytes"`
	PhysicalBlock int64  `json:"physical_block_bytes,omitempty"`
	Rotational    bool   `json:"rotational,omitempty"`
	Interface     string `json:"interface,omitempty"` // NVMe, SATA, SAS, virtio, loop, simulated
	Transport     string `json:"transport,omitempty"`
	PCIeLink      string `json:"pcie_link,omitempty"`
	// HBA is the PCI function the device hangs off (absent in run.json
	// files older than it, and for targets that hang off none).
	HBA *PCIFunction `json:"hba,omitempty"`
	// Facts are what the device reports of its form factor and medium.
	Facts []Fact `json:"facts,omitempty"`
	// BackingFile is a loop device's backing file: the same loop device
	// re-attached to another image is another device.
	BackingFile string `json:"backing_file,omitempty"`
	// Loops are the loop devices stacked on the target when it was
	// inspected, none of them in use (the gate refuses one that is):
	// writing the target rewrote what they show.
	Loops         []string `json:"loops,omitempty"`
	WriteCache    string   `json:"write_cache,omitempty"` // enabled, disabled, unknown
	Notes         string   `json:"notes,omitempty"`
	OverProvision float64  `json:"over_provisioning,omitempty"` // simulated drives only
}

// SameDevice reports whether two identities name the same physical target:
// the fields that do not change while a drive stays the same drive.
func (a Identity) SameDevice(b Identity) bool { return len(a.Differences(b)) == 0 }

// Differences lists how b (the target now) differs from a (as recorded)
// in what does not change while a drive stays the same drive: kind,
// serial, WWID, model, backing file, capacity and logical block size, and
// the path of a target that has no serial. Every field is compared as
// recorded: one recorded empty and found set (a run.json older than the
// field) differs, as ptsrun cannot tell it is the same.
func (a Identity) Differences(b Identity) []string {
	var out []string
	str := func(what, was, now string) {
		if was != now {
			out = append(out, fmt.Sprintf("%s %s, now %s", what, orNone(was), orNone(now)))
		}
	}
	str("kind", a.Kind, b.Kind)
	str("serial", a.Serial, b.Serial)
	str("WWID", a.WWN, b.WWN)
	str("model", a.Model, b.Model)
	str("backing file", a.BackingFile, b.BackingFile)
	if a.Serial == "" || b.Serial == "" {
		str("path", a.Path, b.Path)
	}
	if a.CapacityBytes != b.CapacityBytes {
		out = append(out, fmt.Sprintf("capacity %d bytes, now %d", a.CapacityBytes, b.CapacityBytes))
	}
	if a.LogicalBlock != b.LogicalBlock {
		out = append(out, fmt.Sprintf("logical block %d bytes, now %d", a.LogicalBlock, b.LogicalBlock))
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return strconv.Quote(s)
}

// Label is a short human name: "vendor model (serial)".
func (a Identity) Label() string {
	s := a.Model
	if a.Vendor != "" {
		s = a.Vendor + " " + s
	}
	if a.Serial != "" {
		s += " (" + a.Serial + ")"
	}
	if s == "" {
		s = a.Spec
	}
	return s
}
