package fio

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
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

// parseHistLog reads a fio histogram log (iolog.c flush_hist_samples:
// "msec, ddir, bs, bin0, bin1, …", fio's tools/hist/fiologparser_hist.py
// reads the same). Each line holds the window's own counts, the
// difference of two snapshots of the thread's histogram; a log returned
// by a fio server holds something else (fixServerHist). Lines must all
// have the same number of bins, a multiple of 64 from 128: a log of
// log_hist_coarseness > 0 (bins added up in twos, fours…) is refused,
// since its bins' values would be others.
func parseHistLog(r io.Reader) ([]histEntry, error) {
	var out []histEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	nbins := 0
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		fs := strings.Split(line, ",")
		if len(fs) < 3+2*platVal || len(fs) > 3+maxHistBins {
			return nil, fmt.Errorf("histogram log line %d: %d fields, not fio's msec, ddir, bs and bins", ln, len(fs))
		}
		var head [3]int64
		for i := range head {
			v, err := strconv.ParseInt(strings.TrimSpace(fs[i]), 10, 64)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("histogram log line %d: field %d %q is not a count", ln, i+1, strings.TrimSpace(fs[i]))
			}
			head[i] = v
		}
		if head[1] > 2 {
			return nil, fmt.Errorf("histogram log line %d: direction %d", ln, head[1])
		}
		n := len(fs) - 3
		if n%platVal != 0 {
			return nil, fmt.Errorf("histogram log line %d: %d bins, not fio's groups of %d (log_hist_coarseness must be 0)", ln, n, platVal)
		}
		if nbins == 0 {
			nbins = n
		} else if n != nbins {
			return nil, fmt.Errorf("histogram log line %d: %d bins after lines of %d", ln, n, nbins)
		}
		e := histEntry{MS: head[0], Dir: int(head[1]), BS: head[2], Bins: make([]int64, n)}
		for i, f := range fs[3:] {
			v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil || v < 0 || v > maxBinCount {
				return nil, fmt.Errorf("histogram log line %d: bin %d %q is not a count", ln, i, strings.TrimSpace(f))
			}
			e.Bins[i] = v
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("histogram log: %w", err)
	}
	return out, nil
}

// fixServerHist turns a histogram log a fio server returned into each
// window's counts. The server subtracts each snapshot's predecessor in
// place before sending it (server.c __fio_append_iolog_gz_hist, fio 3.33
// and still in 3.38), so the predecessor it subtracts from the next one has
// already lost its own: per direction the client logs e1 = C1, e2 = C2 −
// e1, e3 = C3 − e2 …, C being fio's running histogram. Then Ck = ek +
// ek-1, and window k, Ck − Ck-1, is ek − ek-2 (measured on localhost:
// the lines hold about the window's I/Os only at the first two, and
// recovered, each window's I/Os). A count that would come out below zero
// means the log is not what this expects: it is left at zero.
func fixServerHist(es []histEntry) {
	var prev1, prev2 [3][]int64 // per direction, the received e(k-1), e(k-2)
	for i := range es {
		d := es[i].Dir
		orig := append([]int64(nil), es[i].Bins...)
		if p := prev2[d]; p != nil {
			for j := range es[i].Bins {
				if j < len(p) {
					es[i].Bins[j] = max(es[i].Bins[j]-p[j], 0)
				}
			}
		}
		prev2[d], prev1[d] = prev1[d], orig
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
