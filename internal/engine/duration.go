package engine

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a duration as every flag and parameter of ptsrun
// takes it ("90s", "1m", "2h30m", Go's notation), and says what is
// wrong in words people can act on: a bare number ("5") needs a unit.
// The error does not repeat s: its caller names the flag and the value.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err == nil {
		return d, nil
	}
	if _, numErr := strconv.ParseFloat(s, 64); numErr == nil {
		return 0, errors.New("a duration needs a unit: 5s, 1m, 2h30m")
	}
	return 0, errors.New("not a duration: such as 5s, 1m, 2h30m (units ns, us, ms, s, m, h)")
}
