package native

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ptsrun/ptsrun/internal/engine"
)

func TestPacer(t *testing.T) {
	w := engine.Workload{TC: 4, BlockSize: 4096}
	assert.Nil(t, newPacer(w), "no cap, no pacer")

	// 1000 IOPS over 4 threads: each thread's I/Os are 4 ms apart, the
	// first due at once.
	w.RateIOPS = 1000
	p := newPacer(w)
	for k := range 5 {
		assert.Equal(t, int64(k)*int64(4*time.Millisecond), p.due())
		p.issued(4096)
	}

	// 8.192 MB/s of 4 KiB over 4 threads: 500 I/Os a second per thread,
	// 2 ms apart; with an IOPS cap of 1000 too (4 ms apart) that one binds.
	w = engine.Workload{TC: 4, BlockSize: 4096, RateMBps: 8.192}
	p = newPacer(w)
	p.issued(4096)
	assert.Equal(t, int64(2*time.Millisecond), p.due())
	w.RateIOPS = 1000
	p = newPacer(w)
	p.issued(4096)
	assert.Equal(t, int64(4*time.Millisecond), p.due())
	// Bytes, not I/Os, for the bandwidth cap: a 64 KiB I/O takes 16 times
	// a 4 KiB one's share.
	w = engine.Workload{TC: 1, RateMBps: 4.096}
	p = newPacer(w)
	p.issued(65536)
	assert.Equal(t, int64(16*time.Millisecond), p.due())
}
