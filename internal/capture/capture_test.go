package capture

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, in string, opt Options) (*Capture, error) {
	t.Helper()
	return Parse(strings.NewReader(in), "cap.txt", opt)
}

func TestParse(t *testing.T) {
	us := time.Microsecond
	for _, c := range []struct {
		name    string
		in      string
		opt     Options
		want    []IO
		dropped map[string]int
		timed   bool
	}{
		{"iolog v3", "fio version 3 iolog\n1 /f add\n2 /f open\n5 /f read 4096 4096\n9 /f write 0 8192\n10 /f trim 0 4096\n11 /f sync 0 0\n12 /f wait 5 0\n13 /f close\n",
			Options{}, []IO{
				{Start: 5 * us, Device: "/f", Offset: 4096, Size: 4096, Dir: Read, Line: 4},
				{Start: 9 * us, Device: "/f", Offset: 0, Size: 8192, Dir: Write, Line: 5},
			}, map[string]int{"trim": 1, "sync": 1, "wait": 1}, true},
		{"iolog v2 with waits", "fio version 2 iolog\n/a add\n/b add\n/a open\n/a read 0 512\n/a wait 100 0\n/b write 512 512\n/a write 0 0\n",
			Options{}, []IO{
				{Start: 0, Device: "/a", Size: 512, Dir: Read, Line: 5},
				{Start: 100 * us, Device: "/b", Offset: 512, Size: 512, Dir: Write, Line: 7},
			}, map[string]int{"empty": 1}, true},
		{"iolog v2 untimed, CRLF", "fio version 2 iolog\r\n/a read 0 512\r\n", Options{Format: Iolog},
			[]IO{{Device: "/a", Size: 512, Dir: Read, Line: 2}}, nil, false},
		{"blkparse Q with completions and merges", "" +
			"  8,0    3        1     0.000001000   697  Q   W 100 + 8 [kjournald]\n" +
			"  8,0    3        2     0.000002000   697  Q   W 108 + 8 [kjournald]\n" +
			"  8,0    3        3     0.000002000   697  M   W 108 + 8 [kjournald]\n" +
			"  8,0    3        4     0.000003000   697  D   W 100 + 16 [kjournald]\n" +
			"  8,16   0        1     0.000004000  1234  Q  RA 64 + 8 [my app]\n" +
			"  8,0    3        5     0.000004000   697  Q FWS [kjournald]\n" +
			"  8,0    3        6     0.000005000     0  C   W 100 + 16 [0]\n" +
			"  8,0    0        7     0.000006000  1234  Q   D 0 + 64 [fstrim]\n" +
			"  8,0    0        8     0.000006000  1234  P   N [fstrim]\n" +
			"\n" +
			"CPU0 (8,0):\n Reads Queued:  0, 0KiB\n", Options{}, []IO{
			{Start: 1 * us, Done: 5 * us, Completed: true, Device: "8,0", Offset: 51200, Size: 4096, Dir: Write, PID: 697, Process: "kjournald", Line: 1},
			{Start: 2 * us, Done: 5 * us, Completed: true, Device: "8,0", Offset: 55296, Size: 4096, Dir: Write, PID: 697, Process: "kjournald", Line: 2},
			{Start: 4 * us, Device: "8,16", Offset: 32768, Size: 4096, Dir: Read, PID: 1234, Process: "my app", Line: 5},
		}, map[string]int{"flush": 1, "discard": 1}, true},
		{"blkparse D", "" +
			"  8,0    3        1     0.000001000   697  Q   W 100 + 8 [kjournald]\n" +
			"  8,0    3        2     0.000002000   697  Q   W 108 + 8 [kjournald]\n" +
			"  8,0    3        4     0.000003000   697  D   W 100 + 16 [kjournald]\n" +
			"  8,0    3        6     0.000005000     0  C   W 100 + 16 [0]\n", Options{Event: 'D'}, []IO{
			{Start: 3 * us, Done: 5 * us, Completed: true, Device: "8,0", Offset: 51200, Size: 8192, Dir: Write, PID: 697, Process: "kjournald", Line: 3},
		}, nil, true},
		{"biosnoop, completion order", "Tracing block I/O... Hit Ctrl-C to end.\n" +
			"TIME(s)     COMM           PID    DISK    T SECTOR     BYTES   LAT(ms)\n" +
			"0.000004    supervise      1950   xvda1   W 13092560   4096       0.74\n" +
			"0.000178    Chrome Thread  1950   xvda1   R 13092432   4096       1.61\n", Options{}, []IO{
			{Start: -1432 * us, Done: 178 * us, Completed: true, Device: "xvda1", Offset: 13092432 * 512, Size: 4096, Dir: Read, PID: 1950, Process: "Chrome Thread", Line: 4},
			{Start: -736 * us, Done: 4 * us, Completed: true, Device: "xvda1", Offset: 13092560 * 512, Size: 4096, Dir: Write, PID: 1950, Process: "supervise", Line: 3},
		}, nil, true},
		{"biosnoop -Q -P", "TIME(s)     COMM           PID    DISK    T SECTOR     BYTES  P QUE(ms) LAT(ms)\n" +
			"0.000000    kworker/u72:1  13379  nvme1n1 W 1142400    4096   R    0.01    0.55\n" +
			"0.000771    sync           22177  nvme1n1 W 41963894   0      S    0.11    0.47\n", Options{}, []IO{
			{Start: -560 * us, Done: 0, Completed: true, Device: "nvme1n1", Offset: 1142400 * 512, Size: 4096, Dir: Write, PID: 13379, Process: "kworker/u72:1", Line: 2},
		}, map[string]int{"empty": 1}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parse(t, c.in, c.opt)
			require.NoError(t, err)
			assert.Equal(t, c.want, got.IOs)
			assert.Equal(t, c.dropped, got.Dropped)
			assert.Equal(t, c.timed, got.Timed)
		})
	}
}

func TestParseErrors(t *testing.T) {
	const bios = "TIME(s)     COMM           PID    DISK    T SECTOR     BYTES   LAT(ms)\n"
	const blk = "  8,0    3        1     0.000001000   697  Q   W 100 + 8 [kjournald]\n"
	for _, c := range []struct{ name, in, want string }{
		{"unknown format", "hello\n", "cap.txt: cannot tell the capture's format"},
		{"iolog v1", "fio version 1 iolog\n", "cap.txt:1: \"fio version 1 iolog\": only iologs of version 2 and 3"},
		{"iolog action", "fio version 3 iolog\n1 /f add\n2 /f frobnicate 0 1\n", "cap.txt:3: action \"frobnicate\""},
		{"iolog file action", "fio version 3 iolog\n1 /f delete\n", "cap.txt:2: \"delete\": a line of a file and its action wants add, open or close"},
		{"iolog v3 time", "fio version 3 iolog\n1 /f add\nx /f read 0 1\n", "cap.txt:3: time \"x\""},
		{"iolog offset", "fio version 2 iolog\n/f read -1 1\n", "cap.txt:2: offset \"-1\""},
		{"iolog fields", "fio version 2 iolog\n/f read 1\n", "cap.txt:2: 3 fields"},
		{"blkparse garbage", blk + "what is this\n", "cap.txt:2: \"what is this\": not a blkparse event"},
		{"blkparse time", "  8,0 3 1 0.x 697 Q W 100 + 8 [k]\n", "cap.txt:1: time \"0.x\""},
		{"blkparse rwbs", blk + "  8,0 3 1 0.1 697 Q X 100 + 8 [k]\n", "cap.txt:2: RWBS \"X\""},
		{"blkparse range", blk + "  8,0 3 1 0.1 697 Q W 100 8 [k]\n", "cap.txt:2: Q event without SECTOR + BLOCKS"},
		{"blkparse huge", blk + "  8,0 3 1 0.1 697 Q W 99999999999999999 + 8 [k]\n", "cap.txt:2: sector 99999999999999999 + 8: beyond any device"},
		{"biosnoop header", "TIME(s) COMM PID DISK T SECTOR BYTES\n", "cap.txt:1: biosnoop's header has no LAT(ms) column"},
		{"biosnoop short", bios + "0.1 fio 1 sda W 8\n", "cap.txt:2: 6 fields"},
		{"biosnoop T", bios + "0.1 fio 1 sda D 8 4096 0.1\n", "cap.txt:2: T \"D\": want R or W"},
		{"biosnoop lat", bios + "0.1 fio 1 sda W 8 4096 -0.1\n", "cap.txt:2: LAT(ms) \"-0.1\""},
		{"biosnoop bytes", bios + "0.1 fio 1 sda W 8 4k 0.1\n", "cap.txt:2: BYTES \"4k\""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, c.in, Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	_, err := parse(t, "x", Options{Format: "csv"})
	assert.ErrorContains(t, err, `capture format "csv"`)
	_, err = parse(t, "fio version 2 iolog\n", Options{Format: Biosnoop})
	assert.ErrorContains(t, err, "cap.txt: no biosnoop header")
	_, err = parse(t, "", Options{Format: Iolog})
	assert.ErrorContains(t, err, "cap.txt:1: empty")
}

func TestSelect(t *testing.T) {
	c := readFixture(t, iologFixture)
	devs := c.Devices()
	require.Len(t, devs, 2)
	assert.Equal(t, len(c.IOs), devs[0].IOs+devs[1].IOs)
	one, err := c.Select(devs[1].Device)
	require.NoError(t, err)
	assert.Len(t, one.IOs, devs[1].IOs)
	all, err := c.Select("all")
	require.NoError(t, err)
	assert.Same(t, c, all)
	_, err = c.Select("sdz")
	assert.ErrorContains(t, err, `no I/O on device "sdz": it has /dev/loop0, /dev/loop1`)
}

// TestFixturesAgree: the blkparse and biosnoop fixtures hold the iolog's
// I/Os, each at its time from the first, on the same device, with the
// latency the conversion gave it.
func TestFixturesAgree(t *testing.T) {
	src := readFixture(t, iologFixture)
	lat := latencies(src)
	type key struct {
		at        time.Duration
		dir       Dir
		off, size int64
		lat       time.Duration
	}
	keys := func(c *Capture, withLat bool, shift time.Duration) []key {
		var out []key
		for i, io := range c.IOs {
			k := key{io.Start - c.IOs[0].Start, io.Dir, io.Offset, io.Size, 0}
			switch {
			case withLat && c.Format == Iolog:
				k.lat = lat[i]
			case withLat:
				l, ok := io.Latency()
				require.True(t, ok)
				k.lat = l - shift
			}
			out = append(out, k)
		}
		return out
	}
	want := keys(src, true, 0)
	for _, f := range []struct {
		path  string
		opt   Options
		shift time.Duration
	}{
		{"testdata/reconstructed.blkparse", Options{}, 0},
		{"testdata/reconstructed.blkparse", Options{Event: 'D'}, -time.Microsecond},
		{"testdata/reconstructed.biosnoop", Options{}, 0},
	} {
		t.Run(f.path+string(f.opt.Event), func(t *testing.T) {
			c := parseFile(t, f.path, f.opt)
			assert.Equal(t, want, keys(c, true, f.shift))
			assert.Equal(t, len(src.Devices()), len(c.Devices()))
		})
	}
	// -Q's queue time is part of the latency: the starts still agree.
	c := parseFile(t, "testdata/reconstructed-q.biosnoop", Options{})
	assert.Equal(t, keys(src, false, 0), keys(c, false, 0))
	b := parseFile(t, "testdata/reconstructed.blkparse", Options{})
	assert.Equal(t, map[string]int{"flush": 1, "discard": 1}, b.Dropped)
}

func parseFile(t *testing.T, path string, opt Options) *Capture {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	c, err := Parse(f, path, opt)
	require.NoError(t, err)
	return c
}
