package device

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/loops: loop devices stacked on disks, partitions, files and
// loop devices (its README lists them).
var loops = FS{Root: "testdata/loops"}

func TestLoopsBackedBy(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/dev/sdc", []string{"loop1"}},
		{"/dev/sdd1", []string{"loop2"}},
		{"/dev/sdd", nil}, // loop2 is bound to its partition, not to it
		{"/dev/sde", []string{"loop3"}},
		{"/dev/loop3", []string{"loop4"}},
		{"/dev/loop4", nil},
		{"/srv/img/mounted.img", []string{"loop0", "loop7"}},
		{"/srv/img/free.img", []string{"loop6"}},
		{"/srv/alias.img", []string{"loop6"}}, // a link to free.img: the file, not its name
		{"/srv/img/other.img", nil},
		{"/srv/img/missing.img", nil}, // a file not made yet backs nothing
		{"/dev/sdi", nil},
		{"/dev/loop11", nil}, // not bound
		{"/srv/img", nil},    // a directory backs nothing
	} {
		t.Run(tc.path, func(t *testing.T) {
			got, err := LoopsBackedBy(loops, tc.path)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// What each bound loop device of the fixture is bound to, as sysfs says.
func TestLoopBindingsFromSysfs(t *testing.T) {
	bs := loops.loopBindings()
	got := map[string]string{}
	for _, b := range bs {
		require.NoError(t, b.err, b.Name)
		got[b.Name] = b.File
	}
	assert.Equal(t, map[string]string{
		"loop0": "/srv/img/mounted.img", "loop1": "/dev/sdc", "loop2": "/dev/sdd1", "loop3": "/dev/sde",
		"loop4": "/dev/loop3", "loop5": "/dev/sdf", "loop6": "/srv/img/free.img", "loop7": "/srv/img/mounted.img",
		"loop9": "/dev/sdg", "loop10": "/dev/sdh",
	}, got, "loop11 is not bound: no loop/ directory")
	for _, b := range bs {
		if b.Name == "loop1" {
			assert.Equal(t, nodeKey{Block: "8:32"}, b.key, "a block device by its number")
		}
	}
}

// A loop device whose backing file's name is gone (" (deleted)"), or names
// nothing here, cannot be matched by its path; outside the live system
// (where LOOP_GET_STATUS64 answers as root) every file or device may be
// the one it is bound to, and the gate refuses rather than guess.
func TestLoopBindingThatCannotBeTold(t *testing.T) {
	for _, backing := range []string{"/srv/gone.img (deleted)", "/elsewhere/in/another/namespace.img", ""} {
		t.Run(backing, func(t *testing.T) {
			root := t.TempDir()
			write := func(p, s string) {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(root, p), []byte(s), 0o644))
			}
			write("sys/devices/virtual/block/loop0/dev", "7:0\n")
			write("sys/devices/virtual/block/loop0/loop/backing_file", backing+"\n")
			write("sys/devices/virtual/block/sda/dev", "8:0\n")
			write("dev/sda", "block 8:0")
			write("srv/data.img", "data")
			write("proc/self/mountinfo", "")
			require.NoError(t, os.MkdirAll(filepath.Join(root, "sys/class/block"), 0o755))
			for _, n := range []string{"loop0", "sda"} {
				require.NoError(t, os.Symlink("../../devices/virtual/block/"+n, filepath.Join(root, "sys/class/block", n)))
			}
			fs := FS{Root: root}
			_, err := LoopsBackedBy(fs, "/srv/data.img")
			require.Error(t, err)
			assert.Contains(t, err.Error(), "loop device /dev/loop0 is bound to")

			sys, err := fs.System()
			require.NoError(t, err)
			v := fs.Check(Target{Spec: Spec{Raw: "file:/srv/data.img", Kind: KindFile, Path: "/srv/data.img"}, Exists: true}, sys)
			assert.False(t, v.Usable)
			assert.Contains(t, strings.Join(v.Refused, "; "), "cannot tell which loop devices are stacked on it")
			sda, err := fs.Block("sda")
			require.NoError(t, err)
			v = fs.Check(Target{Spec: Spec{Raw: "/dev/sda", Kind: KindBlock, Path: "/dev/sda"}, Block: &sda}, sys)
			assert.False(t, v.Usable, "it may be bound to sda as well")
		})
	}
}

// The gate on targets with loop devices stacked on them, or stacked on
// what is in use: a loop device in use anywhere in the stack refuses the
// target whatever --destroy-data says; one unused is named in what the
// confirmation destroys.
func TestStackedLoopDevices(t *testing.T) {
	sys, err := loops.System()
	require.NoError(t, err)
	for _, tc := range []struct {
		target  string
		refused string // "" = usable
		carries string // what the confirmation names besides the data
	}{
		{"/dev/sdc", "", "loop device /dev/loop1 stacked on it"},
		{"/dev/sdc1", "", ""}, // loop1 is on its disk, unused
		{"/dev/sdd", "loop device /dev/loop2 on its partition sdd1 is in use: it is mounted at /mnt/part (xfs)", ""},
		{"/dev/sdd1", "loop device /dev/loop2 on it is in use: it is mounted at /mnt/part (xfs)", ""},
		{"/dev/sde", "loop device /dev/loop3 on it is in use: loop device /dev/loop4 is stacked on loop3 in turn", ""},
		{"/dev/loop3", "", "loop device /dev/loop4 stacked on it"},
		{"/dev/loop4", "", ""},
		{"/dev/sdf", "loop device /dev/loop5 on it is in use: it is in use by dm-3", ""},
		{"/dev/sdg", "loop device /dev/loop9 on it is in use: partition loop9p1 of the same disk is mounted at /mnt/loop9p1", ""},
		{"/dev/loop10", "it is bound to /dev/sdh, in use: partition sdh1 of the same disk is mounted at /data", ""},
		{"/dev/loop7", "loop device /dev/loop0 on its backing file /srv/img/mounted.img is in use: it is mounted at /mnt/img (ext4)", ""},
		{"/dev/loop0", "it is mounted at /mnt/img (ext4)", ""},
		{"/dev/loop6", "", ""},
		{"/dev/sdi", "", ""},
		{"file:/srv/img/mounted.img", "loop device /dev/loop0 on it is in use: it is mounted at /mnt/img (ext4)", "loop device /dev/loop7 stacked on it"},
		{"file:/srv/alias.img", "", "loop device /dev/loop6 stacked on it"},
		{"file:/srv/img/other.img", "", ""},
	} {
		t.Run(tc.target, func(t *testing.T) {
			var tg Target
			if p, ok := strings.CutPrefix(tc.target, "file:"); ok {
				tg = Target{Spec: Spec{Raw: tc.target, Kind: KindFile, Path: p}, Exists: true}
			} else {
				tg, err = loops.Inspect(Spec{Raw: tc.target, Kind: KindBlock, Path: tc.target})
				require.NoError(t, err)
			}
			v := loops.Check(tg, sys)
			if tc.refused == "" {
				assert.True(t, v.Usable, "%v", v.Refused)
			} else {
				assert.False(t, v.Usable)
				assert.Contains(t, strings.Join(v.Refused, "; "), tc.refused)
				err := loops.Gate([]Target{tg}, sys, []string{strings.TrimPrefix(tc.target, "file:")})
				assert.ErrorIs(t, err, ErrUnsafe, "refused whatever --destroy-data says")
			}
			if tc.carries != "" {
				assert.Contains(t, v.Carries, tc.carries)
			} else {
				assert.NotContains(t, strings.Join(v.Carries, "; "), "stacked on it")
			}
		})
	}
}

// An unused loop device stacked on a target: the confirmation names the
// target and says what it destroys besides, and the identity the run
// records (the report's Path) lists the loop device.
func TestStackedLoopDeviceNeedsConfirmation(t *testing.T) {
	sys, err := loops.System()
	require.NoError(t, err)
	tg, err := loops.Inspect(Spec{Raw: "/dev/sdc", Kind: KindBlock, Path: "/dev/sdc"})
	require.NoError(t, err)
	assert.Equal(t, []string{"/dev/loop1"}, tg.Identity.Loops)
	err = loops.Gate([]Target{tg}, sys, nil)
	require.ErrorIs(t, err, ErrUnsafe)
	assert.ErrorContains(t, err, "writing to /dev/sdc destroys partitions sdc1, loop device /dev/loop1 stacked on it: confirm with --destroy-data /dev/sdc")
	assert.NoError(t, loops.Gate([]Target{tg}, sys, []string{"/dev/sdc"}))

	file := Target{Spec: Spec{Raw: "file:/srv/alias.img", Kind: KindFile, Path: "/srv/alias.img"}, Exists: true}
	err = loops.Gate([]Target{file}, sys, nil)
	require.ErrorIs(t, err, ErrUnsafe)
	assert.ErrorContains(t, err, "writing to file:/srv/alias.img destroys loop device /dev/loop6 stacked on it: confirm with --destroy-data /srv/alias.img")
	assert.NoError(t, loops.Gate([]Target{file}, sys, []string{"/srv/alias.img"}))
}

// A swap file is refused under any of its names: the kernel lists it in
// /proc/swaps by one, a job may name it by a link.
func TestSwapFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	swap := filepath.Join(dir, "swapfile")
	require.NoError(t, os.WriteFile(swap, []byte("x"), 0o600))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(swap, link))
	other := filepath.Join(dir, "other")
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o600))
	sys := System{Swaps: []string{swap}, loopsRead: true}
	for _, tc := range []struct {
		path    string
		refused bool
	}{{swap, true}, {link, true}, {other, false}} {
		v := Live.Check(Target{Spec: Spec{Raw: tc.path, Kind: KindFile, Path: tc.path}, Exists: true}, sys)
		assert.Equal(t, !tc.refused, v.Usable, tc.path)
		if tc.refused {
			assert.Contains(t, strings.Join(v.Refused, "; "), "it is active swap ("+swap+")", tc.path)
		}
	}
}

// A loop device detached after its backing_file was read is bound to
// nothing: the kernel says so (ENXIO), and it is no binding, instead of
// one whose file cannot be told (which made the gate refuse every target
// while another test detached its own loop device).
func TestLoopDetachedWhileRead(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to bind a loop device; CI runs as root")
	}
	if _, err := exec.LookPath("losetup"); err != nil {
		t.Skip("losetup not found (util-linux); CI installs it")
	}
	img := filepath.Join(t.TempDir(), "img")
	require.NoError(t, os.WriteFile(img, make([]byte, 1<<20), 0o600))
	out, err := exec.Command("losetup", "-f", "--show", img).Output()
	require.NoError(t, err)
	dev := strings.TrimSpace(string(out))
	name := filepath.Base(dev)
	detached := false
	t.Cleanup(func() {
		if !detached {
			_ = exec.Command("losetup", "-d", dev).Run()
		}
	})
	fs := FS{Root: "/"}
	lb := loopBinding{Name: name, File: img}
	k, err := fs.bindingKey(lb)
	require.NoError(t, err, "bound")
	assert.False(t, k.zero())

	// A node under the loop device's name that is another device (a stale
	// /dev: here an unbound loop device's number, whose ENXIO would have
	// said "bound to nothing") is never asked in its place.
	want := fs.read("sys/class/block/" + name + "/dev")
	other := filepath.Join(t.TempDir(), "loop-other")
	maj, min, _ := strings.Cut(want, ":")
	n, err := strconv.Atoi(min)
	require.NoError(t, err, want)
	out, err = exec.Command("mknod", other, "b", maj, strconv.Itoa(n+200)).CombinedOutput()
	require.NoError(t, err, "%s", out)
	_, _, _, err = loopStatus(other, want)
	assert.ErrorContains(t, err, "not the loop device "+want+" that sysfs names")
	_, _, _, err = loopStatus(dev, want)
	assert.NoError(t, err)

	require.NoError(t, exec.Command("losetup", "-d", dev).Run())
	detached = true
	require.NoError(t, os.Remove(img)) // as a test's clean-up does next
	_, err = fs.bindingKey(lb)
	require.ErrorIs(t, err, errUnbound)
	for _, b := range fs.loopBindings() {
		assert.NotEqual(t, name, b.Name, "a detached loop device is no binding")
	}
}
