package capture

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
