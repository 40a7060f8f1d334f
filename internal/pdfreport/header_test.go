package pdfreport

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// headerLines are the header part of a report's text: the run line and
// the Test Platform and Device Under Test rows.
func headerLines(d *Doc) string {
	head, _, _ := strings.Cut(d.Text(), "\n=== ")
	return head
}

// The operator, lab and DUT notes of run.json, and what the platform and
// device report of themselves, reach the SNIA header; what nobody stated
// is said to be not stated.
func TestHeaderFields(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "client", func(c *pts.Config) {
		c.Tests, c.CellTime = []pts.TestID{"lat"}, pts.Duration(10*time.Second)
	})
	// An older run.json: none of the fields.
	head := headerLines(Build(ri, res, Options{}))
	assert.Contains(t, head, "tested by not stated, lab not stated")
	assert.NotContains(t, head, "tested by ptsrun", "the tool is not the operator")
	assert.Contains(t, head, "platform Motherboard: not known\n")
	assert.Contains(t, head, "device NAND type: none (simulated drive)\n")
	assert.NotContains(t, head, "commit", "a build that stamped no commit names none")

	// The build's commit, where it was stamped, with the version: a
	// version alone does not say which code ran.
	ri.Build = pts.Build{Version: ri.Version, Commit: "1d4f9bc2a0e1f00dfeedbeef", Modified: true, Go: "go1.26.0"}
	head = headerLines(Build(ri, res, Options{}))
	assert.Contains(t, head, "ptsrun "+ri.Version+", commit 1d4f9bc2a0e1 (modified)")
	ri.Build = pts.Build{}

	// A SAS SSD on an HBA, with the operator's notes.
	ri.Operator = pts.Operator{TestedBy: "A. Tester", Lab: "Lab 1", DUTNotes: []device.Fact{
		{Key: device.FactNAND, Value: "TLC 176L", Source: device.SourceOperator},
		{Key: device.FactFormFactor, Value: "U.2", Source: device.SourceOperator},
		{Key: "Endurance", Value: "1 DWPD", Source: device.SourceOperator}}}
	ri.Host.DMI = device.DMI{BoardVendor: "Supermicro", BoardName: "H12SSL-i", BoardVersion: "1.02", BIOSVersion: "2.4"}
	ri.Targets = []device.Identity{{Spec: "/dev/sdb", Kind: device.KindBlock, Path: "/dev/sdb", Vendor: "SEAGATE", Model: "XS1920SE70004",
		CapacityBytes: 1920383410176, LogicalBlock: 512, PhysicalBlock: 4096, Interface: "SAS", Transport: "sas",
		HBA: &device.PCIFunction{Address: "0000:03:00.0", Vendor: "1000", Device: "0097", Class: "010700",
			Name: "Broadcom / LSI SAS3008 PCI-Express Fusion-MPT SAS-3 (SAS9300-8i)", Driver: "mpt3sas",
			Link: "8.0 GT/s PCIe x4", MaxLink: "8.0 GT/s PCIe x8"},
		Facts: []device.Fact{{Key: device.FactFormFactor, Value: `2.5"`, Source: "VPD B1h"},
			{Key: device.FactMedium, Value: "solid state (non-rotating)", Source: "VPD B1h"}}}}
	doc := Build(ri, res, Options{})
	head = headerLines(doc)
	for _, want := range []string{
		"tested by A. Tester, lab Lab 1\n",
		"platform Motherboard: Supermicro H12SSL-i (rev. 1.02), BIOS 2.4\n",
		"platform HBA: Broadcom / LSI SAS3008 PCI-Express Fusion-MPT SAS-3 (SAS9300-8i) [1000:0097]\n",
		"platform HBA link: 8.0 GT/s PCIe x4 (capable of 8.0 GT/s PCIe x8)\n",
		"device NAND type: TLC 176L (stated by the operator)\n",
		`device Form factor: 2.5" (VPD B1h); the operator states U.2` + "\n",
		"device Medium: solid state (non-rotating) (VPD B1h)\n",
		"device Endurance: 1 DWPD (stated by the operator)\n",
	} {
		assert.Contains(t, head, want)
	}
	assert.Contains(t, doc.Text(), "Attached through Broadcom / LSI SAS3008 PCI-Express Fusion-MPT SAS-3 (SAS9300-8i) [1000:0097] at PCI 0000:03:00.0, driver mpt3sas, link 8.0 GT/s PCIe x4.",
		"page 1 names where the adapter is")

	// The device's word agrees with the operator's: said once.
	ri.Operator.DUTNotes[1].Value = `2.5"`
	assert.Contains(t, headerLines(Build(ri, res, Options{})), `device Form factor: 2.5" (VPD B1h)`+"\n")

	// An NVMe drive is its own controller; a loop device has none.
	ri.Operator = pts.Operator{}
	ri.Targets[0].Interface, ri.Targets[0].Transport, ri.Targets[0].Facts = "NVMe", "pcie", nil
	ri.Targets[0].HBA = &device.PCIFunction{Address: "0000:01:00.0", Vendor: "144d", Device: "a80a", Class: "010802", OnDrive: true,
		Link: "16.0 GT/s PCIe x4"}
	ri.Targets[0].PCIeLink = "16.0 GT/s PCIe x4"
	head = headerLines(Build(ri, res, Options{}))
	assert.Contains(t, head, "platform HBA: none, NVMe on PCIe: PCI 144d:a80a (class 0x010802)\n")
	assert.NotContains(t, head, "HBA link", "the drive's own link is in the device column")
	assert.Contains(t, head, "device PCIe link: 16.0 GT/s PCIe x4\n")
	assert.Contains(t, head, "device NAND type: not stated; the device does not report it\n")
	ri.Targets[0] = device.Identity{Spec: "/dev/loop3", Kind: device.KindBlock, Path: "/dev/loop3", Interface: "loop", Transport: "loop",
		Model: "loop device", Notes: "backed by /dev/shm/pts.img", CapacityBytes: 1 << 30, LogicalBlock: 512}
	head = headerLines(Build(ri, res, Options{}))
	assert.Contains(t, head, "platform HBA: none (loop device backed by /dev/shm/pts.img)\n")
	assert.Contains(t, head, "device Form factor: not known (loop target)\n")
	require.NotContains(t, head, "HBA link")
	ri.Targets[0] = device.Identity{Spec: "imported", Kind: "imported", Model: "review drive"}
	assert.Contains(t, headerLines(Build(ri, res, Options{})), "platform HBA: not known (imported results)\n")
}
