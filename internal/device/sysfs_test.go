package device

import (
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var fixture = FS{Root: "testdata/sysfs"}

func TestBlockIdentityFromSysfs(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Block
	}{
		{"nvme0n1", Block{Interface: "NVMe", Transport: "pcie", Model: "SAMSUNG MZQL23T8HCLS-00A07", Serial: "S64HNE0T123456",
			Firmware: "GDC5602Q", WWN: "eui.36344630529001230025384500000001", SizeBytes: 7501476528 * 512,
			LogicalBlock: 512, PhysicalBlock: 4096, PCIeLink: "16.0 GT/s PCIe x4", WriteCache: "enabled", Dev: "259:0", Controller: "nvme0"}},
		{"sda", Block{Interface: "SATA", Transport: "sata", Vendor: "ATA", Model: "Samsung SSD 870", Serial: "S6PTNM0T123456X",
			Firmware: "2B6Q", WWN: "naa.5002538f41234567", SizeBytes: 1953525168 * 512, LogicalBlock: 512, PhysicalBlock: 512,
			WriteCache: "enabled", Dev: "8:0"}},
		{"sdb", Block{Interface: "SAS", Transport: "sas", Vendor: "SEAGATE", Model: "XS1920SE70004", Serial: "HLJ0ABCD0000822150Z3",
			Firmware: "0004", WWN: "naa.5000c500a1b2c3d7", SizeBytes: 3750748848 * 512, LogicalBlock: 512, PhysicalBlock: 4096,
			WriteCache: "disabled", Dev: "8:16"}},
		{"vda", Block{Interface: "virtio", Transport: "virtio", Vendor: "0x1af4", Model: "virtio block device", Serial: "vdisk-42",
			SizeBytes: 536870912 * 512, LogicalBlock: 512, PhysicalBlock: 512, Rotational: true, WriteCache: "enabled", Dev: "254:0"}},
		{"loop7", Block{Interface: "loop", Transport: "loop", Model: "loop device", BackingFile: "/var/tmp/disk.img",
			SizeBytes: 524288 * 512, LogicalBlock: 4096, PhysicalBlock: 4096, WriteCache: "disabled", Dev: "7:7"}},
		{"dm-0", Block{Interface: "dm", Model: "device-mapper vg0-data", DMName: "vg0-data", Serial: "LVM-Zk3zZ9yXyWf3cq0qJ6mQ4Wc7C5rG8fV1",
			SizeBytes: 1048576 * 512, LogicalBlock: 512, PhysicalBlock: 512, WriteCache: "unknown", Dev: "253:0", Slaves: []string{"sda2"}}},
		{"md127", Block{Interface: "md", Model: "md raid1", MDLevel: "raid1", SizeBytes: 1046528 * 512, LogicalBlock: 512,
			PhysicalBlock: 512, WriteCache: "unknown", Dev: "9:127", Slaves: []string{"sda1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := fixture.Block(tc.name)
			require.NoError(t, err)
			tc.want.Name = tc.name
			// Lists compared apart; nil and empty are the same here.
			gotParts, wantParts := b.Partitions, tc.want.Partitions
			b.Partitions, tc.want.Partitions = nil, nil
			b.Holders, tc.want.Holders = nil, nil
			b.HBA, b.Facts = nil, nil // TestHBAFromSysfs, TestVPDB1FromSysfs
			if len(b.Slaves) == 0 {
				b.Slaves = nil
			}
			assert.Equal(t, tc.want, b)
			if wantParts != nil {
				assert.Equal(t, wantParts, gotParts)
			}
		})
	}
	sda, err := fixture.Block("sda")
	require.NoError(t, err)
	assert.Equal(t, []string{"sda1", "sda2"}, sda.Partitions)
	p, err := fixture.Block("sda2")
	require.NoError(t, err)
	assert.True(t, p.Partition)
	assert.Equal(t, "sda", p.Parent)
	assert.Equal(t, []string{"dm-0"}, p.Holders)
	assert.Equal(t, "SATA", p.Interface, "a partition reports its disk's identity")
	_, err = fixture.Block("sdz")
	assert.ErrorContains(t, err, `no block device "sdz"`)

	all, err := fixture.Blocks()
	require.NoError(t, err)
	assert.Len(t, all, 10)
}

func TestInspectFixtureTargets(t *testing.T) {
	tg, err := fixture.Inspect(Spec{Raw: "/dev/nvme0n1", Kind: KindBlock, Path: "/dev/nvme0n1"})
	require.NoError(t, err)
	assert.Equal(t, int64(7501476528*512), tg.Capacity)
	assert.Equal(t, "S64HNE0T123456", tg.Identity.Serial)
	assert.Equal(t, "16.0 GT/s PCIe x4", tg.Identity.PCIeLink)
	_, err = fixture.Inspect(Spec{Raw: "/dev/nope", Kind: KindBlock, Path: "/dev/nope"})
	assert.ErrorContains(t, err, "no such device")
}

func TestSafetyOnFixtures(t *testing.T) {
	sys, err := fixture.System()
	require.NoError(t, err)
	check := func(name string) Verdict {
		tg, err := fixture.Inspect(Spec{Raw: "/dev/" + name, Kind: KindBlock, Path: "/dev/" + name})
		require.NoError(t, err)
		return fixture.Check(tg, sys)
	}
	for _, tc := range []struct {
		dev    string
		reason string // "" = usable
	}{
		{"vda", "it holds the root filesystem (/)"},
		{"dm-0", "it is mounted at /srv/data (xfs)"},
		{"sda2", "it is in use by dm-0"},
		{"sda1", "it is in use by md127"},
		{"sda", "in use by md127, dm-0"},
		{"sdb", "/dev/sdb is active swap"},
		{"nvme0n1", ""},
		{"nvme0n1p1", ""},
		{"loop7", ""},
	} {
		v := check(tc.dev)
		if tc.reason == "" {
			assert.True(t, v.Usable, "%s: %v", tc.dev, v.Refused)
			continue
		}
		assert.False(t, v.Usable, tc.dev)
		assert.Contains(t, strings.Join(v.Refused, "; "), tc.reason, tc.dev)
	}
	v := check("nvme0n1")
	assert.Equal(t, "S64HNE0T123456", v.Confirm, "a device with a serial is confirmed by its serial")
	assert.Contains(t, v.Carries, "partitions nvme0n1p1")
	tg, _ := fixture.Inspect(Spec{Raw: "/dev/nvme0n1", Kind: KindBlock, Path: "/dev/nvme0n1"})
	assert.False(t, v.Confirmed(tg, []string{"/dev/sda"}))
	assert.True(t, v.Confirmed(tg, []string{"S64HNE0T123456"}))
	assert.True(t, v.Confirmed(tg, []string{"/dev/nvme0n1"}))
	err = fixture.Gate([]Target{tg}, sys, nil)
	assert.ErrorIs(t, err, ErrUnsafe)
	assert.ErrorContains(t, err, "destroys partitions nvme0n1p1: confirm with --destroy-data S64HNE0T123456")
	assert.NoError(t, fixture.Gate([]Target{tg}, sys, []string{"S64HNE0T123456"}))
}

func TestParseMountInfo(t *testing.T) {
	ms, err := fixture.Mounts()
	require.NoError(t, err)
	require.Len(t, ms, 3)
	assert.Equal(t, Mount{Dev: "253:0", MountPoint: "/srv/data", FSType: "xfs", Source: "/dev/mapper/vg0-data"}, ms[1])
	assert.Equal(t, "/mnt/my disk", unescape(`/mnt/my\040disk`))
	_, err = parseMountInfo(stringsReader("garbage line\n"))
	assert.ErrorContains(t, err, "mountinfo line 1")
	assert.Equal(t, []string{"/dev/sdb"}, fixture.Swaps())
}

func stringsReader(s string) *stringReader { return &stringReader{s: s} }

type stringReader struct{ s string }

func (r *stringReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	n := copy(p, r.s)
	r.s = r.s[n:]
	return n, nil
}

// Devices are listed as people count them.
func TestNaturalOrder(t *testing.T) {
	names := []string{"loop10", "nvme0n10", "loop2", "sda", "nvme0n2", "loop1", "nvme10n1", "nvme2n1", "sdb"}
	sort.Slice(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	assert.Equal(t, []string{"loop1", "loop2", "loop10", "nvme0n2", "nvme0n10", "nvme2n1", "nvme10n1", "sda", "sdb"}, names)
}
