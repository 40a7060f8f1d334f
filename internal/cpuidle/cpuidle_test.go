package cpuidle

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Setting
		str  string
		err  string
	}{
		{"", Shallow, "shallow", ""},
		{"shallow", Shallow, "shallow", ""},
		{"host", Setting{Host: true}, "host", ""},
		{"20us", Setting{Limit: 20 * time.Microsecond}, "20µs", ""},
		{"0s", Shallow, "shallow", ""},
		{"10ms", Setting{Limit: 10 * time.Millisecond}, "10ms", ""},
		{"11ms", Setting{}, "", `--cpu-idle "11ms": want shallow, host`},
		{"-1us", Setting{}, "", "want shallow"},
		{"1500ns", Setting{}, "", "whole number of microseconds"},
		{"deep", Setting{}, "", `--cpu-idle "deep"`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.str, got.String())
			again, err := Parse(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, again, "String reads back")
		})
	}
}

func TestProbe(t *testing.T) {
	assert.Equal(t, State{Driver: "haltpoll", Governor: "haltpoll", States: []IdleState{{"POLL", 0}, {"haltpoll", 1}}}, Probe("testdata/haltpoll"))
	assert.Equal(t, State{Driver: "intel_idle", Governor: "menu", States: []IdleState{{"POLL", 0}, {"C1E", 2}, {"C6", 170}}}, Probe("testdata/intel"))
	assert.Equal(t, State{Driver: "none", Governor: "menu"}, Probe("testdata/none"), "a driver of none has no states")
	assert.Equal(t, State{}, Probe(t.TempDir()), "no cpuidle: nothing to say")
}

func TestLabel(t *testing.T) {
	base := Probe("testdata/intel")
	for _, tc := range []struct {
		name string
		st   func(State) State
		want string
	}{
		{"shallow", func(s State) State { s.Asked, s.Held = "shallow", true; return s },
			"intel_idle, deepest C6 170 µs; kept polling (PM QoS 0 µs)"},
		{"limit", func(s State) State { s.Asked, s.Held, s.HeldUs = "20µs", true, 20; return s },
			"intel_idle, deepest C6 170 µs; none slower than 20 µs to wake (PM QoS)"},
		{"host", func(s State) State { s.Asked = "host"; return s },
			"intel_idle, deepest C6 170 µs; as the host has them (--cpu-idle host)"},
		{"refused", func(s State) State {
			s.Asked, s.Note = "shallow", "not held: /dev/cpu_dma_latency: permission denied"
			return s
		}, "intel_idle, deepest C6 170 µs; not held: /dev/cpu_dma_latency: permission denied"},
		{"no cpuidle", func(State) State { return State{Asked: "shallow", Held: true} },
			"no cpuidle driver, idle CPUs halt; PM QoS 0 µs held, no effect"},
		{"arm64: the first state is WFI", func(State) State {
			return State{Driver: "psci_idle", States: []IdleState{{"WFI", 1}, {"cpu-sleep-0", 250}}, Asked: "shallow", Held: true}
		}, "psci_idle, deepest cpu-sleep-0 250 µs; only WFI, the shallowest (PM QoS 0 µs)"},
		{"held, with a note", func(s State) State { s.Asked, s.Held, s.Note = "shallow", true, "(a note)"; return s },
			"intel_idle, deepest C6 170 µs; kept polling (PM QoS 0 µs) (a note)"},
		{"resumed otherwise", func(s State) State { s.Asked, s.Held, s.Began = "shallow", true, "as the host has them"; return s },
			"intel_idle, deepest C6 170 µs; kept polling (PM QoS 0 µs); since a resume, the run began with: as the host has them"},
		{"driver none", func(State) State { s := Probe("testdata/none"); s.Asked, s.Held = "shallow", true; return s },
			"no cpuidle driver, idle CPUs halt; PM QoS 0 µs held, no effect"},
		{"driver none, host", func(State) State { s := Probe("testdata/none"); s.Asked = "host"; return s },
			"no cpuidle driver, idle CPUs halt; as the host has them (--cpu-idle host)"},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, tc.st(base).Label()) })
	}
}

// A warning only for a request asked for and not held.
func TestWarning(t *testing.T) {
	var none *State
	assert.Empty(t, none.Warning(), "nothing opened holds nothing")
	assert.Empty(t, (&State{Asked: "shallow", Held: true}).Warning())
	assert.Empty(t, (&State{Asked: "host"}).Warning())
	assert.Equal(t, "idle CPUs not held: /dev/cpu_dma_latency: permission denied; low-queue-depth response times include the host's CPU wake-ups",
		(&State{Asked: "shallow", Note: "not held: /dev/cpu_dma_latency: permission denied"}).Warning())
}

func TestPolls(t *testing.T) {
	intel, halt := Probe("testdata/intel"), Probe("testdata/haltpoll")
	held := func(st State, us int) State { st.Held, st.HeldUs = true, us; return st }
	for _, tc := range []struct {
		name string
		st   State
		want bool
	}{
		{"intel held at 0", held(intel, 0), true},
		{"intel held at 1", held(intel, 1), true},
		{"intel held at 2: C1E allowed", held(intel, 2), false},
		{"haltpoll held at 0", held(halt, 0), true},
		{"haltpoll held at 1: halts", held(halt, 1), false},
		{"not held", intel, false},
		{"no cpuidle driver: halt whatever is held", held(State{}, 0), false},
		{"driver none: halt whatever is held", held(Probe("testdata/none"), 0), false},
		// The governors always allow the first state: on arm64 WFI.
		{"arm64 held at 0: WFI", held(State{States: []IdleState{{"WFI", 1}, {"cpu-sleep-0", 250}}}, 0), false},
		{"a first POLL state of latency above the limit still allowed", held(State{States: []IdleState{{"POLL", 5}, {"C1", 10}}}, 2), true},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, tc.st.Polls()) })
	}
}

// TestTakeFile checks what Take writes, on a file standing in for the
// kernel's (a binary s32 of microseconds), and that a path it cannot open
// is not held and is named.
func TestTakeFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "qos")
	require.NoError(t, os.WriteFile(p, nil, 0o600))
	h, st := Take(Setting{Limit: 20 * time.Microsecond}, "testdata/haltpoll", p)
	assert.True(t, st.Held)
	assert.Equal(t, 20, st.HeldUs)
	assert.Equal(t, "20µs", st.Asked)
	assert.Equal(t, "haltpoll", st.Driver)
	got, err := Current(p)
	require.NoError(t, err)
	assert.Equal(t, 20, got)
	h.Release()
	h.Release() // twice is harmless

	missing := filepath.Join(t.TempDir(), "none")
	h, st = Take(Shallow, "testdata/haltpoll", missing)
	assert.False(t, st.Held)
	assert.Contains(t, st.Note, missing)
	h.Release()

	h, st = Take(Setting{Host: true}, "testdata/haltpoll", missing)
	assert.False(t, st.Held)
	assert.Empty(t, st.Note, "host asks nothing, so nothing was refused")
	h.Release()
}

// TestTakeKernel holds real requests: while held, the kernel's effective
// limit is at most what was asked (other processes' requests may be lower).
func TestTakeKernel(t *testing.T) {
	f, err := os.OpenFile(QoSPath, os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("needs root and %s: %v", QoSPath, err)
	}
	f.Close()
	for _, s := range []Setting{{Limit: 7 * time.Microsecond}, Shallow} {
		h, st := Take(s, "/", QoSPath)
		require.True(t, st.Held, st.Note)
		got, err := Current(QoSPath)
		require.NoError(t, err)
		assert.LessOrEqual(t, got, int(s.Limit/time.Microsecond), "the kernel's limit while %s is held", s)
		h.Release()
	}
}

// FuzzParse: whatever --cpu-idle or run.json says, Parse either refuses it
// or reads a setting that String writes back as the same setting.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "shallow", "host", "20us", "10ms", "1h", "-0s", "1.5us"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(got.String())
		require.NoError(t, err)
		assert.Equal(t, got, again)
		assert.True(t, got.Host || (got.Limit >= 0 && got.Limit <= MaxLimit))
	})
}
