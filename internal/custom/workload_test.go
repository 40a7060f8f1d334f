package custom

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// flags are workload's flags as the command line's defaults give them,
// with set given.
func flags(set ...string) WorkloadFlags {
	f := WorkloadFlags{Set: map[string]bool{}, Access: "random", BS: "4k", Read: 100, TC: 1, QD: 32, Time: time.Minute,
		Interval: time.Second, RandomPct: 100, ActiveRange: 100, Seed: 1}
	for _, s := range set {
		f.Set[s] = true
	}
	return f
}

// What no engine could run is refused by the flag that asks for it.
func TestWorkloadFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func() WorkloadFlags
		err  string
	}{
		{"a preset's workload", func() WorkloadFlags { f := flags("preset", "bs"); f.Preset = "oltp"; return f },
			"--bs: a preset sets its own workload; leave --bs out, or run without --preset"},
		{"ramp too long", func() WorkloadFlags { f := flags("ramp"); f.Ramp = time.Minute; return f },
			"--ramp 1m0s: the ramp must be shorter than the run (--time 1m0s), which it is part of"},
		{"interval", func() WorkloadFlags { f := flags("interval"); f.Interval = 50 * time.Millisecond; return f },
			"--interval 50ms: whole milliseconds from 100ms"},
		{"two active ranges", func() WorkloadFlags { f := flags("size", "active-range"); f.Size, f.ActiveRange = "80%", 70; return f },
			"--size 80% and --active-range 70%: both set the active range; give one"},
		{"no random share", func() WorkloadFlags { f := flags("random-pct"); f.RandomPct = 0; return f },
			"--random-pct 0: all sequential is --access seq (fio's percentage_random=0)"},
		{"a rate of nothing", func() WorkloadFlags { f := flags("rate-iops"); f.RateIOPS = 0; return f },
			"--rate-iops 0: a rate cap is a number above zero (leave --rate-iops out for none)"},
		{"odd block size", func() WorkloadFlags { f := flags("bs"); f.BS = "4100"; return f },
			"--bs: block size 4100 B is not a multiple of 512 bytes, the smallest logical block size"},
		{"zones of a stream", func() WorkloadFlags { f := flags("zones", "access"); f.Access, f.Zones = "seq", "50/5:50/95"; return f },
			"--zones: zones spread random I/O over the active range; --access seq writes streams"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseWorkloadFlags(c.f())
			assert.EqualError(t, err, c.err)
		})
	}
}

// A preset brings its workload; the flags given override its load and
// time, for every preset named, and a preset they break is named.
func TestPresetCells(t *testing.T) {
	f := flags("preset", "tc", "time")
	f.Preset, f.TC, f.Time = "oltp, vod", 4, 2*time.Minute
	opts, err := ParseWorkloadFlags(f)
	require.NoError(t, err)
	require.NoError(t, opts.Check())
	cells, err := opts.Cells(0)
	require.NoError(t, err)
	require.Len(t, cells, 2)
	for _, c := range cells {
		assert.Equal(t, 4, c.Workload.TC, c.Preset)
		assert.Equal(t, 2*time.Minute, c.Workload.Duration, c.Preset)
		assert.Equal(t, c.Preset, c.Key.String())
	}
	assert.Equal(t, []string{"oltp", "vod"}, opts.Presets)
	assert.Equal(t, engine.Random, cells[0].Workload.Access)

	f = flags("preset", "time")
	f.Preset, f.Time = "dbms", time.Minute // it ramps for 15 minutes
	opts, err = ParseWorkloadFlags(f)
	require.NoError(t, err)
	assert.EqualError(t, opts.Check(), "--time 1m0s: preset dbms ramps for 15m0s; give a shorter --ramp too")

	one, err := ParseWorkloadFlags(flags())
	require.NoError(t, err)
	cells, err = one.Cells(0)
	require.NoError(t, err)
	assert.Equal(t, "rnd-4k-100/0", cells[0].Key.String(), "the flags' workload is its matrix cell")
}
