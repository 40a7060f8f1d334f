package fio

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The logs under testdata/histlog are of one fio 3.33 thread (j.fio:
// randrw 70/30 capped at 3000 and 1500 IOPS, 2 s, log_hist_msec=400), run
// on this host (local) and through a fio server on localhost (server):
// fio's own output and iops log beside them check what the histogram log
// is read as.

func readHistFile(t *testing.T, path string) []histEntry {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	es, err := parseHistLog(f)
	require.NoError(t, err)
	return es
}

func readOutput(t *testing.T, path string) *Output {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	out, err := Parse(f)
	require.NoError(t, err)
	require.Len(t, out.Jobs, 1)
	return out
}

// fio's bins are worth what plat_idx_to_val says: below 128 the value
// itself, above the middle of a range of 1/64 of the power of two.
func TestPlatIdxToVal(t *testing.T) {
	assert.Equal(t, int64(0), platIdxToVal(0))
	assert.Equal(t, int64(127), platIdxToVal(127))
	assert.Equal(t, int64(129), platIdxToVal(128), "128 and 129 share a bin, fio's value 128 + 0.5 × 2")
	assert.Equal(t, int64(255), platIdxToVal(191))
	assert.Equal(t, int64(258), platIdxToVal(192), "256…259: 256 + 0.5 × 4")
	for idx := 0; idx < 29*platVal; idx++ {
		v := platIdxToVal(idx)
		require.Equal(t, idx, platValToIdx(v, 29*platVal), "bin %d's value %d", idx, v)
		if idx > 0 {
			require.Greater(t, v, platIdxToVal(idx-1))
		}
	}
	assert.Equal(t, 29*platVal-1, platValToIdx(math.MaxInt64, 29*platVal), "beyond the last bin is in it")
	assert.Equal(t, 0, platValToIdx(-5, 29*platVal))
}

// A local histogram log holds each window's own counts: about the iops
// log's I/Os of the window, every json+ bin of fio's output (the running
// histogram at the end) at least the windows' sum of it, and fio's
// printed percentiles are those of its bins as binsPercentile takes them.
func TestHistLogLocal(t *testing.T) {
	dir := "testdata/histlog/local"
	es := readHistFile(t, filepath.Join(dir, "h0t_clat_hist.1.log"))
	require.Len(t, es, 8, "four windows of 400 ms in each direction: fio logs none for the last")
	iops, err := readLog(filepath.Join(dir, "h0t_iops.1.log"))
	require.NoError(t, err)
	out := readOutput(t, filepath.Join(dir, "out.json"))
	var sums [2][]int64
	for _, e := range es {
		require.Len(t, e.Bins, 1856, "fio 3.33: 29 groups of 64")
		assert.Equal(t, int64(4096), e.BS)
		sums[e.Dir] = addBins(sums[e.Dir], e.Bins)
		var want float64
		for _, l := range iops {
			if l.dir == e.Dir && intervalOf(l.ms, 400) == intervalOf(e.MS, 400) {
				want = l.val * 0.4
			}
		}
		assert.InDelta(t, want, float64(binsCount(e.Bins)), want*0.02, "window at %d ms, direction %d", e.MS, e.Dir)
	}
	for d, jd := range []Dir{out.Jobs[0].Read, out.Jobs[0].Write} {
		final, maxNs := finalBins(jd, "clat", 1856)
		assert.Equal(t, jd.Clat.N, binsCount(final))
		for k := range final {
			require.GreaterOrEqual(t, final[k], sums[d][k], "direction %d bin %d: the windows are not cumulative", d, k)
		}
		assert.Less(t, binsCount(sums[d]), jd.Clat.N, "the last window is not logged")
		assert.InDelta(t, float64(maxNs), float64(binsMax(final)), float64(maxNs)/64, "the highest bin holds the maximum")
		for _, p := range []float64{50, 99, 99.9} {
			assert.Equal(t, int64(jd.Clat.Percentiles[p]), binsPercentile(final, p), "direction %d p%v as fio printed it", d, p)
		}
	}
}

// Through a fio server the log holds, per direction, each snapshot less
// the line the client logged before it (fixServerHist); undone, each
// window again holds about the iops log's I/Os, and all of them no more
// than fio's output.
func TestHistLogServer(t *testing.T) {
	dir := "testdata/histlog/server"
	es := readHistFile(t, filepath.Join(dir, "h0t_clat_hist.1.log.127.0.0.1"))
	require.Len(t, es, 8)
	assert.InDelta(t, 2*1200, float64(binsCount(es[4].Bins)), 30, "as received, the third read window holds the first's I/Os too")
	fixServerHist(es)
	iops, err := readLog(filepath.Join(dir, "h0t_iops.1.log.127.0.0.1"))
	require.NoError(t, err)
	var sums [2][]int64
	for _, e := range es {
		sums[e.Dir] = addBins(sums[e.Dir], e.Bins)
		var want float64
		for _, l := range iops {
			if l.dir == e.Dir && intervalOf(l.ms, 400) == intervalOf(e.MS, 400) {
				want = l.val * 0.4
			}
		}
		assert.InDelta(t, want, float64(binsCount(e.Bins)), want*0.02, "window at %d ms, direction %d", e.MS, e.Dir)
	}
	out := readOutput(t, filepath.Join(dir, "out.json"))
	for d, jd := range []Dir{out.Jobs[0].Read, out.Jobs[0].Write} {
		final, _ := finalBins(jd, "clat", 1856)
		for k := range final {
			require.GreaterOrEqual(t, final[k], sums[d][k], "direction %d bin %d", d, k)
		}
	}
}

func TestParseHistLogRefuses(t *testing.T) {
	bins := func(n int) string { return strings.TrimSuffix(strings.Repeat("0, ", n), ", ") }
	for name, text := range map[string]string{
		"few fields":    "100, 0, 4096, 1, 2\n",
		"coarse":        "100, 0, 4096, " + bins(928) + "\n",
		"direction":     "100, 3, 4096, " + bins(1856) + "\n",
		"negative":      "100, 0, 4096, -1, " + bins(1855) + "\n",
		"not a number":  "100, 0, 4096, x, " + bins(1855) + "\n",
		"changing bins": "100, 0, 4096, " + bins(1856) + "\n200, 0, 4096, " + bins(1216) + "\n",
	} {
		_, err := parseHistLog(strings.NewReader(text))
		assert.Error(t, err, name)
	}
	es, err := parseHistLog(strings.NewReader("\n100, 1, 4096, 3, " + bins(1215) + "\n"))
	require.NoError(t, err, "fio before 3.x's nanoseconds: 19 groups")
	require.Len(t, es, 1)
	assert.Equal(t, histEntry{MS: 100, Dir: 1, BS: 4096, Bins: append([]int64{3}, make([]int64, 1215)...)}, es[0])

	// The lines before a bad one are kept; a last line without its
	// newline is a log cut short, even when it reads.
	good := "100, 0, 4096, 3, " + bins(1855) + "\n"
	for name, bad := range map[string]string{
		"a line cut short": "200, 0, 4096, 3, " + bins(1000),
		"no end of line":   "200, 0, 4096, 3, " + bins(1855),
		"garbage":          "x\n300, 0, 4096, 3, " + bins(1855) + "\n",
	} {
		es, err = parseHistLog(strings.NewReader(good + bad))
		assert.Error(t, err, name)
		assert.Len(t, es, 1, name)
	}
	es, err = parseHistLog(strings.NewReader(good + good + "\n"))
	assert.NoError(t, err)
	assert.Len(t, es, 2)
	assert.Equal(t, int64(0), binsMax(nil))
	assert.Equal(t, int64(0), binsPercentile(nil, 99))
}

// histLogSeeds are the fuzz seeds of histogram logs: fio's own, from a
// local run and through a server, and small ones.
func histLogSeeds(t testing.TB) []string {
	var seeds []string
	for _, p := range []string{"testdata/histlog/local/h0t_clat_hist.1.log", "testdata/histlog/server/h0t_clat_hist.1.log.127.0.0.1"} {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		seeds = append(seeds, string(b))
	}
	zeros := strings.Repeat(", 0", 127)
	return append(seeds, "1, 0, 4096, 5"+zeros+"\n2, 0, 4096, 7"+zeros+"\n3, 0, 4096, 1"+zeros+"\n", "1, 1, 0"+zeros+", 9\n", "")
}

// readAnyHistLog reads text as a histogram log and checks what it keeps:
// no panic, entries of fio's shape, and the server fix, the percentiles
// and the maximum within the bins.
func readAnyHistLog(t testing.TB, text string) {
	es, _ := parseHistLog(strings.NewReader(text)) // what it keeps before a bad line too
	n := -1
	for _, e := range es {
		if n < 0 {
			n = len(e.Bins)
		}
		if len(e.Bins) != n || n%platVal != 0 || n < 2*platVal || e.Dir < 0 || e.Dir > 2 {
			t.Fatalf("kept an entry not of fio's shape: %d bins, direction %d", len(e.Bins), e.Dir)
		}
	}
	fixServerHist(es)
	for _, e := range es {
		mx := binsMax(e.Bins)
		p99, p999 := binsPercentile(e.Bins, 99), binsPercentile(e.Bins, 99.9)
		if p99 > p999 || p999 > mx {
			t.Fatalf("p99 %d, p99.9 %d, max %d", p99, p999, mx)
		}
		for _, v := range e.Bins {
			if v < 0 {
				t.Fatal("a negative count")
			}
		}
	}
}

// FuzzParseHistLog: whatever a histogram log holds (it is another
// program's output, and through a server another host's), readAnyHistLog
// holds.
func FuzzParseHistLog(f *testing.F) {
	for _, s := range histLogSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { readAnyHistLog(t, text) })
}

// TestHistLogMutations reads 20 000 mutations of the fuzz seeds (bytes
// changed, cut out, cut short, huge numbers put in) as FuzzParseHistLog
// does, without the fuzzing engine, whose workers stall on this package's
// targets here: a reading must end with what it kept or an error, never a
// panic or a hang (go test's timeout).
func TestHistLogMutations(t *testing.T) {
	t.Parallel() // fio processes on targets of its own: beside the others
	seeds := histLogSeeds(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		s := []byte(seeds[rng.IntN(len(seeds))])
		for k := 0; k < 1+rng.IntN(4) && len(s) > 0; k++ {
			p := rng.IntN(len(s))
			switch rng.IntN(4) {
			case 0:
				s[p] = byte(rng.IntN(256))
			case 1:
				s = append(s[:p], s[min(len(s), p+1+rng.IntN(20)):]...)
			case 2:
				s = append(s[:p], append([]byte("999999999999999999"), s[p:]...)...)
			case 3:
				s = s[:p]
			}
		}
		readAnyHistLog(t, string(s))
	}
}
