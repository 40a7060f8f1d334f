package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blkIOTrace encodes one event as blktrace writes it (struct blk_io_trace,
// linux/blktrace_api.h): the events of the blkparse fixture, made binary.
func blkIOTrace(t *testing.T, seq uint32, ns uint64, sector uint64, size uint32, action, rwbs string, pid, major, minor, cpu uint32) []byte {
	const shift = 16
	acts := map[string]uint32{"Q": 1 | 1<<4<<shift, "M": 2 | 1<<4<<shift, "G": 4 | 1<<4<<shift, "I": 12 | 1<<4<<shift,
		"D": 7 | 1<<6<<shift, "C": 8 | 1<<7<<shift}
	a, ok := acts[action]
	require.True(t, ok, action)
	a |= 1 << 8 << shift // a file system request
	for _, c := range rwbs {
		switch c {
		case 'R':
			a |= 1 << shift
		case 'W':
			a |= 2 << shift
		case 'S':
			a |= 8 << shift
		default:
			t.Fatalf("RWBS %q", rwbs)
		}
	}
	var b bytes.Buffer
	for _, v := range []any{uint32(blktraceMagic | 0x07), seq, ns, sector, size, a, pid, major<<20 | minor, cpu, uint16(0), uint16(0)} {
		require.NoError(t, binary.Write(&b, binary.LittleEndian, v))
	}
	return b.Bytes()
}

// A blktrace binary trace is read through blkparse into the same I/Os as
// blkparse's text of it: the fixture's read and write events, written as
// blktrace's records, one CPU file each as blktrace writes them.
func TestBlktraceBinaryThroughBlkparse(t *testing.T) {
	if _, err := exec.LookPath("blkparse"); err != nil {
		t.Skip("blkparse is not installed (Debian: apt-get install blktrace); CI installs it")
	}
	f, err := os.Open(filepath.Join("testdata", "reconstructed.blkparse"))
	require.NoError(t, err)
	defer f.Close()
	var text bytes.Buffer
	cpus := map[string]*bytes.Buffer{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		// DEV CPU SEQ TIME PID ACTION RWBS SECTOR + BLOCKS [PROCESS]
		if len(fl) < 10 || !isDevNum(fl[0]) || fl[8] != "+" || strings.ContainsAny(fl[6], "DFN") {
			continue // trims, flushes, the summary: not what this checks
		}
		text.WriteString(sc.Text() + "\n")
		maj, mnr, _ := strings.Cut(fl[0], ",")
		u := func(s string) uint64 { v, err := strconv.ParseUint(s, 10, 64); require.NoError(t, err, s); return v }
		secs, err := strconv.ParseFloat(fl[3], 64)
		require.NoError(t, err)
		if cpus[fl[1]] == nil {
			cpus[fl[1]] = &bytes.Buffer{}
		}
		cpus[fl[1]].Write(blkIOTrace(t, uint32(u(fl[2])), uint64(secs*1e9+0.5), u(fl[7]), uint32(u(fl[9])*512), fl[5], fl[6],
			uint32(u(fl[4])), uint32(u(maj)), uint32(u(mnr)), uint32(u(fl[1]))))
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, cpus)
	dir := t.TempDir()
	// blktrace writes a file for every CPU, events or none.
	for cpu := range 2 {
		if c := strconv.Itoa(cpu); cpus[c] == nil {
			cpus[c] = &bytes.Buffer{}
		}
	}
	first := ""
	for cpu, b := range cpus {
		p := filepath.Join(dir, "loop0.blktrace."+cpu)
		require.NoError(t, os.WriteFile(p, b.Bytes(), 0o600))
		if b.Len() > 0 {
			first = p
		}
	}
	head, err := os.ReadFile(first)
	require.NoError(t, err)
	assert.True(t, IsBlktrace(head))

	want, err := Parse(&text, "text", Options{Event: 'Q'})
	require.NoError(t, err)
	got, name, err := ReadFile(first, nil, Options{Event: 'Q'}, nil)
	require.NoError(t, err)
	assert.Equal(t, first, name)
	require.Len(t, got.IOs, len(want.IOs))
	// blkparse counts time from the trace's first event, which the text's
	// left-out events came before.
	shift := want.IOs[0].Start - got.IOs[0].Start
	for i := range want.IOs {
		w, g := want.IOs[i], got.IOs[i]
		w.Line, g.Line, w.Process, g.Process = 0, 0, "", "" // blkparse prints no names without blktrace's notes
		g.Start += shift
		if g.Completed {
			g.Done += shift
		}
		require.Equal(t, w, g, "I/O %d", i)
	}

	// Told it is something else, it is not converted; an empty trace is
	// refused by name.
	_, _, err = ReadFile(first, nil, Options{Format: Iolog}, nil)
	assert.Error(t, err)
	empty := filepath.Join(dir, "empty.blktrace.0")
	require.NoError(t, os.WriteFile(empty, blkIOTrace(t, 1, 0, 0, 0, "Q", "R", 1, 7, 0, 0)[:20], 0o600))
	_, _, err = ReadFile(empty, nil, Options{}, nil)
	assert.ErrorContains(t, err, empty)
}
