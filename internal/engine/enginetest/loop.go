package enginetest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func pkgOf(cmd string) string {
	switch cmd {
	case "losetup", "blockdev", "wipefs", "mkswap", "blkdiscard", "sfdisk":
		return "util-linux"
	case "mkfs.ext4":
		return "e2fsprogs"
	case "mkfs.vfat":
		return "dosfstools"
	case "sgdisk":
		return "gdisk"
	}
	return cmd
}

// LoopDevice makes a loop device of size bytes backed by a file in dir
// (/dev/shm when dir is empty, for speed), detached and removed when the test
// ends. It skips the test when loop devices cannot be made here.
func LoopDevice(t testing.TB, size int64, dir string) string {
	t.Helper()
	return LoopDeviceSector(t, size, dir, 0)
}

// LoopDeviceSector is LoopDevice with a logical block size of sector bytes
// (4096 makes a 4Kn device); 0 leaves the kernel's 512.
func LoopDeviceSector(t testing.TB, size int64, dir string, sector int) string {
	t.Helper()
	NeedRoot(t, "losetup")
	if dir == "" {
		dir = "/dev/shm"
	}
	f, err := os.CreateTemp(dir, "ptsrun-test-*.img")
	if err != nil {
		t.Skipf("cannot make a backing file in %s: %v", dir, err)
	}
	img := f.Name()
	f.Close()
	if err := os.Truncate(img, size); err != nil {
		os.Remove(img)
		t.Fatal(err)
	}
	args := []string{"-f", "--show", img}
	if sector > 0 {
		args = append(args, "--sector-size", fmt.Sprint(sector))
	}
	out, err := exec.Command("losetup", args...).CombinedOutput()
	if err != nil {
		os.Remove(img)
		t.Skipf("losetup: %v: %s", err, strings.TrimSpace(string(out)))
	}
	dev := strings.TrimSpace(string(out))
	bound := img // as the kernel names it
	if p, err := filepath.EvalSymlinks(img); err == nil {
		bound = p
	}
	// A read-only flag set on a loop device outlives its detaching: clear it.
	_ = exec.Command("blockdev", "--setrw", dev).Run()
	t.Cleanup(func() {
		backing := filepath.Join("/sys/block", filepath.Base(dev), "loop", "backing_file")
		// Detached by the test, or bound to another file since (the test
		// detached it, and another test took the number): not ours.
		if b, err := os.ReadFile(backing); err != nil || strings.TrimSpace(string(b)) != bound {
			os.Remove(img)
			return
		}
		_ = exec.Command("blockdev", "--setrw", dev).Run()
		if out, err := exec.Command("losetup", "-d", dev).CombinedOutput(); err != nil {
			t.Logf("losetup -d %s: %v: %s", dev, err, out)
		}
		// A device still open (udev probing it, a test's process ending)
		// is only marked to detach when it closes. Its file is removed
		// once it has let go: a loop device bound to a removed file is
		// one whose stacking the safety gate cannot tell, and refuses
		// every device beside it while it lasts.
		for i := 0; i < 500; i++ { // 10 s
			if _, err := os.Stat(backing); err != nil {
				os.Remove(img)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("%s: still open 10 s after the test: something holds it (a leaked fd or io_uring ring)", dev)
		os.Remove(img)
	})
	return dev
}

// FullLoopDevice makes a loop device of size bytes whose backing file sits
// on a tmpfs of only room bytes: once room bytes are written, every further
// write fails with ENOSPC, which the kernel reports as an I/O error on the
// device. A real device failing, for the error paths.
func FullLoopDevice(t testing.TB, size, room int64) string {
	t.Helper()
	NeedRoot(t, "losetup", "mount", "umount")
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", room), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, strings.TrimSpace(string(out)))
	}
	// Registered before LoopDevice's cleanup, so it runs after it.
	// The loop device lets go of its file a moment after it is detached:
	// a lazy unmount does not wait for that.
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "--lazy", dir).CombinedOutput(); err != nil {
			t.Logf("umount %s: %v: %s", dir, err, out)
		}
	})
	return LoopDevice(t, size, dir)
}

// TempFile makes a file of size bytes (zeros, allocated) on a filesystem that
// does direct I/O, for file targets.
func TempFile(t testing.TB, size int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "target.img")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for n := int64(0); n < size; n += int64(len(buf)) {
		if _, err := f.Write(buf[:min(int64(len(buf)), size-n)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	return p
}

// Describe helps messages name a target.
func Describe(path string, size int64) string { return fmt.Sprintf("%s (%d MiB)", path, size>>20) }

// FioServers starts n fio servers on 127.0.0.1 ports, stopped when the test
// ends, and returns their HOST:PORT addresses.
func FioServers(t testing.TB, n int) []string {
	t.Helper()
	NeedFio(t)
	var addrs []string
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		cmd := exec.Command("fio", "--server=ip:127.0.0.1,"+strconv.Itoa(port))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		addr := "127.0.0.1:" + strconv.Itoa(port)
		deadline := time.Now().Add(30 * time.Second) // a loaded machine starts processes slowly
		for {
			c, err := net.Dial("tcp", addr)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("fio server on %s did not start", addr)
			}
			time.Sleep(20 * time.Millisecond)
		}
		addrs = append(addrs, addr)
	}
	return addrs
}
