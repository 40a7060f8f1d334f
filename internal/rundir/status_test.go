package rundir

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/pts"
)

type quiet struct{}

func (quiet) Observe(pts.Record, pts.Position) {}
func (quiet) Begin(pts.RunInfo, string)        {}
func (quiet) Note(string)                      {}
func (quiet) Finish()                          {}

// simRun is a finished run of latency on the simulated drive, and its
// journal's lines.
func simRun(t *testing.T) (string, [][]byte) {
	t.Helper()
	ctx := context.Background()
	cfg := pts.DefaultConfig()
	cfg.Targets, cfg.Tests, cfg.CellTime = []string{"sim"}, []pts.TestID{pts.IOPS, pts.LAT}, pts.Duration(5*time.Second)
	c, err := CheckRun(ctx, cfg, false)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "run")
	x, err := Start(ctx, c, dir, pts.Operator{}, "0.0.0-test", time.Now)
	require.NoError(t, err)
	_, run, err := x.Run(ctx, quiet{}, time.Now)
	require.NoError(t, run)
	require.NoError(t, err)
	b, err := os.ReadFile(JournalPath(dir))
	require.NoError(t, err)
	var lines [][]byte
	for len(b) > 0 {
		i := 0
		for b[i] != '\n' {
			i++
		}
		lines, b = append(lines, b[:i+1]), b[i+1:]
	}
	return dir, lines
}

// at is a copy of the run in dir with the first n lines of its journal.
func at(t *testing.T, dir string, lines [][]byte, n int) string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.Mkdir(cp, 0o755))
	ri, err := os.ReadFile(filepath.Join(dir, RunFile))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(cp, RunFile), ri, 0o644))
	var j []byte
	for _, l := range lines[:n] {
		j = append(j, l...)
	}
	require.NoError(t, os.WriteFile(JournalPath(cp), j, 0o644))
	return cp
}

// index is the line of the first record of type typ in stage (after
// line from).
func index(t *testing.T, lines [][]byte, from int, typ, stage string) int {
	t.Helper()
	for i := from; i < len(lines); i++ {
		var r pts.Record
		require.NoError(t, json.Unmarshal(lines[i], &r))
		if r.Type == typ && (stage == "" || r.Stage == stage) {
			return i
		}
	}
	t.Fatalf("no %s record of %q", typ, stage)
	return 0
}

// TestStatusOfAJournalAtSeveralPoints reads a run's status with its
// journal cut at several points, as a kill leaves it: nothing run yet,
// preconditioning, the first stage's rounds before and after its window
// is full, the second stage, the end; a stopped run says how it
// resumes, a finished one its verdict. Reading writes nothing.
func TestStatusOfAJournalAtSeveralPoints(t *testing.T) {
	ctx := context.Background()
	dir, lines := simRun(t)
	r1 := index(t, lines, 0, pts.RecRoundEnd, "iops")
	r5 := r1
	for range 4 {
		r5 = index(t, lines, r5+1, pts.RecRoundEnd, "iops")
	}
	lat := index(t, lines, 0, pts.RecCell, "lat")

	type want struct {
		state, stage string
		round        int
		judged       bool
	}
	var left []float64
	for _, c := range []struct {
		name string
		n    int
		want want
	}{
		{"nothing run", 0, want{StateStopped, "", 0, false}},
		{"first round", r1 + 1, want{StateStopped, "iops", 1, false}},
		{"window full", r5 + 1, want{StateStopped, "iops", 5, true}},
		{"second stage", lat + 1, want{StateStopped, "lat", 1, false}},
		{"finished", len(lines), want{StateFinished, "", 0, false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cp := at(t, dir, lines, c.n)
			before := tree(t, cp)
			st, err := ReadStatus(ctx, cp)
			require.NoError(t, err)
			assert.Equal(t, before, tree(t, cp), "status writes nothing")
			assert.Equal(t, c.want.state, st.State)
			if c.n == 0 {
				assert.Contains(t, st.Temperature, NoTemperature, "no reading yet")
			} else {
				assert.Regexp(t, `^\d+\.\d °C at \d\d:\d\d:\d\d \(sim\)$`, st.Temperature, "the last reading of the simulated drive's model")
			}
			if c.want.stage == "" {
				assert.Nil(t, st.Stage)
			} else {
				require.NotNil(t, st.Stage)
				assert.Equal(t, c.want.stage, st.Stage.ID)
				assert.Equal(t, c.want.round, st.Stage.Round)
				require.NotEmpty(t, st.Tracking)
				assert.Equal(t, c.want.judged, st.Tracking[0].Judged)
				if c.want.judged {
					assert.Positive(t, st.Tracking[0].MaxRP)
					assert.Positive(t, st.Tracking[0].MaxSP)
				}
				require.NotNil(t, st.Last)
				assert.Positive(t, st.Last.IOPS)
			}
			if c.want.state == StateFinished {
				assert.NotEmpty(t, st.Verdict)
				assert.Empty(t, st.Resume)
				assert.Zero(t, st.RunLeftMaxS)
				return
			}
			assert.Equal(t, "ptsrun resume "+cp, st.Resume, "a simulated drive needs no confirmation")
			assert.Positive(t, st.RunLeftMaxS)
			left = append(left, st.RunLeftMaxS)
		})
	}
	// Not compared from point to point: a simulated cell's wall time,
	// which paces the estimate, is the host's load (the loop device's
	// test, TestStatusOfARunOnALoopDevice, compares them).
	assert.Len(t, left, 4)
}

// TestStatusOfALockedRun: a lock held here is a running run; one taken
// on another host cannot be checked, and status gives the last record's
// age and still says how to resume.
func TestStatusOfALockedRun(t *testing.T) {
	ctx := context.Background()
	dir, lines := simRun(t)
	cp := at(t, dir, lines, len(lines)/2)
	l, err := TakeLock(cp, "resume")
	require.NoError(t, err)
	st, err := ReadStatus(ctx, cp)
	require.NoError(t, err)
	host, _ := os.Hostname()
	assert.Equal(t, StateRunning, st.State)
	assert.Equal(t, "running on "+host+", pid "+itoa(os.Getpid()), st.Process)
	assert.Empty(t, st.Resume)
	l.Release()

	b, _ := json.Marshal(LockInfo{Host: "elsewhere.example", PID: 4242, Started: time.Now().UTC(), Command: "run"})
	require.NoError(t, os.WriteFile(filepath.Join(cp, LockFile), b, 0o644))
	st, err = ReadStatus(ctx, cp)
	require.NoError(t, err)
	assert.Equal(t, StateUnknown, st.State)
	assert.Contains(t, st.Process, "started on elsewhere.example, pid 4242: whether it still runs cannot be checked from this host; its last journal record is")
	assert.Equal(t, "ptsrun resume "+cp, st.Resume)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// tree is every file of dir with its size and time.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		require.NoError(t, err)
		out[p] = fi.ModTime().String() + " " + itoa(int(fi.Size()))
		return nil
	}))
	return out
}
