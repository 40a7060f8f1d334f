package matrix

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
)

func info(t *testing.T, mod func(*pts.Config)) pts.RunInfo {
	t.Helper()
	c := pts.DefaultConfig()
	c.Targets = []string{"sim"}
	if mod != nil {
		mod(&c)
	}
	p, err := c.Resolve()
	require.NoError(t, err)
	return pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: "test", Config: c, Profile: p,
		Stages: c.Stages(p), Engine: "test"}
}

// meas builds a measurement of one minute: reads and writes with given
// counts and a single latency each, plus an optional slow outlier.
func meas(reads, writes int64, readLatNs, writeLatNs int64, bs int64) *engine.Measurement {
	m := &engine.Measurement{Engine: "test", Elapsed: time.Minute}
	m.Read.Record(readLatNs, reads, bs)
	m.Write.Record(writeLatNs, writes, bs)
	return m
}

type journalBuilder struct {
	recs []pts.Record
	t    time.Time
}

func (b *journalBuilder) add(r pts.Record) {
	b.t = b.t.Add(time.Second)
	r.Time = b.t
	b.recs = append(b.recs, r)
}

// stage journals a complete stage whose cells come from cell(round, index).
func (b *journalBuilder) stage(s pts.Stage, rounds int, steadyAt int, cell func(round, idx int) *engine.Measurement) {
	b.add(pts.Record{Type: pts.RecStageStart, Stage: s.ID})
	b.add(pts.Record{Type: pts.RecPurge, Stage: s.ID, Purge: &pts.PurgeResult{Method: "sim-format", Compliant: true}})
	w := *s.Precondition
	b.add(pts.Record{Type: pts.RecPrecondition, Stage: s.ID, Workload: &w, Measurement: meas(0, 1000, 0, 1000, 128<<10)})
	for r := 1; r <= rounds; r++ {
		b.add(pts.Record{Type: pts.RecRoundStart, Stage: s.ID, Round: r})
		row := make([]*engine.Measurement, len(s.Cells))
		for i := range s.Cells {
			idx := i
			row[i] = cell(r, i)
			b.add(pts.Record{Type: pts.RecCell, Stage: s.ID, Round: r, Cell: &idx, Key: s.Cells[i].Key, Measurement: row[i]})
		}
		var vals []float64
		for _, tr := range s.Tracking {
			vals = append(vals, tr.Metric.Value(*row[tr.Cell]))
		}
		b.add(pts.Record{Type: pts.RecRoundEnd, Stage: s.ID, Round: r, Tracking: vals})
	}
	steady := steadyAt > 0
	end := pts.Record{Type: pts.RecStageEnd, Stage: s.ID, Steady: &steady, Window: []int{max(1, rounds-4), rounds}}
	if steady {
		end.SSRound = steadyAt
	}
	b.add(end)
}

func TestWindowAggregates(t *testing.T) {
	ri := info(t, func(c *pts.Config) { c.Tests = []pts.TestID{pts.LAT} })
	s := ri.Stages[0]
	b := &journalBuilder{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	b.add(pts.Record{Type: pts.RecStart})
	b.stage(s, 6, 6, func(r, i int) *engine.Measurement {
		switch i {
		case 0: // 8 KiB 100/0: more I/Os and higher latency each round
			m := meas(int64(1000*r), 0, int64(r)*1_000_000, 0, 8192)
			if r == 3 {
				m.Read.Record(50_000_000, 1, 8192) // one 50 ms outlier in round 3
			}
			return m
		case 3: // 8 KiB 65/35: reads and writes
			return meas(650, 350, 100_000, 300_000, 8192)
		}
		return meas(100, 100, 50_000, 50_000, 4096)
	})
	b.add(pts.Record{Type: pts.RecEnd})
	res := Build(ri, b.recs, false)
	require.True(t, res.Complete)
	st := res.Find("lat").Stages[0]
	assert.Equal(t, [2]int{2, 6}, st.Window)
	assert.True(t, st.Steady)
	assert.Equal(t, 6, st.SSRound)

	c := st.Cells[0]
	// IOPS: mean of the per-round IOPS of rounds 2–6.
	wantIOPS := 0.0
	for r := 2; r <= 6; r++ {
		n := float64(1000 * r)
		if r == 3 {
			n++
		}
		wantIOPS += n / 60 / 5
	}
	assert.InDelta(t, wantIOPS, c.IOPS, 1e-9)
	// Mean latency: weighted by I/Os, not the mean of the round means.
	var sum, n float64
	for r := 2; r <= 6; r++ {
		sum += float64(1000*r) * float64(r)
		n += float64(1000 * r)
	}
	sum += 50
	n++
	assert.InDelta(t, sum/n, c.LatMeanMs, 1e-9)
	assert.NotEqual(t, 4.0, c.LatMeanMs, "the mean of round means would be 4 ms")
	assert.Equal(t, 50.0, c.LatMaxMs, "the maximum is the maximum")
	assert.InDelta(t, (2+50+4+5+6)/5.0, c.LatMaxMeanMs, 1e-9, "the mean of the per-round maxima is reported apart")
	// 99.999 %: from the merged histogram; 20 001 I/Os, so it is the outlier.
	assert.InEpsilon(t, 50.0, c.LatP99999Ms, 0.01)
	assert.InEpsilon(t, 6.0, c.LatP99Ms, 0.01)
	require.Len(t, c.PerRound, 5)
	assert.Equal(t, 2, c.PerRound[0].Round)

	mixed := st.Cells[3]
	assert.InDelta(t, 1000.0/60, mixed.IOPS, 1e-9, "mixed-cell IOPS is read + write")
	assert.InDelta(t, 650.0/60, mixed.ReadIOPS, 1e-9)
	assert.InDelta(t, (650*0.1+350*0.3)/1000, mixed.LatMeanMs, 1e-12)
	assert.InDelta(t, 0.1, mixed.ReadLatMeanMs, 1e-12)
	assert.InDelta(t, 0.3, mixed.WriteLatMean, 1e-12)
	assert.InDelta(t, 1000.0*8192/60/1e6, mixed.MBps, 1e-12)

	// Tracking: ART of 4 KiB 0/100 per round.
	require.Len(t, st.Tracking, 1)
	assert.Len(t, st.Tracking[0].Values, 6)
	assert.Equal(t, 2, st.Tracking[0].Verdict.FirstRound)
	assert.True(t, st.Tracking[0].Verdict.Steady)

	assert.Equal(t, []Deviation{{Code: "simulated", Text: "The device is ptsrun's simulated SSD: the results describe a model, not hardware."}}, res.Deviations)
	assert.False(t, res.Conforming)
	b2, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Contains(t, string(b2), `"lat_p99_999_ms"`)
}

func TestDeviations(t *testing.T) {
	ri := info(t, func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.TP}
		c.Profile = "client"
		c.CellTime = pts.Duration(10 * time.Second)
		c.TPActiveRange = 50
		c.MaxRounds = 6
		c.Engine = "native"
	})
	ri.Engine = "native io_uring"
	s := ri.Stages[0]
	b := &journalBuilder{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	b.add(pts.Record{Type: pts.RecStart})
	b.add(pts.Record{Type: pts.RecWriteCache, WriteCache: &pts.WriteCacheResult{Requested: true, Before: "unknown", After: "unknown", Error: "cannot be read"}})
	b.add(pts.Record{Type: pts.RecStageStart, Stage: s.ID})
	b.add(pts.Record{Type: pts.RecPurge, Stage: s.ID, Purge: &pts.PurgeResult{Method: "none", Skipped: true}})
	w := *s.Precondition
	b.add(pts.Record{Type: pts.RecPrecondition, Stage: s.ID, Workload: &w, Measurement: meas(0, 10, 0, 1, 1<<20)})
	for r := 1; r <= 4; r++ {
		b.add(pts.Record{Type: pts.RecRoundStart, Stage: s.ID, Round: r})
		for i := range s.Cells {
			idx := i
			b.add(pts.Record{Type: pts.RecCell, Stage: s.ID, Round: r, Cell: &idx, Measurement: meas(int64(r*100), 0, 1000, 0, 1<<20)})
		}
		b.add(pts.Record{Type: pts.RecRoundEnd, Stage: s.ID, Round: r, Tracking: []float64{float64(r)}})
	}
	b.add(pts.Record{Type: pts.RecRoundStart, Stage: s.ID, Round: 5})
	b.add(pts.Record{Type: pts.RecInterrupted, Stage: s.ID, Round: 5})
	b.add(pts.Record{Type: pts.RecResume, Stage: s.ID, Round: 5})
	for r := 5; r <= 6; r++ {
		b.add(pts.Record{Type: pts.RecRoundStart, Stage: s.ID, Round: r})
		for i := range s.Cells {
			idx := i
			b.add(pts.Record{Type: pts.RecCell, Stage: s.ID, Round: r, Cell: &idx, Measurement: meas(int64(r*100), 0, 1000, 0, 1<<20)})
		}
		b.add(pts.Record{Type: pts.RecRoundEnd, Stage: s.ID, Round: r, Tracking: []float64{float64(r)}})
	}
	f := false
	b.add(pts.Record{Type: pts.RecStageEnd, Stage: s.ID, Steady: &f, Window: []int{2, 6}})
	b.add(pts.Record{Type: pts.RecEnd})
	res := Build(ri, b.recs, true)
	codes := map[string]string{}
	for _, d := range res.Deviations {
		codes[d.Code] = d.Text
	}
	for _, c := range []string{"cell_time", "active_range", "max_rounds", "purge_none", "write_cache", "not_steady", "resumed", "journal_cut"} {
		assert.Contains(t, codes, c)
	}
	assert.NotContains(t, codes, "simulated")
	assert.Contains(t, codes["not_steady"], "rounds (2–6)")
	assert.Contains(t, codes["resumed"], "round 5 was re-run")
	assert.Contains(t, codes["active_range"], "Throughput: the active range was 50 %, below the PTS-C profile's 75 %")
	assert.False(t, res.Conforming)
	st := res.Tests[0].Stages[0]
	assert.False(t, st.Steady)
	assert.Equal(t, 6, st.Rounds)
	assert.InDelta(t, (200+300+400+500+600)/5.0/60, st.Cells[0].IOPS, 1e-9)
}

// A drive without a volatile write cache satisfies WCD and cannot give WCE;
// a stage's check that finds the cache moved and cannot put it back is a
// deviation naming the stage.
func TestWriteCacheDeviations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		profile string
		recs    []pts.Record
		want    []string // deviation texts; none: conforming as to the write cache
	}{
		{"no volatile cache, WCD asked", "enterprise", []pts.Record{
			{Type: pts.RecWriteCache, WriteCache: &pts.WriteCacheResult{Requested: false, Before: "none", After: "none"}},
			{Type: pts.RecWriteCache, Stage: "lat", WriteCache: &pts.WriteCacheResult{Requested: false, Before: "none", After: "none", Check: pts.CheckAfterPurge}},
		}, nil},
		{"no volatile cache, WCE asked", "client", []pts.Record{
			{Type: pts.RecWriteCache, WriteCache: &pts.WriteCacheResult{Requested: true, Before: "none", After: "none"}},
			{Type: pts.RecWriteCache, Stage: "lat", WriteCache: &pts.WriteCacheResult{Requested: true, Before: "none", After: "none", Check: pts.CheckAfterPurge}},
		}, []string{"The write cache could not be set to Enabled as the PTS-C profile asks (the drive has no volatile write cache)."}},
		{"put back after the purge", "enterprise", []pts.Record{
			{Type: pts.RecWriteCache, WriteCache: &pts.WriteCacheResult{Requested: false, Before: "enabled", After: "disabled"}},
			{Type: pts.RecWriteCache, Stage: "lat", WriteCache: &pts.WriteCacheResult{Requested: false, Before: "enabled", After: "disabled", Check: pts.CheckAfterPurge}},
		}, nil},
		{"cannot be read at all: said once", "enterprise", []pts.Record{
			{Type: pts.RecWriteCache, WriteCache: &pts.WriteCacheResult{Requested: false, Before: "unknown", After: "unknown", Error: "the write cache of /dev/loop4 (loop) cannot be set"}},
			{Type: pts.RecWriteCache, Stage: "lat", WriteCache: &pts.WriteCacheResult{Requested: false, Before: "unknown", After: "unknown",
				Check: pts.CheckAfterPurge, Error: "the write cache of /dev/loop4 (loop) cannot be read"}},
		}, []string{"The write cache could not be set to Disabled as the PTS-E profile asks (the write cache of /dev/loop4 (loop) cannot be set)."}},
		{"resumed: the start failed twice, said once", "enterprise", []pts.Record{
			{Type: pts.RecWriteCache, WriteCache: &pts.WriteCacheResult{Requested: false, Before: "unknown", After: "unknown", Error: "the write cache of /dev/loop4 (loop) cannot be set"}},
			{Type: pts.RecStart},
			{Type: pts.RecWriteCache, WriteCache: &pts.WriteCacheResult{Requested: false, Before: "unknown", After: "unknown", Error: "the write cache of /dev/loop4 (loop) cannot be set"}},
		}, []string{"The write cache could not be set to Disabled as the PTS-E profile asks (the write cache of /dev/loop4 (loop) cannot be set)."}},
		{"could not be put back", "enterprise", []pts.Record{
			{Type: pts.RecWriteCache, WriteCache: &pts.WriteCacheResult{Requested: false, Before: "enabled", After: "disabled"}},
			{Type: pts.RecWriteCache, Stage: "lat", WriteCache: &pts.WriteCacheResult{Requested: false, Before: "enabled", After: "enabled",
				Check: pts.CheckAfterPurge, Error: "nvme set-feature exited 1"}},
		}, []string{"Latency: the write cache was enabled after purge and could not be set back to Disabled (nvme set-feature exited 1)."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ri := info(t, func(c *pts.Config) { c.Tests = []pts.TestID{pts.LAT}; c.Profile = tc.profile; c.Engine = "native" })
			ri.Engine = "native io_uring"
			recs := append([]pts.Record{{Type: pts.RecStart}}, tc.recs...)
			res := Build(ri, recs, false)
			var got []string
			for _, d := range res.Deviations {
				if d.Code == "write_cache" {
					got = append(got, d.Text)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// Each test's active range is held against the profile's for that test,
// above as well as below, and the preconditioning's against the whole device.
func TestActiveRangeDeviations(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*pts.Config)
		want []string
	}{
		{"client defaults: IOPS 75, throughput and latency 100", func(c *pts.Config) { c.Profile = "client" }, nil},
		{"client IOPS at 100: above", func(c *pts.Config) { c.Profile = "client"; c.ActiveRange = 100 },
			[]string{"IOPS: the active range was 100 %, above the PTS-C profile's 75 %."}},
		{"enterprise latency at 50: below", func(c *pts.Config) { c.LATActiveRange = 50 },
			[]string{"Latency: the active range was 50 %, below the PTS-E profile's 100 %."}},
		{"preconditioning over part of the device", func(c *pts.Config) { c.PCActiveRange = 80 },
			[]string{"The workload-independent preconditioning covered 80 % of the device, not all of it."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ri := info(t, func(c *pts.Config) { c.Engine = "native"; tc.mod(c) })
			ri.Engine = "native io_uring"
			var got []string
			for _, d := range Build(ri, nil, false).Deviations {
				if d.Code == "active_range" || d.Code == "pc_active_range" {
					got = append(got, d.Text)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// The verdict names the tests it covers, and a target set's results say
// they are the set's.
func TestVerdictScope(t *testing.T) {
	ri := info(t, func(c *pts.Config) { c.Tests = []pts.TestID{pts.IOPS, pts.LAT}; c.Engine = "native" })
	ri.Engine = "native io_uring"
	b := &journalBuilder{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	for _, s := range ri.Stages {
		b.stage(s, 5, 5, func(r, i int) *engine.Measurement {
			return meas(1000, 1000, 100_000, 20_000, s.Cells[i].Workload.BlockSize)
		})
	}
	res := Build(ri, b.recs, false)
	assert.True(t, res.Conforming, "%v", res.Deviations)
	// Named with the appendix that says how the run reads the PTS where
	// its text could not be read.
	assert.Equal(t, "CONFORMS to SNIA SSS PTS-E 2.0.2 for the IOPS and Latency tests, as read in appendix C: the run followed the "+
		"specification with no deviation.", res.Verdict)
	assert.Empty(t, res.Scope, "one device: nothing to scope")

	ri.Targets = []device.Identity{{Spec: "/dev/loop0", Kind: device.KindBlock}, {Spec: "/dev/loop1", Kind: device.KindBlock}}
	res = Build(ri, b.recs, false)
	assert.Contains(t, res.Scope, "a target set of 2 targets loaded at once (/dev/loop0, /dev/loop1), not of any one device")

	ri = info(t, func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.TP}
		c.Engine = "native"
		c.CellTime = pts.Duration(10 * time.Second)
	})
	ri.Engine = "native io_uring"
	res = Build(ri, nil, false)
	assert.Regexp(t, `^Does NOT conform to SNIA SSS PTS-E 2\.0\.2 for the Throughput test, as read in appendix C: \d+ deviations?\.$`, res.Verdict)
}

func TestTablesAndCSV(t *testing.T) {
	ri := info(t, nil)
	b := &journalBuilder{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	for _, s := range ri.Stages {
		b.stage(s, 5, 5, func(r, i int) *engine.Measurement {
			w := s.Cells[i].Workload
			rd := int64(w.ReadPct) * 10 * int64(i+1)
			return meas(rd, int64(100-w.ReadPct)*10*int64(i+1), 100_000, 20_000, w.BlockSize)
		})
	}
	res := Build(ri, b.recs, false)
	tabs := res.Tables()
	var names []string
	for _, tb := range tabs {
		names = append(names, tb.Name)
	}
	assert.Equal(t, []string{"iops", "iops_tracking", "tp", "tp-1024k_tracking", "tp-128k_tracking",
		"lat_mean_ms", "lat_p99_999_ms", "lat_max_ms", "lat_max_mean_ms", "lat_iops", "lat_tracking"}, names)
	iops := tabs[0]
	assert.Equal(t, []string{"1024KiB", "128KiB", "64KiB", "32KiB", "16KiB", "8KiB", "4KiB", "0.5KiB"}, iops.Rows)
	assert.Equal(t, []string{"100/0", "95/5", "65/35", "50/50", "35/65", "5/95", "0/100"}, iops.Cols)
	// Row 4 KiB (index 6), mix 65/35 (column 2) is cell 2*8+6.
	assert.InDelta(t, float64(1000*(2*8+6+1))/60, iops.Values[6][2], 1e-9)
	var buf bytes.Buffer
	require.NoError(t, iops.WriteCSV(&buf))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 9)
	assert.Equal(t, "bs,100/0,95/5,65/35,50/50,35/65,5/95,0/100", lines[0])
	assert.True(t, strings.HasPrefix(lines[8], "0.5KiB,"))

	tp := tabs[2]
	assert.Equal(t, []string{"1024KiB", "128KiB"}, tp.Rows)
	assert.InDelta(t, 1000.0*(1<<20)/60/1e6, tp.Values[0][0], 1e-9)

	dir := t.TempDir()
	require.NoError(t, res.Save(dir))
	for _, n := range names {
		_, err := os.Stat(filepath.Join(dir, "tables", n+".csv"))
		assert.NoError(t, err, n)
	}
	var back Results
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, res.Tests[0].Stages[0].Cells[5].IOPS, back.Tests[0].Stages[0].Cells[5].IOPS)
}

func TestMissingCellsAreAbsent(t *testing.T) {
	ri := info(t, func(c *pts.Config) { c.Tests = []pts.TestID{pts.IOPS} })
	b := &journalBuilder{}
	s := ri.Stages[0]
	b.add(pts.Record{Type: pts.RecStageStart, Stage: s.ID})
	b.add(pts.Record{Type: pts.RecRoundStart, Stage: s.ID, Round: 1})
	idx := 0
	b.add(pts.Record{Type: pts.RecCell, Stage: s.ID, Round: 1, Cell: &idx, Measurement: meas(1, 0, 1, 0, 1<<20)})
	res := Build(ri, b.recs, false)
	st := res.Tests[0].Stages[0]
	assert.False(t, st.Complete)
	assert.Zero(t, st.Rounds)
	tb := res.Tables()[0]
	for _, row := range tb.Values {
		for _, v := range row {
			assert.True(t, math.IsNaN(v), "an unmeasured cell is absent, not zero")
		}
	}
	var buf bytes.Buffer
	require.NoError(t, tb.WriteCSV(&buf))
	assert.Contains(t, buf.String(), "\n1024KiB,,,,,,,\n")
	_, err := json.Marshal(res)
	require.NoError(t, err)
	codes := []string{}
	for _, d := range res.Deviations {
		codes = append(codes, d.Code)
	}
	assert.Contains(t, codes, "incomplete")
}

// A value a cell does not have is NaN in memory and survives results.json
// as "absent", never as a zero.
func TestAbsentValuesRoundTrip(t *testing.T) {
	c := CellResult{Key: pts.Key(engine.Random, 4096, 0), BlockSize: 4096, IOPS: 1234.5, MBps: 5.06, LatMeanMs: 0.25,
		LatMaxMs: 3, LatP99Ms: math.NaN(), LatP9999Ms: math.NaN(), LatP99999Ms: math.NaN(), Published: true}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"absent":["lat_p99_ms","lat_p99_99_ms","lat_p99_999_ms"]`)
	assert.Contains(t, string(b), `"lat_p99_999_ms":0`)
	var back CellResult
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, math.IsNaN(back.LatP99999Ms))
	assert.Equal(t, 1234.5, back.IOPS)
	v, ok := back.Value(pts.MetricLatP99999)
	assert.False(t, ok)
	assert.True(t, math.IsNaN(v))
	v, ok = back.Value(pts.MetricIOPS)
	assert.True(t, ok)
	assert.Equal(t, 1234.5, v)
	_, ok = CellResult{IOPS: 5}.Value(pts.MetricIOPS)
	assert.False(t, ok, "a cell without rounds and not published has no values")
	assert.True(t, pts.MetricLatMax.LowerIsBetter())
	assert.False(t, pts.MetricMBps.LowerIsBetter())
}

// An error is named where it stopped the run: in the stage it stopped, or,
// when the run was resumed and went on, as having happened; stages after it
// are "not run", never "incomplete".
func TestErrorDeviations(t *testing.T) {
	ri := info(t, func(c *pts.Config) { c.Tests = []pts.TestID{pts.IOPS, pts.LAT} })
	iops, lat := ri.Stages[0], ri.Stages[1]
	ioErr := "I/O error: /dev/x write of 4096 bytes at offset 0: input/output error"
	cases := []struct {
		name  string
		recs  func(b *journalBuilder)
		codes map[string]string
	}{
		{"in preconditioning", func(b *journalBuilder) {
			b.add(pts.Record{Type: pts.RecStageStart, Stage: iops.ID})
			b.add(pts.Record{Type: pts.RecError, Stage: iops.ID, Error: "preconditioning before IOPS: " + ioErr})
		}, map[string]string{
			"error":   "IOPS: stopped by an error after 0 complete rounds: preconditioning before IOPS: " + ioErr + ".",
			"not_run": "Latency: not run; the run stopped before it.",
		}},
		{"after a round", func(b *journalBuilder) {
			b.stage(iops, 5, 5, func(r, i int) *engine.Measurement { return meas(100, 100, 1000, 1000, 4096) })
			b.add(pts.Record{Type: pts.RecStageStart, Stage: lat.ID})
			b.add(pts.Record{Type: pts.RecRoundStart, Stage: lat.ID, Round: 1})
			for i := range lat.Cells {
				idx := i
				b.add(pts.Record{Type: pts.RecCell, Stage: lat.ID, Round: 1, Cell: &idx, Measurement: meas(100, 100, 1000, 1000, 4096)})
			}
			b.add(pts.Record{Type: pts.RecRoundEnd, Stage: lat.ID, Round: 1, Tracking: []float64{1}})
			b.add(pts.Record{Type: pts.RecError, Stage: lat.ID, Error: ioErr})
		}, map[string]string{
			"error": "Latency: stopped by an error after 1 complete round: " + ioErr + ".",
		}},
		{"resumed after it", func(b *journalBuilder) {
			b.add(pts.Record{Type: pts.RecStageStart, Stage: iops.ID})
			b.add(pts.Record{Type: pts.RecError, Stage: iops.ID, Error: ioErr})
			b.add(pts.Record{Type: pts.RecResume, Stage: iops.ID}) // restarts the stage from its purge
			b.stage(iops, 5, 5, func(r, i int) *engine.Measurement { return meas(100, 100, 1000, 1000, 4096) })
			b.stage(lat, 5, 5, func(r, i int) *engine.Measurement { return meas(100, 100, 1000, 1000, 4096) })
			b.add(pts.Record{Type: pts.RecEnd})
		}, map[string]string{
			"error_resumed": "IOPS: an error stopped the run, which was then resumed: " + ioErr + ".",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &journalBuilder{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
			b.add(pts.Record{Type: pts.RecStart})
			c.recs(b)
			res := Build(ri, b.recs, false)
			got := map[string]string{}
			for _, d := range res.Deviations {
				got[d.Code] = d.Text
			}
			for code, text := range c.codes {
				assert.Equal(t, text, got[code], code)
			}
			assert.NotContains(t, got, "incomplete", "a stage stopped by an error or never run is not merely incomplete")
		})
	}
}

func TestBlockSizesLeftOutDeviation(t *testing.T) {
	for _, tc := range []struct {
		tests []pts.TestID
		want  string
	}{
		{[]pts.TestID{"iops"}, "The 0.5 KiB cells were left out: the target's logical block size is 4096 bytes, and no I/O can be smaller."},
		{[]pts.TestID{"lat"}, "The 0.5 KiB cells were left out: the target's logical block size is 4096 bytes, and no I/O can be smaller."},
		{[]pts.TestID{"tp"}, ""}, // no cell smaller than 128 KiB to leave out
	} {
		ri := info(t, func(c *pts.Config) { c.Tests, c.MinBlock = tc.tests, 4096 })
		res := Build(ri, []pts.Record{{Type: pts.RecStart}}, false)
		got := ""
		for _, d := range res.Deviations {
			if d.Code == "block_sizes" {
				got = d.Text
			}
		}
		assert.Equal(t, tc.want, got, "%v", tc.tests)
	}
}

// A quick look (--block-sizes, --mixes) is a deviation that names exactly
// what it left out, and composes with a 4Kn target's own left-out cells.
func TestSubsetDeviation(t *testing.T) {
	iops3 := []int64{1 << 20, 64 << 10, 4 << 10}
	mix3 := []int{100, 65, 0}
	const leftOut = "The 0.5 KiB cells were left out: the target's logical block size is 4096 bytes, and no I/O can be smaller."
	for _, tc := range []struct {
		name     string
		mod      func(*pts.Config)
		subset   []string
		leftOut4 string // the block_sizes deviation of a 4Kn target
	}{
		{name: "full matrix", mod: func(c *pts.Config) {}, leftOut4: leftOut},
		{name: "every size named is no subset", mod: func(c *pts.Config) { c.BlockSizes = pts.IOPSBlockSizes }, leftOut4: leftOut},
		{name: "IOPS quick look", mod: func(c *pts.Config) { c.Tests, c.BlockSizes, c.Mixes = []pts.TestID{pts.IOPS}, iops3, mix3 },
			subset: []string{"IOPS: a quick look at 9 of the matrix's 56 cells (--block-sizes, --mixes); " +
				"left out: block sizes 128, 32, 16, 8 and 0.5 KiB; R/W mixes 95/5, 50/50, 35/65 and 5/95."}},
		{name: "sizes only, every test", mod: func(c *pts.Config) { c.BlockSizes = iops3 },
			subset: []string{
				"IOPS: a quick look at 21 of the matrix's 56 cells (--block-sizes); left out: block sizes 128, 32, 16, 8 and 0.5 KiB.",
				"Throughput: a quick look at 2 of the matrix's 4 cells (--block-sizes); left out: the stage of block size 128 KiB.",
				"Latency: a quick look at 3 of the matrix's 9 cells (--block-sizes); left out: block sizes 8 and 0.5 KiB."}},
		{name: "throughput writes only", mod: func(c *pts.Config) { c.Tests, c.Mixes = []pts.TestID{pts.TP}, []int{0} },
			subset: []string{"Throughput: a quick look at 2 of the matrix's 4 cells (--mixes); left out: R/W mix 100/0."}},
		// The user kept 0.5 KiB: the target leaves it out, and says so.
		{name: "with 0.5 KiB", mod: func(c *pts.Config) {
			c.Tests, c.BlockSizes, c.Mixes = []pts.TestID{pts.IOPS}, append(slices.Clone(iops3), 512), mix3
		}, subset: []string{"IOPS: a quick look at 9 of the matrix's 56 cells (--block-sizes, --mixes); " +
			"left out: block sizes 128, 32, 16 and 8 KiB; R/W mixes 95/5, 50/50, 35/65 and 5/95."},
			leftOut4: leftOut},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, minBlock := range []int64{0, 4096} {
				ri := info(t, func(c *pts.Config) { tc.mod(c); c.MinBlock = minBlock })
				res := Build(ri, []pts.Record{{Type: pts.RecStart}}, false)
				var subset []string
				blocks := ""
				for _, d := range res.Deviations {
					switch d.Code {
					case "subset":
						subset = append(subset, d.Text)
					case "block_sizes":
						blocks = d.Text
					}
				}
				want := tc.subset
				if minBlock == 0 && len(want) > 0 && tc.leftOut4 != "" {
					// On 512-byte blocks the 0.5 KiB cells run too.
					want = []string{strings.Replace(want[0], "9 of", "12 of", 1)}
				}
				assert.Equal(t, want, subset, "block %d", minBlock)
				assert.Equal(t, want, textsOf(SubsetDeviations(ri.Config, ri.Profile)), "plan shows the same")
				if minBlock == 0 {
					assert.Empty(t, blocks)
				} else {
					assert.Equal(t, tc.leftOut4, blocks, "a 4Kn target's deviation names 0.5 KiB only when it was asked for")
				}
			}
		})
	}
}

func textsOf(ds []Deviation) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Text)
	}
	return out
}

// The tables of a quick look keep the full matrix's rows and columns, the
// cells left out empty: never zero.
func TestSubsetTables(t *testing.T) {
	ri := info(t, func(c *pts.Config) {
		c.BlockSizes, c.Mixes = []int64{1 << 20, 64 << 10, 4 << 10}, []int{100, 65, 0}
	})
	b := &journalBuilder{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	for _, s := range ri.Stages {
		b.stage(s, 5, 5, func(r, i int) *engine.Measurement {
			w := s.Cells[i].Workload
			return meas(int64(w.ReadPct)*10, int64(100-w.ReadPct)*10, 100_000, 20_000, w.BlockSize)
		})
	}
	res := Build(ri, b.recs, false)
	tabs := map[string]Table{}
	for _, tb := range res.Tables() {
		tabs[tb.Name] = tb
	}
	iops := tabs["iops"]
	assert.Equal(t, []string{"1024KiB", "128KiB", "64KiB", "32KiB", "16KiB", "8KiB", "4KiB", "0.5KiB"}, iops.Rows)
	assert.Equal(t, []string{"100/0", "95/5", "65/35", "50/50", "35/65", "5/95", "0/100"}, iops.Cols)
	ran := 0
	for i, bs := range iops.RowBytes {
		for j, mix := range []int{100, 95, 65, 50, 35, 5, 0} {
			chosen := slices.Contains(ri.Config.BlockSizes, bs) && slices.Contains(ri.Config.Mixes, mix)
			assert.Equal(t, chosen, !math.IsNaN(iops.Values[i][j]), "%s %s", iops.Rows[i], iops.Cols[j])
			if chosen {
				ran++
				assert.Positive(t, iops.Values[i][j])
			}
		}
	}
	assert.Equal(t, 9, ran)
	var buf bytes.Buffer
	require.NoError(t, iops.WriteCSV(&buf))
	assert.Contains(t, buf.String(), "\n128KiB,,,,,,,\n", "a left-out row is empty in the CSV")

	// Throughput: the 128 KiB stage left out keeps its row, empty.
	tp := tabs["tp"]
	assert.Equal(t, []string{"1024KiB", "128KiB"}, tp.Rows)
	assert.Positive(t, tp.Values[0][0])
	assert.True(t, math.IsNaN(tp.Values[1][0]) && math.IsNaN(tp.Values[1][1]))

	lat := tabs["lat_mean_ms"]
	assert.Equal(t, []string{"8KiB", "4KiB", "0.5KiB"}, lat.Rows)
	assert.Equal(t, []string{"100/0", "65/35", "0/100"}, lat.Cols)
	for i := range lat.Rows {
		for j := range lat.Cols {
			assert.Equal(t, lat.Rows[i] == "4KiB", !math.IsNaN(lat.Values[i][j]), "%s %s", lat.Rows[i], lat.Cols[j])
		}
	}
	assert.Equal(t, []string{"iops", "tp-1024k", "lat"}, stageIDs(res))
}

func stageIDs(r *Results) []string {
	var out []string
	for _, t := range r.Tests {
		for _, s := range t.Stages {
			out = append(out, s.ID)
		}
	}
	return out
}

func TestTargetName(t *testing.T) {
	for _, tc := range []struct {
		cell TargetCell
		want string
	}{
		{TargetCell{Target: "/dev/nvme0n1"}, "/dev/nvme0n1"},
		{TargetCell{Target: "/dev/nvme0n1", Host: "local"}, "/dev/nvme0n1"},
		{TargetCell{Target: "/dev/loop1", Host: "10.0.0.2:8765"}, "10.0.0.2:8765=/dev/loop1"},
		{TargetCell{Target: "10.0.0.2:8765=/dev/loop1", Host: "10.0.0.2:8765"}, "10.0.0.2:8765=/dev/loop1"},
	} {
		assert.Equal(t, tc.want, tc.cell.TargetName())
	}
}

// Host CPU: the window's mean per cell and per target, in the unit the
// engine measured it in, and a per-target table of user + system.
func TestHostCPU(t *testing.T) {
	ri := info(t, func(c *pts.Config) { c.Tests = []pts.TestID{pts.LAT} })
	s := ri.Stages[0]
	b := &journalBuilder{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	b.add(pts.Record{Type: pts.RecStart})
	b.stage(s, 6, 6, func(r, i int) *engine.Measurement {
		m := meas(100, 100, 50_000, 50_000, 4096)
		// Two fio servers' hosts: CPUs busy, summed for the set.
		a := engine.CPU{User: 0.01 * float64(r), Sys: 0.2, Of: engine.CPUOfOne}
		c := engine.CPU{User: 0.03, Sys: 0.4, Of: engine.CPUOfOne}
		m.CPU = a.Add(c)
		m.Targets = []engine.TargetStats{{Target: "/dev/loop1", Host: "127.0.0.1:8001", CPU: &a, Read: m.Read},
			{Target: "/dev/loop2", Host: "127.0.0.1:8002", CPU: &c, Write: m.Write}}
		return m
	})
	b.add(pts.Record{Type: pts.RecEnd})
	res := Build(ri, b.recs, false)
	c := res.Find("lat").Stages[0].Cells[0]
	require.NotNil(t, c.CPU)
	// Window rounds 2–6: user 0.02…0.06 on the first host, mean 0.04.
	assert.InDelta(t, 100*(0.04+0.03), c.CPU.UserPct, 1e-9)
	assert.InDelta(t, 100*(0.2+0.4), c.CPU.SysPct, 1e-9)
	assert.Equal(t, "% of one CPU", c.CPU.Unit())
	require.Len(t, c.Targets, 2)
	require.NotNil(t, c.Targets[0].CPU)
	assert.InDelta(t, 24.0, c.Targets[0].CPU.Pct(), 1e-9)
	assert.InDelta(t, 43.0, c.Targets[1].CPU.Pct(), 1e-9)

	var cpu *Table
	for _, tb := range res.TargetTables() {
		if tb.Name == "targets_cpu_pct" {
			cpu = &tb
		}
	}
	require.NotNil(t, cpu, "a per-target CPU table")
	assert.Equal(t, "% of one CPU", cpu.Unit)
	var buf bytes.Buffer
	require.NoError(t, cpu.WriteCSV(&buf))
	assert.Contains(t, buf.String(), "cell,127.0.0.1:8001=/dev/loop1,127.0.0.1:8002=/dev/loop2\n")
	assert.Contains(t, buf.String(), "\nlat:rnd-8k-100/0,24,43\n")

	// Engines that measure no CPU (the simulated drive) leave it out.
	plain := &journalBuilder{t: b.t}
	plain.add(pts.Record{Type: pts.RecStart})
	plain.stage(s, 5, 5, func(r, i int) *engine.Measurement { return meas(100, 100, 50_000, 50_000, 4096) })
	res = Build(ri, plain.recs, false)
	assert.Nil(t, res.Find("lat").Stages[0].Cells[0].CPU)
	out, err := json.Marshal(res)
	require.NoError(t, err)
	assert.NotContains(t, string(out), "host_cpu")
}

// Cells are found by test and key, and the headlines are the definitions':
// listed cells in their order, every cell of throughput; each with its
// result.
func TestCellsAndHeadlines(t *testing.T) {
	ri := info(t, nil)
	b := &journalBuilder{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	for _, s := range ri.Stages {
		b.stage(s, 5, 5, func(r, i int) *engine.Measurement {
			return meas(int64(1000*(i+1)), 0, 100_000, 0, s.Cells[i].Workload.BlockSize)
		})
	}
	res := Build(ri, b.recs, false)
	c := res.Cell(pts.IOPS, pts.Key(engine.Random, 64<<10, 65))
	require.NotNil(t, c)
	assert.Equal(t, "rnd-64k-65/35", c.Key.String())
	assert.Nil(t, res.Cell(pts.LAT, pts.Key(engine.Random, 64<<10, 65)), "not a latency cell")
	assert.Nil(t, res.Cell(pts.Custom, pts.Key(engine.Random, 4096, 0)), "no such test in the run")

	var got []string
	for _, h := range res.Headlines() {
		require.NotNil(t, h.Cell)
		assert.Equal(t, h.Key, h.Cell.Key)
		brief := ""
		if h.Brief {
			brief = "*"
		}
		got = append(got, string(h.Test)+" "+h.Key.String()+brief)
	}
	assert.Equal(t, []string{
		"iops rnd-4k-100/0*", "iops rnd-4k-65/35*", "iops rnd-4k-0/100*", "iops rnd-64k-65/35", "iops rnd-1024k-100/0",
		"tp seq-1024k-100/0*", "tp seq-1024k-0/100*", "tp seq-128k-100/0*", "tp seq-128k-0/100*",
		"lat rnd-4k-100/0*", "lat rnd-4k-0/100*"}, got)
}

// A timeline stage's results: a sample per journaled step (idle ones
// without figures), the test's summary, its tables, and JSON that reads
// back the same (JSON has no NaN).
func TestTimelineResults(t *testing.T) {
	ri := info(t, func(c *pts.Config) {
		c.Tests, c.Params = []pts.TestID{pts.XSR}, map[string]string{"xsr-groups": "3m,1m,2m"}
	})
	ri.Targets = []device.Identity{{Spec: "sim", Kind: device.KindSim, CapacityBytes: 1e12}}
	s := ri.Stages[0]
	require.Equal(t, pts.KindTimeline, s.Procedure().Kind())
	b := &journalBuilder{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	b.add(pts.Record{Type: pts.RecStageStart, Stage: s.ID})
	mbps := []int64{2000, 2000, 2000, 800, 300, 2100}
	for k, st := range s.Steps() {
		idx := k
		m := meas(0, mbps[k]*1e6*60/(st.Workload.BlockSize), 0, 50_000, st.Workload.BlockSize)
		b.add(pts.Record{Type: pts.RecSample, Stage: s.ID, Cell: &idx, Measurement: m})
	}
	f := false
	b.add(pts.Record{Type: pts.RecStageEnd, Stage: s.ID, Steady: &f, Message: "6 of 6 steps: stopped when its segments have run"})
	b.add(pts.Record{Type: pts.RecEnd})
	res := Build(ri, b.recs, false)
	st := res.Tests[0].Stages[0]
	require.True(t, st.Timeline)
	require.Len(t, st.Samples, 6)
	assert.Equal(t, []int{1, 1, 1, 2, 3, 3}, []int{st.Samples[0].Group, st.Samples[1].Group, st.Samples[2].Group,
		st.Samples[3].Group, st.Samples[4].Group, st.Samples[5].Group})
	assert.InDelta(t, 2000, st.Samples[0].MBps, 1)
	assert.InDelta(t, 6.0, st.Samples[5].Minute(), 1e-9)
	require.NotNil(t, st.Summary)
	assert.InDelta(t, 2.0, st.Summary.Figures[0].Value, 1e-9, "group 3's second minute reaches group 1's mean")
	assert.NotContains(t, codesOf(res), "not_steady", "a timeline has no steady state to miss")

	names := map[string]Table{}
	for _, tb := range res.Tables() {
		names[tb.Name] = tb
	}
	require.Contains(t, names, "xsr")
	require.Contains(t, names, "xsr_summary")
	assert.Equal(t, []string{"minute", "group", "mbps", "lat_mean_ms", "lat_max_ms"}, names["xsr"].Cols)
	assert.Len(t, names["xsr"].Rows, 6)
	require.Contains(t, names, "xsr_figures", "the recovery times are a table too")
	assert.Equal(t, []string{"recovery time (min)", "sustained recovery (min)"}, names["xsr_figures"].Rows)
	assert.InDelta(t, 2.0, names["xsr_figures"].Values[0][0], 1e-9)

	b2, err := json.Marshal(res)
	require.NoError(t, err, "NaN-free")
	var back Results
	require.NoError(t, json.Unmarshal(b2, &back))
	assert.InDelta(t, 2.0, back.Tests[0].Stages[0].Summary.Figures[0].Value, 1e-9)
}

func codesOf(r *Results) []string {
	var out []string
	for _, d := range r.Deviations {
		out = append(out, d.Code)
	}
	return out
}

// A parameter set to another harness's reading of the PTS (the register's
// alternatives) is that reading, which the readings appendix names, not a
// deviation; any other value than the default is one.
func TestReadingsAreNoDeviations(t *testing.T) {
	for _, tc := range []struct {
		tests  []pts.TestID
		params map[string]string
		want   []string // the param deviations, in order
	}{
		{[]pts.TestID{pts.WSAT}, map[string]string{"wsat-tgbw": "GiB", "wsat-time": "6h"}, nil},
		{[]pts.TestID{pts.WSAT}, map[string]string{"wsat-time": "360m", "wsat-fills": "2"}, []string{"Write Saturation: --wsat-fills 2 instead of 4."}},
		{[]pts.TestID{pts.DIRTH}, map[string]string{"dirth-io": "writes", "dirth-pc-track-at": "first", "dirth-pick": "window"}, nil},
		{[]pts.TestID{pts.DIRTH}, map[string]string{"dirth-art-ceiling": "3ms"}, []string{"DIRTH: --dirth-art-ceiling 3ms instead of 5ms."}},
		{[]pts.TestID{pts.ECW}, map[string]string{"ecw-io": "writes", "ecw-tc": "32,1"}, []string{"ECW: --ecw-tc 32,1 instead of 32,16,8,6,4,2,1."}},
	} {
		ri := info(t, func(c *pts.Config) { c.Tests, c.Params = tc.tests, tc.params })
		var got []string
		for _, d := range Build(ri, nil, false).Deviations {
			if d.Code == "param" {
				got = append(got, d.Text)
			}
		}
		assert.Equal(t, tc.want, got, "%v", tc.params)
	}
}
