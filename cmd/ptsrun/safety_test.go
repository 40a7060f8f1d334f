package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

func sum(t *testing.T, dev string) string {
	t.Helper()
	f, err := os.Open(dev)
	require.NoError(t, err)
	defer f.Close()
	h := sha256.New()
	_, err = io.Copy(h, f)
	require.NoError(t, err)
	return fmt.Sprintf("%x", h.Sum(nil))
}

func sh(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	require.NoError(t, err, "%v: %s", args, out)
}

func need(t *testing.T, cmds ...string) {
	t.Helper()
	enginetest.NeedRoot(t, cmds...)
}

// refused runs ptsrun on dev and asserts exit 4, the reason, and that not a
// byte of the device changed.
func refused(t *testing.T, dev string, reason string, destroy bool) {
	t.Helper()
	refusedBy(t, dev, reason, destroy, sum)
}

// swapState is what of an active swap device only ptsrun could change: the
// sum of its first page, its header, which the kernel does not write while
// the swap is on, and its discard counters (/sys/block/NAME/stat fields 12
// and 14), which move only with a discard (the kernel's own come with
// swapon --discard, not used here). The kernel pages out to the rest at
// any time (it filled a test's 64 MiB swap within a second on a host with
// 18 GB free), so the whole device's sum would take its writes for
// ptsrun's; ordinary writes to an active swap fail (ETXTBSY), so discards
// and zero-fills are what could get through.
func swapState(t *testing.T, dev string) string {
	t.Helper()
	f, err := os.Open(dev)
	require.NoError(t, err)
	defer f.Close()
	h := sha256.New()
	_, err = io.CopyN(h, f, 4096)
	require.NoError(t, err)
	st, err := os.ReadFile(filepath.Join("/sys/block", filepath.Base(dev), "stat"))
	require.NoError(t, err)
	fs := strings.Fields(string(st))
	require.GreaterOrEqual(t, len(fs), 14, "%s: %q", dev, st)
	return fmt.Sprintf("header %x, discards %s, sectors discarded %s", h.Sum(nil), fs[11], fs[13])
}

// swapOn says whether dev is an active swap (/proc/swaps).
func swapOn(t *testing.T, dev string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/swaps")
	require.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if fs := strings.Fields(l); len(fs) > 0 && fs[0] == dev {
			return true
		}
	}
	return false
}

// refusedBy is refused with the device's state taken by state.
func refusedBy(t *testing.T, dev string, reason string, destroy bool, state func(*testing.T, string) string) {
	t.Helper()
	before := state(t, dev)
	args := []string{"run", "--target", dev, "--purge", "none", "--tests", "lat", "--cell-time", "1s",
		"--out", filepath.Join(t.TempDir(), "run")}
	if destroy {
		args = append(args, "--destroy-data", dev)
	}
	code, _, stderr := ptsrun(args...)
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, reason)
	assert.Equal(t, before, state(t, dev), "the device changed")
}

// freeze stops a mounted filesystem's own writes (the journal commits
// the mount's superblock update within seconds) until the test ends, so
// that a device that changes under refused was changed by ptsrun.
func freeze(t *testing.T, mnt string) {
	t.Helper()
	need(t, "fsfreeze")
	sh(t, "fsfreeze", "-f", mnt)
	t.Cleanup(func() { exec.Command("fsfreeze", "-u", mnt).Run() })
}

func TestSafetyGateOnLoopDevices(t *testing.T) {
	t.Parallel() // real I/O of fixed times on devices of its own: beside the other device tests
	need(t, "losetup", "blockdev")
	t.Run("ext4 filesystem", func(t *testing.T) {
		t.Parallel() // a device and a mount point of its own
		mnt := t.TempDir()
		need(t, "mkfs.ext4")
		dev := enginetest.LoopDevice(t, 64<<20, "")
		sh(t, "mkfs.ext4", "-q", "-F", dev)
		refused(t, dev, "an ext2/3/4 filesystem: confirm with --destroy-data "+dev, false)
		sh(t, "mount", dev, mnt)
		t.Cleanup(func() { exec.Command("umount", mnt).Run() })
		freeze(t, mnt)
		refused(t, dev, "it is mounted at "+mnt, true)
	})
	t.Run("swap", func(t *testing.T) {
		t.Parallel() // a device of its own
		need(t, "mkswap", "swapon")
		dev := enginetest.LoopDevice(t, 64<<20, "")
		sh(t, "mkswap", dev)
		refused(t, dev, "destroys swap", false)
		if exec.Command("swapon", dev).Run() != nil {
			t.Skip("swapon is not allowed here")
		}
		t.Cleanup(func() {
			// Left on, a swap on a removed file makes the gate refuse the
			// devices beside it.
			if out, err := exec.Command("swapoff", dev).CombinedOutput(); err != nil {
				t.Logf("swapoff %s: %v: %s", dev, err, out)
			}
		})
		refusedBy(t, dev, dev+" is active swap", true, swapState)
		assert.True(t, swapOn(t, dev), "%s: the swap is still on", dev)
	})
	t.Run("partition tables", func(t *testing.T) {
		t.Parallel() // a device of its own
		need(t, "sgdisk")
		dev := enginetest.LoopDevice(t, 64<<20, "")
		sh(t, "sgdisk", "-o", dev)
		refused(t, dev, "a GPT partition table", false)
		if _, err := exec.LookPath("sfdisk"); err == nil {
			dos := enginetest.LoopDevice(t, 64<<20, "")
			cmd := exec.Command("sfdisk", "-q", dos)
			cmd.Stdin = strings.NewReader("label: dos\n,32M,83\n")
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			refused(t, dos, "an MBR partition table", false)
		}
	})
	t.Run("mounted partition of the disk", func(t *testing.T) {
		t.Parallel() // a device and a mount point of its own
		mnt := t.TempDir()
		need(t, "sgdisk", "mkfs.ext4", "partx")
		// Bound with partscan in one step: a device detached and bound
		// again by name is one another test may take in between.
		dev := stackLoop(t, loopBacking(t), true)
		sh(t, "sgdisk", "-n", "1:2048:+20M", "-n", "2:0:+20M", dev)
		_ = exec.Command("partx", "-u", dev).Run()
		waitFor(t, dev+"p2")
		sh(t, "mkfs.ext4", "-q", "-F", dev+"p1")
		sh(t, "mount", dev+"p1", mnt)
		t.Cleanup(func() { exec.Command("umount", mnt).Run() })
		freeze(t, mnt)
		refused(t, dev, "partition "+filepath.Base(dev)+"p1 of the same disk is mounted at "+mnt, true)
		refused(t, dev+"p2", "partition "+filepath.Base(dev)+"p1 of the same disk is mounted at "+mnt, true)
		refused(t, dev+"p1", "it is mounted at "+mnt, true)
	})
	t.Run("device-mapper holder", func(t *testing.T) {
		t.Parallel() // a device of its own
		need(t, "dmsetup")
		dev := enginetest.LoopDevice(t, 64<<20, "")
		name := fmt.Sprintf("ptsrun-test-%d", os.Getpid())
		if out, err := exec.Command("dmsetup", "create", name, "--table", fmt.Sprintf("0 %d linear %s 0", 64<<20/512, dev)).CombinedOutput(); err != nil {
			t.Skipf("device-mapper is not available here: %s", strings.TrimSpace(string(out)))
		}
		t.Cleanup(func() { exec.Command("dmsetup", "remove", name).Run() })
		refused(t, dev, "device-mapper, md or LVM holds it", true)
	})
	t.Run("read-only", func(t *testing.T) {
		t.Parallel() // a device of its own
		dev := enginetest.LoopDevice(t, 64<<20, "")
		sh(t, "blockdev", "--setro", dev)
		refused(t, dev, "it is read-only", true)
	})
	t.Run("LVM physical volume", func(t *testing.T) {
		t.Parallel() // a device of its own
		need(t, "pvcreate", "pvremove")
		dev := enginetest.LoopDevice(t, 64<<20, "")
		sh(t, "pvcreate", "-qq", "-y", dev)
		t.Cleanup(func() { exec.Command("pvremove", "-qq", "-y", dev).Run() })
		refused(t, dev, "an LVM physical volume", false)
	})
	t.Run("LUKS", func(t *testing.T) {
		t.Parallel() // a device of its own
		need(t, "cryptsetup")
		dev := enginetest.LoopDevice(t, 64<<20, "")
		key := filepath.Join(t.TempDir(), "key")
		require.NoError(t, os.WriteFile(key, []byte("ptsrun-test-key"), 0o600))
		sh(t, "cryptsetup", "luksFormat", "-q", "--type", "luks2", "--pbkdf", "pbkdf2", "--pbkdf-force-iterations", "1000",
			"--key-file", key, dev)
		refused(t, dev, "a LUKS encrypted volume", false)
	})
	t.Run("md RAID", func(t *testing.T) {
		t.Parallel() // a device of its own
		need(t, "mdadm")
		a := enginetest.LoopDevice(t, 64<<20, "")
		b := enginetest.LoopDevice(t, 64<<20, "")
		md := fmt.Sprintf("/dev/md/ptsrun%d", os.Getpid()%1000)
		if out, err := exec.Command("mdadm", "--create", md, "--run", "--quiet", "--level=1", "--raid-devices=2",
			"--metadata=1.2", a, b).CombinedOutput(); err != nil {
			t.Skipf("mdadm cannot make an array here: %v: %s", err, out)
		}
		t.Cleanup(func() {
			exec.Command("mdadm", "--stop", md).Run()
			exec.Command("mdadm", "--zero-superblock", a, b).Run()
		})
		refused(t, a, "device-mapper, md or LVM holds it", true)
		sh(t, "mdadm", "--stop", md)
		refused(t, a, "an md RAID member (superblock 1.2)", false)
	})
	t.Run("btrfs, xfs and vfat", func(t *testing.T) {
		t.Parallel() // a device of its own
		for _, fs := range []struct{ mkfs, name string }{
			{"mkfs.btrfs", "a Btrfs filesystem"}, {"mkfs.xfs", "an XFS filesystem"}, {"mkfs.vfat", "a FAT filesystem"},
		} {
			if _, err := exec.LookPath(fs.mkfs); err != nil {
				t.Logf("%s is not installed", fs.mkfs)
				continue
			}
			dev := enginetest.LoopDevice(t, 320<<20, "")
			args := []string{"-f", dev}
			if fs.mkfs == "mkfs.vfat" {
				args = []string{dev}
			}
			sh(t, append([]string{fs.mkfs}, args...)...)
			refused(t, dev, fs.name, false)
		}
	})
	t.Run("root disk", func(t *testing.T) {
		t.Parallel() // a device of its own
		root := rootDevice(t)
		if root == "" {
			t.Skip("/ is not on a block device here")
		}
		code, _, stderr := ptsrun("run", "--target", root, "--purge", "none", "--destroy-data", root,
			"--out", filepath.Join(t.TempDir(), "run"))
		assert.Equal(t, 4, code)
		assert.Contains(t, stderr, "root filesystem")
	})
}

// loopBacking makes a backing file for a loop device with partitions.
func loopBacking(t *testing.T) string {
	p := filepath.Join("/dev/shm", fmt.Sprintf("ptsrun-part-%d.img", time.Now().UnixNano()))
	require.NoError(t, os.WriteFile(p, nil, 0o600))
	require.NoError(t, os.Truncate(p, 64<<20))
	t.Cleanup(func() { os.Remove(p) })
	return p
}

func waitFor(t *testing.T, path string) {
	for i := 0; i < 1500; i++ { // 30 s: udev on a loaded host is slow, not absent
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s did not appear", path)
}
