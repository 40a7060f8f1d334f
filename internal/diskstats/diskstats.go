package diskstats

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/procfs/blockdevice"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// Options say what to sample.
type Options struct {
	Device   string // a block device: /dev/NAME, a link to it, or NAME
	Interval time.Duration
	Duration time.Duration
	Out      string // the capture file (absolute)
	Force    bool   // replace a file ptsrun did not write
	// Proc and Sys are where /proc and /sys are: the live ones when "".
	Proc, Sys string
}

// counters are one sample of a device's line of /proc/diskstats.
type counters struct {
	at                  time.Time
	reads, writes       uint64
	readSect, writeSect uint64
	weightedMs          uint64
}

// Name is the device's name in /proc/diskstats: NAME as given, or a
// path's (or link's) last element once resolved. A path must lead to a
// block device: one that does not exist, or leads to anything else, is
// refused, not taken for the device its last element names.
func Name(dev string) (string, error) {
	if !strings.Contains(dev, "/") {
		return dev, nil
	}
	p, err := filepath.EvalSymlinks(dev)
	if err != nil {
		return "", fmt.Errorf("--diskstats %s: %w", dev, err)
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("--diskstats %s: %w", dev, err)
	}
	if st.Mode()&os.ModeDevice == 0 || st.Mode()&os.ModeCharDevice != 0 {
		return "", fmt.Errorf("--diskstats %s: %s is not a block device", dev, p)
	}
	return filepath.Base(p), nil
}

// Sample samples o.Device every o.Interval for o.Duration (until ctx ends
// it: the steps so far are kept) and writes the capture to o.Out. step,
// when not nil, is told of each step as it ends.
func Sample(ctx context.Context, o Options, step func(capture.CoarseStep)) (*capture.Coarse, error) {
	if o.Device == "" || o.Out == "" {
		return nil, errors.New("name the block device to sample with --diskstats DEV, and the capture file with --out FILE")
	}
	if o.Interval < time.Millisecond || o.Duration < o.Interval {
		return nil, fmt.Errorf("--interval %v, --duration %v: want an interval of 1ms or more, and a duration of one interval or more", o.Interval, o.Duration)
	}
	if err := device.CheckOutput(o.Out, o.Force, capture.IsCoarse); err != nil {
		return nil, err
	}
	if o.Proc == "" {
		o.Proc, o.Sys = "/proc", "/sys"
	}
	fs, err := blockdevice.NewFS(o.Proc, o.Sys)
	if err != nil {
		return nil, err
	}
	name, err := Name(o.Device)
	if err != nil {
		return nil, err
	}
	read := func() (counters, error) {
		all, err := fs.ProcDiskstats()
		if err != nil {
			return counters{}, fmt.Errorf("%s: %w", filepath.Join(o.Proc, "diskstats"), err)
		}
		for _, d := range all {
			if d.DeviceName == name {
				return counters{at: time.Now(), reads: d.ReadIOs, writes: d.WriteIOs, readSect: d.ReadSectors,
					writeSect: d.WriteSectors, weightedMs: d.WeightedIOTicks}, nil
			}
		}
		return counters{}, fmt.Errorf("%s: no device %q in %s", o.Device, name, filepath.Join(o.Proc, "diskstats"))
	}
	co := &capture.Coarse{Device: name, Interval: o.Interval}
	prev, err := read()
	if err != nil {
		return nil, err
	}
	first := prev.at
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	var stopped error
	for n := int64(0); n < int64(o.Duration/o.Interval); n++ {
		select {
		case <-ctx.Done():
			stopped = ctx.Err()
		case <-tick.C:
		}
		if stopped != nil {
			break
		}
		cur, err := read()
		if err != nil {
			return nil, err
		}
		s := stepOf(prev, cur, first)
		co.Steps = append(co.Steps, s)
		if step != nil {
			step(s)
		}
		prev = cur
	}
	if len(co.Steps) == 0 {
		return nil, errors.Join(stopped, errors.New("no step was sampled: nothing written"))
	}
	// Checked again: a file may have come to be there while sampling.
	if err := device.CheckOutput(o.Out, o.Force, capture.IsCoarse); err != nil {
		return nil, errors.Join(stopped, err)
	}
	if err := pts.WriteFileAtomic(o.Out, co.Bytes()); err != nil {
		return nil, err
	}
	return co, stopped
}

// stepOf is the step between two samples. Counters that went back (the
// device was removed and came again) count nothing.
func stepOf(a, b counters, first time.Time) capture.CoarseStep {
	d := func(x, y uint64) int64 {
		if y < x {
			return 0
		}
		return int64(y - x)
	}
	start, end := a.at.Sub(first).Round(time.Millisecond), b.at.Sub(first).Round(time.Millisecond)
	s := capture.CoarseStep{Start: start, Length: max(end-start, time.Millisecond),
		Reads: d(a.reads, b.reads), Writes: d(a.writes, b.writes),
		ReadBytes: d(a.readSect, b.readSect) * 512, WriteBytes: d(a.writeSect, b.writeSect) * 512}
	s.Outstanding = float64(d(a.weightedMs, b.weightedMs)) / float64(s.Length.Milliseconds())
	return s
}

// DefaultInterval is the length of a step.
const DefaultInterval = time.Second

// Capture is Sample for the command line: it prints each step as it ends
// to w, labelled coarse, and the file written.
func Capture(ctx context.Context, o Options, w io.Writer) error {
	fmt.Fprintf(w, "Sampling %s every %v for %v (%s)\n", o.Device, o.Interval, o.Duration, capture.CoarseLabel)
	co, err := Sample(ctx, o, func(s capture.CoarseStep) {
		fmt.Fprintf(w, "  %8.1f s  %8.0f IOPS  %5.1f %% reads  outstanding %.2f (coarse)\n", (s.Start + s.Length).Seconds(),
			float64(s.Reads+s.Writes)/s.Length.Seconds(), 100*float64(s.Reads)/float64(max(s.Reads+s.Writes, 1)), s.Outstanding)
	})
	if co != nil {
		fmt.Fprintf(w, "wrote %s: %d coarse steps of %s; `ptsrun streams %s` reads it\n", o.Out, len(co.Steps), co.Device, o.Out)
	}
	return err
}
