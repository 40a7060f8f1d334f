package streams

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/golden/goldentest"
)

var update = flag.Bool("update", false, "rewrite the goldens under testdata")

const fixtures = "../capture/testdata/"

func load(t *testing.T, name string, opt capture.Options) *capture.Capture {
	t.Helper()
	f, err := os.Open(fixtures + name)
	require.NoError(t, err)
	defer f.Close()
	c, err := capture.Parse(f, name, opt)
	require.NoError(t, err)
	return c
}

func report(t *testing.T, c *capture.Capture, opt Options) *Report {
	t.Helper()
	r, err := Characterise(c, c.Devices(), "all", opt)
	require.NoError(t, err)
	return r
}

// TestSharesAreCounts: each (direction, size)'s share is its count of
// the iolog's own lines.
func TestSharesAreCounts(t *testing.T) {
	b, err := os.ReadFile(fixtures + "fio-v3.iolog")
	require.NoError(t, err)
	want, n := map[string]float64{}, 0
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 5 && (f[2] == "read" || f[2] == "write") {
			want[f[2]+" "+f[4]]++
			n++
		}
	}
	r := report(t, load(t, "fio-v3.iolog", capture.Options{}), Options{})
	got := map[string]float64{}
	for _, s := range r.Streams {
		got[s.Dir+" "+itoa(s.Size)] += s.Share
	}
	require.Len(t, got, len(want))
	for k, v := range want {
		assert.InDelta(t, 100*v/float64(n), got[k], 0.1, k)
	}
}

func itoa(v int64) string { b, _ := json.Marshal(v); return string(b) }

// TestSameStreams: the blkparse and biosnoop fixtures made from the
// iolog give its streams and shares.
func TestSameStreams(t *testing.T) {
	want := report(t, load(t, "fio-v3.iolog", capture.Options{}), Options{}).Streams
	for _, f := range []struct {
		name string
		opt  capture.Options
	}{
		{"reconstructed.blkparse", capture.Options{}},
		{"reconstructed.blkparse", capture.Options{Event: 'D'}},
		{"reconstructed.biosnoop", capture.Options{}},
		{"reconstructed-q.biosnoop", capture.Options{}},
	} {
		r := report(t, load(t, f.name, f.opt), Options{})
		assert.Equal(t, want, r.Streams, f.name)
		assert.NotNil(t, r.Totals.DemandIntensity, f.name)
	}
}

func TestSequentialRule(t *testing.T) {
	io := func(dev string, dir capture.Dir, off, size int64) capture.IO {
		return capture.IO{Device: dev, Dir: dir, Offset: off, Size: size}
	}
	c := &capture.Capture{Format: capture.Iolog, Timed: false, IOs: []capture.IO{
		io("a", capture.Read, 0, 4096),      // first: random
		io("a", capture.Read, 4096, 4096),   // sequential
		io("a", capture.Write, 8192, 4096),  // another direction: random
		io("a", capture.Read, 8192, 8192),   // another size: random
		io("a", capture.Read, 8192, 4096),   // after the 4 KiB read at 4096: sequential
		io("b", capture.Read, 12288, 4096),  // another device: random
		io("a", capture.Read, 12288, 4096),  // sequential, the b read between does not count
		io("a", capture.Write, 12288, 4096), // sequential after the write
	}}
	r := report(t, c, Options{})
	got := map[string]int{}
	for _, s := range r.Streams {
		got[s.Stream] = s.IOs
	}
	assert.Equal(t, map[string]int{"RND 4KiB read": 2, "SEQ 4KiB read": 3, "RND 4KiB write": 1, "SEQ 4KiB write": 1, "RND 8KiB read": 1}, got)
	assert.Nil(t, r.Totals.IOPS)
	assert.Contains(t, r.Totals.DemandSource, "no times")
}

// TestStepsAndDemand: two steps of a made-up capture, each with I/Os
// outstanding for a known time.
func TestStepsAndDemand(t *testing.T) {
	s := time.Second
	var ios []capture.IO
	// Step 0 (0 to 2 s): 10 random reads of 0.5 s each, the last two
	// outstanding into step 1 for 0.1 and 0.3 s: 4.6 s outstanding.
	// Step 1 (2 s to the last completion, 3.75 s): 4 sequential writes of
	// 1 s each, and those 0.4 s: 4.4 s outstanding.
	for i := range 10 {
		ios = append(ios, capture.IO{Start: time.Duration(i) * s / 5, Device: "d", Offset: int64(i) << 20, Size: 4096, Dir: capture.Read, Completed: true})
		ios[i].Done = ios[i].Start + s/2
	}
	for i := range 4 {
		io := capture.IO{Start: 2*s + time.Duration(i)*s/4, Device: "d", Offset: int64(i) * 8192, Size: 8192, Dir: capture.Write, Completed: true}
		io.Done = io.Start + s
		ios = append(ios, io)
	}
	r := report(t, &capture.Capture{Format: capture.Blkparse, Timed: true, IOs: ios}, Options{Step: 2 * s, Top: 2})
	require.Len(t, r.Steps, 2)
	assert.Equal(t, 10, r.Steps[0].IOs)
	assert.InDelta(t, 5.0, *r.Steps[0].IOPS, 1e-9)
	assert.InDelta(t, 4.6/2, *r.Steps[0].DemandIntensity, 1e-9)
	assert.Equal(t, []float64{100, 0}, r.Steps[0].Shares)
	assert.InDelta(t, 4.4/1.75, *r.Steps[1].DemandIntensity, 1e-9)
	assert.InDelta(t, 9/3.75, *r.Totals.DemandIntensity, 1e-9)
	assert.Equal(t, 3.75, r.Steps[1].End)
	// 10 + 3 of 14 I/Os cover 92.9 %: the first write (random) is left out.
	assert.Equal(t, []string{"RND 4KiB read", "SEQ 8KiB write"}, []string{r.Workload.Streams[0].Stream, r.Workload.Streams[1].Stream})
}

func TestWorkload(t *testing.T) {
	r := report(t, load(t, "fio-v3.iolog", capture.Options{}), Options{})
	w := r.Workload
	assert.GreaterOrEqual(t, w.Covered, WorkloadCover)
	assert.LessOrEqual(t, len(w.Streams), WorkloadStreams)
	sum := 0.0
	for _, s := range w.Streams {
		sum += s.Share
	}
	assert.InDelta(t, 100, sum, 1e-9)
	assert.Less(t, r.Streams[len(w.Streams)-2].Cumulative, WorkloadCover, "one stream fewer would not cover it")
}

// TestGolden holds the text and the JSON of the blkparse fixture's report.
func TestGolden(t *testing.T) {
	r := report(t, load(t, "reconstructed.blkparse", capture.Options{}), Options{Step: 5 * time.Millisecond, Top: 5})
	var b bytes.Buffer
	require.NoError(t, r.Text(&b, "reconstructed.blkparse"))
	goldentest.File(t, "testdata/blkparse.txt", b.Bytes(), *update)
	j, err := json.MarshalIndent(r, "", "  ")
	require.NoError(t, err)
	goldentest.File(t, "testdata/blkparse.json", j, *update)
}

func TestErrors(t *testing.T) {
	_, err := Characterise(&capture.Capture{}, nil, "", Options{})
	assert.ErrorContains(t, err, "no reads or writes")
	_, err = Characterise(&capture.Capture{IOs: []capture.IO{{Size: 1}}}, nil, "", Options{Step: -1})
	assert.ErrorContains(t, err, "positive")
	long := &capture.Capture{Timed: true, IOs: []capture.IO{{Size: 1}, {Start: 24 * time.Hour, Size: 1}}}
	_, err = Characterise(long, nil, "", Options{Step: time.Second})
	assert.ErrorContains(t, err, "86400 s of capture make more than 10000 steps of 1s: choose a longer step")
}

// The dominant demand intensity is the median count of I/Os outstanding
// over the time any was; without completions it is NoDemandOIO.
func TestDominant(t *testing.T) {
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	c := &capture.Capture{IOs: []capture.IO{
		{Start: ms(0), Done: ms(10), Completed: true},  // 1 outstanding 0–2
		{Start: ms(2), Done: ms(10), Completed: true},  // 2 outstanding 2–3
		{Start: ms(3), Done: ms(10), Completed: true},  // 3 outstanding 3–10
		{Start: ms(20), Done: ms(22), Completed: true}, // 1 outstanding 20–22
	}}
	assert.Equal(t, 3, Dominant(c).OIO, "4 ms at 1, 1 at 2, 7 at 3: half of the 12 is reached at 3")
	c.IOs[3].Done = ms(30)
	assert.Equal(t, 1, Dominant(c).OIO, "12 ms at 1 of 20")
	c.IOs[0].Completed = false
	d := Dominant(c)
	assert.Equal(t, NoDemandOIO, d.OIO)
	assert.Contains(t, d.Source, "no completions")
}

func TestReadCapture(t *testing.T) {
	got, err := ReadCapture(filepath.Join("..", "capture", "testdata", "reconstructed.blkparse"), "all", capture.Options{Event: 'Q'})
	require.NoError(t, err)
	sum, err := FileSHA256(filepath.Join("..", "capture", "testdata", "reconstructed.blkparse"))
	require.NoError(t, err)
	assert.Equal(t, sum, got.SHA256)
	assert.NotEmpty(t, got.Report.Workload.Streams)
	assert.Positive(t, got.Demand.OIO)
	assert.Contains(t, got.Demand.Source, "from completions")
	_, err = ReadCapture("no-such.iolog", "all", capture.Options{})
	assert.ErrorContains(t, err, "no-such.iolog")
}

// TestCoarse: a coarse capture's report has the mix and the intensity
// per step, says it is coarse and has no streams; its text and JSON are
// goldens.
func TestCoarse(t *testing.T) {
	r := report(t, load(t, "diskstats.coarse", capture.Options{}), Options{Step: 2 * time.Second})
	require.NotNil(t, r.Coarse)
	assert.Empty(t, r.Streams)
	assert.Equal(t, NoStreams, r.SequentialRule)
	require.Len(t, r.Coarse.Steps, 2)
	s := r.Coarse.Steps[0]
	assert.Equal(t, int64(40000), s.IOs)
	assert.InDelta(t, 20000, s.IOPS, 1e-9)
	assert.InDelta(t, 100*27950/40000.0, *s.ReadPct, 1e-9)
	assert.InDelta(t, 1.775, s.DemandIntensity, 1e-9)
	assert.Equal(t, 4.0, r.Coarse.Steps[1].End, "the last step ends with the capture")
	var b bytes.Buffer
	require.NoError(t, r.Text(&b, "diskstats.coarse"))
	assert.Contains(t, b.String(), "This capture is coarse: ")
	goldentest.File(t, "testdata/coarse.txt", b.Bytes(), *update)
	j, err := json.MarshalIndent(r, "", "  ")
	require.NoError(t, err)
	goldentest.File(t, "testdata/coarse.json", j, *update)
}
