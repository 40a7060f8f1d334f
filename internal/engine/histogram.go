package engine

import (
	"encoding/json"
	"errors"
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
//
// A histogram read from JSON stays in its compact encoding (a few hundred
// bytes instead of 35 KB of bins) until it is written to: a 25-round journal
// holds thousands of them and most are only ever merged or not read at all.
type Histogram struct {
	h   *hdr.Histogram
	enc []byte // the V2 encoding: of h when both are set (a cache), the only form when h is nil
	// counts is enc's payload, checked, when enc was read (UnmarshalJSON):
	// the bins as they merge, without decompressing enc again.
	counts []byte
}

// each calls f with every non-empty bin of the encoded histogram.
func (h *Histogram) each(f func(idx int, n int64)) error {
	if h.counts != nil {
		return eachBin(h.counts, f)
	}
	return walkEncoded(h.enc, f)
}

func decode(enc []byte) (*hdr.Histogram, error) {
	d, err := hdr.Decode(enc)
	if err != nil {
		return nil, err
	}
	if d.LowestTrackableValue() != histLowest || d.HighestTrackableValue() != histHighest ||
		d.SignificantFigures() != histDigits {
		// A different geometry cannot be merged bin by bin; re-record it.
		n := hdr.New(histLowest, histHighest, histDigits)
		for _, bar := range d.Distribution() {
			if bar.Count > 0 {
				_ = n.RecordValues(min(max((bar.From+bar.To)/2, histLowest), histHighest), bar.Count)
			}
		}
		return n, nil
	}
	return d, nil
}

// bins gives the histogram for writing, decoding it for good; the cached
// encoding no longer holds.
func (h *Histogram) bins() *hdr.Histogram {
	if h.h == nil {
		h.h = h.view()
	}
	h.enc, h.counts = nil, nil
	return h.h
}

// view gives the histogram for reading; an encoded one is decoded for the
// call only.
func (h *Histogram) view() *hdr.Histogram {
	if h.h != nil {
		return h.h
	}
	if h.enc != nil {
		d := hdr.New(histLowest, histHighest, histDigits)
		err := h.each(func(idx int, n int64) { _ = d.RecordValues(binValue(idx), n) })
		if err == nil {
			return d
		}
		if d, err := decode(h.enc); err == nil { // validated when read
			return d
		}
	}
	return hdr.New(histLowest, histHighest, histDigits)
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
	_ = h.bins().RecordValues(ns, n) // cannot fail: value clamped to the geometry
}

// Merge adds every bin of o into h.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || (o.h == nil && o.enc == nil) {
		return
	}
	if o.h == nil { // encoded: its bins are added as they are read, without making the histogram
		d := h.bins()
		if o.each(func(idx int, n int64) { _ = d.RecordValues(binValue(idx), n) }) == nil {
			return
		}
	}
	h.bins().Merge(o.view())
}

// Reset empties h, keeping its bins' memory.
func (h *Histogram) Reset() {
	if h.h == nil {
		h.h = hdr.New(histLowest, histHighest, histDigits)
	} else {
		h.h.Reset()
	}
	h.enc, h.counts = nil, nil
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.view().TotalCount() }

// Percentile returns the latency (ns) at percentile p (0 < p ≤ 100): the
// highest value equivalent to the bin that holds it.
func (h *Histogram) Percentile(p float64) int64 {
	v := h.view()
	if v.TotalCount() == 0 {
		return 0
	}
	return v.ValueAtPercentile(p)
}

// Bin is one non-empty histogram bin: latencies in [LowNs, HighNs] counted Count times.
type Bin struct {
	LowNs, HighNs int64
	Count         int64
}

// Bins lists the non-empty bins in increasing latency order.
func (h *Histogram) Bins() []Bin {
	var out []Bin
	for _, b := range h.view().Distribution() {
		if b.Count > 0 {
			out = append(out, Bin{LowNs: b.From, HighNs: b.To, Count: b.Count})
		}
	}
	return out
}

// Compact drops the bins for the compact encoding, which later reads decode
// again; for histograms kept only to be merged or saved.
func (h *Histogram) Compact() {
	if h == nil || h.h == nil {
		return
	}
	if h.enc == nil { // not saved since it last changed
		b, err := encode(h.h)
		if err != nil {
			return
		}
		h.enc = b
	}
	h.h = nil
}

// Compact drops the histograms' bins; see Histogram.Compact.
func (m *Measurement) Compact() {
	m.Read.Hist.Compact()
	m.Write.Hist.Compact()
	for i := range m.Targets {
		m.Targets[i].Read.Hist.Compact()
		m.Targets[i].Write.Hist.Compact()
	}
}

// Clone returns an independent copy.
func (h *Histogram) Clone() *Histogram {
	if h.enc != nil {
		return &Histogram{enc: h.enc, counts: h.counts}
	}
	return &Histogram{h: h.view().Clone()}
}

// Equal reports whether both histograms hold the same bins.
func (h *Histogram) Equal(o *Histogram) bool { return h.view().Equals(o.view()) }

// MarshalJSON writes the standard HdrHistogram V2 compressed, base64 encoding,
// which HdrHistogram tools in other languages read too.
func (h *Histogram) MarshalJSON() ([]byte, error) {
	if h.enc == nil {
		b, err := encode(h.view())
		if err != nil {
			return nil, fmt.Errorf("encoding latency histogram: %w", err)
		}
		if h.h != nil {
			h.enc = b // kept until the next change, so that Compact need not encode again
		}
		return json.Marshal(string(b))
	}
	return json.Marshal(string(h.enc))
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("latency histogram: %w", err)
	}
	// Checked without making the histogram: of this geometry, it stays
	// compact until written to.
	switch counts, err := readEncoded([]byte(s)); {
	case err == nil:
		h.h, h.enc, h.counts = nil, []byte(s), counts
		return nil
	case !errors.Is(err, errOtherGeometry):
		return fmt.Errorf("latency histogram: %w", err)
	}
	d, err := decode([]byte(s))
	if err != nil {
		return fmt.Errorf("latency histogram: %w", err)
	}
	h.h, h.enc, h.counts = d, nil, nil
	return nil
}

// percentileOrZero guards against NaN percentiles from empty data.
func percentileOrZero(h *Histogram, p float64) int64 {
	if h == nil || math.IsNaN(p) {
		return 0
	}
	return h.Percentile(p)
}
