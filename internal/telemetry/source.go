package telemetry

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/device"
)

// Errors a Read wraps when the source cannot give anything for the device
// and will not next time either.
var (
	// ErrNoTool: the command is not installed (or lacks the part needed:
	// nvme-cli without its ocp plugin).
	ErrNoTool = errors.New("tool not installed")
	// ErrUnsupported: the tool cannot read this device, or the device
	// does not have what is asked (a drive without the OCP log).
	ErrUnsupported = errors.New("not supported by the device")
	// ErrPermission: reading needs privileges the process lacks (root,
	// or CAP_SYS_ADMIN and CAP_SYS_RAWIO).
	ErrPermission = errors.New("permission denied")
)

// Error is a Read that failed: the source, the device and why.
type Error struct {
	Source string // SourceSmartctl, …
	Device string // /dev/sda
	Err    error
}

func (e *Error) Error() string { return e.Source + " on " + e.Device + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Lasting reports whether err says the source will fail the same way
// every time (ErrNoTool, ErrUnsupported, ErrPermission): a caller reading
// again and again may stop asking it.
func Lasting(err error) bool {
	return errors.Is(err, ErrNoTool) || errors.Is(err, ErrUnsupported) || errors.Is(err, ErrPermission)
}

// Source is one way to read a device's telemetry.
type Source interface {
	// Name is the source's name (SourceHwmon, SourceNVMe, SourceOCP,
	// SourceSmartctl), which each Field it gives carries.
	Name() string
	// Device is the device node it reads ("/dev/nvme0n1").
	Device() string
	// Where says how it reads: the command line, or the sysfs directory.
	Where() string
	// Read asks the source now. An error is an *Error.
	Read(ctx context.Context) (Reading, error)
}

// Probe is where sources are found and how they run commands.
type Probe struct {
	// FS is the root sysfs is read from (device.Live on the machine).
	FS device.FS
	// Run runs the tools; nil is Exec.
	Run Runner
}

// Detect is Probe{FS: device.Live}.Detect(b): the sources of a block
// device of this machine.
func Detect(b *device.Block) []Source { return Probe{FS: device.Live}.Detect(b) }

// Detect lists the sources a block device has, from its sysfs identity,
// in the order of preference Merge takes: hwmon (read by the kernel, no
// root needed), nvme smart-log, nvme ocp smart-add-log, smartctl. A
// partition's are its disk's. nil (a file or a simulated drive, which
// have no Block), a loop device, device-mapper, md, virtio, zram or any
// other device that is not NVMe, SATA, SAS or SCSI has none.
//
// hwmon is listed only where sysfs has its sensors; the commands by the
// kind of device, whether or not the tool is installed (Read says so).
func (p Probe) Detect(b *device.Block) []Source {
	if b == nil {
		return nil
	}
	disk := b.Name
	if b.Partition {
		disk = b.Parent
	}
	if disk == "" {
		return nil
	}
	dev := "/dev/" + disk
	run := p.Run
	if run == nil {
		run = Exec
	}
	var out []Source
	for _, dir := range p.hwmonDirs(disk, b.Interface) {
		out = append(out, hwmonSource{fs: p.FS, dir: dir, dev: dev})
	}
	cmd := func(name string, args []string, parse func(string, Result) (Reading, error)) Source {
		return command{name: name, dev: dev, args: args, run: run, parse: parse}
	}
	switch b.Interface {
	case "NVMe":
		out = append(out,
			cmd(SourceNVMe, []string{"nvme", "smart-log", dev, "-o", "json"}, parseNVMeResult),
			cmd(SourceOCP, []string{"nvme", "ocp", "smart-add-log", dev, "-o", "json"}, parseOCPResult))
	case "SATA", "SAS", "SCSI":
	default:
		return nil
	}
	return append(out, cmd(SourceSmartctl, []string{"smartctl", "--json", "-a", dev}, parseSmartctlResult))
}

var (
	nvmeCtrlName = regexp.MustCompile(`^nvme\d+$`)
	hwmonName    = regexp.MustCompile(`^hwmon\d+$`)
)

// hwmonDirs are the hwmon directories of a disk, relative to the root:
// an NVMe controller's (below it since Linux 5.10, below its PCI function
// before; with native multipath, those of the subsystem's controllers),
// a SCSI or SATA disk's (drivetemp), each with a temperature input.
func (p Probe) hwmonDirs(disk, iface string) []string {
	base := "sys/class/block/" + disk + "/device"
	var parents []string
	switch iface {
	case "NVMe":
		ctrls := []string{base}
		if !nvmeCtrlName.MatchString(filepath.Base(p.realPath(base))) {
			// A multipath namespace: its device is the subsystem, which
			// links its controllers.
			ctrls = nil
			for _, e := range p.list(base) {
				if nvmeCtrlName.MatchString(e) {
					ctrls = append(ctrls, base+"/"+e)
				}
			}
		}
		for _, c := range ctrls {
			parents = append(parents, c, c+"/hwmon", c+"/device/hwmon")
		}
	case "SATA", "SAS", "SCSI":
		parents = []string{base + "/hwmon"}
	default:
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, parent := range parents {
		for _, e := range p.list(parent) {
			dir := parent + "/" + e
			real := p.realPath(dir)
			if !hwmonName.MatchString(e) || seen[real] {
				continue
			}
			name := p.read(dir + "/name")
			if name != "nvme" && name != "drivetemp" {
				continue
			}
			if !slices.ContainsFunc(p.list(dir), func(f string) bool {
				return strings.HasPrefix(f, "temp") && strings.HasSuffix(f, "_input")
			}) {
				continue
			}
			seen[real] = true
			out = append(out, dir)
		}
	}
	return out
}

// command is a source that runs a tool.
type command struct {
	name, dev string
	args      []string
	run       Runner
	parse     func(dev string, res Result) (Reading, error)
}

func (c command) Name() string   { return c.name }
func (c command) Device() string { return c.dev }
func (c command) Where() string  { return strings.Join(c.args, " ") }

func (c command) Read(ctx context.Context) (Reading, error) {
	res, err := c.run(ctx, c.args[0], c.args[1:]...)
	if err != nil {
		return Reading{}, &Error{Source: c.name, Device: c.dev, Err: err}
	}
	r, err := c.parse(c.dev, res)
	if err != nil {
		return Reading{}, &Error{Source: c.name, Device: c.dev, Err: err}
	}
	return r, nil
}

// ReadAll reads every source and merges what they give; the errors are
// those of the sources that failed, in order.
func ReadAll(ctx context.Context, sources []Source) (Reading, []error) {
	var rs []Reading
	var errs []error
	for _, s := range sources {
		r, err := s.Read(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rs = append(rs, r)
	}
	r := Merge(rs...)
	if r.Device == "" && len(sources) > 0 {
		r.Device = sources[0].Device()
	}
	return r, errs
}
