package engine

import (
	"fmt"
	"time"
)

// Poll is the native engine's completion polling (--poll): how long an I/O
// thread polls for completions before it sleeps. It is parsed once from
// the flag or from run.json's config (ParsePoll); what comes after uses the
// typed value. Config.Poll keeps the text for run.json.
type Poll time.Duration

const (
	// PollAuto lets the engine choose ("auto", or nothing said).
	PollAuto Poll = 0
	// PollOff never polls ("off").
	PollOff Poll = -1
	// MaxPoll is the longest polling ParsePoll accepts.
	MaxPoll Poll = Poll(time.Second)
)

// ParsePoll reads a poll setting: "" or "auto", "off", or a duration up to
// MaxPoll such as "100us".
func ParsePoll(s string) (Poll, error) {
	switch s {
	case "", "auto":
		return PollAuto, nil
	case "off":
		return PollOff, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || Poll(d) > MaxPoll {
		return 0, fmt.Errorf("--poll %q: want auto, off, or a duration up to 1s such as 100us", s)
	}
	return Poll(d), nil
}

// Duration is p as the native engine takes it (native.Options.Poll): 0 lets
// the engine choose, negative never polls.
func (p Poll) Duration() time.Duration { return time.Duration(p) }

// String is p as ParsePoll reads it: "auto", "off", or a duration.
func (p Poll) String() string {
	switch {
	case p == PollAuto:
		return "auto"
	case p < 0:
		return "off"
	}
	return time.Duration(p).String()
}
