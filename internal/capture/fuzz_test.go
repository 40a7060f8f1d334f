package capture

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParse reads anything in every format, seeded from the fixtures (cut
// to their first lines, so that the fuzzer mutates lines, not pages): an
// error names the file, or the capture keeps what Parse promises.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/*")
	require.NoError(f, err)
	for _, p := range files {
		if strings.HasSuffix(p, ".md") {
			continue
		}
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		ls := strings.SplitAfter(string(b), "\n")
		f.Add(strings.Join(ls[:min(len(ls), 40)], ""), uint8(0), false)
	}
	f.Add("  8,0 3 1 0.1 697 Q W 100 + 8 [k]\n  8,0 3 2 0.2 697 D W 96 + 16 [k]\n  8,0 3 3 0.3 0 C W 96 + 16 [0]\n", uint8(2), true)
	f.Fuzz(func(t *testing.T, in string, format uint8, issue bool) {
		opt := Options{Format: Formats[int(format)%len(Formats)]}
		if issue {
			opt.Event = 'D'
		}
		c, err := Parse(strings.NewReader(in), "f", opt)
		if err != nil {
			var pe *Error
			if errors.As(err, &pe) {
				assert.Equal(t, "f", pe.File)
				assert.True(t, strings.HasPrefix(err.Error(), "f:"), err.Error())
			}
			return
		}
		lines := strings.Count(in, "\n") + 1
		for i, io := range c.IOs {
			assert.Positive(t, io.Size)
			assert.GreaterOrEqual(t, io.Offset, int64(0))
			assert.True(t, io.Line >= 1 && io.Line <= lines)
			if i > 0 {
				assert.LessOrEqual(t, c.IOs[i-1].Start, io.Start)
			}
		}
	})
}

// FuzzCoarse: a coarse capture that parses writes out as a file that
// parses to the same steps.
func FuzzCoarse(f *testing.F) {
	b, err := os.ReadFile("testdata/diskstats.coarse")
	require.NoError(f, err)
	f.Add(string(b))
	f.Add("ptsrun diskstats coarse 1\ndevice sda interval_ms 1\nSTART_MS MS READS WRITES READ_BYTES WRITE_BYTES OUTSTANDING\n0 1 1 1 1 1 1e3\n")
	f.Fuzz(func(t *testing.T, in string) {
		c, err := Parse(strings.NewReader(in), "f", Options{Format: Diskstats})
		if err != nil {
			assert.True(t, strings.HasPrefix(err.Error(), "f:"), err.Error())
			return
		}
		require.NotNil(t, c.Coarse)
		again, err := Parse(strings.NewReader(string(c.Coarse.Bytes())), "g", Options{})
		require.NoError(t, err)
		assert.Equal(t, c.Coarse, again.Coarse)
	})
}

func TestCoarse(t *testing.T) {
	b, err := os.ReadFile("testdata/diskstats.coarse")
	require.NoError(t, err)
	c, err := Parse(strings.NewReader(string(b)), "d.coarse", Options{})
	require.NoError(t, err)
	assert.Equal(t, Diskstats, c.Format)
	assert.Empty(t, c.IOs)
	require.Len(t, c.Coarse.Steps, 4)
	assert.Equal(t, CoarseStep{Start: 1000 * time.Millisecond, Length: time.Second, Reads: 13950, Writes: 6050,
		ReadBytes: 57139200, WriteBytes: 49561600, Outstanding: 1.8}, c.Coarse.Steps[1])
	assert.Equal(t, string(b), string(c.Coarse.Bytes()))
	for _, bad := range []struct{ in, want string }{
		{"ptsrun diskstats coarse 1\ndevice sda interval_ms 1000\nSTART_MS MS READS WRITES READ_BYTES WRITE_BYTES OUTSTANDING\n0 1000 1 2 3\n",
			"d.coarse:4: 5 fields"},
		{"ptsrun diskstats coarse 1\n0 1000 1 2 3 4 5\n", "d.coarse:2: a step before the device line"},
		{"ptsrun diskstats coarse 1\ndevice sda interval_ms 1000\nSTART_MS MS READS WRITES READ_BYTES WRITE_BYTES OUTSTANDING\n0 1000 1 -2 3 4 0\n",
			"d.coarse:4: WRITES"},
	} {
		_, err := Parse(strings.NewReader(bad.in), "d.coarse", Options{})
		assert.ErrorContains(t, err, bad.want)
	}
}
