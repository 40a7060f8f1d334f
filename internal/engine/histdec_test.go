package engine

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// binValue files back into the bin it is of, for every bin of the
// geometry: walkEncoded's indexes are hdrhistogram-go's.
func TestBinValue(t *testing.T) {
	for idx := range histCounts {
		h := hdr.New(histLowest, histHighest, histDigits)
		require.NoError(t, h.RecordValues(binValue(idx), 3), "bin %d", idx)
		c := h.Export().Counts
		require.Equal(t, int64(3), c[idx], "bin %d: value %d", idx, binValue(idx))
	}
}

// walkHistograms are encodings of histograms of every shape the engines
// make, for the walk's tests.
func walkHistograms(t *testing.T) map[string][]byte {
	rng := rand.New(rand.NewPCG(5, 6))
	out := map[string][]byte{}
	add := func(name string, fill func(h *hdr.Histogram)) {
		h := hdr.New(histLowest, histHighest, histDigits)
		fill(h)
		b, err := encode(h)
		require.NoError(t, err)
		out[name] = b
	}
	add("empty", func(*hdr.Histogram) {})
	add("both ends", func(h *hdr.Histogram) { _ = h.RecordValues(histLowest, 7); _ = h.RecordValues(histHighest, 1<<40) })
	add("one bin, many", func(h *hdr.Histogram) { _ = h.RecordValues(123_456, 1<<62) })
	for i := range 50 {
		n, scale := rng.IntN(5000), rng.Float64()*1e7
		add(fmt.Sprintf("random %d", i), func(h *hdr.Histogram) {
			for range n {
				_ = h.RecordValues(min(int64(rng.ExpFloat64()*scale)+1, histHighest), 1+rng.Int64N(1000))
			}
		})
	}
	return out
}

// Walking an encoding gives hdrhistogram-go's bins, and a view or a merge
// from it the histogram Decode makes.
func TestWalkEncoded(t *testing.T) {
	for name, enc := range walkHistograms(t) {
		want, err := hdr.Decode(enc)
		require.NoError(t, err, name)
		got := make([]int64, histCounts)
		require.NoError(t, walkEncoded(enc, func(idx int, n int64) { got[idx] += n }), name)
		assert.Equal(t, want.Export().Counts, got, name)

		c := &Histogram{enc: enc}
		assert.True(t, c.view().Equals(want), "%s: view", name)
		sum := NewHistogram()
		sum.Merge(c)
		sum.Merge(c)
		twice := hdr.New(histLowest, histHighest, histDigits)
		twice.Merge(want)
		twice.Merge(want)
		assert.True(t, sum.h.Equals(twice), "%s: merged twice", name)
		assert.Nil(t, c.h, "%s: merged from, it stays encoded", name)
	}
}

// What the walk refuses, hdrhistogram-go's Decode refuses; another
// geometry is told apart, for decode to re-record.
func TestWalkEncodedRefuses(t *testing.T) {
	good, err := encode(hdr.New(histLowest, histHighest, histDigits))
	require.NoError(t, err)
	raw, err := base64.StdEncoding.DecodeString(string(good))
	require.NoError(t, err)
	b64 := func(b []byte) []byte { return []byte(base64.StdEncoding.EncodeToString(b)) }
	cases := map[string][]byte{
		"not base64":     []byte("not a histogram"),
		"short":          b64(raw[:5]),
		"bad cookie":     b64(append([]byte{1, 2, 3, 4}, raw[4:]...)),
		"cut compressed": b64(raw[:len(raw)-3]),
		"bad checksum":   b64(append(append([]byte(nil), raw[:len(raw)-1]...), raw[len(raw)-1]^0xff)),
	}
	for name, enc := range cases {
		_, herr := hdr.Decode(enc)
		require.Error(t, herr, "%s: hdrhistogram-go refuses it", name)
		assert.Error(t, walkEncoded(enc, nil), name)
		var h Histogram
		assert.Error(t, json.Unmarshal([]byte(`"`+string(enc)+`"`), &h), name)
	}
	other := hdr.New(1000, 3_600_000_000, 3)
	_ = other.RecordValue(5000)
	enc, err := encode(other)
	require.NoError(t, err)
	assert.ErrorIs(t, walkEncoded(enc, nil), errOtherGeometry)
	var h Histogram
	require.NoError(t, json.Unmarshal([]byte(`"`+string(enc)+`"`), &h))
	assert.Equal(t, int64(1), h.Count(), "re-recorded in this geometry")
}

// The walk accepts exactly the encodings of this geometry that
// hdrhistogram-go's Decode accepts, with the same bins.
func FuzzWalkEncoded(f *testing.F) {
	for _, enc := range walkHistograms(&testing.T{}) {
		f.Add(enc)
	}
	f.Add([]byte("HISTFAAAABx4nJNpmSzMwMDAxAABzFCaEUoz2X+AMIEAQ4oDAQ=="))
	f.Fuzz(func(t *testing.T, enc []byte) {
		var n int64
		err := walkEncoded(enc, func(_ int, c int64) { n += c })
		d, herr := hdr.Decode(enc)
		if err == errOtherGeometry { // decode's to read, or refuse
			if herr == nil {
				assert.False(t, d.LowestTrackableValue() == histLowest && d.HighestTrackableValue() == histHighest &&
					d.SignificantFigures() == histDigits)
			}
			return
		}
		if herr == nil && d.LowestTrackableValue() == histLowest && d.HighestTrackableValue() == histHighest &&
			d.SignificantFigures() == histDigits {
			require.NoError(t, err)
			assert.Equal(t, d.TotalCount(), n)
			return
		}
		if herr != nil {
			require.Error(t, err, "hdrhistogram-go refuses it: %v", herr)
		}
	})
}
