package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encode writes what hdrhistogram-go's Encode writes, byte for byte: the
// journals and results of earlier versions stay what they were, and
// HdrHistogram's tools read them as before.
func TestEncodeIsHdrHistogramsEncode(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type build func(h *hdr.Histogram)
	cases := map[string]build{
		"empty":         func(*hdr.Histogram) {},
		"the lowest":    func(h *hdr.Histogram) { _ = h.RecordValue(histLowest) },
		"the highest":   func(h *hdr.Histogram) { _ = h.RecordValue(histHighest) },
		"both ends":     func(h *hdr.Histogram) { _ = h.RecordValues(histLowest, 7); _ = h.RecordValues(histHighest, 1<<40) },
		"one bin, many": func(h *hdr.Histogram) { _ = h.RecordValues(123_456, 1<<62) },
		"two far apart": func(h *hdr.Histogram) { _ = h.RecordValue(10); _ = h.RecordValue(900_000_000_000) },
		"every low bin": func(h *hdr.Histogram) {
			for v := int64(1); v < 300; v++ {
				_ = h.RecordValue(v)
			}
		},
		"adjacent zeros": func(h *hdr.Histogram) { _ = h.RecordValue(1); _ = h.RecordValue(3); _ = h.RecordValue(5) },
	}
	for i := range 200 {
		n, scale := rng.IntN(5000), rng.Float64()*1e7
		counts := rng.IntN(4) == 0
		cases[fmt.Sprintf("random %d", i)] = func(h *hdr.Histogram) {
			for range n {
				c := int64(1)
				if counts {
					c = rng.Int64N(1 << 50)
				}
				_ = h.RecordValues(min(int64(rng.ExpFloat64()*scale)+1, histHighest), c)
			}
		}
	}
	for name, fill := range cases {
		h := hdr.New(histLowest, histHighest, histDigits)
		fill(h)
		want, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
		require.NoError(t, err, name)
		got, err := encode(h)
		require.NoError(t, err, name)
		if !assert.Equal(t, string(want), string(got), name) {
			continue
		}
		back, err := hdr.Decode(got)
		require.NoError(t, err, name)
		assert.True(t, back.Equals(h), "%s: decodes to the histogram", name)
	}
	// Another geometry: a decoded file's, before it is re-recorded.
	other := hdr.New(1000, 3_600_000_000, 3)
	for range 1000 {
		_ = other.RecordValue(1000 + rng.Int64N(1e9))
	}
	want, err := other.Encode(hdr.V2CompressedEncodingCookieBase)
	require.NoError(t, err)
	got, err := encode(other)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}
