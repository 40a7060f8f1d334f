//go:build linux

package device_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// A held device refuses every other exclusive claim (a second hold, a
// mount) and takes ordinary opens (the engines, the purge tools) until it
// is released.
func TestHoldExclusive(t *testing.T) {
	enginetest.NeedRoot(t, "losetup", "mkfs.ext4", "mount", "umount")
	dev := enginetest.LoopDevice(t, 32<<20, "")
	out, err := exec.Command("mkfs.ext4", "-q", "-F", dev).CombinedOutput()
	require.NoError(t, err, string(out))

	h, err := device.HoldExclusive([]string{dev})
	require.NoError(t, err)
	assert.Equal(t, []string{dev}, h.Paths())

	_, err = device.HoldExclusive([]string{dev})
	require.ErrorIs(t, err, device.ErrUnsafe, "exit 4")
	assert.ErrorContains(t, err, dev+" is in use")

	mnt := t.TempDir()
	out, err = exec.Command("mount", dev, mnt).CombinedOutput()
	if err == nil {
		exec.Command("umount", mnt).Run()
	}
	require.Error(t, err, "a mount of a held device must fail")
	assert.Contains(t, string(out), "busy")

	f, err := os.OpenFile(dev, os.O_RDWR|unix.O_DIRECT, 0)
	require.NoError(t, err, "an engine's ordinary open")
	f.Close()

	require.NoError(t, h.Release())
	h2, err := device.HoldExclusive([]string{dev})
	require.NoError(t, err, "released")
	require.NoError(t, h2.Release())

	// Not a block device: refused, nothing held.
	file := enginetest.TempFile(t, 4096)
	_, err = device.HoldExclusive([]string{dev, file})
	require.Error(t, err)
	h3, err := device.HoldExclusive([]string{dev})
	require.NoError(t, err, "the first device was let go when the second failed")
	require.NoError(t, h3.Release())
	var nothing *device.Holds
	assert.NoError(t, nothing.Release())
}
