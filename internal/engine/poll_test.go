package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePoll(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Poll
		text string
	}{
		{"", PollAuto, "auto"},
		{"auto", PollAuto, "auto"},
		{"off", PollOff, "off"},
		{"100us", Poll(100 * time.Microsecond), "100µs"},
		{"1s", MaxPoll, "1s"},
	} {
		p, err := ParsePoll(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, p, c.in)
		assert.Equal(t, c.text, p.String(), c.in)
		again, err := ParsePoll(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, again, "String reads back")
	}
	for _, bad := range []string{"sometimes", "0", "-5us", "2s", "Auto"} {
		_, err := ParsePoll(bad)
		assert.ErrorContains(t, err, `--poll "`+bad+`": want auto, off, or a duration up to 1s`)
	}
	assert.Equal(t, time.Duration(-1), PollOff.Duration(), "negative never polls (native.Options.Poll)")
}
