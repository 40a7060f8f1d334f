package fio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Purge substitutes through fio: on a fio server's host, fio is all ptsrun
// can reach, so a trim job or a zero-fill job is all it can do there.

const (
	// Block sizes of the purge jobs: large ones for speed, and a few 4 KiB
	// ones so that fio, which sizes the job from the device and stops at
	// the last whole block, goes on to the device's last whole 4 KiB
	// instead of stopping short of its tail.
	trimBlocks = "64m/99:4k/1"
	zeroBlocks = "1m/99:4k/1"
	// zeroSamples random 4 KiB blocks are read back after a zero-fill,
	// and fio checks that they hold zeros.
	zeroSamples = 64
	zeroSeed    = 20260101
)

var _ engine.Purger = (*Engine)(nil)

// Purge trims or zero-fills every target at once (job engine.PurgeTrim or
// engine.PurgeZeroFill), each from its first byte to its last whole 4 KiB
// as fio sizes it, with one fio invocation through all the servers (or on
// this host). The job files stay in the work directory beside the cells'.
func (e *Engine) Purge(ctx context.Context, job string) (engine.PurgeReport, error) {
	var rep engine.PurgeReport
	if job != engine.PurgeTrim && job != engine.PurgeZeroFill {
		return rep, fmt.Errorf("fio engine: unknown purge substitute %q", job)
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	name := fmt.Sprintf("purge-%s-%02d", job, e.seq.Add(1))
	p := &proc{base: filepath.Join(e.opts.WorkDir, name)}
	p.logDir = p.base + ".logs"
	if err := os.MkdirAll(p.logDir, 0o755); err != nil {
		return rep, fmt.Errorf("fio engine: %w", err)
	}
	args, err := e.jobFiles(p, "json", func(_ int, ts []Target, _ string) string { return purgeJobFile(job, ts, e.ioeng) })
	if err != nil {
		return rep, err
	}
	rep.Args = append([]string{e.bin}, args...)
	start := time.Now()
	if err := e.start(p, args); err != nil {
		return rep, err
	}
	out, _, runErr, err := e.wait(ctx, p)
	rep.Duration = time.Since(start)
	if p.cmd.ProcessState != nil {
		rep.Exit = p.cmd.ProcessState.ExitCode()
	}
	if err != nil {
		rep.Output = tail(p.stderr.String())
		return rep, err
	}
	var done, checked []string
	for i, t := range e.targets {
		d, c, err := e.purgeResult(job, out, i)
		if err != nil {
			rep.Output = strings.Join(append(done, t.Name+": "+err.Error()), "; ")
			rep.Verified = strings.Join(checked, "; ")
			return rep, e.explain(fmt.Errorf("%s on %s: %w", job, t.Name, err), out, p)
		}
		done, checked = append(done, t.Name+": "+d), append(checked, t.Name+": "+c)
	}
	rep.Output, rep.Verified = strings.Join(done, "; "), strings.Join(checked, "; ")
	if runErr != nil {
		return rep, runErr
	}
	return rep, nil
}

// purgeResult reads what the purge job did to target i: what it did and
// what that proves, or why it failed.
func (e *Engine) purgeResult(job string, out *Output, i int) (done, checked string, err error) {
	var main, verify *Job
	for k := range out.Jobs {
		j := &out.Jobs[k]
		switch {
		case e.targetIndex(*j, "t") == i:
			main = j
		case e.targetIndex(*j, "v") == i:
			verify = j
		}
	}
	if main == nil {
		return "", "", errors.New("fio output has no result for it")
	}
	if main.Error != 0 {
		why := fmt.Sprintf("fio job %s%s ended with error %d (%s)", main.Name, onHost(*main), main.Error, syscall.Errno(main.Error).Error())
		if job == engine.PurgeTrim && (main.Error == int(syscall.ENOTTY) || main.Error == int(syscall.EOPNOTSUPP)) {
			why += ": it takes no discards (fio trims block devices only)"
		}
		return "", "", errors.New(why)
	}
	t := e.targets[i]
	d := main.Write
	what := "written as zeros"
	if job == engine.PurgeTrim {
		d, what = main.Trim, "trimmed"
	}
	if d.Bytes <= 0 {
		return "", "", fmt.Errorf("fio reports no bytes %s", what)
	}
	// A known size (a target on this host) must have been covered to its
	// last whole 4 KiB; a fio server's target is as big as fio found it.
	extent := "the whole device as fio sizes it (to its last whole 4 KiB)"
	if t.Size > 0 {
		if want := t.Size / 4096 * 4096; d.Bytes != want {
			return "", "", fmt.Errorf("fio reports %d bytes %s, not the %d there are", d.Bytes, what, want)
		}
		extent = fmt.Sprintf("every block of its %d bytes", t.Size)
	}
	done = fmt.Sprintf("%d bytes %s in %s", d.Bytes, what, d.Runtime.Round(time.Millisecond))
	if job == engine.PurgeTrim {
		// What trimmed blocks read as is the device's business (zeros,
		// ones, old data): the trimmed extent is what can be checked.
		return done, fmt.Sprintf("fio reports %d bytes trimmed without an error, %s", d.Bytes, extent), nil
	}
	if verify == nil {
		return "", "", errors.New("fio output has no result of the read-back")
	}
	if verify.Error != 0 {
		why := fmt.Sprintf("reading back: fio job %s%s ended with error %d (%s)", verify.Name, onHost(*verify), verify.Error, syscall.Errno(verify.Error).Error())
		if verify.Error == int(syscall.EILSEQ) {
			why = fmt.Sprintf("reading back%s: a block does not hold zeros (fio's verify_pattern=0x00 failed): the zeros did not land", onHost(*verify))
		}
		return "", "", errors.New(why)
	}
	if verify.Read.IOs != zeroSamples {
		return "", "", fmt.Errorf("reading back: fio read %d blocks instead of %d", verify.Read.IOs, zeroSamples)
	}
	return done, fmt.Sprintf("fio reports %d bytes of zeros written without an error, %s, and %d random 4 KiB blocks read back as zeros (fio verify_pattern=0x00)",
		d.Bytes, extent, zeroSamples), nil
}

// purgeJobFile writes the job file of a purge substitute on targets of one
// host: job t<n> trims or zero-fills target n; after a zero-fill, job v<n>
// reads random 4 KiB blocks back and fio checks that they are zeros.
func purgeJobFile(job string, targets []Target, ioeng string) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	what := "discard (trim) of every block"
	if job == engine.PurgeZeroFill {
		what = "zeros written over every block, then random blocks read back"
	}
	comment(p, "ptsrun purge substitute: "+what+".\nNOT a PTS purge: the drive erases nothing it is not told to.")
	p("[global]")
	p("thread")
	p("direct=1")
	p("clocksource=clock_gettime")
	p("disk_util=0")
	for i, t := range targets {
		p("")
		p("[t%d]", i)
		p("filename=%s", filenameValue(t.Path))
		if t.Size > 0 {
			p("size=%d", t.Size)
		}
		if job == engine.PurgeTrim {
			// fio trims with the BLKDISCARD ioctl, one at a time whatever
			// the engine; psync has it on every fio.
			p("ioengine=psync")
			p("rw=trim")
			p("bssplit=%s", trimBlocks)
			continue
		}
		p("ioengine=%s", ioeng)
		p("rw=write")
		p("bssplit=%s", zeroBlocks)
		p("iodepth=32")
		p("zero_buffers=1")
		p("scramble_buffers=0")
	}
	if job == engine.PurgeZeroFill {
		for i, t := range targets {
			p("")
			p("[v%d]", i)
			if i == 0 {
				p("stonewall")
			}
			p("filename=%s", filenameValue(t.Path))
			if t.Size > 0 {
				p("size=%d", t.Size)
			}
			p("ioengine=%s", ioeng)
			p("rw=randread")
			p("bs=4k")
			p("number_ios=%d", zeroSamples)
			p("random_generator=tausworthe64")
			p("randseed=%d", zeroSeed)
			p("verify=pattern")
			p("verify_pattern=0x00")
		}
	}
	return b.String()
}
