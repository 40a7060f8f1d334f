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
	others := twoNamespaces.OtherNamespaces(tg)
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
		{"named by path", idle, []string{"S7EVNJ0W100001", "/dev/nvme1n2"}, nil},
		{"named by WWID", idle, []string{"/dev/nvme1n1", "eui.00253845000000010000000000000002"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := twoNamespaces.GateNamespaces(tg, others, tc.sys, tc.destroy, "NVMe sanitize")
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

	// The target alone passes the ordinary gate: only a controller-wide
	// purge reaches the sibling.
	require.NoError(t, twoNamespaces.Gate([]Target{tg}, mounted, []string{"S7EVNJ0W100001"}))
	one, err := twoNamespaces.Inspect(Spec{Raw: "/dev/nvme2n1", Kind: KindBlock, Path: "/dev/nvme2n1"})
	require.NoError(t, err)
	assert.Empty(t, twoNamespaces.OtherNamespaces(one))
}
