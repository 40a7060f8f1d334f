package device

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// PCIFunction is the PCI function a block device hangs off, found by
// walking up its sysfs path: the host bus adapter (AHCI, SAS, RAID), a
// virtual controller (virtio), or, for NVMe, the drive's own controller
// (PTS §5.1: HBA / host interface, PCIe gen and width).
type PCIFunction struct {
	Address   string `json:"address"`                    // 0000:00:17.0
	Vendor    string `json:"vendor"`                     // PCI IDs, four hex digits: 8086
	Device    string `json:"device"`                     // a352
	SubVendor string `json:"subsystem_vendor,omitempty"` // the card's maker, when it says
	SubDevice string `json:"subsystem_device,omitempty"`
	Class     string `json:"class"`                // six hex digits: class, subclass, programming interface
	Name      string `json:"name,omitempty"`       // from pci.ids; "" when it is not installed or lacks the IDs
	ClassName string `json:"class_name,omitempty"` // "SATA controller, AHCI 1.0"
	Driver    string `json:"driver,omitempty"`     // the kernel driver bound to it
	Link      string `json:"link,omitempty"`       // current PCIe link: "8.0 GT/s PCIe x8"
	MaxLink   string `json:"max_link,omitempty"`   // what both ends could do
	// OnDrive: the function is the drive's own controller (NVMe), so there
	// is no adapter between the host and the drive.
	OnDrive bool `json:"on_drive,omitempty"`
}

// Label names the function: its pci.ids name and IDs, or the IDs and class
// when pci.ids does not know it.
func (p PCIFunction) Label() string {
	if p.Name != "" {
		return fmt.Sprintf("%s [%s:%s]", p.Name, p.Vendor, p.Device)
	}
	if p.ClassName != "" {
		return fmt.Sprintf("PCI %s:%s (%s, class 0x%s)", p.Vendor, p.Device, p.ClassName, p.Class)
	}
	return fmt.Sprintf("PCI %s:%s (class 0x%s)", p.Vendor, p.Device, p.Class)
}

// pciAddress is a PCI function's directory name in sysfs: domain:bus:device.function.
var pciAddress = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)

// pciParent finds the nearest PCI function above a block device in the
// sysfs device tree; nil for devices that hang off none (loop, dm, md,
// NVMe over fabrics).
func (fs FS) pciParent(disk string) *PCIFunction {
	dir := fs.realPath(disk)
	for dir != "" && filepath.Base(dir) != "devices" && filepath.Dir(dir) != dir {
		if pciAddress.MatchString(filepath.Base(dir)) {
			if p, ok := fs.pciFunction(dir); ok {
				return &p
			}
		}
		dir = filepath.Dir(dir)
	}
	return nil
}

// pciFunction reads one PCI function's sysfs directory (dir is a real
// path, root included).
func (fs FS) pciFunction(dir string) (PCIFunction, bool) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	hex := func(name string) string { return strings.ToLower(strings.TrimPrefix(read(name), "0x")) }
	p := PCIFunction{Address: filepath.Base(dir), Vendor: hex("vendor"), Device: hex("device"),
		SubVendor: hex("subsystem_vendor"), SubDevice: hex("subsystem_device"), Class: hex("class")}
	if p.Vendor == "" || p.Device == "" {
		return p, false
	}
	if d, err := os.Readlink(filepath.Join(dir, "driver")); err == nil {
		p.Driver = filepath.Base(d)
	}
	p.Link = pcieLink(read("current_link_speed"), read("current_link_width"))
	p.MaxLink = pcieLink(read("max_link_speed"), read("max_link_width"))
	if f := fs.openPCIIDs(); f != nil {
		n := lookupPCIIDs(f, p)
		f.Close()
		p.Name, p.ClassName = n.name(), n.className()
	}
	if p.ClassName == "" {
		if len(p.Class) == 6 {
			p.ClassName = storageClasses[p.Class[:4]]
		}
	}
	return p, true
}

// pcieLink writes a link as sysfs gives it: "8.0 GT/s PCIe" and "8" become
// "8.0 GT/s PCIe x8"; "" where there is no PCIe link to report.
func pcieLink(speed, width string) string {
	if speed == "" || strings.HasPrefix(speed, "Unknown") || width == "" || width == "0" {
		return ""
	}
	return speed + " x" + width
}

// pciIDsFiles are where pciutils' and hwdata's ID databases are installed.
var pciIDsFiles = []string{"usr/share/misc/pci.ids", "usr/share/hwdata/pci.ids", "usr/share/pci.ids"}

func (fs FS) openPCIIDs() *os.File {
	for _, p := range pciIDsFiles {
		if f, err := os.Open(fs.path(p)); err == nil {
			return f
		}
	}
	return nil
}

// pciNames is what pci.ids says about one function.
type pciNames struct {
	vendor, device, subsystem string
	class, subclass, progIf   string
}

func (n pciNames) name() string {
	switch {
	case n.vendor == "":
		return ""
	case n.device == "":
		return n.vendor + " (device not in pci.ids)"
	case n.subsystem != "":
		return n.vendor + " " + n.device + " (" + n.subsystem + ")"
	}
	return n.vendor + " " + n.device
}

func (n pciNames) className() string {
	switch {
	case n.subclass == "":
		return n.class
	case n.progIf != "":
		return n.subclass + ", " + n.progIf
	}
	return n.subclass
}

// lookupPCIIDs finds a function's names in a pci.ids file: vendors with
// their devices (one tab) and subsystems (two tabs), then "C" classes with
// their subclasses and programming interfaces.
func lookupPCIIDs(r io.Reader, p PCIFunction) pciNames {
	var n pciNames
	var inVendor, inDevice, inClass, inSubclass, classes bool
	sub := p.SubVendor + " " + p.SubDevice
	cls := [3]string{}
	if len(p.Class) == 6 {
		cls = [3]string{p.Class[0:2], p.Class[2:4], p.Class[4:6]}
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		tabs := len(line) - len(strings.TrimLeft(line, "\t"))
		id, name, ok := strings.Cut(strings.TrimLeft(line, "\t"), "  ")
		if !ok {
			continue
		}
		id = strings.ToLower(id)
		if tabs == 0 && strings.HasPrefix(id, "c ") {
			classes = true
			inClass = strings.TrimPrefix(id, "c ") == cls[0]
			inSubclass = false
			if inClass {
				n.class = name
			}
			continue
		}
		switch {
		case classes && tabs == 1 && inClass:
			inSubclass = id == cls[1]
			if inSubclass {
				n.subclass = name
			}
		case classes && tabs == 2 && inSubclass && id == cls[2]:
			n.progIf = name
		case classes:
		case tabs == 0:
			inVendor, inDevice = id == p.Vendor, false
			if inVendor {
				n.vendor = name
			}
		case tabs == 1 && inVendor:
			inDevice = id == p.Device
			if inDevice {
				n.device = name
			}
		case tabs == 2 && inDevice && id == sub:
			n.subsystem = name
		}
	}
	return n
}

// storageClasses name the PCI classes a disk hangs off, for hosts without
// pci.ids (PCI Code and ID Assignment Specification).
var storageClasses = map[string]string{
	"0100": "SCSI storage controller", "0101": "IDE interface", "0104": "RAID bus controller",
	"0105": "ATA controller", "0106": "SATA controller", "0107": "Serial Attached SCSI controller",
	"0108": "Non-Volatile memory controller", "0109": "Universal Flash Storage controller",
	"0180": "Mass storage controller", "0c03": "USB controller", "0c04": "Fibre Channel",
	"0200": "Ethernet controller", "0207": "InfiniBand controller",
}
