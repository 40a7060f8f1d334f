package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// killSeedEnv replays a kill-and-resume schedule: the test prints its seed,
// and PTSRUN_KILL_SEED=N go test -run TestKillAndResume ./cmd/ptsrun runs
// the same kill points again. Unset, the seed is fixed so that CI runs the
// same schedule every time; set it to explore others.
const killSeedEnv = "PTSRUN_KILL_SEED"

// killPoint kills a run right after its journal's first Records records;
// Torn leaves half of the next record as well, as a kill in mid-write does.
type killPoint struct {
	Records int
	Torn    bool
}

func (k killPoint) String() string {
	if k.Torn {
		return fmt.Sprintf("after-%d-torn", k.Records)
	}
	return fmt.Sprintf("after-%d", k.Records)
}

// killSchedule is n kill points in a journal of total records, drawn from
// seed: always right after the first record and right before the last,
// the rest anywhere between.
func killSchedule(seed uint64, total, n int) []killPoint {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	out := []killPoint{{Records: 1}, {Records: total - 1}}
	for len(out) < n {
		k := killPoint{Records: 2 + rng.IntN(total-3), Torn: rng.IntN(2) == 0}
		if !slices.ContainsFunc(out, func(o killPoint) bool { return o.Records == k.Records }) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b killPoint) int { return a.Records - b.Records })
	return out
}

func TestKillSchedule(t *testing.T) {
	a := killSchedule(7, 600, 5)
	assert.Equal(t, a, killSchedule(7, 600, 5), "a seed is one schedule")
	assert.NotEqual(t, a, killSchedule(8, 600, 5), "another seed is another schedule")
	require.Len(t, a, 5)
	assert.Equal(t, 1, a[0].Records)
	assert.Equal(t, 599, a[4].Records)
	for _, k := range a {
		assert.True(t, k.Records >= 1 && k.Records < 600, "%v", k)
	}
}

// TestKillAndResume kills a simulated run at seeded points of its journal
// (SIGKILL: no handler runs) and resumes it: every resumed run must end
// with the results an uninterrupted run has, in shape: the same stages,
// every cell in every round, the same windows and verdicts. The runs use a
// fixed clock, so the journal up to each kill point is the same on every
// run; the seed's schedule replays a failure.
func TestKillAndResume(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	seed := uint64(1)
	if v := os.Getenv(killSeedEnv); v != "" {
		var err error
		seed, err = strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "%s=%q", killSeedEnv, v)
	}
	args := []string{"run", "--target", "sim:enterprise", "--tests", "iops,lat"}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

	ref := filepath.Join(t.TempDir(), "ref")
	code, stderr := ptsrunProcess(t, start, append(args, "--out", ref)...)
	require.Contains(t, []int{0, 3}, code, stderr)
	want, _, err := matrix.Load(ref)
	require.NoError(t, err)
	refJournal, err := os.ReadFile(filepath.Join(ref, pts.JournalFile))
	require.NoError(t, err)
	total := bytes.Count(refJournal, []byte{'\n'})
	require.Greater(t, total, 100, "the run is too short to kill in many places")

	schedule := killSchedule(seed, total, 5)
	t.Logf("%s=%d: kill points %v of %d records", killSeedEnv, seed, schedule, total)
	for _, k := range schedule {
		t.Run(k.String(), func(t *testing.T) {
			t.Parallel() // processes of their own on a directory of its own
			dir := filepath.Join(t.TempDir(), "run")
			killAfter(t, start, k, refJournal, append(args, "--out", dir)...)
			recs, cut, err := pts.LoadJournal(dir)
			require.NoError(t, err)
			require.Len(t, recs, k.Records)
			assert.Equal(t, k.Torn, cut, "a torn last record is seen as cut short")
			midStage := false
			for _, r := range recs {
				midStage = r.Type == pts.RecStageStart || midStage && r.Type != pts.RecStageEnd
			}

			code, _, stderr := ptsrun("report", dir)
			assert.Equal(t, 0, code, "report after a kill: %s", stderr)

			// The resumed process's clock goes on where the first stopped.
			code, stderr = ptsrunProcess(t, start.Add(24*time.Hour), "resume", dir)
			require.Contains(t, []int{0, 3}, code, stderr)
			got, _, err := matrix.Load(dir)
			require.NoError(t, err)
			assert.True(t, got.Complete)
			assert.Equal(t, shapeOf(want), shapeOf(got), "the resumed run's results differ in shape from an uninterrupted run's")

			codes := deviationCodes(got)
			assert.Subset(t, codes, deviationCodes(want), "the uninterrupted run's deviations")
			if midStage {
				assert.Contains(t, codes, "resumed", "a stage resumed in its middle is a deviation")
			}
			assert.NotContains(t, codes, "interrupted")
			// The telemetry of both processes is kept: a temperature at
			// every round, whichever process ran it.
			for _, tr := range got.Tests {
				for _, s := range tr.Stages {
					require.NotNil(t, s.Health, s.ID)
					assert.Len(t, s.Health.Temps, s.Rounds, "%s: a temperature per round", s.ID)
				}
			}
		})
	}
}

// ptsrunProcess runs the ptsrun binary with the fixed clock at start.
func ptsrunProcess(t *testing.T, start time.Time, args ...string) (code int, stderr string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), clockEnv+"="+start.Format(time.RFC3339))
	var e bytes.Buffer
	cmd.Stderr = &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), e.String()
	}
	require.NoError(t, err)
	return 0, e.String()
}

// killAfter starts a run and kills it once its journal holds k.Records
// records; ref is an uninterrupted run's journal. The journal is watched,
// not hooked, so the kill may land a record or two late; the journal is
// then cut back to the kill point, the state a kill right after that
// record's fsync leaves. The simulated drive keeps what it did since, as a
// real drive would.
func killAfter(t *testing.T, start time.Time, k killPoint, ref []byte, args ...string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), clockEnv+"="+start.Format(time.RFC3339))
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	dir := args[len(args)-1]
	lines := &lineCounter{path: filepath.Join(dir, pts.JournalFile)}
	defer lines.close()
	for done := false; !done; {
		select {
		case err := <-exited:
			require.GreaterOrEqual(t, lines.count(), k.Records, "the run ended (%v) before its journal held %d records", err, k.Records)
			done = true
		case <-time.After(500 * time.Microsecond):
			if lines.count() >= k.Records {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				<-exited
				done = true
			}
		}
	}
	path := filepath.Join(dir, pts.JournalFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	t.Logf("killed with %d records in the journal; cut back to %d", bytes.Count(b, []byte{'\n'}), k.Records)
	keep := cutAfterLine(b, k.Records)
	// With the fixed clock the journal is the same on every run up to the
	// kill point, but for the wall time a cell took; so is the record being
	// written when the kill came.
	if i := firstDiffLine(cutAfterLine(ref, k.Records), keep); i > 0 {
		t.Fatalf("the run is not reproducible: its journal's record %d differs from the uninterrupted run's", i)
	}
	if k.Torn {
		next := cutAfterLine(ref, k.Records+1)
		keep = next[:len(keep)+(len(next)-len(keep))/2]
	}
	require.NoError(t, os.WriteFile(path, keep, 0o644))
}

// cutAfterLine is b up to and with its nth newline.
func cutAfterLine(b []byte, n int) []byte {
	end := 0
	for range n {
		i := bytes.IndexByte(b[end:], '\n')
		if i < 0 {
			return b
		}
		end += i + 1
	}
	return b[:end]
}

var wallTime = regexp.MustCompile(`,"wall_ns":[0-9]+`)

// firstDiffLine is the first line (from 1) where a and b differ, wall
// times aside; 0 if none.
func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte{'\n'}), bytes.Split(b, []byte{'\n'})
	for i := range max(len(la), len(lb)) {
		if i >= len(la) || i >= len(lb) || !bytes.Equal(wallTime.ReplaceAll(la[i], nil), wallTime.ReplaceAll(lb[i], nil)) {
			return i + 1
		}
	}
	return 0
}

// lineCounter counts a growing file's lines, reading each byte once.
type lineCounter struct {
	path string
	f    *os.File
	n    int
}

func (c *lineCounter) count() int {
	if c.f == nil {
		f, err := os.Open(c.path)
		if err != nil {
			return 0 // not created yet
		}
		c.f = f
	}
	buf := make([]byte, 64<<10)
	for {
		m, _ := c.f.Read(buf)
		if m == 0 {
			return c.n
		}
		c.n += bytes.Count(buf[:m], []byte{'\n'})
	}
}

func (c *lineCounter) close() {
	if c.f != nil {
		c.f.Close()
	}
}

// stageShape is what a resume must reproduce of a stage: whether it
// finished and reached steady state, its window, every cell measured in
// every round, and the tracking variables' verdicts. The number of rounds
// may differ: a round re-run after a kill meets a drive that the killed
// round's writes have worn further, which can bring steady state a round
// sooner, as it would on hardware.
type stageShape struct {
	Test, Stage      string
	Complete, Steady bool
	Window           string
	Cells            []string
	Tracking         []string
}

func shapeOf(r *matrix.Results) []stageShape {
	var out []stageShape
	for _, tr := range r.Tests {
		for _, s := range tr.Stages {
			// fmt.Sprint: the test and cell keys are on their way from
			// strings to pts's typed keys (issue 11).
			sh := stageShape{Test: fmt.Sprint(tr.Test), Stage: fmt.Sprint(s.ID), Complete: s.Complete, Steady: s.Steady,
				Window: fmt.Sprintf("%d rounds", s.Window[1]-s.Window[0]+1)}
			if s.Window[1] != s.Rounds {
				sh.Window += fmt.Sprintf(", ending at round %d of %d", s.Window[1], s.Rounds)
			}
			for _, c := range s.Cells {
				measured := 0
				for _, rv := range c.AllRounds {
					if rv.IOPS > 0 && !math.IsNaN(rv.IOPS) {
						measured++
					}
				}
				if measured == s.Rounds {
					sh.Cells = append(sh.Cells, fmt.Sprint(c.Key))
				} else {
					sh.Cells = append(sh.Cells, fmt.Sprintf("%v: %d of %d rounds", c.Key, measured, s.Rounds))
				}
			}
			for _, tv := range s.Tracking {
				sh.Tracking = append(sh.Tracking, fmt.Sprintf("%s: steady %v", tv.Name, tv.Verdict.Steady))
			}
			out = append(out, sh)
		}
	}
	return out
}

func deviationCodes(r *matrix.Results) []string {
	var out []string
	for _, d := range r.Deviations {
		out = append(out, d.Code)
	}
	return out
}

// A run begun by a ptsrun whose run.json and journal were schema 1 (series
// as arrays of intervals) is resumed by this one, which appends schema 2
// records (series by column, compact telemetry): run.json says the current schema before the first of them, so
// that the older ptsrun refuses the run by name instead of failing on a
// journal line, and the run ends whole.
func TestResumeOfAnOlderSchemaRaisesIt(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	interrupted(t, dir, "--target", "sim", "--tests", "iops")
	editRunInfo(t, dir, func(ri map[string]any) { ri["schema"] = 1 })
	code, stderr := ptsrunIn(t, t.TempDir(), "resume", dir)
	require.Equal(t, 0, code, stderr)
	ri, err := pts.LoadRunInfo(dir)
	require.NoError(t, err)
	assert.Equal(t, pts.Schema, ri.Schema)
	recs, cut, err := pts.LoadJournal(dir)
	require.NoError(t, err)
	assert.False(t, cut)
	assert.Equal(t, pts.RecEnd, recs[len(recs)-1].Type)
}
