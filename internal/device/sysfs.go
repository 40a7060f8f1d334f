package device

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Block is what sysfs says about one block device (a disk or a partition).
type Block struct {
	Name          string   // sda, nvme0n1, loop3, sda1
	Dev           string   // major:minor
	Partition     bool     // a partition of Parent
	Parent        string   // the disk of a partition
	Partitions    []string // partitions of a disk
	Holders       []string // devices stacked on this one (dm, md)
	Slaves        []string // devices this one stacks on
	SizeBytes     int64
	LogicalBlock  int64
	PhysicalBlock int64
	Rotational    bool
	ReadOnly      bool
	Removable     bool
	Vendor        string
	Model         string
	Serial        string
	Firmware      string
	WWN           string
	Interface     string // NVMe, SATA, SAS, SCSI, virtio, loop, md, dm, …
	Transport     string // pcie, sata, sas, fc, …
	PCIeLink      string // "16.0 GT/s PCIe x4"
	WriteCache    string // enabled, disabled, unknown ("write back"/"write through" in sysfs)
	DiscardMax    int64  // bytes one discard may cover; 0: the device takes no discards
	BackingFile   string // loop devices
	DMName        string // dm devices
	MDLevel       string // md devices
	// NVMe namespaces: the controller they hang off (nvme0; with native
	// multipath, the subsystem), the namespace ID, and the other namespaces
	// of that controller, which a sanitize (and some formats) erase too.
	Controller string
	NSID       int
	Namespaces []string
	// HBA is the PCI function the disk hangs off; nil for loop, dm, md and
	// NVMe over fabrics.
	HBA *PCIFunction
	// Facts are what the device reports of its form factor and medium.
	Facts []Fact
}

// Path is the device node.
func (b Block) Path() string { return "/dev/" + b.Name }

// Blocks lists every block device the system knows, disks and partitions.
func (fs FS) Blocks() ([]Block, error) {
	names := fs.list("sys/class/block")
	if names == nil {
		return nil, fmt.Errorf("%s: no block devices listed", fs.path("sys/class/block"))
	}
	var out []Block
	for _, n := range names {
		b, err := fs.Block(n)
		if err != nil && !fs.exists("sys/class/block/"+n) {
			// Removed since the directory was read (a loop device's
			// partitions as it is detached): no longer a device to list.
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return naturalLess(out[i].Name, out[j].Name) })
	return out, nil
}

// naturalLess orders names as people count: the digits in them as
// numbers (loop2 before loop10, nvme0n2 before nvme0n10).
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitsAt(a), digitsAt(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// digitsAt is how many decimal digits s starts with.
func digitsAt(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// Block reads one block device by kernel name.
func (fs FS) Block(name string) (Block, error) {
	base := "sys/class/block/" + name
	if !fs.exists(base) {
		return Block{}, fmt.Errorf("no block device %q in %s", name, fs.path("sys/class/block"))
	}
	b := Block{Name: name, Dev: fs.read(base + "/dev")}
	sectors, _ := fs.readInt(base + "/size")
	b.SizeBytes = sectors * 512 // sysfs counts 512-byte sectors whatever the block size
	b.Partition = fs.exists(base + "/partition")
	if b.Partition {
		b.Parent = filepath.Base(filepath.Dir(fs.link(base)))
		disk := "sys/class/block/" + b.Parent
		b.LogicalBlock, _ = fs.readInt(disk + "/queue/logical_block_size")
		b.PhysicalBlock, _ = fs.readInt(disk + "/queue/physical_block_size")
		rot, _ := fs.readInt(disk + "/queue/rotational")
		b.Rotational = rot == 1
	} else {
		b.LogicalBlock, _ = fs.readInt(base + "/queue/logical_block_size")
		b.PhysicalBlock, _ = fs.readInt(base + "/queue/physical_block_size")
		rot, _ := fs.readInt(base + "/queue/rotational")
		b.Rotational = rot == 1
		for _, e := range fs.list(base) {
			if strings.HasPrefix(e, name) && fs.exists(base+"/"+e+"/partition") {
				b.Partitions = append(b.Partitions, e)
			}
		}
	}
	if b.Partition {
		b.DiscardMax, _ = fs.readInt("sys/class/block/" + b.Parent + "/queue/discard_max_bytes")
	} else {
		b.DiscardMax, _ = fs.readInt(base + "/queue/discard_max_bytes")
	}
	ro, _ := fs.readInt(base + "/ro")
	b.ReadOnly = ro == 1
	rm, _ := fs.readInt(base + "/removable")
	b.Removable = rm == 1
	b.Holders = fs.list(base + "/holders")
	b.Slaves = fs.list(base + "/slaves")
	disk := base
	if b.Partition {
		disk = "sys/class/block/" + b.Parent
	}
	fs.identify(&b, disk)
	return b, nil
}

// identify fills vendor, model, serial, firmware, WWN, interface, transport
// and the write cache from the disk's sysfs directory.
func (fs FS) identify(b *Block, disk string) {
	dev := disk + "/device"
	name := filepath.Base(disk)
	clean := func(s string) string { return strings.TrimSpace(s) }
	b.WriteCache = cacheState(fs.read(disk + "/queue/write_cache"))
	b.HBA = fs.pciParent(disk)
	switch {
	case strings.HasPrefix(name, "nvme"):
		b.Interface, b.Transport = "NVMe", clean(fs.read(dev+"/transport"))
		b.Model = clean(fs.read(dev + "/model"))
		b.Serial = clean(fs.read(dev + "/serial"))
		b.Firmware = clean(fs.read(dev + "/firmware_rev"))
		b.WWN = clean(fs.read(disk + "/wwid"))
		if b.WWN == "" {
			b.WWN = clean(fs.read(disk + "/eui"))
		}
		b.Controller, b.Namespaces = fs.nvmeController(disk)
		if n, ok := fs.readInt(disk + "/nsid"); ok {
			b.NSID = int(n)
		}
		// The PCI function holds the link: device → nvme controller → PCI device.
		pci := dev + "/device"
		b.PCIeLink = pcieLink(fs.read(pci+"/current_link_speed"), fs.read(pci+"/current_link_width"))
		if b.HBA == nil {
			// With native multipath the namespace hangs off its subsystem,
			// a virtual device; its controllers are links in it.
			for _, c := range fs.list(dev) {
				if nvmeCtrl.MatchString(c) {
					if b.HBA = fs.pciParent(dev + "/" + c); b.HBA != nil {
						break
					}
				}
			}
		}
		// Fabrics controllers have no PCI function: one found is the drive's own.
		if b.HBA != nil {
			b.HBA.OnDrive = true
			if b.PCIeLink == "" {
				b.PCIeLink = b.HBA.Link
			}
		}
	case strings.HasPrefix(name, "loop"):
		b.Interface, b.Transport = "loop", "loop"
		b.BackingFile = fs.read(disk + "/loop/backing_file")
		b.Model = "loop device"
	case strings.HasPrefix(name, "dm-"):
		b.Interface = "dm"
		b.DMName = fs.read(disk + "/dm/name")
		b.Model = "device-mapper " + b.DMName
		b.Serial = fs.read(disk + "/dm/uuid")
	case strings.HasPrefix(name, "md"):
		b.Interface = "md"
		b.MDLevel = fs.read(disk + "/md/level")
		b.Model = "md " + b.MDLevel
	case strings.HasPrefix(name, "vd"):
		b.Interface, b.Transport = "virtio", "virtio"
		b.Serial = clean(fs.read(disk + "/serial"))
		b.Vendor = clean(fs.read(dev + "/vendor"))
		b.Model = "virtio block device"
	case fs.exists(dev+"/scsi_device") || fs.exists(dev+"/model"):
		b.Vendor = clean(fs.read(dev + "/vendor"))
		b.Model = clean(fs.read(dev + "/model"))
		b.Firmware = clean(fs.read(dev + "/rev"))
		b.WWN = clean(fs.read(dev + "/wwid"))
		b.Serial = vpdSerial(fs.readRaw(dev + "/vpd_pg80"))
		// Drives without the page, or with a malformed one, report nothing.
		if v, err := parseVPDB1(fs.readRaw(dev + "/vpd_pgb1")); err == nil {
			b.Facts = v.facts()
		}
		b.Interface, b.Transport = "SCSI", "scsi"
		if b.Vendor == "ATA" {
			b.Interface, b.Transport = "SATA", "sata"
		} else if fs.exists(dev + "/sas_address") {
			b.Interface, b.Transport = "SAS", "sas"
		}
	}
}

// nvmeNamespace is a namespace's block device: not a partition (nvme0n1p1),
// not a hidden multipath path (nvme0c1n1).
var nvmeNamespace = regexp.MustCompile(`^nvme\d+n\d+$`)

// nvmeCtrl is a controller's name (nvme0).
var nvmeCtrl = regexp.MustCompile(`^nvme\d+$`)

// nvmeController finds the controller a namespace disk hangs off (its
// "device" link) and every other namespace whose link leads to the same one.
func (fs FS) nvmeController(disk string) (ctrl string, others []string) {
	own := fs.realPath(disk + "/device")
	if own == "" {
		return "", nil
	}
	name := filepath.Base(disk)
	for _, n := range fs.list("sys/class/block") {
		if n != name && nvmeNamespace.MatchString(n) && fs.realPath("sys/class/block/"+n+"/device") == own {
			others = append(others, n)
		}
	}
	return filepath.Base(own), others
}

// vpdSerial reads the Unit Serial Number VPD page (80h): a 4-byte header
// (page code 0x80, length in bytes 2–3), then the serial, space padded.
func vpdSerial(b []byte) string {
	if len(b) < 4 || b[1] != 0x80 {
		return ""
	}
	n := int(b[2])<<8 | int(b[3])
	if 4+n > len(b) {
		n = len(b) - 4
	}
	return strings.TrimSpace(string(b[4 : 4+n]))
}

func cacheState(s string) string {
	switch s {
	case "write back":
		return "enabled"
	case "write through":
		return "disabled"
	}
	return "unknown"
}
