package pts

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/units"
)

func resolved(t *testing.T, mod func(*Config)) (Config, Profile) {
	t.Helper()
	c := DefaultConfig()
	c.Targets = []string{"sim"}
	if mod != nil {
		mod(&c)
	}
	p, err := c.Resolve()
	require.NoError(t, err)
	return c, p
}

func TestIOPSStageLoopOrder(t *testing.T) {
	c, p := resolved(t, nil)
	stages := c.Stages(p)
	require.Equal(t, []string{"iops", "tp-1024k", "tp-128k", "lat"}, ids(stages))
	s := stages[0]
	require.Len(t, s.Cells, 56)
	// Mix outer 100/0 → 0/100, block size inner 1024 KiB → 0.5 KiB.
	i := 0
	for _, mix := range []int{100, 95, 65, 50, 35, 5, 0} {
		for _, bs := range []int64{1 << 20, 128 << 10, 64 << 10, 32 << 10, 16 << 10, 8 << 10, 4 << 10, 512} {
			w := s.Cells[i].Workload
			assert.Equal(t, mix, w.ReadPct, "cell %d", i)
			assert.Equal(t, bs, w.BlockSize, "cell %d", i)
			assert.Equal(t, engine.Random, w.Access)
			assert.Equal(t, 4, w.TC)
			assert.Equal(t, 32, w.QD)
			assert.Equal(t, 100.0, w.ActiveRange)
			assert.Equal(t, time.Minute, w.Duration)
			assert.Equal(t, i, s.Cells[i].Index)
			i++
		}
	}
	assert.Equal(t, "rnd-0.5k-65/35", s.Cells[2*8+7].Key.String())
	require.Len(t, s.Tracking, 3)
	for _, tc := range []struct {
		tr   Tracking
		read int
		bs   int64
	}{{s.Tracking[0], 0, 4 << 10}, {s.Tracking[1], 65, 64 << 10}, {s.Tracking[2], 100, 1 << 20}} {
		w := s.Cells[tc.tr.Cell].Workload
		assert.Equal(t, tc.read, w.ReadPct, tc.tr.Name)
		assert.Equal(t, tc.bs, w.BlockSize, tc.tr.Name)
		assert.Equal(t, MetricIOPS, tc.tr.Metric)
	}
	assert.True(t, s.Purge)
	require.NotNil(t, s.Precondition)
	assert.Equal(t, engine.Workload{Access: engine.Sequential, BlockSize: 128 << 10, TC: 1, QD: 32,
		ActiveRange: 100, Passes: 2}, *s.Precondition)
	assert.Equal(t, 56*time.Minute, s.RoundTime())
	assert.Equal(t, 25, s.MaxRounds)
}

func TestThroughputAndLatencyStages(t *testing.T) {
	c, p := resolved(t, nil)
	st := c.Stages(p)
	for i, bs := range []int64{1 << 20, 128 << 10} {
		s := st[1+i]
		assert.Equal(t, TP, s.Test)
		assert.True(t, s.Purge, "throughput purges per block size")
		assert.Equal(t, bs, s.Precondition.BlockSize, "WIPC at the test block size")
		require.Len(t, s.Cells, 2)
		assert.Equal(t, 100, s.Cells[0].Workload.ReadPct)
		assert.Equal(t, 0, s.Cells[1].Workload.ReadPct)
		for _, c := range s.Cells {
			assert.Equal(t, engine.Sequential, c.Workload.Access)
			assert.Equal(t, bs, c.Workload.BlockSize)
		}
		require.Len(t, s.Tracking, 1)
		assert.Equal(t, MetricWriteMBps, s.Tracking[0].Metric)
		assert.Equal(t, 1, s.Tracking[0].Cell)
	}
	lat := st[3]
	require.Len(t, lat.Cells, 9)
	i := 0
	for _, mix := range []int{100, 65, 0} {
		for _, bs := range []int64{8 << 10, 4 << 10, 512} {
			w := lat.Cells[i].Workload
			assert.Equal(t, mix, w.ReadPct)
			assert.Equal(t, bs, w.BlockSize)
			assert.Equal(t, 1, w.TC)
			assert.Equal(t, 1, w.QD)
			i++
		}
	}
	require.Len(t, lat.Tracking, 1)
	assert.Equal(t, MetricLatMean, lat.Tracking[0].Metric)
	assert.Equal(t, 0, lat.Cells[lat.Tracking[0].Cell].Workload.ReadPct)
	assert.Equal(t, int64(4<<10), lat.Cells[lat.Tracking[0].Cell].Workload.BlockSize)
}

func TestClientProfile(t *testing.T) {
	c, p := resolved(t, func(c *Config) { c.Profile = "client" })
	assert.Equal(t, "PTS-C", p.Short)
	assert.True(t, p.WriteCache)
	assert.Equal(t, "WCE", p.WriteCacheLabel())
	st := c.Stages(p)
	// Both PTS 2.0 forks run 1024 and 128 KiB for the client profile too,
	// and 75 % of it for every test (the readings client-tp-sizes and
	// client-ar).
	assert.Equal(t, []string{"iops", "tp-1024k", "tp-128k", "lat"}, ids(st))
	w := st[0].Cells[0].Workload
	assert.Equal(t, 2, w.TC)
	assert.Equal(t, 16, w.QD)
	assert.Equal(t, 75.0, w.ActiveRange)
	for _, s := range st[1:] {
		assert.Equal(t, 75.0, s.Cells[0].Workload.ActiveRange, s.ID)
	}
	assert.Equal(t, 100.0, st[0].Precondition.ActiveRange, "PC AR is the whole device")

	ep, err := LookupProfile("PTS-E")
	require.NoError(t, err)
	assert.False(t, ep.WriteCache)
}

func TestResolveRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		msg  string
	}{
		{"profile", func(c *Config) { c.Profile = "consumer" }, `unknown profile "consumer"`},
		{"test", func(c *Config) { c.Tests = []TestID{IOPS, "wsat2"} }, `unknown test "wsat2"`},
		{"tc", func(c *Config) { c.TC = 300 }, "--tc 300: the IOPS test's thread count is 1…256; left out, --tc is the profile's: E 4, C 2"},
		{"qd", func(c *Config) { c.QD = -1 }, "--qd -1: the IOPS test's queue depth per thread is 1…1024"},
		{"cell time", func(c *Config) { c.CellTime = Duration(500 * time.Millisecond) }, "--cell-time 500ms: a cell lasts 1s…1h0m0s"},
		{"long cell", func(c *Config) { c.CellTime = Duration(2 * time.Hour) }, "--cell-time 2h0m0s"},
		{"rounds", func(c *Config) { c.MaxRounds = 3 }, "--max-rounds 3: the round limit is 5…1000, not below the 5-round window (--ss-window)"},
		{"range", func(c *Config) { c.ActiveRange = 120 }, "--active-range 120%: an active range is a percentage above 0 and at most 100"},
		{"window", func(c *Config) { c.SS.Window = 1 }, "--ss-window 1: the steady-state window is at least 2 rounds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.mod(&c)
			_, err := c.Resolve()
			assert.ErrorContains(t, err, tc.msg)
		})
	}
	tests, err := ParseTests("lat, iops,lat")
	require.NoError(t, err)
	assert.Equal(t, []TestID{IOPS, LAT}, tests, "PTS order, no repeats")
	_, err = ParseTests(" , ")
	assert.Error(t, err)
}

func TestCellSeed(t *testing.T) {
	a := CellSeed(1, "iops", 3, 7)
	assert.Equal(t, a, CellSeed(1, "iops", 3, 7))
	assert.NotEqual(t, a, CellSeed(1, "iops", 4, 7))
	assert.NotEqual(t, a, CellSeed(2, "iops", 3, 7))
	assert.NotEqual(t, a, CellSeed(1, "lat", 3, 7))
}

func ids(st []Stage) []string {
	var out []string
	for _, s := range st {
		out = append(out, s.ID)
	}
	return out
}

func TestCheckTargets(t *testing.T) {
	c := DefaultConfig()
	c.Targets = []string{"x"}
	c.Tests = []TestID{IOPS, TP, LAT}
	p, err := c.Resolve()
	require.NoError(t, err)
	stages := c.Stages(p)
	for _, tc := range []struct {
		name    string
		targets []device.Identity
		err     string
	}{
		{"large enough", []device.Identity{{Path: "/dev/a", CapacityBytes: 1 << 30, LogicalBlock: 512}}, ""},
		// TC4 × 1 MiB needs 4 MiB of active range.
		{"just enough", []device.Identity{{Path: "/dev/a", CapacityBytes: 4 << 20, LogicalBlock: 512}}, ""},
		{"one block short", []device.Identity{{Path: "/dev/a", CapacityBytes: 4<<20 - 512, LogicalBlock: 512}},
			"target /dev/a (4193792 bytes) cannot take IOPS RND 1024 KiB 100/0 TC4/QD32"},
		{"second target too small", []device.Identity{{Path: "/dev/a", CapacityBytes: 1 << 30}, {Path: "/dev/b", CapacityBytes: 1 << 20}},
			"target /dev/b"},
		{"4 KiB logical blocks", []device.Identity{{Path: "/dev/a", CapacityBytes: 1 << 30, LogicalBlock: 4096}},
			"block size 0.5 KiB is not a multiple of the logical block size 4096"},
		{"capacity not known (fio server)", []device.Identity{{Path: "host:/dev/a"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckTargets(stages, tc.targets)
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.err)
		})
	}

	// The tests over time are checked the same way, their segments'
	// workloads included: XSR's 1024 KiB at TC1 needs 1 MiB.
	c.Tests = []TestID{WSAT, HIR, XSR}
	p, err = c.Resolve()
	require.NoError(t, err)
	stages = c.Stages(p)
	assert.NoError(t, CheckTargets(stages, []device.Identity{{Path: "/dev/a", CapacityBytes: 1 << 20, LogicalBlock: 512}}))
	assert.ErrorContains(t, CheckTargets(stages, []device.Identity{{Path: "/dev/a", CapacityBytes: 64 << 10, LogicalBlock: 512}}),
		"target /dev/a (65536 bytes) cannot take")
}

func TestStagesOn4KnTargets(t *testing.T) {
	c := DefaultConfig()
	c.Targets = []string{"x"}
	c.MinBlock = 4096
	p, err := c.Resolve()
	require.NoError(t, err)
	stages := c.Stages(p)
	iops, lat := stages[0], stages[len(stages)-1]
	assert.Len(t, iops.Cells, 7*7, "every mix, no 0.5 KiB")
	assert.Len(t, lat.Cells, 3*2)
	for _, s := range stages {
		for i, cell := range s.Cells {
			assert.Equal(t, i, cell.Index)
			assert.Zero(t, cell.Workload.BlockSize%4096, cell.Key)
		}
		for _, tr := range s.Tracking {
			assert.Contains(t, tr.Name, units.FormatSize(s.Cells[tr.Cell].Workload.BlockSize), "tracking names its own cell")
		}
	}
	require.NoError(t, CheckTargets(stages, []device.Identity{{Path: "/dev/nvme0n1", CapacityBytes: 1 << 30, LogicalBlock: 4096}}))
	assert.True(t, c.Runnable(8192))
	assert.False(t, c.Runnable(512))
	assert.True(t, DefaultConfig().Runnable(512))
}

func TestPollDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"", 0, false}, {"auto", 0, false}, {"off", -1, false}, {"100us", 100 * time.Microsecond, false},
		{"0s", 0, true}, {"-1ms", 0, true}, {"2s", 0, true}, {"often", 0, true},
	} {
		got, err := Config{Poll: tc.in}.PollDuration()
		if tc.err {
			assert.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
}

func TestLoopLabels(t *testing.T) {
	for _, tc := range []struct {
		test      TestID
		mix, size string
	}{
		{"iops", "R/W mix (outer)", "Block size (inner)"},
		{"tp", "R/W mix (inner)", "Block size (outer)"},
		{"lat", "R/W mix (outer)", "Block size (inner)"},
	} {
		td, err := LookupTest(tc.test)
		require.NoError(t, err)
		assert.Equal(t, tc.mix, td.LoopLabel(LoopMix), tc.test)
		assert.Equal(t, tc.size, td.LoopLabel(LoopBlockSize), tc.test)
	}
	// The stages agree with the labels: throughput's block size changes
	// between stages, its mix within a round.
	c := DefaultConfig()
	p, err := c.Resolve()
	require.NoError(t, err)
	var tp []Stage
	for _, s := range c.Stages(p) {
		if s.Test == "tp" {
			tp = append(tp, s)
		}
	}
	require.Len(t, tp, 2)
	for _, s := range tp {
		assert.Equal(t, []int{100, 0}, []int{s.Cells[0].Workload.ReadPct, s.Cells[1].Workload.ReadPct})
		assert.Equal(t, s.Cells[0].Workload.BlockSize, s.Cells[1].Workload.BlockSize)
	}
}

// --block-sizes and --mixes: parsed as imports and the workload command
// read sizes and mixes, checked against the tests' matrices, and refused
// when they leave out a tracking variable, naming it and what to add.
func TestSubsetFlags(t *testing.T) {
	for _, tc := range []struct {
		name         string
		tests        string
		profile      string
		sizes, mixes string
		wantSizes    []int64 // stored, in loop order
		wantMixes    []int
		err          string
	}{
		{name: "quick look at IOPS", tests: "iops", sizes: "4k,64k,1024k", mixes: "0/100,65/35,100/0",
			wantSizes: []int64{1 << 20, 64 << 10, 4 << 10}, wantMixes: []int{100, 65, 0}},
		{name: "units as ParseSize reads them", tests: "iops", sizes: "4KiB, 1m ,65536,0.5k,512",
			wantSizes: []int64{1 << 20, 64 << 10, 4 << 10, 512}},
		{name: "mix spellings as imports read them", tests: "lat", mixes: "R0/W100, 65:35",
			wantMixes: []int{65, 0}},
		{name: "sizes only", tests: "iops,tp,lat", sizes: "1024k,64k,4k",
			wantSizes: []int64{1 << 20, 64 << 10, 4 << 10}},
		{name: "latency subset", tests: "lat", sizes: "4k", mixes: "0/100",
			wantSizes: []int64{4 << 10}, wantMixes: []int{0}},
		{name: "throughput write only", tests: "tp", mixes: "0/100", wantMixes: []int{0}},
		{name: "throughput one stage", tests: "tp", sizes: "128k", wantSizes: []int64{128 << 10}},
		{name: "size in no test", tests: "iops,lat", sizes: "4k,2k",
			err: "--block-sizes 2k: not a block size of the IOPS and Latency tests; valid are 1024k,128k,64k,32k,16k,8k,4k,0.5k"},
		{name: "size of another test", tests: "lat", sizes: "64k",
			err: "--block-sizes 64k: not a block size of the Latency test; valid are 8k,4k,0.5k"},
		{name: "client throughput has no 64k", tests: "tp", profile: "client", sizes: "64k",
			err: "--block-sizes 64k: not a block size of the Throughput test; valid are 1024k,128k"},
		{name: "mix of another test", tests: "lat", mixes: "0/100,50/50",
			err: "--mixes 50/50: not an R/W mix of the Latency test; valid are 100/0,65/35,0/100"},
		{name: "not a size", tests: "iops", sizes: "4k,big", err: `--block-sizes: block size "big" is not a number`},
		{name: "not a mix", tests: "iops", mixes: "70/20", err: "--mixes: mix \"70/20\": read and write must be whole percentages adding up to 100"},
		{name: "empty", tests: "iops", sizes: " , ", err: `--block-sizes " , ": no block size named`},
		{name: "IOPS tracking sizes missing", tests: "iops", sizes: "4k,128k",
			err: "--block-sizes/--mixes leave out the tracking variables IOPS RND 64 KiB 65/35 and IOPS RND 1024 KiB 100/0: " +
				"steady state is judged on them; add 1024k,64k to --block-sizes"},
		{name: "IOPS tracking mixes missing", tests: "iops", mixes: "100/0,0/100",
			err: "--block-sizes/--mixes leave out the tracking variables IOPS RND 64 KiB 65/35: steady state is judged on them; add 65/35 to --mixes"},
		{name: "both missing", tests: "iops", sizes: "4k,128k", mixes: "100/0,0/100",
			err: "leave out the tracking variables IOPS RND 64 KiB 65/35 and IOPS RND 1024 KiB 100/0: " +
				"steady state is judged on them; add 1024k,64k to --block-sizes and 65/35 to --mixes"},
		{name: "latency tracking", tests: "lat", sizes: "8k,0.5k",
			err: "leave out the tracking variables ART RND 4 KiB 0/100: steady state is judged on them; add 4k to --block-sizes"},
		{name: "throughput without a block size", tests: "tp,lat", sizes: "4k",
			err: "leave out the tracking variables throughput's MB/s SEQ 1024 KiB 0/100 (no throughput block size: 1024k,128k): " +
				"steady state is judged on them; add 1024k to --block-sizes"},
		{name: "throughput without writes", tests: "tp", mixes: "100/0",
			err: "leave out the tracking variables MB/s SEQ 1024 KiB 0/100 and MB/s SEQ 128 KiB 0/100: steady state is judged on them; add 0/100 to --mixes"},
		{name: "every test's tracking named", tests: "iops,tp,lat", mixes: "100/0,65/35",
			err: "leave out the tracking variables IOPS RND 4 KiB 0/100, MB/s SEQ 1024 KiB 0/100, MB/s SEQ 128 KiB 0/100 and ART RND 4 KiB 0/100: " +
				"steady state is judged on them; add 0/100 to --mixes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Targets = []string{"sim"}
			if tc.profile != "" {
				c.Profile = tc.profile
			}
			var err error
			c.Tests, err = ParseTests(tc.tests)
			require.NoError(t, err)
			if tc.sizes != "" {
				c.BlockSizes, err = ParseBlockSizes(tc.sizes)
			}
			if err == nil && tc.mixes != "" {
				c.Mixes, err = ParseMixes(tc.mixes)
			}
			if err == nil {
				_, err = c.Resolve()
			}
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantSizes, c.BlockSizes)
			assert.Equal(t, tc.wantMixes, c.Mixes)
		})
	}
}

// A subset builds only its cells, in the PTS's loop order whatever order
// the flags named them in, with the full matrix's keys.
func TestSubsetStages(t *testing.T) {
	c, p := resolved(t, func(c *Config) {
		c.BlockSizes = []int64{4 << 10, 1 << 20, 64 << 10, 512}
		c.Mixes = []int{0, 100, 65}
	})
	stages := c.Stages(p)
	require.Equal(t, []string{"iops", "tp-1024k", "lat"}, ids(stages), "throughput runs the chosen block sizes of its own")
	var keys []string
	for i, cell := range stages[0].Cells {
		assert.Equal(t, i, cell.Index)
		keys = append(keys, cell.Key.String())
	}
	assert.Equal(t, []string{
		"rnd-1024k-100/0", "rnd-64k-100/0", "rnd-4k-100/0", "rnd-0.5k-100/0",
		"rnd-1024k-65/35", "rnd-64k-65/35", "rnd-4k-65/35", "rnd-0.5k-65/35",
		"rnd-1024k-0/100", "rnd-64k-0/100", "rnd-4k-0/100", "rnd-0.5k-0/100"}, keys)
	for _, s := range stages {
		for _, tr := range s.Tracking {
			w := s.Cells[tr.Cell].Workload
			assert.Contains(t, tr.Name, units.FormatSize(w.BlockSize)+" "+MixLabel(w.ReadPct), "tracking names its own cell")
		}
	}
	assert.Equal(t, []string{"seq-1024k-100/0", "seq-1024k-0/100"}, []string{stages[1].Cells[0].Key.String(), stages[1].Cells[1].Key.String()})
	lat := stages[2]
	require.Len(t, lat.Cells, 2*3, "4k and 0.5k of latency's sizes, its three mixes")
	assert.Equal(t, "rnd-4k-100/0", lat.Cells[0].Key.String())
	assert.Equal(t, 1*time.Minute*6, lat.RoundTime())

	// On a 4Kn target the 0.5 KiB cells go as well; the tracking stays.
	c.MinBlock = 4096
	stages = c.Stages(p)
	assert.Len(t, stages[0].Cells, 3*3)
	assert.Len(t, stages[2].Cells, 3)

	// Throughput with --mixes 0/100: the write cell only, still tracked.
	c, p = resolved(t, func(c *Config) { c.Tests, c.Mixes = []TestID{TP}, []int{0} })
	stages = c.Stages(p)
	require.Len(t, stages, 2)
	for _, s := range stages {
		require.Len(t, s.Cells, 1)
		assert.Equal(t, 0, s.Cells[0].Workload.ReadPct)
		assert.Equal(t, 0, s.Tracking[0].Cell)
	}
}

// A metric has one name, the one results.json's cells use; run.json files
// written with the tracking variables' old names still read.
func TestMetricNames(t *testing.T) {
	var tr Tracking
	require.NoError(t, json.Unmarshal([]byte(`{"name":"ART","cell":1,"metric":"mean_lat_ms"}`), &tr))
	assert.Equal(t, MetricLatMean, tr.Metric)
	b, err := json.Marshal(tr)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"metric":"lat_mean_ms"`)
}
