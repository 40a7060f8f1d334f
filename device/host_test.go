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
