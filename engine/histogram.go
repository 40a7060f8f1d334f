package engine

import (
	"encoding/json"
	"fmt"
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry: nanoseconds from 1 ns to 1000 s with two significant
// digits (values within 1 % of the truth, like fio's 64 bins per octave but
// finer). Every histogram has this geometry, so merges are exact sums of bins.
const (
	histLowest  = 1
	histHighest = 1_000_000_000_000
	histDigits  = 2
)

// Histogram is a mergeable latency histogram in nanoseconds. The zero value is
// not usable; use NewHistogram.
type Histogram struct {
	h *hdr.Histogram
}

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram {
	return &Histogram{h: hdr.New(histLowest, histHighest, histDigits)}
}

// Record adds one latency.
func (h *Histogram) Record(ns int64) { h.RecordN(ns, 1) }

// RecordN adds n latencies of the same value. Values outside the geometry are
// clamped to it; the exact extremes are kept by DirStats.
func (h *Histogram) RecordN(ns, n int64) {
	if n <= 0 {
		return
	}
	ns = min(max(ns, histLowest), histHighest)
	_ = h.h.RecordValues(ns, n) // cannot fail: value clamped to the geometry
}

// Merge adds every bin of o into h.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.h == nil {
		return
	}
	h.h.Merge(o.h)
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Percentile returns the latency (ns) at percentile p (0 < p ≤ 100): the
// highest value equivalent to the bin that holds it.
func (h *Histogram) Percentile(p float64) int64 {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return h.h.ValueAtPercentile(p)
}

// Bin is one non-empty histogram bin: latencies in [LowNs, HighNs] counted Count times.
type Bin struct {
	LowNs, HighNs int64
	Count         int64
}

// Bins lists the non-empty bins in increasing latency order.
func (h *Histogram) Bins() []Bin {
	var out []Bin
	for _, b := range h.h.Distribution() {
		if b.Count > 0 {
			out = append(out, Bin{LowNs: b.From, HighNs: b.To, Count: b.Count})
		}
	}
	return out
}

// Clone returns an independent copy.
func (h *Histogram) Clone() *Histogram { return &Histogram{h: h.h.Clone()} }

// Equal reports whether both histograms hold the same bins.
func (h *Histogram) Equal(o *Histogram) bool { return h.h.Equals(o.h) }

// MarshalJSON writes the standard HdrHistogram V2 compressed, base64 encoding,
// which HdrHistogram tools in other languages read too.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	b, err := h.h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return nil, fmt.Errorf("encoding latency histogram: %w", err)
	}
	return json.Marshal(string(b))
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("latency histogram: %w", err)
	}
	d, err := hdr.Decode([]byte(s))
	if err != nil {
		return fmt.Errorf("latency histogram: %w", err)
	}
	if d.LowestTrackableValue() != histLowest || d.HighestTrackableValue() != histHighest ||
		d.SignificantFigures() != histDigits {
		// A different geometry cannot be merged bin by bin; re-record it.
		n := NewHistogram()
		for _, bar := range d.Distribution() {
			if bar.Count > 0 {
				n.RecordN((bar.From+bar.To)/2, bar.Count)
			}
		}
		*h = *n
		return nil
	}
	h.h = d
	return nil
}

// percentileOrZero guards against NaN percentiles from empty data.
func percentileOrZero(h *Histogram, p float64) int64 {
	if h == nil || math.IsNaN(p) {
		return 0
	}
	return h.Percentile(p)
}
