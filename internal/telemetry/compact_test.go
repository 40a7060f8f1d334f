package telemetry

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenReadings are the parsers' golden readings: every source, and a
// merge of four.
func goldenReadings(t testing.TB) map[string]Reading {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	out := map[string]Reading{}
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		var r Reading
		require.NoError(t, json.Unmarshal(b, &r), p)
		out[filepath.Base(p)] = r
	}
	return out
}

func TestCompactRoundTrip(t *testing.T) {
	readings := goldenReadings(t)
	readings["sim"] = Reading{Device: "sim:enterprise#ESIM-0001", Sources: []string{SourceSim},
		Temperature: known(30.0, SourceSim), CriticalWarning: known(DecodeCriticalWarning(0), SourceSim),
		MediaErrors: known(uint64(0), SourceSim), Sensors: known([]Sensor(nil), SourceSim)}
	readings["no sources"] = Reading{Device: "/dev/sdz", Temperature: known(41.0, "elsewhere")}
	readings["empty"] = Reading{}
	readings["a tie"] = Reading{Device: "/dev/nvme1n1", Sources: []string{SourceHwmon, SourceNVMe},
		Temperature: known(40.0, SourceHwmon), MediaErrors: known(uint64(3), SourceNVMe)}
	for name, r := range readings {
		t.Run(name, func(t *testing.T) {
			b, err := json.Marshal(Compact(r))
			require.NoError(t, err)
			var back Compact
			require.NoError(t, json.Unmarshal(b, &back), string(b))
			assert.Equal(t, r, Reading(back), string(b))
			full, err := json.Marshal(r)
			require.NoError(t, err)
			if !r.Empty() {
				assert.Less(t, len(b), len(full), "the compact form is smaller")
			}
			// The full form, as older journals hold it, reads the same.
			var old Compact
			require.NoError(t, json.Unmarshal(full, &old))
			assert.Equal(t, r, Reading(old))
		})
	}
}

func TestCompactForm(t *testing.T) {
	r := Reading{Device: "/dev/nvme0n1", Sources: []string{SourceNVMe, SourceHwmon},
		Temperature: known(38.5, SourceHwmon), MediaErrors: known(uint64(0), SourceNVMe),
		CriticalWarning: known(DecodeCriticalWarning(0x04), SourceNVMe)}
	b, err := json.Marshal(Compact(r))
	require.NoError(t, err)
	assert.JSONEq(t, `{"source":"nvme-cli","device":"/dev/nvme0n1","sources":["nvme-cli","hwmon"],
		"temperature_c":{"value":38.5,"source":"hwmon"},
		"critical_warning":{"raw":4,"flags":["reliability_degraded"]},
		"media_errors":0}`, string(b))
}

func TestCompactErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[1]`, "a journaled reading"},
		{`{"device":"/dev/sda","temperature_c":41}`, "temperature_c of /dev/sda is a bare value, but the reading names no source"},
		{`{"device":"/dev/sda","sources":["smartctl"],"temperature_c":41}`, "names no source"},
		{`{"source":"smartctl","device":"/dev/sda","temperature_c":"hot"}`, "temperature_c of /dev/sda"},
		{`{"source":"","device":"/dev/sda","temperature_c":41}`, "not a source's name"},
		{`{"source":7,"device":"/dev/sda"}`, "not a source's name"},
		{`{"device":"/dev/sda","sources":["smartctl"],"media_errors":{"value":-1,"source":"smartctl"}}`, "media_errors of /dev/sda"},
		{`{"device":7}`, "device"},
	} {
		var c Compact
		err := json.Unmarshal([]byte(tc.in), &c)
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// The two forms are told apart by a "source" member: no figure's value may
// have one, or a bare value would read as a whole Field.
func TestCompactNoValueHasASource(t *testing.T) {
	var walk func(t reflect.Type, path string)
	seen := map[reflect.Type]bool{}
	walk = func(ty reflect.Type, path string) {
		for ty.Kind() == reflect.Slice || ty.Kind() == reflect.Pointer {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			require.NotEqual(t, "source", name, "%s.%s", path, f.Name)
			walk(f.Type, path+"."+f.Name)
		}
	}
	rt := reflect.TypeFor[Reading]()
	n := 0
	for i := range rt.NumField() {
		ft := rt.Field(i).Type
		if ft.Kind() != reflect.Struct {
			continue
		}
		if v, ok := ft.FieldByName("Value"); ok {
			walk(v.Type, rt.Field(i).Name)
			n++
		}
	}
	require.Greater(t, n, 20, "every Field of a Reading was looked at")
}

// FuzzCompact: whatever reads, writes back to what reads the same.
func FuzzCompact(f *testing.F) {
	for _, r := range goldenReadings(f) {
		b, _ := json.Marshal(Compact(r))
		f.Add(b)
		b, _ = json.Marshal(r)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var c Compact
		if json.Unmarshal(in, &c) != nil {
			return
		}
		b, err := json.Marshal(c)
		require.NoError(t, err)
		var back Compact
		require.NoError(t, json.Unmarshal(b, &back), string(b))
		require.Equal(t, Reading(c), Reading(back), string(b))
	})
}

// setNumber sets what encoding/json would set, or leaves the value to it.
func FuzzSetNumber(f *testing.F) {
	for _, s := range []string{"41", "-0", "1.5e3", "1e400", "18446744073709551615", "18446744073709551616", "-1", "0.5", "null", "true", `"7"`, "[1]", "007"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw := json.RawMessage(s)
		if !json.Valid(raw) {
			return // setNumber is given checked values only
		}
		var gotF, wantF float64
		if setNumber(raw, reflect.ValueOf(&gotF).Elem()) {
			require.NoError(t, json.Unmarshal(raw, &wantF), s)
			require.Equal(t, math.Float64bits(wantF), math.Float64bits(gotF), s)
		}
		var gotU, wantU uint64
		if setNumber(raw, reflect.ValueOf(&gotU).Elem()) {
			require.NoError(t, json.Unmarshal(raw, &wantU), s)
			require.Equal(t, wantU, gotU, s)
		}
	})
}
