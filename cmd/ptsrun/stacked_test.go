package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// stackLoop binds a new loop device to backing (a file or a device node),
// detached when the test ends; with partscan, the kernel reads its
// partition table.
func stackLoop(t *testing.T, backing string, partscan bool) string {
	t.Helper()
	args := []string{"-f", "--show", backing}
	if partscan {
		args = append([]string{"-P"}, args...)
	}
	out, err := exec.Command("losetup", args...).CombinedOutput()
	require.NoError(t, err, string(out))
	loop := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("losetup", "-d", loop).Run() })
	return loop
}

// mountFrozen makes an ext4 filesystem on dev and mounts it, frozen so that
// the filesystem itself writes nothing while the test hashes what is below.
func mountFrozen(t *testing.T, dev string) string {
	t.Helper()
	sh(t, "mkfs.ext4", "-q", dev)
	mnt := t.TempDir()
	sh(t, "mount", dev, mnt)
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	freeze(t, mnt)
	return mnt
}

// partitioned writes a partition table with one partition on loop (bound
// with partscan) and returns the partition's node once the kernel has it.
func partitioned(t *testing.T, loop string) string {
	t.Helper()
	cmd := exec.Command("sfdisk", "-q", loop)
	cmd.Stdin = strings.NewReader(",,L\n")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	_ = exec.Command("partx", "-u", loop).Run()
	sh(t, "udevadm", "settle")
	p := loop + "p1"
	if _, err := os.Stat(p); err != nil {
		t.Skipf("the kernel made no %s: %v", p, err)
	}
	return p
}

// writeWorkload runs a one-second write workload on target, confirmed
// with destroy, and returns the exit code and stderr.
func writeWorkload(t *testing.T, target, destroy string, extra ...string) (int, string) {
	t.Helper()
	args := []string{"workload", "--target", target, "--destroy-data", destroy, "--engine", "native",
		"--access", "seq", "--read", "0", "--bs", "1m", "--tc", "1", "--qd", "1", "--time", "1s"}
	return ptsrunIn(t, t.TempDir(), append(args, extra...)...)
}

// Variations of a filesystem mounted through loop devices stacked on a
// target (TestRedTeamFilesystemMountedThroughAStackedLoop is the first):
// the target named otherwise, the loop device bound through another name
// of the file or node, the filesystem on a partition of the loop device or
// one more loop device up, and the target being the upper loop device
// with the filesystem below it. Each is refused whatever --destroy-data
// says (exit 4), and not a byte of the target changes.
func TestStackedLoopDeviceInUseIsRefused(t *testing.T) {
	need(t, "losetup", "mkfs.ext4", "mount", "umount", "fsfreeze", "sfdisk", "partx", "udevadm", "mknod")
	t.Parallel()
	for _, tc := range []struct {
		name string
		// setup makes the stack and returns the target, what
		// --destroy-data names, what is hashed, and the refusal expected.
		setup func(t *testing.T) (target, destroy, hashed, reason string)
	}{
		{"device named through a link", func(t *testing.T) (string, string, string, string) {
			dev := enginetest.LoopDevice(t, 32<<20, "")
			upper := stackLoop(t, dev, false)
			mnt := mountFrozen(t, upper)
			alias := filepath.Join(t.TempDir(), "alias")
			require.NoError(t, os.Symlink(dev, alias))
			return alias, alias, dev, "loop device " + upper + " on it is in use: it is mounted at " + mnt
		}},
		{"loop bound through another node of the device", func(t *testing.T) (string, string, string, string) {
			dev := enginetest.LoopDevice(t, 32<<20, "")
			var st unix.Stat_t
			require.NoError(t, unix.Stat(dev, &st))
			node := filepath.Join(t.TempDir(), "node")
			sh(t, "mknod", node, "b", fmt.Sprint(unix.Major(uint64(st.Rdev))), fmt.Sprint(unix.Minor(uint64(st.Rdev))))
			upper := stackLoop(t, node, false) // backing_file says the other node's path
			mountFrozen(t, upper)
			return dev, dev, dev, "loop device " + upper + " on it is in use"
		}},
		{"filesystem on a partition of the stacked loop device", func(t *testing.T) (string, string, string, string) {
			dev := enginetest.LoopDevice(t, 64<<20, "")
			upper := stackLoop(t, dev, true)
			part := partitioned(t, upper)
			mnt := mountFrozen(t, part)
			return dev, dev, dev, "loop device " + upper + " on it is in use: partition " + filepath.Base(part) + " of the same disk is mounted at " + mnt
		}},
		{"two loop devices up", func(t *testing.T) (string, string, string, string) {
			dev := enginetest.LoopDevice(t, 32<<20, "")
			middle := stackLoop(t, dev, false)
			top := stackLoop(t, middle, false)
			mountFrozen(t, top)
			return dev, dev, dev, "loop device " + middle + " on it is in use: loop device " + top + " is stacked on " + filepath.Base(middle) + " in turn"
		}},
		{"the upper loop device, its filesystem on the lower one's file", func(t *testing.T) (string, string, string, string) {
			img := enginetest.TempFile(t, 32<<20)
			lower := stackLoop(t, img, false)
			mnt := mountFrozen(t, lower)
			other := stackLoop(t, img, false) // a second loop device on the same file
			return other, other, img, "loop device " + lower + " on its backing file " + img + " is in use: it is mounted at " + mnt
		}},
		{"the upper loop device, a partition of the lower one mounted", func(t *testing.T) (string, string, string, string) {
			dev := enginetest.LoopDevice(t, 64<<20, "")
			lower := stackLoop(t, dev, true)
			part := partitioned(t, lower)
			mnt := mountFrozen(t, part)
			upper := stackLoop(t, lower, false)
			return upper, upper, dev, "it is bound to " + lower + ", in use: partition " + filepath.Base(part) + " of the same disk is mounted at " + mnt
		}},
		{"file renamed after it was bound", func(t *testing.T) (string, string, string, string) {
			img := enginetest.TempFile(t, 32<<20)
			upper := stackLoop(t, img, false)
			mountFrozen(t, upper)
			moved := img + ".moved"
			require.NoError(t, os.Rename(img, moved))
			return "file:" + moved, moved, moved, "loop device " + upper + " on it is in use"
		}},
		{"file named through a hard link", func(t *testing.T) (string, string, string, string) {
			img := enginetest.TempFile(t, 32<<20)
			upper := stackLoop(t, img, false)
			mountFrozen(t, upper)
			hard := img + ".hard"
			require.NoError(t, os.Link(img, hard))
			return "file:" + hard, hard, hard, "loop device " + upper + " on it is in use"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, destroy, hashed, reason := tc.setup(t)
			before := sum(t, hashed)
			code, stderr := writeWorkload(t, target, destroy)
			assert.Equal(t, 4, code, stderr)
			assert.Contains(t, stderr, reason)
			assert.Equal(t, before, sum(t, hashed), "what is under a mounted filesystem was written")
		})
	}
}

// The same through the other commands that write a device: run, a user's
// fio job file, a vdbench parameter file.
func TestStackedLoopDeviceInUseRefusedByEveryCommand(t *testing.T) {
	need(t, "losetup", "mkfs.ext4", "mount", "umount", "fsfreeze")
	enginetest.NeedFio(t)
	t.Parallel()
	dev := enginetest.LoopDevice(t, 32<<20, "")
	upper := stackLoop(t, dev, false)
	mountFrozen(t, upper)
	before := sum(t, dev)
	code, stderr := ptsrunIn(t, t.TempDir(), "run", "--target", dev, "--destroy-data", dev, "--purge", "none", "--tests", "lat",
		"--cell-time", "1s", "--out", filepath.Join(t.TempDir(), "run"))
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, "loop device "+upper+" on it is in use")
	job := jobFile(t, t.TempDir(), "w.fio", fmt.Sprintf("[w]\nrw=write\nbs=64k\nsize=1m\nfilename=%s\n", dev))
	code, stderr = fioIn(t, job, "--out", filepath.Join(t.TempDir(), "run"), "--destroy-data", dev)
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, "loop device "+upper+" on it is in use")
	parm := writeParm(t, fmt.Sprintf("sd=sd1,lun=%s,openflags=o_direct\nwd=wd1,sd=sd1,rdpct=0\nrd=rd1,wd=wd1,iorate=max,elapsed=2\n", dev))
	code, _, stderr = ptsrun("workload", "--vdbench", parm, "--destroy-data", dev, "--out", filepath.Join(t.TempDir(), "run"))
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, "loop device "+upper+" on it is in use")
	assert.Equal(t, before, sum(t, dev))
}

// A loop device stacked on a target and not in use is no refusal: the
// target needs its confirmation as any other, the refusal without it says
// what it destroys, and run.json (and so the report) names the loop
// device. A new file at the name a bound file had is not that file.
func TestStackedLoopDeviceUnused(t *testing.T) {
	need(t, "losetup")
	t.Parallel()
	t.Run("device", func(t *testing.T) {
		dev := enginetest.LoopDevice(t, 32<<20, "")
		upper := stackLoop(t, dev, false)
		code, stderr := ptsrunIn(t, t.TempDir(), "workload", "--target", dev, "--engine", "native",
			"--access", "seq", "--read", "0", "--bs", "1m", "--tc", "1", "--qd", "1", "--time", "1s")
		assert.Equal(t, 4, code, stderr)
		assert.Contains(t, stderr, "destroys loop device "+upper+" stacked on it: confirm with --destroy-data "+dev)
		out := filepath.Join(t.TempDir(), "run")
		code, stderr = writeWorkload(t, dev, dev, "--out", out)
		require.Equal(t, 0, code, stderr)
		var ri struct {
			Targets []struct {
				Loops []string `json:"loops"`
			} `json:"targets"`
		}
		b, err := os.ReadFile(filepath.Join(out, "run.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &ri))
		require.Len(t, ri.Targets, 1)
		assert.Equal(t, []string{upper}, ri.Targets[0].Loops)
	})
	t.Run("a new file where the bound one was", func(t *testing.T) {
		img := enginetest.TempFile(t, 32<<20)
		upper := stackLoop(t, img, false)
		require.NoError(t, os.Rename(img, img+".old"))
		require.NoError(t, os.WriteFile(img, make([]byte, 32<<20), 0o644))
		code, stderr := writeWorkload(t, "file:"+img, img)
		assert.Equal(t, 0, code, stderr)
		assert.NotContains(t, stderr, upper)
		code, stderr = ptsrunIn(t, t.TempDir(), "workload", "--target", "file:"+img+".old", "--engine", "native",
			"--access", "seq", "--read", "0", "--bs", "1m", "--tc", "1", "--qd", "1", "--time", "1s")
		assert.Equal(t, 4, code, stderr)
		assert.Contains(t, stderr, "destroys loop device "+upper+" stacked on it", "the file the loop device is bound to, under its new name")
	})
}
