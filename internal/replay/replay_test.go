package replay

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/engine"
)

func TestMap(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name                string
		off, size, capacity int64
		lb                  int64
		wantOff, wantSize   int64
		ok                  bool
	}{
		{"fits as captured", 4096, 4096, mib, 512, 4096, 4096, true},
		{"aligned down to the block", 4097, 4096, mib, 512, 4096, 4096, true},
		{"size rounded up to the block", 0, 512, mib, 4096, 0, 4096, true},
		{"the last place it fits", mib - 4096, 4096, mib, 512, mib - 4096, 4096, true},
		{"wraps past the end", mib, 4096, mib, 512, mib % (mib - 4096 + 512), 4096, true},
		{"wraps modulo the room", mib - 2048, 4096, mib, 512, mib - 2048 - (mib - 4096 + 512), 4096, true},
		{"larger than the target", 0, 2 * mib, mib, 512, 0, 0, false},
		{"a negative offset", -1, 4096, mib, 512, 0, 0, false},
		// A size that overflows when rounded up to the block must not wrap
		// to a negative size that passes the fit check.
		{"a size rounding past int64", 0, math.MaxInt64, mib, 4096, 0, 0, false},
		{"a size rounding past int64, 512-byte blocks", 0, math.MaxInt64 - 10, mib, 512, 0, 0, false},
		{"a size of nothing", 0, 0, mib, 512, 0, 0, false},
		{"a negative size", 0, -4096, mib, 512, 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			off, size, ok := Map(c.off, c.size, c.capacity, c.lb)
			require.Equal(t, c.ok, ok)
			if ok {
				assert.Equal(t, c.wantOff, off)
				assert.Equal(t, c.wantSize, size)
				assert.LessOrEqual(t, off+size, c.capacity)
				assert.Zero(t, off%max(c.lb, 512))
			}
		})
	}
}

func TestMaxOutstanding(t *testing.T) {
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	c := &capture.Capture{IOs: []capture.IO{
		{Start: ms(0), Done: ms(10), Completed: true},
		{Start: ms(1), Done: ms(3), Completed: true},
		{Start: ms(2), Done: ms(4), Completed: true},
		{Start: ms(4), Done: ms(5), Completed: true}, // starts as one completes: not four
		{Start: ms(20)}, // no completion: not counted
	}}
	assert.Equal(t, 3, MaxOutstanding(c))
	assert.Zero(t, MaxOutstanding(&capture.Capture{IOs: []capture.IO{{Start: 0}}}))
}

func TestPlan(t *testing.T) {
	log := "fio version 3 iolog\n1 f add\n1000 f read 0 4096\n3000 f write 8192 4096\n5000 f read 16384 8192\n"
	c, err := capture.Parse(strings.NewReader(log), "c.iolog", capture.Options{})
	require.NoError(t, err)
	tm, rule, err := plan(c, 1<<20, 512, 2, 0)
	require.NoError(t, err)
	assert.Equal(t, DepthDefault, rule)
	assert.Equal(t, DefaultDepth, tm.Depth)
	assert.Equal(t, []engine.TimedIO{{At: 0, Offset: 0, Size: 4096, Read: true}, {At: time.Millisecond, Offset: 8192, Size: 4096},
		{At: 2 * time.Millisecond, Offset: 16384, Size: 8192, Read: true}}, tm.IOs, "times from the first I/O, halved at speed 2")

	_, _, err = plan(c, 1<<20, 512, 0, 0)
	assert.ErrorContains(t, err, "--speed")
	c2, err := capture.Parse(strings.NewReader("fio version 2 iolog\nf add\nf read 0 4096\n"), "c.iolog", capture.Options{})
	require.NoError(t, err)
	_, _, err = plan(c2, 1<<20, 512, 1, 0)
	assert.ErrorContains(t, err, "no times")
	_, _, err = plan(c, 4096, 512, 1, 0)
	assert.ErrorContains(t, err, "line 5: an I/O of 8192 bytes does not fit")
}
