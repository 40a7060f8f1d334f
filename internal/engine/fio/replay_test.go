package fio

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

func TestIologV3(t *testing.T) {
	ios := []engine.TimedIO{{At: 0, Offset: 0, Size: 4096, Read: true}, {At: 1500 * time.Microsecond, Offset: 8192, Size: 8192}}
	assert.Equal(t, "fio version 3 iolog\n1 /dev/x add\n1 /dev/x open\n1 /dev/x read 0 4096\n3001 /dev/x write 8192 8192\n3001 /dev/x close\n",
		string(IologV3("/dev/x", ios, 2)), "times in µs, 1 µs late, multiplied by the speed fio divides them by")
	job := ReplayJobFile("io_uring", "/dev/a:b", "/w/replay.iolog", "/w/replay.logs/replay", 8, 200)
	for _, want := range []string{"read_iolog=/w/replay.iolog\n", "replay_redirect=/dev/a\\:b\n", "replay_no_stall=0\n",
		"replay_time_scale=200\n", "iodepth=8\n", "write_lat_log=/w/replay.logs/replay\n", "log_offset=1\n"} {
		assert.Contains(t, job, want)
	}
}

func TestMatchReplay(t *testing.T) {
	ios := []engine.TimedIO{{Offset: 0, Size: 4096, Read: true}, {Offset: 0, Size: 4096, Read: true}, {Offset: 4096, Size: 4096}}
	slat := []logEntry{{ms: 5, dir: 0, size: 4096, off: 0}, {ms: 6, dir: 1, size: 4096, off: 4096}, {ms: 9, dir: 0, size: 4096, off: 0}}
	lat := []logEntry{{ms: 6, val: 700000, dir: 0, size: 4096, off: 0}, {ms: 7, val: 900000, dir: 1, size: 4096, off: 4096}}
	issue, latency := MatchReplay(ios, slat, lat)
	assert.Equal(t, []int64{0, 4e6, 1e6}, issue, "each I/O the entry of its kind in turn, from the first entry's millisecond")
	assert.Equal(t, []int64{700000, -1, 900000}, latency, "an I/O missing from the latency log has none")
}

func TestReadLogOffsets(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/l.log"
	require.NoError(t, os.WriteFile(path, []byte("3, 3628480, 1, 4096, 8192, 0\n4, 35, 0, 4096\n"), 0o644))
	es, err := readLog(path)
	require.NoError(t, err)
	require.Len(t, es, 2)
	assert.Equal(t, int64(8192), es[0].off)
	assert.Equal(t, int64(-1), es[1].off, "no offset without log_offset")
}
