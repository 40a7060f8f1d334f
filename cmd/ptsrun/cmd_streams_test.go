package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const captures = "../../internal/capture/testdata/"

// TestStreamsShares: on fio's own iolog, every (direction, size)'s share
// in streams --json is the share of the log's lines, counted here.
func TestStreamsShares(t *testing.T) {
	log := captures + "fio-v3.iolog"
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	want, n := map[string]float64{}, 0.0
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 5 && (f[2] == "read" || f[2] == "write") {
			want[f[2]+" "+f[4]]++
			n++
		}
	}
	code, stdout, stderr := ptsrun("streams", log, "--json")
	require.Equal(t, 0, code, stderr)
	var rep struct {
		Method  string
		Streams []struct {
			Dir   string
			Size  int64
			Share float64 `json:"share_pct"`
		}
		Workload struct {
			Covered float64 `json:"covered_pct"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	assert.Equal(t, "after the SNIA RWSW method", rep.Method)
	got := map[string]float64{}
	for _, s := range rep.Streams {
		got[fmt.Sprintf("%s %d", s.Dir, s.Size)] += s.Share
	}
	require.Len(t, got, len(want))
	for k, v := range want {
		assert.InDelta(t, 100*v/n, got[k], 0.1, k)
	}
	assert.GreaterOrEqual(t, rep.Workload.Covered, 90.0)
}

// TestStreamsFormats: the blkparse and biosnoop captures made from the
// iolog print its streams; one device is chosen by its name in each.
func TestStreamsFormats(t *testing.T) {
	streamsOf := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := ptsrun(append([]string{"streams", "--json"}, args...)...)
		require.Equal(t, 0, code, stderr)
		var rep struct{ Streams json.RawMessage }
		require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
		return string(rep.Streams)
	}
	want := streamsOf(captures + "fio-v3.iolog")
	for _, f := range []string{"reconstructed.blkparse", "reconstructed.biosnoop", "reconstructed-q.biosnoop"} {
		assert.Equal(t, want, streamsOf(captures+f), f)
	}
	assert.Equal(t, streamsOf(captures+"fio-v3.iolog", "--device", "/dev/loop1"),
		streamsOf(captures+"reconstructed.blkparse", "--device", "7,1", "--event", "D"))
	assert.Equal(t, streamsOf(captures+"fio-v3.iolog", "--device", "/dev/loop0"),
		streamsOf(captures+"reconstructed.biosnoop", "--format", "biosnoop", "--device", "loop0"))
	code, stdout, stderr := ptsrun("streams", captures+"reconstructed.blkparse", "--top", "3", "--step", "5ms")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "Sequential: an I/O is sequential when it starts where the previous I/O")
	assert.Contains(t, stdout, "Applied test workload: the top 11 streams, 91.7 %")
}

func TestStreamsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.iolog")
	require.NoError(t, os.WriteFile(bad, []byte("fio version 3 iolog\n1 /f add\n2 /f read 0\n"), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{bad}, bad + ":3: 4 fields: want TIME FILE ACTION [OFFSET LENGTH]"},
		{[]string{captures + "fio-v3.iolog", "--format", "blkparse"}, captures + "fio-v3.iolog:1: \"fio version 3 iolog\": not a blkparse event"},
		{[]string{captures + "fio-v3.iolog", "--device", "sdz"}, `no I/O on device "sdz": it has /dev/loop0, /dev/loop1`},
		{[]string{captures + "fio-v3.iolog", "--event", "X"}, "--event X: want Q (queued) or D (issued)"},
		{[]string{captures + "fio-v3.iolog", "--top", "0"}, "--step and --top must be positive"},
		{[]string{}, "streams needs one capture"},
	} {
		code, _, stderr := ptsrun(append([]string{"streams"}, c.args...)...)
		assert.Equal(t, 1, code)
		assert.Contains(t, stderr, c.want)
	}
}

// streams --pdf writes the streams pages as a PDF of ptsrun's, and never
// over a file ptsrun did not write.
func TestStreamsPDF(t *testing.T) {
	pdf := filepath.Join(t.TempDir(), "streams.pdf")
	code, _, stderr := ptsrun("streams", captures+"reconstructed.blkparse", "--pdf", pdf)
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(pdf)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "%PDF-"))
	code, _, _ = ptsrun("streams", captures+"reconstructed.blkparse", "--pdf", pdf)
	assert.Equal(t, 0, code, "its own PDF is replaced")
	mine := filepath.Join(t.TempDir(), "notes.pdf")
	require.NoError(t, os.WriteFile(mine, []byte("my notes"), 0o644))
	code, _, stderr = ptsrun("streams", captures+"reconstructed.blkparse", "--pdf", mine)
	assert.Equal(t, 4, code, stderr)
	b, err = os.ReadFile(mine)
	require.NoError(t, err)
	assert.Equal(t, "my notes", string(b))
}
