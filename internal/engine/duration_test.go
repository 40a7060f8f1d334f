package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"90s", 90 * time.Second, ""},
		{" 2h30m ", 150 * time.Minute, ""},
		{"0", 0, ""},
		{"5", 0, "a duration needs a unit: 5s, 1m, 2h30m"},
		{"1.5", 0, "a duration needs a unit"},
		{"5x", 0, "not a duration: such as 5s, 1m, 2h30m"},
		{"", 0, "not a duration"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			d, err := ParseDuration(tc.in)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.NotContains(t, err.Error(), `"`+tc.in+`"`, "the caller names the value")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, d)
		})
	}
}
