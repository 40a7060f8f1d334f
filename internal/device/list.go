package device

// Entry is one block device as `ptsrun devices` lists it: its identity,
// where it sits, and whether ptsrun would write to it.
type Entry struct {
	Identity
	Name      string   `json:"name"`
	Partition bool     `json:"partition,omitempty"`
	Parent    string   `json:"parent,omitempty"`
	Holders   []string `json:"holders,omitempty"`
	Verdict   Verdict  `json:"verdict"`
}

// List is every block device with its safety verdict; all includes the
// empty ones (size 0: unattached loop devices, absent media).
func (fs FS) List(all bool) ([]Entry, error) {
	blocks, err := fs.Blocks()
	if err != nil {
		return nil, err
	}
	sys, err := fs.System()
	if err != nil {
		return nil, err
	}
	entries := []Entry{} // [] rather than null when there is none
	for _, b := range blocks {
		if b.SizeBytes == 0 && !all {
			continue
		}
		spec := Spec{Raw: "/dev/" + b.Name, Kind: KindBlock, Path: "/dev/" + b.Name}
		t, err := fs.Inspect(spec)
		if err != nil {
			// Listed by sysfs but without a node here (a container): say so.
			bb := b
			t = Target{Spec: spec, Block: &bb, Capacity: b.SizeBytes, LogicalBlock: b.LogicalBlock}
		}
		v := fs.Check(t, sys)
		if b.SizeBytes == 0 {
			// An unattached loop device, an empty zram: nothing to test.
			v.Usable, v.Refused = false, append(v.Refused, "it holds 0 bytes (a loop device not attached, or a device without a medium)")
		}
		id := t.Identity
		if id.Kind == "" {
			id = Identity{Spec: t.Raw, Kind: KindBlock, Path: "/dev/" + b.Name, Model: b.Model,
				Serial: b.Serial, CapacityBytes: b.SizeBytes, LogicalBlock: b.LogicalBlock, Interface: b.Interface}
		}
		entries = append(entries, Entry{Identity: id, Name: b.Name, Partition: b.Partition, Parent: b.Parent,
			Holders: b.Holders, Verdict: v})
	}
	return entries, nil
}
