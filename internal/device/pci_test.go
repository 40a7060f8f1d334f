package device

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHBAFromSysfs(t *testing.T) {
	for _, tc := range []struct {
		fs    FS
		name  string
		want  *PCIFunction
		label string
	}{
		{fixture, "nvme0n1", &PCIFunction{Address: "0000:01:00.0", Vendor: "144d", Device: "a80a", SubVendor: "144d", SubDevice: "a813",
			Class: "010802", Name: "Samsung Electronics Co Ltd NVMe SSD Controller PM9A1/PM9A3/980PRO (General DC NVMe PM9A3)",
			ClassName: "Non-Volatile memory controller, NVM Express", Driver: "nvme", Link: "16.0 GT/s PCIe x4", MaxLink: "16.0 GT/s PCIe x4", OnDrive: true},
			"Samsung Electronics Co Ltd NVMe SSD Controller PM9A1/PM9A3/980PRO (General DC NVMe PM9A3) [144d:a80a]"},
		{fixture, "sda", &PCIFunction{Address: "0000:00:17.0", Vendor: "8086", Device: "a352", SubVendor: "8086", SubDevice: "7270",
			Class: "010601", Name: "Intel Corporation Cannon Lake PCH SATA AHCI Controller", ClassName: "SATA controller, AHCI 1.0", Driver: "ahci"},
			"Intel Corporation Cannon Lake PCH SATA AHCI Controller [8086:a352]"},
		{fixture, "sdb", &PCIFunction{Address: "0000:03:00.0", Vendor: "1000", Device: "0097", SubVendor: "1000", SubDevice: "30e0",
			Class: "010700", Name: "Broadcom / LSI SAS3008 PCI-Express Fusion-MPT SAS-3 (SAS9300-8i)", ClassName: "Serial Attached SCSI controller",
			Driver: "mpt3sas", Link: "8.0 GT/s PCIe x4", MaxLink: "8.0 GT/s PCIe x8"},
			"Broadcom / LSI SAS3008 PCI-Express Fusion-MPT SAS-3 (SAS9300-8i) [1000:0097]"},
		{fixture, "vda", &PCIFunction{Address: "0000:00:04.0", Vendor: "1af4", Device: "1001", SubVendor: "1af4", SubDevice: "0002",
			Class: "010000", Name: "Red Hat, Inc. Virtio block device", ClassName: "SCSI storage controller", Driver: "virtio-pci"},
			"Red Hat, Inc. Virtio block device [1af4:1001]"},
		{twoNamespaces, "nvme1n2", &PCIFunction{Address: "0000:02:00.0", Vendor: "1e0f", Device: "0007", Class: "010802",
			ClassName: "Non-Volatile memory controller", Link: "16.0 GT/s PCIe x4", OnDrive: true},
			"PCI 1e0f:0007 (Non-Volatile memory controller, class 0x010802)"},
		{FS{Root: "testdata/nvme-mpath"}, "nvme3n1", &PCIFunction{Address: "0000:05:00.0", Vendor: "144d", Device: "a808", Class: "010802",
			ClassName: "Non-Volatile memory controller", Link: "8.0 GT/s PCIe x4", OnDrive: true},
			"PCI 144d:a808 (Non-Volatile memory controller, class 0x010802)"},
		{fixture, "loop7", nil, ""},
		{fixture, "dm-0", nil, ""},
		{fixture, "md127", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.fs.Block(tc.name)
			require.NoError(t, err)
			assert.Equal(t, tc.want, b.HBA)
			if tc.want != nil {
				assert.Equal(t, tc.label, b.HBA.Label())
			}
		})
	}
	mp, err := FS{Root: "testdata/nvme-mpath"}.Block("nvme3n1")
	require.NoError(t, err)
	assert.Equal(t, "8.0 GT/s PCIe x4", mp.PCIeLink, "native multipath: the link of the subsystem's controller")

	p, err := fixture.Block("sda2")
	require.NoError(t, err)
	require.NotNil(t, p.HBA, "a partition hangs off its disk's adapter")
	assert.Equal(t, "0000:00:17.0", p.HBA.Address)

	tg, err := fixture.Inspect(Spec{Raw: "/dev/sdb", Kind: KindBlock, Path: "/dev/sdb"})
	require.NoError(t, err)
	require.NotNil(t, tg.Identity.HBA, "the identity in run.json carries the adapter")
	assert.Equal(t, "mpt3sas", tg.Identity.HBA.Driver)
}

func TestLookupPCIIDs(t *testing.T) {
	const ids = `# comment
1000  Broadcom / LSI
	0097  SAS3008 PCI-Express Fusion-MPT SAS-3
		1000 30e0  SAS9300-8i
		1028 1f45  HBA330 Adapter
8086  Intel Corporation
# a comment between devices
	2822  SATA Controller [RAID mode]
	a352  Cannon Lake PCH SATA AHCI Controller
C 01  Mass storage controller
	04  RAID bus controller
	06  SATA controller
		01  AHCI 1.0
C 0c  Serial bus controller
	03  USB controller
		30  XHCI
`
	for _, tc := range []struct {
		p               PCIFunction
		name, className string
	}{
		{PCIFunction{Vendor: "1000", Device: "0097", SubVendor: "1028", SubDevice: "1f45", Class: "010700"},
			"Broadcom / LSI SAS3008 PCI-Express Fusion-MPT SAS-3 (HBA330 Adapter)", "Mass storage controller"},
		{PCIFunction{Vendor: "1000", Device: "0097", SubVendor: "1000", SubDevice: "3090", Class: "010700"},
			"Broadcom / LSI SAS3008 PCI-Express Fusion-MPT SAS-3", "Mass storage controller"},
		{PCIFunction{Vendor: "8086", Device: "2822", Class: "010400"}, "Intel Corporation SATA Controller [RAID mode]", "RAID bus controller"},
		{PCIFunction{Vendor: "8086", Device: "a352", Class: "010601"}, "Intel Corporation Cannon Lake PCH SATA AHCI Controller", "SATA controller, AHCI 1.0"},
		{PCIFunction{Vendor: "8086", Device: "ffff", Class: "0c0330"}, "Intel Corporation (device not in pci.ids)", "USB controller, XHCI"},
		{PCIFunction{Vendor: "abcd", Device: "0001", Class: "ff0000"}, "", ""},
	} {
		n := lookupPCIIDs(strings.NewReader(ids), tc.p)
		assert.Equal(t, tc.name, n.name(), "%+v", tc.p)
		assert.Equal(t, tc.className, n.className(), "%+v", tc.p)
	}
	assert.Equal(t, "PCI 8086:2822 (SATA controller, class 0x010601)",
		PCIFunction{Vendor: "8086", Device: "2822", Class: "010601", ClassName: "SATA controller"}.Label())
	assert.Equal(t, "PCI abcd:0001 (class 0xff0000)", PCIFunction{Vendor: "abcd", Device: "0001", Class: "ff0000"}.Label())
	assert.Equal(t, "", pcieLink("Unknown", "0"), "a link that is down reports nothing")
}
