package streams

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/capture"
)

// FuzzCharacterise characterises whatever capture parses, seeded from
// capture's fixtures cut to their first lines: shares add up to 100 %
// and the applied workload too.
func FuzzCharacterise(f *testing.F) {
	for _, n := range []string{"fio-v3.iolog", "reconstructed.blkparse", "reconstructed-q.biosnoop"} {
		b, err := os.ReadFile(fixtures + n)
		require.NoError(f, err)
		ls := strings.SplitAfter(string(b), "\n")
		f.Add(strings.Join(ls[:min(len(ls), 60)], ""), int64(time.Millisecond))
	}
	f.Fuzz(func(t *testing.T, in string, step int64) {
		c, err := capture.Parse(strings.NewReader(in), "f", capture.Options{})
		if err != nil || len(c.IOs) == 0 || step <= 0 {
			return
		}
		if step < int64(time.Microsecond) {
			step = int64(time.Microsecond) // not a billion steps
		}
		r, err := Characterise(c, c.Devices(), "all", Options{Step: time.Duration(step), Top: 3})
		if err != nil {
			assert.Contains(t, err.Error(), "choose a longer step")
			return
		}
		assert.InDelta(t, 100, r.Streams[len(r.Streams)-1].Cumulative, 1e-6)
		sum := 0.0
		for _, s := range r.Workload.Streams {
			sum += s.Share
		}
		assert.InDelta(t, 100, sum, 1e-6)
	})
}
