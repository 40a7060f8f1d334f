package units

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"512", 512}, {"0.5k", 512}, {"4k", 4096}, {"4K", 4096}, {"4KiB", 4096}, {"4kb", 4096},
		{"128k", 128 << 10}, {"1m", 1 << 20}, {"1024k", 1 << 20}, {"1MiB", 1 << 20}, {"2g", 2 << 30},
		{" 8k ", 8192}, {"0.5KiB", 512},
	} {
		got, err := ParseSize(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	for _, bad := range []string{"", "k", "4x", "-4k", "0", "0.3", "1.5", "abc", "4 k b"} {
		_, err := ParseSize(bad)
		assert.Error(t, err, bad)
	}
}

func TestFormatSize(t *testing.T) {
	for b, want := range map[int64]string{512: "0.5 KiB", 4096: "4 KiB", 1 << 20: "1024 KiB", 128 << 10: "128 KiB",
		1536: "1.5 KiB", 2 << 20: "2 MiB", 1 << 30: "1 GiB", 100: "100 B"} {
		assert.Equal(t, want, FormatSize(b))
	}
}
