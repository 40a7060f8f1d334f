package device

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProbeHost(t *testing.T) {
	h := FS{Root: "testdata/host"}.ProbeHost("9.9")
	assert.Equal(t, "testbox", h.Hostname)
	assert.Equal(t, "6.1.0-18-amd64", h.Kernel)
	assert.Equal(t, "Debian GNU/Linux 12 (bookworm)", h.OS)
	assert.Equal(t, "AMD EPYC 7543 32-Core Processor", h.CPUModel)
	assert.Equal(t, 2, h.CPUs)
	assert.Equal(t, int64(24684096*1024), h.MemoryBytes)
	assert.Equal(t, "9.9", h.Ptsrun)

	empty := FS{Root: t.TempDir()}.ProbeHost("x")
	assert.Empty(t, empty.Hostname)
	assert.Zero(t, empty.CPUs)
}

func TestSameDevice(t *testing.T) {
	a := Identity{Kind: KindSim, Model: "SIM", Serial: "E-1", CapacityBytes: 100}
	b := a
	b.Spec = "sim:enterprise"
	assert.True(t, a.SameDevice(b))
	b.Serial = "E-2"
	assert.False(t, a.SameDevice(b))
	c := Identity{Kind: KindFile, Path: "/a", CapacityBytes: 1}
	d := c
	d.Path = "/b"
	assert.False(t, c.SameDevice(d), "without a serial the path decides")

	// Every field recorded is compared: a loop device re-attached to
	// another image of the same size is another device (issue 19).
	loop := Identity{Kind: KindBlock, Path: "/dev/loop3", Model: "loop device", CapacityBytes: 256 << 20, LogicalBlock: 512,
		BackingFile: "/dev/shm/a.img"}
	for _, tc := range []struct {
		change func(*Identity)
		want   string
	}{
		{func(i *Identity) { i.BackingFile = "/dev/shm/b.img" }, `backing file "/dev/shm/a.img", now "/dev/shm/b.img"`},
		{func(i *Identity) { i.BackingFile = "" }, `backing file "/dev/shm/a.img", now none`},
		{func(i *Identity) { i.LogicalBlock = 4096 }, "logical block 512 bytes, now 4096"},
		{func(i *Identity) { i.CapacityBytes++ }, "capacity 268435456 bytes, now 268435457"},
		{func(i *Identity) { i.WWN = "naa.1" }, `WWID none, now "naa.1"`},
		{func(i *Identity) { i.Serial = "S1" }, `serial none, now "S1"`},
	} {
		now := loop
		tc.change(&now)
		assert.False(t, loop.SameDevice(now), tc.want)
		assert.Contains(t, loop.Differences(now), tc.want)
	}
	assert.True(t, loop.SameDevice(loop))
	assert.Equal(t, "ptsrun SIM (E-1)", Identity{Vendor: "ptsrun", Model: "SIM", Serial: "E-1"}.Label())
}

func TestFormatCapacity(t *testing.T) {
	for b, want := range map[int64]string{
		0: "unknown", -1: "unknown", 512: "512 B", 134217728: "134.2 MB",
		4294967296: "4.3 GB", 3_200_631_791_616: "3.20 TB",
	} {
		assert.Equal(t, want, FormatCapacity(b), "%d", b)
	}
}
