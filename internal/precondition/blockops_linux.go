package precondition

import (
	"context"
	"fmt"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ptsrun/ptsrun/internal/device"
)

const opChunk = 1 << 30 // discards and zero-fill go a GiB at a time, for progress and interrupts

// discardRun discards every block (BLKDISCARD), or punches the whole file
// out. The kernel reports no output; the record says what was done.
func discardRun(ctx context.Context, _ *Purger, d Dev, rec *recorder) (completion, error) {
	err := discard(ctx, d, rec)
	return completion{evidence: "the kernel took a discard of every byte"}, err
}

func discard(ctx context.Context, d Dev, rec *recorder) error {
	start := time.Now()
	f, err := os.OpenFile(d.Path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("discard %s: %w", d.Path, err)
	}
	defer f.Close()
	args := []string{"BLKDISCARD", d.Path, "0", fmt.Sprint(d.Capacity)}
	if d.Kind == device.KindFile {
		args = []string{"fallocate", "PUNCH_HOLE|KEEP_SIZE", d.Path, "0", fmt.Sprint(d.Capacity)}
	}
	for off := int64(0); off < d.Capacity; off += opChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(opChunk, d.Capacity-off)
		if d.Kind == device.KindFile {
			err = unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
		} else {
			r := [2]uint64{uint64(off), uint64(n)}
			_, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), unix.BLKDISCARD, uintptr(unsafe.Pointer(&r)))
			if e != 0 {
				err = e
			}
		}
		if err != nil {
			return fmt.Errorf("discard %s at %d: %w", d.Path, off, err)
		}
		rec.progress("discard %s: %.0f %%", d.Path, 100*float64(off+n)/float64(d.Capacity))
	}
	rec.note(args, fmt.Sprintf("%d bytes discarded", d.Capacity), start)
	return nil
}

// zeroFillRun writes zeros over the whole target with direct I/O.
func zeroFillRun(ctx context.Context, _ *Purger, d Dev, rec *recorder) (completion, error) {
	err := zeroFill(ctx, d, rec)
	return completion{evidence: "zeros written and synced over every byte"}, err
}

func zeroFill(ctx context.Context, d Dev, rec *recorder) error {
	start := time.Now()
	f, err := os.OpenFile(d.Path, os.O_WRONLY|unix.O_DIRECT, 0)
	if err != nil {
		return fmt.Errorf("zero-fill %s: %w", d.Path, err)
	}
	defer f.Close()
	const bs = 1 << 20
	buf, err := unix.Mmap(-1, 0, bs, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return err
	}
	defer unix.Munmap(buf)
	last := time.Now()
	for off := int64(0); off < d.Capacity; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(bs, d.Capacity-off)
		if _, err := f.WriteAt(buf[:n], off); err != nil {
			return fmt.Errorf("zero-fill %s at %d: %w", d.Path, off, err)
		}
		off += n
		if time.Since(last) > time.Second {
			last = time.Now()
			rec.progress("zero-fill %s: %.0f %%", d.Path, 100*float64(off)/float64(d.Capacity))
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	rec.progress("zero-fill %s: done", d.Path)
	rec.note([]string{"zero-fill", d.Path, "0", fmt.Sprint(d.Capacity)}, fmt.Sprintf("%d bytes of zeros written", d.Capacity), start)
	return nil
}

// sampleCount blocks of 4 KiB are read back, at the start, the end and
// evenly between, with direct I/O, where a method's device promises what
// erased blocks read as.
const sampleCount = 18

// readBack reads the sampled blocks and counts those that are not all
// pattern.
func readBack(d Dev, pattern byte) (read, wrong int, err error) {
	f, err := os.OpenFile(d.Path, os.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	const bs = 4096
	buf, err := unix.Mmap(-1, 0, bs, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return 0, 0, err
	}
	defer unix.Munmap(buf)
	blocks := d.Capacity / bs
	for i := 0; i < sampleCount && blocks > 0; i++ {
		off := int64(i) * (blocks - 1) / (sampleCount - 1) * bs
		if _, err := f.ReadAt(buf, off); err != nil {
			return read, wrong, fmt.Errorf("reading %s at %d: %w", d.Path, off, err)
		}
		read++
		for _, b := range buf {
			if b != pattern {
				wrong++
				break
			}
		}
	}
	return read, wrong, nil
}
