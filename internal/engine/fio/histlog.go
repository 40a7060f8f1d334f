package fio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// fio's latency histogram (stat.h FIO_IO_U_PLAT_*): values below 128 ns
// have a bin each; above, every power of two is split into 64 bins, so a
// bin's value is within 1/128 of any latency it counts. fio 3.33 has 29
// groups (1856 bins), fio before 3.x's nanosecond change 19 (1216); the
// mapping of a bin to its value does not depend on the number of groups.
const (
	platBits = 6
	platVal  = 1 << platBits
)

// platIdxToVal is the latency fio gives bin idx (stat.c plat_idx_to_val):
// the bin's own value below 128, else the middle of its range, which is
// what fio prints as the bin's key in json+ and uses for its percentiles.
func platIdxToVal(idx int) int64 {
	if idx < platVal<<1 {
		return int64(idx)
	}
	errBits := uint(idx>>platBits) - 1
	base := int64(1) << (errBits + platBits)
	k := int64(idx % platVal)
	// (k + 0.5) << errBits, as fio computes it in floating point and
	// truncates: errBits ≥ 1, so the half is a whole number.
	return base + k<<errBits + int64(1)<<(errBits-1)
}

// platValToIdx is the bin of latency v (stat.c plat_val_to_idx), the last
// of nr bins for anything beyond.
func platValToIdx(v int64, nr int) int {
	if v < 0 {
		v = 0
	}
	msb := 63
	for msb > 0 && v>>uint(msb) == 0 {
		msb--
	}
	idx := int(v)
	if msb > platBits {
		errBits := uint(msb - platBits)
		base := int(errBits+1) << platBits
		idx = base + int((platVal-1)&(v>>errBits))
	}
	if idx >= nr {
		return nr - 1
	}
	return idx
}

// histEntry is one line of a fio histogram log (write_hist_log): when the
// window was logged (ms since the thread's start), its direction (0 read,
// 1 write, 2 trim), the block size, and the window's count per bin.
type histEntry struct {
	MS   int64
	Dir  int
	BS   int64
	Bins []int64
}

// maxHistBins bounds a line: fio has 1856 bins (29 groups of 64); a few
// more groups leave room, and a bigger line is not fio's.
const maxHistBins = 64 * platVal

// maxBinCount bounds a bin's count so that a window's sum cannot overflow:
// no window holds 2^40 I/Os.
const maxBinCount = 1 << 40

// maxHistLine bounds a line's length: maxHistBins counts of 13 digits
// and their separators fit.
const maxHistLine = 1 << 20

// parseHistLog reads a whole fio histogram log (scanHistLog): its entries
// up to the first line that is not fio's, and that line's error.
func parseHistLog(r io.Reader) ([]histEntry, error) {
	var out []histEntry
	err := scanHistLog(r, func(e histEntry) {
		e.Bins = append([]int64(nil), e.Bins...)
		out = append(out, e)
	})
	return out, err
}

// scanHistLog reads a fio histogram log (iolog.c flush_hist_samples:
// "msec, ddir, bs, bin0, bin1, …\n", fio's tools/hist/fiologparser_hist.py
// reads the same) line by line, handing each line to fn as it is read.
// The entry's Bins are the same slice for every line, so that reading a
// log of any length takes the memory of one line: fn copies what it
// keeps. Each line holds the window's own counts, the difference of two
// snapshots of the thread's histogram; a log returned by a fio server
// holds something else (serverFix).
//
// Lines must all have the same number of bins, a multiple of 64 from 128:
// a log of log_hist_coarseness > 0 (bins added up in twos, fours…) is
// refused, since its bins' values would be others. The first line that is
// not fio's ends the reading, with an error; the lines before it have
// been handed over. fio ends every line with a newline, so a last line
// without one is a log cut short (fio killed, a full disk) and is not
// handed over either: its last count may be cut too.
func scanHistLog(r io.Reader, fn func(histEntry)) error {
	br := bufio.NewReaderSize(r, 16<<10)
	var long []byte // a line longer than br's buffer
	e := histEntry{Bins: make([]int64, 0, 29*platVal)}
	nbins := 0
	for ln := 1; ; ln++ {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull && len(long) <= maxHistLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > maxHistLine {
				return fmt.Errorf("histogram log line %d: longer than %d bytes, not fio's", ln, maxHistLine)
			}
			line = long
		}
		switch {
		case err == io.EOF:
			if len(bytes.TrimSpace(line)) > 0 {
				return fmt.Errorf("histogram log line %d: cut short (no end of line)", ln)
			}
			return nil
		case err != nil:
			return fmt.Errorf("histogram log: %w", err)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		e.Bins = e.Bins[:0]
		nf := 0
		for f := range bytes.SplitSeq(line, []byte{','}) {
			nf++
			if nf > 3+maxHistBins {
				return fmt.Errorf("histogram log line %d: more than %d fields, not fio's msec, ddir, bs and bins", ln, 3+maxHistBins)
			}
			v, ok := parseCount(bytes.TrimSpace(f))
			switch {
			case nf <= 3 && !ok:
				return fmt.Errorf("histogram log line %d: field %d %q is not a count", ln, nf, bytes.TrimSpace(f))
			case nf == 1:
				e.MS = v
			case nf == 2:
				if v > 2 {
					return fmt.Errorf("histogram log line %d: direction %d", ln, v)
				}
				e.Dir = int(v)
			case nf == 3:
				e.BS = v
			case !ok || v > maxBinCount:
				return fmt.Errorf("histogram log line %d: bin %d %q is not a count", ln, nf-4, bytes.TrimSpace(f))
			default:
				e.Bins = append(e.Bins, v)
			}
		}
		n := len(e.Bins)
		if n < 2*platVal {
			return fmt.Errorf("histogram log line %d: %d fields, not fio's msec, ddir, bs and bins", ln, nf)
		}
		if n%platVal != 0 {
			return fmt.Errorf("histogram log line %d: %d bins, not fio's groups of %d (log_hist_coarseness must be 0)", ln, n, platVal)
		}
		if nbins == 0 {
			nbins = n
		} else if n != nbins {
			return fmt.Errorf("histogram log line %d: %d bins after lines of %d", ln, n, nbins)
		}
		fn(e)
	}
}

// parseCount reads a non-negative decimal number, as fio prints counts.
func parseCount(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 { // 18 digits cannot overflow
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// serverFix turns a histogram log a fio server returned into each
// window's counts, line by line. The server subtracts each snapshot's
// predecessor in place before sending it (server.c
// __fio_append_iolog_gz_hist, fio 3.33 and still in 3.38), so the
// predecessor it subtracts from the next one has already lost its own:
// per direction the client logs e1 = C1, e2 = C2 − e1, e3 = C3 − e2 …, C
// being fio's running histogram. Then Ck = ek + ek-1, and window k, Ck −
// Ck-1, is ek − ek-2 (measured on localhost: the lines hold about the
// window's I/Os only at the first two, and recovered, each window's I/Os).
// A count that would come out below zero means the log is not what this
// expects: it is left at zero. It keeps three lines' bins per direction.
type serverFix struct {
	prev1, prev2, spare [3][]int64 // per direction, the received e(k-1), e(k-2), a free buffer
}

// fix turns bins, a line of direction d as received, into its window's
// counts, in place.
func (f *serverFix) fix(d int, bins []int64) {
	orig := append(f.spare[d][:0], bins...)
	if p := f.prev2[d]; p != nil {
		for j := range bins {
			if j < len(p) {
				bins[j] = max(bins[j]-p[j], 0)
			}
		}
	}
	f.spare[d] = f.prev2[d]
	f.prev2[d], f.prev1[d] = f.prev1[d], orig
}

// fixServerHist is serverFix over a whole log's entries.
func fixServerHist(es []histEntry) {
	var f serverFix
	for i := range es {
		f.fix(es[i].Dir, es[i].Bins)
	}
}

// binsCount is the number of latencies in bins.
func binsCount(b []int64) int64 {
	var n int64
	for _, v := range b {
		n += v
	}
	return n
}

// binsPercentile is percentile p of bins as fio computes it (stat.c
// calc_clat_percentiles): the value of the first bin by which at least p %
// of the latencies are counted.
func binsPercentile(b []int64, p float64) int64 {
	n := binsCount(b)
	if n == 0 {
		return 0
	}
	limit := p / 100 * float64(n)
	var sum int64
	for i, v := range b {
		sum += v
		if v > 0 && float64(sum) >= limit {
			return platIdxToVal(i)
		}
	}
	return platIdxToVal(len(b) - 1)
}

// binsMax is the value of the highest non-empty bin: the window's
// maximum to within its bin (1/128 of it), 0 for none. fio logs no exact
// maximum beside the histogram: log_max_value would turn the lat log's
// window means, which the series needs, into maxima too.
func binsMax(b []int64) int64 {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] > 0 {
			return platIdxToVal(i)
		}
	}
	return 0
}
