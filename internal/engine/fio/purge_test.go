package fio

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// fillRandom writes random data over the whole of path.
func fillRandom(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer f.Close()
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; off += int64(len(buf)) {
		_, _ = rand.Read(buf)
		n := min(int64(len(buf)), size-off)
		_, err := f.WriteAt(buf[:n], off)
		require.NoError(t, err)
	}
	require.NoError(t, f.Sync())
}

// zeroed says whether path holds only zeros in its first size bytes.
func zeroed(t *testing.T, path string, size int64) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil { // a block device reads as a stream
		f, err := os.Open(path)
		require.NoError(t, err)
		defer f.Close()
		b = make([]byte, size)
		_, err = f.ReadAt(b, 0)
		require.NoError(t, err)
	}
	return int64(len(b)) >= size && bytes.Count(b[:size], []byte{0}) == int(size)
}

// Through two fio servers, each with a loop device whose size is not a
// multiple of the jobs' large blocks: trim and zero-fill reach every block,
// and say what they checked.
func TestPurgeSubstituteThroughServers(t *testing.T) {
	t.Parallel() // fio processes on targets of its own: beside the others
	enginetest.NeedRoot(t, "losetup", "fio")
	const size = 64<<20 + 12<<10
	devs := []string{enginetest.LoopDevice(t, size, ""), enginetest.LoopDevice(t, size, "")}
	servers := enginetest.FioServers(t, 2)
	var ts []Target
	for i, d := range devs {
		ts = append(ts, Target{Name: servers[i] + "=" + d, Path: d, LogicalBlock: 512, Server: servers[i]})
	}
	work := t.TempDir()
	e, err := Open(ts, Options{WorkDir: work})
	require.NoError(t, err)
	defer e.Close()

	for _, job := range []string{engine.PurgeTrim, engine.PurgeZeroFill} {
		t.Run(job, func(t *testing.T) {
			for _, d := range devs {
				fillRandom(t, d, size)
				require.False(t, zeroed(t, d, size))
			}
			rep, err := e.Purge(context.Background(), job)
			require.NoError(t, err, "%+v", rep)
			for i, d := range devs {
				// A loop device on tmpfs reads trimmed blocks as zeros.
				assert.True(t, zeroed(t, d, size), "%s: every block, the 12 KiB tail too", d)
				assert.Contains(t, rep.Output, fmt.Sprintf("%s: %d bytes", ts[i].Name, size))
			}
			assert.Equal(t, "fio", filepath.Base(rep.Args[0]))
			assert.Contains(t, strings.Join(rep.Args, " "), "--client=ip:"+strings.Replace(servers[1], ":", ",", 1))
			assert.Zero(t, rep.Exit)
			assert.Positive(t, rep.Duration)
			if job == engine.PurgeTrim {
				assert.Contains(t, rep.Verified, fmt.Sprintf("%s: fio reports %d bytes trimmed without an error", ts[0].Name, size))
			} else {
				assert.Contains(t, rep.Verified, fmt.Sprintf("%s: fio reports %d bytes of zeros written", ts[1].Name, size))
				assert.Contains(t, rep.Verified, "64 random 4 KiB blocks read back as zeros")
			}
			jobs, _ := filepath.Glob(filepath.Join(work, "purge-"+job+"-*.host1.fio"))
			require.Len(t, jobs, 1, "the job file is kept")
			b, err := os.ReadFile(jobs[0])
			require.NoError(t, err)
			assert.Contains(t, string(b), "NOT a PTS purge")
		})
	}
}

// A target that takes no discards (a file) fails the trim with a reason;
// a zero-fill still works on it.
func TestPurgeSubstituteTrimRefused(t *testing.T) {
	enginetest.NeedRoot(t, "fio")
	const size = 8 << 20
	path := enginetest.TempFile(t, size)
	fillRandom(t, path, size)
	servers := enginetest.FioServers(t, 1)
	e, err := Open([]Target{{Name: servers[0] + "=" + path, Path: path, LogicalBlock: 512, Server: servers[0]}}, Options{WorkDir: t.TempDir()})
	require.NoError(t, err)
	defer e.Close()
	rep, err := e.Purge(context.Background(), engine.PurgeTrim)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "trim on "+servers[0]+"="+path)
	assert.Contains(t, err.Error(), "takes no discards")
	assert.NotZero(t, rep.Exit)
	assert.Contains(t, rep.Output, "takes no discards")
	rep, err = e.Purge(context.Background(), engine.PurgeZeroFill)
	require.NoError(t, err)
	assert.True(t, zeroed(t, path, size))
	assert.Contains(t, rep.Verified, "read back as zeros")
}

// The read-back's failure and a short fill are named, from fio's output.
func TestPurgeResultFailures(t *testing.T) {
	e := &Engine{targets: []Target{{Name: "/dev/x", Path: "/dev/x", Size: 1 << 20}}, hosts: []string{""}}
	ok := Job{Name: "t0", Write: Dir{Bytes: 1 << 20}}
	for _, tc := range []struct {
		name string
		jobs []Job
		want string
	}{
		{"no result", nil, "no result"},
		{"job error", []Job{{Name: "t0", Error: 5}}, "error 5 (input/output error)"},
		{"short", []Job{{Name: "t0", Write: Dir{Bytes: 4096}}, {Name: "v0", Read: Dir{IOs: zeroSamples}}}, "fio reports 4096 bytes written as zeros, not the 1048576 there are"},
		{"not zeros", []Job{ok, {Name: "v0", Error: 84}}, "a block does not hold zeros"},
		{"no read-back", []Job{ok}, "no result of the read-back"},
		{"too few read", []Job{ok, {Name: "v0", Read: Dir{IOs: 3}}}, "read 3 blocks instead of 64"},
	} {
		_, _, err := e.purgeResult(engine.PurgeZeroFill, &Output{Jobs: tc.jobs}, 0)
		assert.ErrorContains(t, err, tc.want, tc.name)
	}
	done, checked, err := e.purgeResult(engine.PurgeZeroFill, &Output{Jobs: []Job{ok, {Name: "v0", Read: Dir{IOs: zeroSamples}}}}, 0)
	require.NoError(t, err)
	assert.Contains(t, done, "1048576 bytes written as zeros")
	assert.Contains(t, checked, "every block of its 1048576 bytes")
}
