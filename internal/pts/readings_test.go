package pts

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The register holds every reading the issue that made it names (issue
// 20, item 4), each with its source, the other harnesses' readings and a
// way to choose another; a flag it names is a flag of ptsrun's, and an
// alternative's values are values its flag takes.
func TestReadingsRegister(t *testing.T) {
	runFlags := []string{"tp-active-range", "lat-active-range"} // the command line's own, not a test's
	ids := map[string]bool{}
	for _, r := range Readings {
		assert.False(t, ids[r.ID], "%s twice", r.ID)
		ids[r.ID] = true
		for _, s := range []string{r.Topic, r.Ours, r.Source, r.Why, r.ChooseWords()} {
			assert.NotEmpty(t, s, r.ID)
			assert.NotContains(t, s, "UNVERIFIED", r.ID)
		}
		for _, f := range r.Flags {
			_, ok := paramOf(f)
			assert.True(t, ok || slices.Contains(runFlags, f), "%s: --%s is no flag", r.ID, f)
		}
		for _, a := range r.Others {
			assert.NotEmpty(t, a.Harness, r.ID)
			assert.NotEmpty(t, a.Reading, r.ID)
			for f, v := range a.Values {
				p, ok := paramOf(f)
				require.True(t, ok, "%s: %s's --%s is no flag", r.ID, a.Harness, f)
				assert.True(t, slices.Contains(r.Flags, f), "%s: --%s is not among the reading's flags", r.ID, f)
				if p.Check != nil {
					assert.NoError(t, p.Check(v), "%s: --%s %s", r.ID, f, v)
				}
				got, another := p.Another(v)
				assert.True(t, another, "%s: --%s %s is %s's reading", r.ID, f, v, a.Harness)
				assert.NotEmpty(t, got.Harness)
			}
		}
	}
	// The items of issue 20.
	for _, tc := range []struct {
		id, flag, harness string
	}{
		{"wsat-stop", "wsat-ss", "Transcend"},             // --wsat-ss against 4 × capacity or 24 h
		{"wsat-budget", "", "ADATA"},                      // the stop checked once per sample
		{"demand-pc-track", "dirth-pc-track-at", "ADATA"}, // last against first minute
		{"demand-io", "dirth-io", "ADATA"},                // all I/O against writes only
		{"tgbw", "wsat-tgbw", "GiB"},                      // GB against GiB
		{"client-ar", "tp-active-range", "ADATA"},         // 75 % for every test
		{"client-tp-sizes", "", "PTS-C 1.x"},              // 1024 and 128 KiB
	} {
		r := ReadingByID(tc.id)
		require.NotNil(t, r, tc.id)
		if tc.flag != "" {
			assert.Contains(t, r.Flags, tc.flag, tc.id)
			assert.NotEmpty(t, HelpSource(tc.flag), tc.id)
		}
		var others []string
		for _, a := range r.Others {
			others = append(others, a.Harness+": "+a.Reading)
		}
		assert.Contains(t, strings.Join(others, "; ")+r.Source, tc.harness, tc.id)
	}
}

// A run depends on the readings of the tests it runs and of its profile.
func TestReadingsOf(t *testing.T) {
	topics := func(c Config) []string {
		var out []string
		for _, r := range ReadingsOf(c) {
			out = append(out, r.ID)
		}
		return out
	}
	e := Config{Tests: []TestID{LAT}, Profile: "enterprise"}
	assert.Equal(t, []string{"wipc", "response-time"}, topics(e))
	cl := Config{Tests: []TestID{TP}, Profile: "client"}
	assert.Equal(t, []string{"client-ar", "client-tp-sizes", "wipc", "tp-load", "response-time"}, topics(cl))
	w := Config{Tests: []TestID{WSAT}, Profile: "client"}
	assert.Equal(t, []string{"wsat-stop", "wsat-budget", "wsat-interval", "tgbw", "response-time"}, topics(w))

	// How a run reads them, when not as ptsrun does.
	c := DefaultConfig()
	c.Targets, c.Tests, c.Params = []string{"sim"}, []TestID{WSAT}, map[string]string{"wsat-time": "6h", "wsat-fills": "2"}
	p, err := c.Resolve()
	require.NoError(t, err)
	assert.Equal(t, "--wsat-fills 2 (a deviation); --wsat-time 6h, as "+harnessForks+" reads it", ReadingByID("wsat-stop").InRun(c, p))
	assert.Empty(t, ReadingByID("tgbw").InRun(c, p))
}
