package diskstats

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/device"
)

func TestStepOf(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := counters{at: t0.Add(time.Second), reads: 100, writes: 50, readSect: 800, writeSect: 400, weightedMs: 1000}
	for _, c := range []struct {
		name string
		b    counters
		want capture.CoarseStep
	}{
		{"a second of I/O", counters{at: t0.Add(2 * time.Second), reads: 1100, writes: 550, readSect: 8800, writeSect: 4400, weightedMs: 2500},
			capture.CoarseStep{Start: time.Second, Length: time.Second, Reads: 1000, Writes: 500, ReadBytes: 8000 * 512, WriteBytes: 4000 * 512, Outstanding: 1.5}},
		{"idle", counters{at: t0.Add(1500 * time.Millisecond), reads: 100, writes: 50, readSect: 800, writeSect: 400, weightedMs: 1000},
			capture.CoarseStep{Start: time.Second, Length: 500 * time.Millisecond}},
		{"counters that went back count nothing", counters{at: t0.Add(2 * time.Second), reads: 5},
			capture.CoarseStep{Start: time.Second, Length: time.Second}},
	} {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, stepOf(a, c.b, t0)) })
	}
}

// fakeProc is a /proc and /sys with a diskstats file of one line for dev.
func fakeProc(t *testing.T, dev string) (proc, sys string) {
	t.Helper()
	root := t.TempDir()
	proc, sys = filepath.Join(root, "proc"), filepath.Join(root, "sys")
	require.NoError(t, os.MkdirAll(proc, 0o755))
	require.NoError(t, os.MkdirAll(sys, 0o755))
	line := "   7       4 " + dev + " 14000 0 112000 900 6000 0 96000 800 0 1500 1700 0 0 0 0 0 0\n"
	require.NoError(t, os.WriteFile(filepath.Join(proc, "diskstats"), []byte(line), 0o644))
	return proc, sys
}

func TestSample(t *testing.T) {
	proc, sys := fakeProc(t, "loop4")
	out := filepath.Join(t.TempDir(), "d.coarse")
	var steps int
	co, err := Sample(context.Background(), Options{Device: "loop4", Interval: 5 * time.Millisecond, Duration: 15 * time.Millisecond,
		Out: out, Proc: proc, Sys: sys}, func(capture.CoarseStep) { steps++ })
	require.NoError(t, err)
	assert.Equal(t, 3, steps)
	assert.Len(t, co.Steps, 3)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	c, err := capture.Parse(strings.NewReader(string(b)), out, capture.Options{})
	require.NoError(t, err)
	assert.Equal(t, capture.Diskstats, c.Format)
	assert.Equal(t, "loop4", c.Coarse.Device)

	// A device the kernel does not list, and a file ptsrun did not write:
	// refused, and nothing written.
	other := filepath.Join(t.TempDir(), "x")
	_, err = Sample(context.Background(), Options{Device: "sdq", Interval: 5 * time.Millisecond, Duration: 5 * time.Millisecond,
		Out: other, Proc: proc, Sys: sys}, nil)
	assert.ErrorContains(t, err, `no device "sdq"`)
	assert.NoFileExists(t, other)
	require.NoError(t, os.WriteFile(other, []byte("mine\n"), 0o644))
	_, err = Sample(context.Background(), Options{Device: "loop4", Interval: 5 * time.Millisecond, Duration: 5 * time.Millisecond,
		Out: other, Proc: proc, Sys: sys}, nil)
	assert.ErrorContains(t, err, "ptsrun did not write it")
}

// A file that comes to be at --out while the device is sampled, which
// ptsrun did not write, is not replaced when the capture is written at
// the end: the output is checked again before the write.
func TestSampleOutputAppearsWhileSampling(t *testing.T) {
	proc, sys := fakeProc(t, "loop4")
	out := filepath.Join(t.TempDir(), "d.coarse")
	_, err := Sample(context.Background(), Options{Device: "loop4", Interval: 5 * time.Millisecond, Duration: 10 * time.Millisecond,
		Out: out, Proc: proc, Sys: sys}, func(capture.CoarseStep) {
		if _, err := os.Stat(out); os.IsNotExist(err) {
			require.NoError(t, os.WriteFile(out, []byte("someone else's\n"), 0o644))
		}
	})
	require.ErrorIs(t, err, device.ErrUnsafe)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "someone else's\n", string(b))
}

// A DEV given as a path must be a block device: a path that does not
// exist, or a regular file, is refused, not taken for the device of its
// last element's name.
func TestSampleDeviceNotABlockDevice(t *testing.T) {
	proc, sys := fakeProc(t, "loop4")
	dir := t.TempDir()
	out := filepath.Join(dir, "d.coarse")
	file := filepath.Join(dir, "sub", "loop4")
	for _, dev := range []string{file, "./loop4"} {
		_, err := Sample(context.Background(), Options{Device: dev, Interval: 5 * time.Millisecond, Duration: 5 * time.Millisecond,
			Out: out, Proc: proc, Sys: sys}, nil)
		assert.ErrorContains(t, err, "no such file", dev)
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err := Sample(context.Background(), Options{Device: file, Interval: 5 * time.Millisecond, Duration: 5 * time.Millisecond,
		Out: out, Proc: proc, Sys: sys}, nil)
	assert.ErrorContains(t, err, "not a block device")
	assert.NoFileExists(t, out)
}
