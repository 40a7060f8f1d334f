// Package telemetry reads a drive's temperature and health from the
// sources the device has, as one Reading.
//
// A source is one way to ask: the kernel's hwmon sensors in sysfs (NVMe
// controllers, SATA drives with drivetemp; no root needed), nvme-cli's
// `nvme smart-log` and `nvme ocp smart-add-log` (the OCP extended SMART
// log C0h, which has the bytes written to the NAND), and smartmontools'
// `smartctl --json -a` (ATA, SCSI and NVMe). Probe.Detect says which
// sources a block device has from its sysfs identity (device.Block);
// a loop device, a file, a simulated drive or a device-mapper volume has
// none, and the caller says "not available".
//
// Every figure of a Reading is a Field that names the source it came
// from; a figure a source does not give is not known, never 0. Merge
// combines the readings of several sources of one device into one, each
// field taken from the first source that knows it.
//
// Commands run through a Runner (Exec on the machine, canned output in
// tests). A missing tool, a device a tool cannot read, or a lack of
// privileges fails the Read with an *Error naming the source, the device
// and the reason, which wraps ErrNoTool, ErrUnsupported or ErrPermission:
// such a source fails the same way every time, and a caller may stop
// asking it. The package reads and runs nothing until Read is called;
// when to read (SMART commands are I/O to the drive under test) is the
// caller's choice.
package telemetry
