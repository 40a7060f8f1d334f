package enginetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// mixStreams is the stream mix the suite runs: random and sequential
// streams of both directions, each (direction, size) its own, so that the
// trace tells them apart.
var mixStreams = []engine.Stream{
	{Read: true, Access: engine.Random, Bytes: 4096, Percent: 45},
	{Read: true, Access: engine.Sequential, Bytes: 64 << 10, Percent: 15},
	{Read: false, Access: engine.Random, Bytes: 8192, Percent: 25},
	{Read: false, Access: engine.Sequential, Bytes: 128 << 10, Percent: 15},
}

// streamMix checks a stream mix (engine.Workload.Streams): each I/O's
// stream is drawn by share (every stream's count within binomial bounds,
// from the trace; the reads' share and bytes per read and per write from
// the measurement), random streams lie in the active range aligned to
// their size, and each sequential stream of each thread continues where
// its own previous I/O ended, in its own region, whatever the other
// streams did in between. An engine that cannot run a mix exactly
// (Caps.NoStreamMix) refuses it with an ErrBadWorkload that says so.
func streamMix(t *testing.T, open Opener, caps Caps) {
	w := engine.MixWorkload(mixStreams)
	w.TC, w.QD, w.ActiveRange = 2, 4, 100
	if caps.NoStreamMix {
		e, _ := open(t, 1)
		w.Duration = 1e9
		_, err := engine.RunCell(context.Background(), e, engine.Cell{Workload: w})
		require.ErrorIs(t, err, engine.ErrBadWorkload)
		assert.Contains(t, err.Error(), "stream mix")
		return
	}
	generationOnly(t, caps)
	e, ts := open(t, 1)
	w = ofIOs(w, 4*minTrace, ts[0].Capacity)
	m := run(t, e, w)
	require.GreaterOrEqual(t, len(m.Trace), minTrace, "%s: too few traced I/Os for the statistics", w)

	ar := w.RangeBytes(ts[0].Capacity)
	of := map[[2]int64]int{} // (read, size) → stream
	for i, s := range mixStreams {
		of[key(s.Read, s.Bytes)] = i
	}
	count := make([]int, len(mixStreams))
	last := map[[2]int]int64{} // (thread, stream) → where its previous I/O ended
	for _, io := range m.Trace {
		k, ok := of[key(io.Read, io.Size)]
		require.True(t, ok, "%s: an I/O of %d bytes (read %v) of no stream", w, io.Size, io.Read)
		count[k]++
		require.GreaterOrEqual(t, io.Offset, int64(0))
		require.LessOrEqual(t, io.Offset+io.Size, ar, "%s: I/O at %d outside the active range", w, io.Offset)
		s := mixStreams[k]
		if s.Access == engine.Random {
			require.Zero(t, io.Offset%s.Bytes, "%s: a random %s at %d, not aligned to its size", w, s.Label(), io.Offset)
			continue
		}
		lo, hi := w.MixRegion(ts[0].Capacity, k, io.Thread, w.TC)
		require.True(t, io.Offset >= lo && io.Offset+io.Size <= hi, "%s: %s of thread %d at %d, outside its region [%d, %d)",
			w, s.Label(), io.Thread, io.Offset, lo, hi)
		want := lo
		if end, seen := last[[2]int{io.Thread, k}]; seen && end+s.Bytes <= hi {
			want = end
		}
		require.Equal(t, want, io.Offset, "%s: %s of thread %d does not continue its own previous I/O", w, s.Label(), io.Thread)
		last[[2]int{io.Thread, k}] = io.Offset + io.Size
	}
	for i, s := range mixStreams {
		binomialOK(t, count[i], len(m.Trace), s.Percent/100, "%s: I/Os of %s", w, s.Label())
	}
	n := m.Read.IOs + m.Write.IOs
	binomialOK(t, int(m.Read.IOs), int(n), w.ReadShare(), "%s: reads", w)
	// Bytes per read and per write: two sizes each, so the count of the
	// larger follows from the bytes.
	for _, d := range []struct {
		ios, bytes int64
		small, big engine.Stream
	}{{m.Read.IOs, m.Read.Bytes, mixStreams[0], mixStreams[1]}, {m.Write.IOs, m.Write.Bytes, mixStreams[2], mixStreams[3]}} {
		require.Positive(t, d.ios)
		big := (d.bytes - d.ios*d.small.Bytes) / (d.big.Bytes - d.small.Bytes)
		binomialOK(t, int(big), int(d.ios), d.big.Percent/(d.small.Percent+d.big.Percent), "%s: %s among its direction's I/Os", w, d.big.Label())
	}
}

func key(read bool, size int64) [2]int64 {
	if read {
		return [2]int64{1, size}
	}
	return [2]int64{0, size}
}
