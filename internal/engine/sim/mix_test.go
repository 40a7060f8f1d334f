package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// A mix of one stream is that stream's workload: the same costs, the same
// FTL placement, the same figures to the last I/O. Mixes of several go
// through the same model, each direction at its own sizes: more
// sequential writes in a mix write less in pieces and collect less, so
// the drive serves it faster.
func TestMixThroughTheModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		plain  engine.Workload
		stream engine.Stream
	}{
		{"random writes", rnd(0, 4096, 2, 8, 0, 0), engine.Stream{Access: engine.Random, Bytes: 4096, Percent: 100}},
		{"random reads", rnd(100, 8192, 1, 4, 0, 0), engine.Stream{Read: true, Access: engine.Random, Bytes: 8192, Percent: 100}},
		{"sequential writes", engine.Workload{Access: engine.Sequential, BlockSize: 128 << 10, TC: 1, QD: 8, ActiveRange: 100},
			engine.Stream{Access: engine.Sequential, Bytes: 128 << 10, Percent: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mix := engine.MixWorkload([]engine.Stream{tc.stream})
			mix.TC, mix.QD, mix.ActiveRange = tc.plain.TC, tc.plain.QD, 100
			var got [2]engine.Measurement
			for i, w := range []engine.Workload{tc.plain, mix} {
				e := open(t, "client", "")
				run(t, e, wipc(Model{}))
				w.Duration, w.Seed = 20*time.Second, 3
				got[i] = run(t, e, w)
			}
			assert.Equal(t, got[0].Read.IOs, got[1].Read.IOs)
			assert.Equal(t, got[0].Write.IOs, got[1].Write.IOs)
			assert.Equal(t, got[0].Write.Bytes+got[0].Read.Bytes, got[1].Write.Bytes+got[1].Read.Bytes)
		})
	}

	// Writes of 4 KiB random and 128 KiB sequential: the more of them
	// sequential, the more the drive does, once steady.
	iops := func(seqShare float64) float64 {
		e := open(t, "client", "")
		run(t, e, wipc(Model{}))
		w := engine.MixWorkload([]engine.Stream{
			{Read: true, Access: engine.Random, Bytes: 4096, Percent: 30},
			{Access: engine.Random, Bytes: 4096, Percent: 70 - seqShare},
			{Access: engine.Sequential, Bytes: 4096, Percent: seqShare},
		})
		w.TC, w.QD, w.ActiveRange, w.Duration, w.Seed = 2, 16, 100, 10*time.Minute, 5
		m := run(t, e, w)
		require.InDelta(t, 0.3, float64(m.Read.IOs)/float64(m.Read.IOs+m.Write.IOs), 0.01)
		return float64(m.Read.IOs+m.Write.IOs) / m.Elapsed.Seconds()
	}
	assert.Greater(t, iops(60), 1.2*iops(5), "sequential writes collect less than random ones")
}
