package engine

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The flat index of a bin in this package's geometry (histLowest 1,
// histDigits 2: 256 sub-buckets, the upper half of each bucket after the
// first), as hdrhistogram-go numbers its counts; TestBinValue holds it to
// hdrhistogram-go's for every bin.
const (
	subHalfMagnitude = 7
	subHalf          = 1 << subHalfMagnitude
)

// histCounts is the number of bins of the geometry.
var histCounts = len(hdr.New(histLowest, histHighest, histDigits).Export().Counts)

// binValue is the lowest latency of bin idx, which RecordValues files
// back into bin idx.
func binValue(idx int) int64 {
	bucket := idx>>subHalfMagnitude - 1
	sub := idx&(subHalf-1) + subHalf
	if bucket < 0 {
		sub -= subHalf
		bucket = 0
	}
	return int64(sub) << uint(bucket)
}

// walkState is what reading an encoding reuses: the decompressor
// (hdrhistogram-go's Decode makes a new one per histogram, most of its
// cost), the decoded bytes and the payload.
type walkState struct {
	z       io.ReadCloser
	src     bytes.Reader
	raw     []byte
	payload bytes.Buffer
}

var walkStates = sync.Pool{New: func() any { return new(walkState) }}

// errOtherGeometry marks an encoding of another geometry, which decode
// re-records bin by bin.
var errOtherGeometry = errors.New("another histogram geometry")

// walkEncoded reads enc, a V2 compressed encoding (encode's, or any
// HdrHistogram's), and calls f with every non-empty bin's index and
// count, without making the histogram. It refuses what hdrhistogram-go's
// Decode refuses, with its checks, and does not call f before the whole
// encoding is checked. An encoding of another geometry is
// errOtherGeometry. f may be nil, to check only.
func walkEncoded(enc []byte, f func(idx int, count int64)) error {
	w := walkStates.Get().(*walkState)
	defer walkStates.Put(w)
	p, err := w.inflate(enc)
	if err != nil {
		return err
	}
	if f != nil {
		_ = eachBin(p, f) // checked by inflate
	}
	return nil
}

// readEncoded checks enc as walkEncoded does and returns its payload, the
// bins' counts uncompressed: for reading a journal's thousands of
// histograms, which are checked when read and merged later, each from its
// payload (eachBin) without decompressing it again.
func readEncoded(enc []byte) ([]byte, error) {
	w := walkStates.Get().(*walkState)
	defer walkStates.Put(w)
	p, err := w.inflate(enc)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(p), nil
}

// inflate checks enc and gives its payload, in w's memory.
func (w *walkState) inflate(enc []byte) ([]byte, error) {
	if n := base64.StdEncoding.DecodedLen(len(enc)); cap(w.raw) < n {
		w.raw = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(w.raw[:cap(w.raw)], enc)
	if err != nil {
		return nil, err
	}
	raw := w.raw[:n]
	if len(raw) < 8 {
		return nil, fmt.Errorf("encoded histogram too short: got %d bytes, need at least 8", len(raw))
	}
	if c := int32(binary.BigEndian.Uint32(raw)) &^ 0xf0; c != hdr.V2CompressedEncodingCookieBase {
		return nil, fmt.Errorf("encoding not supported, only V2 is supported. got %d want %d", c, hdr.V2CompressedEncodingCookieBase)
	}
	clen := int32(binary.BigEndian.Uint32(raw[4:]))
	if clen < 0 || int(clen) > len(raw)-8 {
		return nil, fmt.Errorf("bad length of the compressed contents: %d of %d bytes", clen, len(raw)-8)
	}
	w.src.Reset(raw[8 : 8+clen])
	if w.z == nil {
		if w.z, err = zlib.NewReader(&w.src); err != nil {
			w.z = nil
			return nil, err
		}
	} else if err := w.z.(zlib.Resetter).Reset(&w.src, nil); err != nil {
		return nil, err
	}
	var head [40]byte
	if _, err := io.ReadFull(w.z, head[:]); err != nil {
		return nil, fmt.Errorf("decompressed histogram truncated: %w", err)
	}
	if c := int32(binary.BigEndian.Uint32(head[0:])) &^ 0xf0; c != hdr.V2EncodingCookieBase {
		return nil, fmt.Errorf("encoding not supported, only V2 is supported. got %d want %d", c, hdr.V2EncodingCookieBase)
	}
	plen := int32(binary.BigEndian.Uint32(head[4:]))
	digits := int32(binary.BigEndian.Uint32(head[12:]))
	lowest, highest := int64(binary.BigEndian.Uint64(head[16:])), int64(binary.BigEndian.Uint64(head[24:]))
	if digits != histDigits || lowest != histLowest || highest != histHighest {
		return nil, errOtherGeometry
	}
	if plen < 0 || int64(plen) > int64(histCounts)*9 {
		return nil, fmt.Errorf("bad payload length %d for %d bins", plen, histCounts)
	}
	// One byte past the payload: trailing data shows, and reaching the end
	// checks zlib's checksum.
	w.payload.Reset()
	if _, err := w.payload.ReadFrom(io.LimitReader(w.z, int64(plen)+1)); err != nil {
		return nil, err
	}
	p := w.payload.Bytes()
	if len(p) != int(plen) {
		return nil, fmt.Errorf("PayloadLength should have the same size of the actual payload. got %d want %d", len(p), plen)
	}
	if err := eachBin(p, nil); err != nil {
		return nil, err
	}
	return p, nil
}

// eachBin reads a payload's counts (ZigZag LEB128, a run of zeros as its
// negated length), calling f for each non-empty bin when f is not nil.
func eachBin(p []byte, f func(idx int, count int64)) error {
	idx, total := int64(0), int64(0)
	for len(p) > 0 {
		v, n, err := unZigZag(p)
		if err != nil {
			return err
		}
		p = p[n:]
		if v < 0 {
			zeros := -v
			if zeros <= 0 || zeros > int64(histCounts)-idx {
				return fmt.Errorf("corrupt histogram payload: zero-run of %d at index %d overflows %d bins", zeros, idx, histCounts)
			}
			idx += zeros
			continue
		}
		if idx >= int64(histCounts) {
			return fmt.Errorf("corrupt histogram payload: index %d overflows %d bins", idx, histCounts)
		}
		if v > math.MaxInt64-total {
			return fmt.Errorf("corrupt histogram payload: bin counts sum past MaxInt64 at index %d", idx)
		}
		total += v
		if v > 0 && f != nil {
			f(int(idx), v)
		}
		idx++
	}
	return nil
}

// unZigZag reads what zigZag writes: seven bits a byte, low first, at
// most nine bytes, the ninth whole.
func unZigZag(b []byte) (int64, int, error) {
	var u uint64
	for i := range 9 {
		if i >= len(b) {
			return 0, 0, fmt.Errorf("truncated LEB128 number: %d bytes", len(b))
		}
		if i == 8 {
			u |= uint64(b[i]) << 56
			return int64(u>>1) ^ -int64(u&1), 9, nil
		}
		u |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return int64(u>>1) ^ -int64(u&1), i + 1, nil
		}
	}
	panic("unreachable")
}
