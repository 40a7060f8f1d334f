package engine

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The HdrHistogram V2 encoding's cookies (hdrhistogram-go's, which does not
// export the payload's).
const (
	v2Cookie           = hdr.V2EncodingCookieBase | 0x10
	v2CompressedCookie = hdr.V2CompressedEncodingCookieBase | 0x10
)

// zlibWriters are the compressors encode reuses. hdrhistogram-go's Encode
// makes a new one for every histogram, and a zlib compressor at its best
// compression is most of a megabyte to allocate and clear: a tenth of a
// simulated run's time, where a journal record holds a few histograms
// and a target set's series one per drive and interval. Reset makes a
// writer what a new one is, so the bytes are the same.
var zlibWriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.BestCompression)
	return w
}}

// encode is hdrhistogram-go's Encode(V2CompressedEncodingCookieBase), byte
// for byte (TestEncodeIsHdrHistogramsEncode holds it to that): the V2
// payload (a 40-byte header, then the counts up to the highest non-zero
// one as ZigZag LEB128, a run of zeros as its negated length), compressed
// with zlib at its best compression, after a cookie and the compressed
// length, in base64.
func encode(h *hdr.Histogram) ([]byte, error) {
	s := h.Export()
	last := 0
	for i, c := range s.Counts {
		if c != 0 {
			last = i
		}
	}
	counts := make([]byte, 0, 64)
	for i := 0; i <= last; {
		c := s.Counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i <= last && s.Counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				c = -zeros
			}
		}
		counts = zigZag(counts, c)
	}
	ratio := s.IntegerToDoubleConversionRatio
	if ratio == 0 {
		ratio = 1
	}
	payload := make([]byte, 40, 40+len(counts))
	binary.BigEndian.PutUint32(payload[0:], uint32(v2Cookie))
	binary.BigEndian.PutUint32(payload[4:], uint32(int32(len(counts))))
	binary.BigEndian.PutUint32(payload[8:], 0) // the normalizing index offset: hdrhistogram-go keeps its counts unrotated
	binary.BigEndian.PutUint32(payload[12:], uint32(int32(s.SignificantFigures)))
	binary.BigEndian.PutUint64(payload[16:], uint64(s.LowestTrackableValue))
	binary.BigEndian.PutUint64(payload[24:], uint64(s.HighestTrackableValue))
	binary.BigEndian.PutUint64(payload[32:], math.Float64bits(ratio))
	payload = append(payload, counts...)

	var out bytes.Buffer
	out.Write([]byte{0, 0, 0, 0, 0, 0, 0, 0}) // the cookie and the compressed length, below
	w := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(w)
	w.Reset(&out)
	if _, err := w.Write(payload); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	raw := out.Bytes()
	binary.BigEndian.PutUint32(raw[0:], uint32(v2CompressedCookie))
	binary.BigEndian.PutUint32(raw[4:], uint32(int32(len(raw)-8)))
	enc := make([]byte, base64.StdEncoding.EncodedLen(len(raw)))
	base64.StdEncoding.Encode(enc, raw)
	return enc, nil
}

// zigZag appends v as a ZigZag LEB128-64b9B number: seven bits a byte,
// low first, the ninth byte whole.
func zigZag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for range 8 {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f|0x80))
		u >>= 7
	}
	return append(b, byte(u))
}
