package pts

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/sim"
	"github.com/ptsrun/ptsrun/internal/precondition"
)

// hooked wraps an engine: it cancels the run's context or fails after a
// number of runs.
type hooked struct {
	engine.Engine
	runs     int
	cancelAt int
	cancel   context.CancelFunc
	failAt   int
}

func (h *hooked) RunCells(ctx context.Context, _ string, cells []engine.Cell, done func(int, engine.Measurement, time.Duration) error) error {
	return engine.RunEach(ctx, cells, done, func(ctx context.Context, w engine.Workload) (engine.Measurement, error) {
		h.runs++
		if h.failAt > 0 && h.runs == h.failAt {
			return engine.Measurement{}, errors.Join(engine.ErrIO, errors.New("pwrite: input/output error"))
		}
		m, err := engine.RunCell(ctx, h.Engine, engine.Cell{Workload: w})
		if h.cancelAt > 0 && h.runs == h.cancelAt {
			h.cancel()
		}
		return m, err
	})
}

type setup struct {
	dir  string
	info RunInfo
	eng  *sim.Engine
}

func newSetup(t *testing.T, model string, mod func(*Config)) *setup {
	t.Helper()
	c := DefaultConfig()
	c.Targets = []string{"sim:" + model}
	if model == "client" {
		c.Profile = "client"
	}
	if mod != nil {
		mod(&c)
	}
	p, err := c.Resolve()
	require.NoError(t, err)
	s := &setup{dir: t.TempDir()}
	m, _ := sim.Lookup(model)
	s.info = RunInfo{Schema: Schema, Tool: "ptsrun", Version: "test", Config: c, Profile: p, Stages: c.Stages(p),
		Targets: []device.Identity{{Spec: "sim:" + model, Kind: device.KindSim, CapacityBytes: m.UserBytes}}}
	require.NoError(t, WriteRunInfo(s.dir, s.info))
	s.open(t)
	return s
}

func (s *setup) open(t *testing.T) {
	m, err := sim.Lookup(s.info.Config.Targets[0][4:])
	require.NoError(t, err)
	s.eng, err = sim.Open([]sim.Target{{Name: s.info.Config.Targets[0], Model: m, StateDir: filepath.Join(s.dir, "sim")}})
	require.NoError(t, err)
}

func (s *setup) runner(t *testing.T, e engine.Engine) (*Runner, *Journal) {
	j, err := OpenJournal(s.dir)
	require.NoError(t, err)
	t.Cleanup(func() { j.Close() })
	return &Runner{Info: s.info, Engine: e, Journal: j, Cache: s.eng,
		Purger: &precondition.Purger{Method: precondition.SimFormat, Engine: s.eng}}, j
}

func (s *setup) records(t *testing.T) []Record {
	recs, cut, err := LoadJournal(s.dir)
	require.NoError(t, err)
	require.False(t, cut)
	return recs
}

// The IOPS test reaches steady state after more than 5 and fewer than 25
// rounds on both simulated models.
func TestIOPSSteadyStateOnBothModels(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	for _, model := range sim.Names() {
		t.Run(model, func(t *testing.T) {
			t.Parallel()
			s := newSetup(t, model, func(c *Config) { c.Tests = []TestID{IOPS} })
			r, _ := s.runner(t, s.eng)
			require.NoError(t, r.Run(context.Background(), nil))
			require.NoError(t, s.eng.Close())
			st := Replay(s.info.Stages, s.records(t))
			ss := st.Stages["iops"]
			require.True(t, ss.Ended)
			require.True(t, ss.Steady, "not steady in %d rounds", ss.Rounds())
			assert.Greater(t, ss.SSRound, 5)
			assert.Less(t, ss.SSRound, 25)
			assert.Equal(t, ss.SSRound, ss.Rounds(), "no round runs after steady state")
			assert.Equal(t, []int{ss.SSRound - 4, ss.SSRound}, ss.Window)
			t.Logf("%s: steady at round %d; 4 KiB write IOPS per round %v", model, ss.SSRound, ss.Tracking[0])
			// Round 1 is still in the fresh-out-of-box transition: some tracking
			// variable lies far from its steady window average then.
			far := false
			for v := range ss.Tracking {
				avg := 0.0
				for _, x := range ss.Tracking[v][ss.SSRound-5:] {
					avg += x / 5
				}
				far = far || math.Abs(ss.Tracking[v][0]-avg) > 0.2*avg
			}
			assert.True(t, far, "round 1 should differ from steady state")
		})
	}
}

func TestJournalOrderAndContent(t *testing.T) {
	s := newSetup(t, "enterprise", func(c *Config) { c.Tests = []TestID{LAT}; c.CellTime = Duration(5 * time.Second) })
	r, _ := s.runner(t, s.eng)
	require.NoError(t, r.Run(context.Background(), nil))
	recs := s.records(t)
	var types []string
	for _, rec := range recs[:6] {
		types = append(types, rec.Type)
	}
	// The write cache is set at the start, and checked again after the
	// purge and before the rounds, as the PTS's steps set it.
	assert.Equal(t, []string{RecStart, RecWriteCache, RecStageStart, RecPurge, RecWriteCache, RecPrecondChunk}, types)
	assert.Equal(t, CheckAfterPurge, recs[4].WriteCache.Check)
	assert.Equal(t, "lat", recs[4].Stage)
	assert.Equal(t, "disabled", recs[4].WriteCache.After)
	chunks := 0
	for _, rec := range recs {
		if rec.Type == RecPrecondChunk {
			assert.Equal(t, chunks, *rec.Cell)
			chunks++
		}
	}
	assert.Equal(t, 2*precondition.WIPCChunksPerPass, chunks)
	i := 5 + chunks
	assert.Equal(t, []string{RecPrecondition, RecWriteCache, RecRoundStart, RecCell}, []string{recs[i].Type, recs[i+1].Type, recs[i+2].Type, recs[i+3].Type})
	assert.Equal(t, CheckBeforeRounds, recs[i+1].WriteCache.Check)
	m, _ := sim.Lookup("enterprise")
	assert.Equal(t, 2*(m.UserBytes/(128<<10)*(128<<10)), recs[i].Measurement.Write.Bytes, "WIPC writes exactly twice the capacity")
	last := recs[len(recs)-1]
	assert.Equal(t, RecEnd, last.Type)
	wc := recs[1].WriteCache
	assert.Equal(t, "enabled", wc.Before)
	assert.Equal(t, "disabled", wc.After, "enterprise profile: WCD")
	enabled, _ := s.eng.WriteCache()
	assert.True(t, enabled, "the original write-cache state is restored at the end")
	cells := 0
	for _, rec := range recs {
		if rec.Type == RecCell {
			cells++
			require.NotNil(t, rec.Measurement)
			assert.Equal(t, 5*time.Second, rec.Measurement.Elapsed)
			assert.NotNil(t, rec.Measurement.Total().Hist)
		}
		if rec.Type == RecRoundEnd {
			assert.Len(t, rec.Tracking, 1)
			if rec.Round >= 5 {
				assert.NotNil(t, rec.Verdict)
			} else {
				assert.Nil(t, rec.Verdict, "no check before the window is full")
			}
		}
	}
	st := Replay(s.info.Stages, recs)
	assert.Equal(t, 9*st.Stages["lat"].Rounds(), cells)
}

func TestRoundLimitWithoutSteadyState(t *testing.T) {
	s := newSetup(t, "client", func(c *Config) {
		c.Tests = []TestID{LAT}
		c.MaxRounds = 6
		c.SS.MaxRange = 1e-9 // nothing is that steady
		c.CellTime = Duration(2 * time.Second)
	})
	r, _ := s.runner(t, s.eng)
	require.NoError(t, r.Run(context.Background(), nil))
	st := Replay(s.info.Stages, s.records(t))
	ss := st.Stages["lat"]
	assert.True(t, ss.Ended)
	assert.False(t, ss.Steady)
	assert.Equal(t, 6, ss.Rounds())
	assert.Equal(t, []int{2, 6}, ss.Window, "the window is the last 5 rounds")
	assert.Zero(t, ss.SSRound)
}

func TestInterruptAndResume(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	s := newSetup(t, "enterprise", func(c *Config) { c.Tests = []TestID{IOPS, LAT} })
	ctx, cancel := context.WithCancel(context.Background())
	// WIPC, three rounds of 56 cells, and 10 cells into round 4.
	h := &hooked{Engine: s.eng, cancelAt: 2*precondition.WIPCChunksPerPass + 3*56 + 10, cancel: cancel}
	r, j := s.runner(t, h)
	err := r.Run(ctx, nil)
	require.ErrorIs(t, err, ErrInterrupted)
	require.NoError(t, j.Close())
	require.NoError(t, s.eng.Close())
	recs := s.records(t)
	last := recs[len(recs)-2]
	assert.Equal(t, RecInterrupted, last.Type)
	assert.Equal(t, 4, last.Round)
	assert.Equal(t, 10, *last.Cell)
	restore := recs[len(recs)-1]
	require.Equal(t, RecWriteCache, restore.Type, "the write cache is restored after an interrupt too")
	assert.True(t, restore.WriteCache.Restore)
	prior := Replay(s.info.Stages, recs)
	require.Equal(t, 3, prior.Stages["iops"].Rounds(), "the partial round is not a round")

	// A new process: reopen the drive from its state directory and resume.
	s.open(t)
	r2, _ := s.runner(t, s.eng)
	require.NoError(t, r2.Run(context.Background(), prior))
	require.NoError(t, s.eng.Close())
	recs = s.records(t)
	st := Replay(s.info.Stages, recs)
	assert.True(t, st.Ended)
	require.Len(t, st.Resumes, 1)
	assert.Equal(t, 4, st.Resumes[0].Round)
	assert.Equal(t, "iops", st.Resumes[0].Stage)
	iops := st.Stages["iops"]
	assert.True(t, iops.Ended)
	for r, row := range iops.Cells {
		for c, m := range row {
			require.NotNil(t, m, "round %d cell %d", r+1, c)
		}
	}
	assert.True(t, st.Stages["lat"].Ended)
	// Round 4 was measured twice in the journal; only the re-run counts.
	n := 0
	for _, rec := range recs {
		if rec.Type == RecCell && rec.Stage == "iops" && rec.Round == 4 {
			n++
		}
	}
	assert.Equal(t, 10+56, n)
}

func TestInterruptDuringPreconditioningRestartsTheStage(t *testing.T) {
	s := newSetup(t, "client", func(c *Config) { c.Tests = []TestID{LAT}; c.CellTime = Duration(2 * time.Second) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // cancelled before the first step
	r, j := s.runner(t, s.eng)
	require.ErrorIs(t, r.Run(ctx, nil), ErrInterrupted)
	j.Close()
	prior := Replay(s.info.Stages, s.records(t))
	r2, _ := s.runner(t, s.eng)
	require.NoError(t, r2.Run(context.Background(), prior))
	st := Replay(s.info.Stages, s.records(t))
	assert.True(t, st.Stages["lat"].Ended)
	assert.True(t, st.Stages["lat"].Preconditioned)
}

// Preconditioning interrupted half-way goes on from the piece it stopped at,
// and still writes exactly twice the capacity in all.
func TestInterruptDuringWIPCResumesIt(t *testing.T) {
	s := newSetup(t, "client", func(c *Config) { c.Tests = []TestID{LAT}; c.CellTime = Duration(2 * time.Second) })
	ctx, cancel := context.WithCancel(context.Background())
	h := &hooked{Engine: s.eng, cancelAt: 37, cancel: cancel}
	r, j := s.runner(t, h)
	require.ErrorIs(t, r.Run(ctx, nil), ErrInterrupted)
	j.Close()
	require.NoError(t, s.eng.Close())
	prior := Replay(s.info.Stages, s.records(t))
	ss := prior.Stages["lat"]
	assert.Equal(t, 37, ss.WIPCChunks)
	assert.True(t, ss.Purged)
	assert.False(t, ss.Preconditioned)

	s.open(t)
	h2 := &hooked{Engine: s.eng}
	r2, _ := s.runner(t, h2)
	require.NoError(t, r2.Run(context.Background(), prior))
	recs := s.records(t)
	st := Replay(s.info.Stages, recs)
	lat := st.Stages["lat"]
	assert.True(t, lat.Ended)
	require.Len(t, st.Resumes, 1)
	require.NotNil(t, st.Resumes[0].Cell)
	assert.Equal(t, 37, *st.Resumes[0].Cell)
	assert.Contains(t, st.Resumes[0].Message, "preconditioning continues at 37 %")
	purges := 0
	for _, rec := range recs {
		if rec.Type == RecPurge {
			purges++
		}
	}
	assert.Equal(t, 1, purges, "the resumed stage is not purged again")
	m, _ := sim.Lookup("client")
	assert.Equal(t, 2*(m.UserBytes/(128<<10)*(128<<10)), st.WIPC["lat"].Measurement.Write.Bytes)
	assert.Equal(t, 2*precondition.WIPCChunksPerPass-37+lat.Rounds()*9, h2.runs)
}

func TestEngineErrorStopsCleanly(t *testing.T) {
	s := newSetup(t, "client", func(c *Config) { c.Tests = []TestID{TP}; c.CellTime = Duration(2 * time.Second) })
	h := &hooked{Engine: s.eng, failAt: 2*precondition.WIPCChunksPerPass + 5}
	r, _ := s.runner(t, h)
	err := r.Run(context.Background(), nil)
	require.ErrorIs(t, err, engine.ErrIO)
	assert.ErrorContains(t, err, "round 3 cell seq-1024k-100/0")
	recs := s.records(t)
	last := recs[len(recs)-1]
	assert.Equal(t, RecError, last.Type)
	assert.Contains(t, last.Error, "input/output error")
	st := Replay(s.info.Stages, recs)
	assert.Equal(t, 2, st.Stages["tp-1024k"].Rounds(), "every cell before the error is kept")
}

func TestJournalCutLastLine(t *testing.T) {
	dir := t.TempDir()
	j, err := OpenJournal(dir)
	require.NoError(t, err)
	require.NoError(t, j.Append(Record{Type: RecStart, Time: time.Unix(1, 0).UTC()}))
	require.NoError(t, j.Append(Record{Type: RecStageStart, Stage: "iops", Time: time.Unix(2, 0).UTC()}))
	require.NoError(t, j.Close())
	path := filepath.Join(dir, JournalFile)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"type":"cell","stage":"iops","measurement":{"rea`)
	require.NoError(t, err)
	f.Close()

	recs, cut, err := LoadJournal(dir)
	require.NoError(t, err)
	assert.True(t, cut)
	assert.Len(t, recs, 2)

	j, err = OpenJournal(dir)
	require.NoError(t, err)
	require.NoError(t, j.Append(Record{Type: RecEnd, Time: time.Unix(3, 0).UTC()}))
	j.Close()
	recs, cut, err = LoadJournal(dir)
	require.NoError(t, err)
	assert.False(t, cut)
	require.Len(t, recs, 3)
	assert.Equal(t, RecEnd, recs[2].Type)
}

// A journal.jsonl that is a link (a copied run directory) is never
// opened through: removing a cut-short last line would truncate the file
// it names, and appending would write it. A hard link is refused too.
func TestJournalNotThroughALink(t *testing.T) {
	for _, plant := range []func(victim, path string) error{os.Symlink, os.Link} {
		dir := t.TempDir()
		victim := filepath.Join(t.TempDir(), "settings.json")
		require.NoError(t, os.WriteFile(victim, []byte(`{"api_token":"s3cr3t"}`), 0o600))
		require.NoError(t, plant(victim, filepath.Join(dir, JournalFile)))
		_, err := OpenJournal(dir)
		require.ErrorIs(t, err, device.ErrUnsafe)
		b, err := os.ReadFile(victim)
		require.NoError(t, err)
		assert.Equal(t, `{"api_token":"s3cr3t"}`, string(b))
	}
}

func TestJournalBadLineNamed(t *testing.T) {
	in := "{\"type\":\"start\"}\n{\"type\":\n{\"type\":\"end\"}\n"
	_, _, err := ReadJournal(bytes.NewBufferString(in))
	assert.ErrorContains(t, err, "line 2")
	_, _, err = ReadJournal(bytes.NewBufferString("{\"time\":\"2026-01-01T00:00:00Z\"}\n"))
	assert.ErrorContains(t, err, "line 1: record without a type")
}

func FuzzReadJournal(f *testing.F) {
	f.Add([]byte("{\"type\":\"start\"}\n{\"type\":\"cell\",\"cell\":3}\n"))
	f.Add([]byte("{\"type\":\"cell\",\"measurement\":{\"read\":{\"lat_hist\":\"HISTFAAAA\"}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, _, err := ReadJournal(bytes.NewReader(data))
		if err != nil {
			return
		}
		Replay([]Stage{{ID: "iops", Cells: make([]Cell, 2)}}, recs)
	})
}

func TestRunInfoRoundTrip(t *testing.T) {
	s := newSetup(t, "client", nil)
	ri, err := LoadRunInfo(s.dir)
	require.NoError(t, err)
	assert.Equal(t, s.info.Config, ri.Config)
	assert.Equal(t, s.info.Stages, ri.Stages)
	_, err = LoadRunInfo(t.TempDir())
	assert.ErrorIs(t, err, ErrNoRun)
}

// mixedCaches is a target set of two devices whose write caches differ.
type mixedCaches struct{ on map[string]bool }

func (m *mixedCaches) WriteCache() (bool, error) {
	if m.on["a"] != m.on["b"] {
		return false, errors.New("the targets' write caches differ")
	}
	return m.on["a"], nil
}

func (m *mixedCaches) SetWriteCache(on bool) error {
	m.on["a"], m.on["b"] = on, on
	return nil
}

func (m *mixedCaches) DeviceWriteCaches() map[string]bool {
	return map[string]bool{"a": m.on["a"], "b": m.on["b"]}
}

func (m *mixedCaches) TakeCommands() []engine.Command { return nil }

func (m *mixedCaches) RestoreDeviceWriteCaches(states map[string]bool) error {
	for k, v := range states {
		m.on[k] = v
	}
	return nil
}

// Devices of a set whose write caches differ are each put back to their
// own state at the end, also when the run was interrupted and resumed.
func TestMixedWriteCachesRestoredPerDevice(t *testing.T) {
	s := newSetup(t, "enterprise", func(c *Config) { c.Tests = []TestID{LAT}; c.CellTime = Duration(5 * time.Second) })
	cache := &mixedCaches{on: map[string]bool{"a": true, "b": false}}
	ctx, cancel := context.WithCancel(context.Background())
	h := &hooked{Engine: s.eng, cancelAt: 120, cancel: cancel}
	r, _ := s.runner(t, h)
	r.Cache = cache
	require.ErrorIs(t, r.Run(ctx, nil), ErrInterrupted)
	assert.Equal(t, map[string]bool{"a": true, "b": false}, cache.on, "put back after the interrupt")

	// The resumed process finds both disabled (say, after a power cycle
	// kept the setting): it restores what the first process found.
	cache.on["a"], cache.on["b"] = false, false
	require.NoError(t, s.eng.Close())
	prior := Replay(s.info.Stages, s.records(t))
	s.open(t)
	r2, _ := s.runner(t, s.eng)
	r2.Cache = cache
	require.NoError(t, r2.Run(context.Background(), prior))
	assert.Equal(t, map[string]bool{"a": true, "b": false}, cache.on)
	recs := s.records(t)
	first := recs[1].WriteCache
	require.NotNil(t, first)
	assert.Equal(t, "unknown", first.Before)
	assert.Equal(t, map[string]string{"a": "enabled", "b": "disabled"}, first.Devices)
	last := recs[len(recs)-1]
	if last.Type == RecEnd {
		last = recs[len(recs)-2]
	}
	require.Equal(t, RecWriteCache, last.Type)
	assert.True(t, last.WriteCache.Restore)
	assert.Equal(t, map[string]string{"a": "enabled", "b": "disabled"}, last.WriteCache.Devices)
}

// rounder runs rounds in one go, as the fio engine does through fio servers.
type rounder struct {
	engine.Engine
	rounds   int
	cancelAt int // cancel during this round
	cancel   context.CancelFunc
	failAt   int // fail this round as a whole
	seeds    []uint64
}

// RunCells runs several cells in one go and reports them when all have
// run; one cell it runs as a cell, as the fio engine does.
func (r *rounder) RunCells(ctx context.Context, name string, cells []engine.Cell, done func(int, engine.Measurement, time.Duration) error) error {
	if len(cells) == 1 {
		return r.Engine.RunCells(ctx, name, cells, done)
	}
	r.rounds++
	if r.rounds == r.cancelAt {
		r.cancel()
		return &engine.BatchError{Err: ctx.Err()}
	}
	if r.rounds == r.failAt {
		return &engine.BatchError{Err: errors.New("fio failed (exit status 1): connection reset")}
	}
	var out []engine.Measurement
	for _, c := range cells {
		r.seeds = append(r.seeds, c.Workload.Seed)
		m, err := engine.RunCell(ctx, r.Engine, c)
		if err != nil {
			return &engine.BatchError{Err: err}
		}
		out = append(out, m)
	}
	for i, m := range out {
		if err := done(i, m, time.Second); err != nil {
			return err
		}
	}
	return nil
}

// An engine that runs a round in one go reports its cells when the round
// ends; they are journaled in order, and a round cut short journals none of
// them and is re-run on resume.
func TestRoundRunner(t *testing.T) {
	s := newSetup(t, "enterprise", func(c *Config) { c.Tests = []TestID{LAT}; c.CellTime = Duration(5 * time.Second) })
	ctx, cancel := context.WithCancel(context.Background())
	e := &rounder{Engine: s.eng, cancelAt: 3, cancel: cancel}
	r, _ := s.runner(t, e)
	require.ErrorIs(t, r.Run(ctx, nil), ErrInterrupted)
	recs := s.records(t)
	cells := 0
	for _, rec := range recs {
		if rec.Type == RecCell {
			assert.Equal(t, cells%9, *rec.Cell, "in loop order")
			assert.LessOrEqual(t, rec.Round, 2, "nothing of the cut round")
			cells++
		}
	}
	assert.Equal(t, 2*9, cells)
	lat := s.info.Stages[0]
	assert.Equal(t, CellSeed(s.info.Config.Seed, lat.ID, 2, 4), e.seeds[9+4], "each cell keeps its own seed")

	require.NoError(t, s.eng.Close())
	prior := Replay(s.info.Stages, s.records(t))
	s.open(t)
	e2 := &rounder{Engine: s.eng}
	r2, _ := s.runner(t, e2)
	require.NoError(t, r2.Run(context.Background(), prior))
	st := Replay(s.info.Stages, s.records(t))
	assert.True(t, st.Ended)
	assert.GreaterOrEqual(t, st.Stages[lat.ID].Rounds(), 5)
	assert.Equal(t, st.Stages[lat.ID].Rounds()-2, e2.rounds, "resume re-ran the cut round whole")

	// A round that fails as a whole is the round's error, not its first
	// cell's, and journals none of its cells.
	s = newSetup(t, "enterprise", func(c *Config) { c.Tests = []TestID{LAT}; c.CellTime = Duration(5 * time.Second) })
	r, _ = s.runner(t, &rounder{Engine: s.eng, failAt: 2})
	err := r.Run(context.Background(), nil)
	require.EqualError(t, err, "Latency round 2: fio failed (exit status 1): connection reset")
	st = Replay(s.info.Stages, s.records(t))
	assert.Equal(t, 1, st.Stages[lat.ID].Rounds())
	require.Len(t, st.Errors, 1)
	assert.Equal(t, err.Error(), st.Errors[0].Error)
}

// resettingDrive is a drive whose purge turns the write cache back on, as a
// format or sanitize followed by a controller reset may.
type resettingDrive struct{ *sim.Engine }

func (d resettingDrive) Purge(ctx context.Context, job string) (engine.PurgeReport, error) {
	rep, err := d.Engine.Purge(ctx, job)
	_ = d.SetWriteCache(true)
	return rep, err
}

// noCache is a target without a volatile write cache.
type noCache struct{ sets int }

func (n *noCache) WriteCache() (bool, error)                      { return false, precondition.ErrNoVolatileCache }
func (n *noCache) SetWriteCache(on bool) error                    { n.sets++; return nil }
func (n *noCache) DeviceWriteCaches() map[string]bool             { return nil }
func (n *noCache) RestoreDeviceWriteCaches(map[string]bool) error { return nil }
func (n *noCache) TakeCommands() []engine.Command                 { return nil }

func TestWriteCacheCheckedAfterEveryPurge(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	s := newSetup(t, "enterprise", func(c *Config) { c.Tests = []TestID{TP}; c.CellTime = Duration(5 * time.Second) })
	r, _ := s.runner(t, s.eng)
	r.Purger.Engine = resettingDrive{s.eng}
	require.NoError(t, r.Run(context.Background(), nil))
	var checks []WriteCacheResult
	for _, rec := range s.records(t) {
		if rec.Type == RecWriteCache && rec.WriteCache.Check != "" {
			checks = append(checks, *rec.WriteCache)
		}
	}
	require.Len(t, checks, 4, "two throughput stages, each checked after its purge and before its rounds")
	for i, c := range checks {
		if c.Check == CheckAfterPurge {
			assert.Equal(t, "enabled", c.Before, "check %d: the purge turned the cache on", i)
		}
		assert.Equal(t, "disabled", c.After, "check %d: and it is set back to WCD", i)
	}

	// A drive without a volatile write cache: recorded as such, never set.
	s = newSetup(t, "enterprise", func(c *Config) { c.Tests = []TestID{LAT}; c.CellTime = Duration(5 * time.Second) })
	r, _ = s.runner(t, s.eng)
	nc := &noCache{}
	r.Cache = nc
	require.NoError(t, r.Run(context.Background(), nil))
	assert.Zero(t, nc.sets)
	for _, rec := range s.records(t) {
		if rec.Type == RecWriteCache {
			assert.Equal(t, NoWriteCache, rec.WriteCache.After)
			assert.Empty(t, rec.WriteCache.Error)
		}
	}
}

func TestRunInfoOperator(t *testing.T) {
	dir := t.TempDir()
	ri := RunInfo{Schema: Schema, Tool: "ptsrun", Version: "9.9", Operator: Operator{TestedBy: "A. Tester", Lab: "Lab 1",
		DUTNotes: []device.Fact{{Key: device.FactNAND, Value: "TLC 176L", Source: device.SourceOperator}}}}
	require.NoError(t, WriteRunInfo(dir, ri))
	b, err := os.ReadFile(filepath.Join(dir, RunFile))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"tested_by": "A. Tester"`, "run.json keeps the operator at its top level")
	got, err := LoadRunInfo(dir)
	require.NoError(t, err)
	assert.Equal(t, ri.Operator, got.Operator)

	// A run.json from before these fields loads; they are empty, not invented.
	old := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(old, RunFile), []byte(`{"schema": 1, "tool": "ptsrun", "version": "0.1.0",
		"host": {"hostname": "h", "cpus": 2}, "targets": [{"spec": "/dev/sdb", "kind": "block", "capacity_bytes": 1, "logical_block_bytes": 512}]}`), 0o644))
	got, err = LoadRunInfo(old)
	require.NoError(t, err)
	assert.Equal(t, Operator{}, got.Operator)
	assert.Equal(t, device.DMI{}, got.Host.DMI)
	assert.Nil(t, got.Targets[0].HBA)
	assert.Empty(t, got.Targets[0].Facts)
}
