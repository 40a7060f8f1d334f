package device

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A controller with two namespaces (nvme1n1, nvme1n2 with a partition) and
// a second controller with one (nvme2n1).
var twoNamespaces = FS{Root: "testdata/nvme2ns"}

func TestNamespacesOfAController(t *testing.T) {
	b, err := twoNamespaces.Block("nvme1n1")
	require.NoError(t, err)
	assert.Equal(t, "nvme1", b.Controller)
	assert.Equal(t, 1, b.NSID)
	assert.Equal(t, []string{"nvme1n2"}, b.Namespaces, "the partition and the other controller's namespace are not siblings")
	b2, err := twoNamespaces.Block("nvme2n1")
	require.NoError(t, err)
	assert.Equal(t, "nvme2", b2.Controller)
	assert.Empty(t, b2.Namespaces)
	p, err := twoNamespaces.Block("nvme1n2p1")
	require.NoError(t, err)
	assert.Equal(t, "nvme1", p.Controller, "a partition reports its namespace's controller")
}

func TestGateNamespaces(t *testing.T) {
	tg, err := twoNamespaces.Inspect(Spec{Raw: "/dev/nvme1n1", Kind: KindBlock, Path: "/dev/nvme1n1"})
	require.NoError(t, err)
	others, err := twoNamespaces.BlockTargets(tg.Block.Namespaces)
	require.NoError(t, err)
	require.Len(t, others, 1)
	assert.Equal(t, "/dev/nvme1n2", others[0].Block.Path())
	idle := System{}
	mounted := System{Mounts: []Mount{{Dev: "259:3", MountPoint: "/data", FSType: "xfs", Source: "/dev/nvme1n2p1"}}}

	for _, tc := range []struct {
		name    string
		sys     System
		destroy []string
		err     []string // every part the refusal must hold; none: allowed
	}{
		{"sibling mounted: refused whatever is named", mounted, []string{"S7EVNJ0W100001", "/dev/nvme1n2"},
			[]string{"refusing", "NVMe sanitize of /dev/nvme1n1 erases every namespace of controller nvme1", "also /dev/nvme1n2",
				"in use: /dev/nvme1n2 (partition nvme1n2p1 of the same disk is mounted at /data)"}},
		{"sibling not named", idle, []string{"S7EVNJ0W100001"},
			[]string{"also /dev/nvme1n2", "partitions nvme1n2p1", "--destroy-data /dev/nvme1n2"}},
		{"sibling named by its partition", idle, []string{"/dev/nvme1n1", "/dev/nvme1n2p1"},
			[]string{"also /dev/nvme1n2", "--destroy-data /dev/nvme1n2"}},
		{"named by path", idle, []string{"S7EVNJ0W100001", "/dev/nvme1n2"}, nil},
		{"named by WWID", idle, []string{"/dev/nvme1n1", "eui.00253845000000010000000000000002"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := twoNamespaces.GateErased(tg, others, tc.sys, tc.destroy, "NVMe sanitize")
			if tc.err == nil {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrUnsafe)
			for _, part := range tc.err {
				assert.Contains(t, err.Error(), part)
			}
		})
	}

	// The target alone passes the ordinary gate, named by its path: only a
	// controller-wide purge reaches the sibling. The controller's serial
	// is the sibling's too, so it names neither (issue 19).
	require.NoError(t, twoNamespaces.Gate([]Target{tg}, mounted, []string{"/dev/nvme1n1"}))
	require.ErrorIs(t, twoNamespaces.Gate([]Target{tg}, mounted, []string{"S7EVNJ0W100001"}), ErrUnsafe)
	one, err := twoNamespaces.Inspect(Spec{Raw: "/dev/nvme2n1", Kind: KindBlock, Path: "/dev/nvme2n1"})
	require.NoError(t, err)
	assert.Empty(t, one.Block.Namespaces)
}

// A serial or WWID names a device only when it is the device's own: a
// partition carries its disk's serial and WWID, the namespaces of a
// controller share the controller's serial, and a WWID two disks report
// names neither. A partition is named by its path (issue 19, item 11).
func TestConfirmedByOwnIdentifiersOnly(t *testing.T) {
	for _, tc := range []struct {
		fs      FS
		target  string
		confirm string   // what the verdict asks for
		names   []string // what confirms it
		not     []string // what does not
	}{
		{twoNamespaces, "/dev/nvme1n1", "/dev/nvme1n1", []string{"/dev/nvme1n1"},
			[]string{"S7EVNJ0W100001", "eui.00253845000000010000000000000001", "/dev/nvme1n2", "/dev/nvme1"}},
		{twoNamespaces, "/dev/nvme1n2", "/dev/nvme1n2", []string{"/dev/nvme1n2", "eui.00253845000000010000000000000002"},
			[]string{"S7EVNJ0W100001", "/dev/nvme1n2p1", "/dev/nvme1n1"}},
		{twoNamespaces, "/dev/nvme1n2p1", "/dev/nvme1n2p1", []string{"/dev/nvme1n2p1"},
			[]string{"S7EVNJ0W100001", "eui.00253845000000010000000000000002", "/dev/nvme1n2"}},
		// Alone on its controller, but its WWID is nvme1n1's too (as the
		// fixture has it): the serial names it, the WWID does not.
		{twoNamespaces, "/dev/nvme2n1", "PHAB123400A1", []string{"PHAB123400A1", "/dev/nvme2n1"},
			[]string{"eui.00253845000000010000000000000001"}},
		{fixture, "/dev/nvme0n1", "S64HNE0T123456", []string{"S64HNE0T123456", "/dev/nvme0n1"}, []string{"/dev/nvme0n1p1"}},
		{fixture, "/dev/nvme0n1p1", "/dev/nvme0n1p1", []string{"/dev/nvme0n1p1"}, []string{"S64HNE0T123456", "/dev/nvme0n1"}},
	} {
		t.Run(tc.target, func(t *testing.T) {
			sys, err := tc.fs.System()
			require.NoError(t, err)
			tg, err := tc.fs.Inspect(Spec{Raw: tc.target, Kind: KindBlock, Path: tc.target})
			require.NoError(t, err)
			v := tc.fs.Check(tg, sys)
			require.True(t, v.Usable, v.Refused)
			assert.Equal(t, tc.confirm, v.Confirm)
			for _, n := range tc.names {
				assert.True(t, v.Confirmed(tg, []string{n}), "%s names %s", n, tc.target)
			}
			for _, n := range tc.not {
				assert.False(t, v.Confirmed(tg, []string{n}), "%s does not name %s", n, tc.target)
				err := tc.fs.Gate([]Target{tg}, sys, []string{n})
				require.ErrorIs(t, err, ErrUnsafe, "%s does not name %s: exit 4", n, tc.target)
				assert.ErrorContains(t, err, "confirm with --destroy-data "+tc.confirm)
			}
			// A verdict not made by Check confirms nothing.
			assert.False(t, Verdict{Confirm: tc.confirm}.Confirmed(tg, tc.names))
		})
	}
}

// The whole disk of a partition is gated as a target: named by its path
// or own serial, refused while a sibling partition is in use. In
// testdata/sata2part the sibling sdc2 holds an LVM volume mounted at
// /srv: the partition sdc1 alone may be written, its disk may not.
func TestGateErasedDiskOfAPartition(t *testing.T) {
	sata := FS{Root: "testdata/sata2part"}
	for _, tc := range []struct {
		name    string
		fs      FS
		part    string
		destroy []string
		err     []string // nil: allowed
	}{
		{"sibling in use: refused whatever is named", sata, "/dev/sdc1", []string{"/dev/sdc1", "/dev/sdc", "SATA0SDC0001"},
			[]string{"refusing: ATA SECURITY ERASE UNIT of /dev/sdc1 erases the whole disk /dev/sdc, not only the partition",
				"in use: /dev/sdc (it is in use by dm-0"}},
		{"disk not named", twoNamespaces, "/dev/nvme1n2p1", []string{"/dev/nvme1n2p1", "S7EVNJ0W100001"},
			[]string{"erases the whole disk /dev/nvme1n2, not only the partition",
				"--destroy-data /dev/nvme1n2, or purge the partition alone with --purge discard or --purge zero-fill"}},
		{"disk named by path", twoNamespaces, "/dev/nvme1n2p1", []string{"/dev/nvme1n2p1", "/dev/nvme1n2"}, nil},
		{"disk named by WWID", twoNamespaces, "/dev/nvme1n2p1", []string{"/dev/nvme1n2p1", "eui.00253845000000010000000000000002"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys, err := tc.fs.System()
			require.NoError(t, err)
			part, err := tc.fs.Inspect(Spec{Raw: tc.part, Kind: KindBlock, Path: tc.part})
			require.NoError(t, err)
			v := tc.fs.Check(part, sys)
			require.True(t, v.Usable, "the partition itself is free: %v", v.Refused)
			assert.Equal(t, tc.part, v.Confirm, "a partition is named by its path")
			disk, err := tc.fs.BlockTargets([]string{"/dev/" + part.Block.Parent})
			require.NoError(t, err)
			err = tc.fs.GateErased(part, disk, sys, tc.destroy, "ATA SECURITY ERASE UNIT")
			if tc.err == nil {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrUnsafe)
			for _, s := range tc.err {
				assert.ErrorContains(t, err, s)
			}
		})
	}
}
