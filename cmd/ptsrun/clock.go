package main

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// clockEnv, when set to an RFC 3339 time, makes what a run records
// reproducible: run.json's creation time and every journal record's time
// start there and advance one second per reading, as the project's golden
// runs do. A simulated run then gives the same results, tables and report
// text every time, which is how refactorings are proved behaviour-neutral.
const clockEnv = "PTSRUN_CLOCK"

// fixedClock is the run's clock: the wall clock, or the fixed one.
type fixedClock struct {
	mu   sync.Mutex
	next time.Time
	set  bool
	err  error
	once sync.Once
}

var runClock = &fixedClock{}

func (c *fixedClock) init() {
	v := os.Getenv(clockEnv)
	if v == "" {
		return
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		c.err = fmt.Errorf("%s=%q: want an RFC 3339 time such as 2026-01-02T03:04:05Z", clockEnv, v)
		return
	}
	c.next, c.set = t, true
}

// now is the wall clock unless PTSRUN_CLOCK is set (a bad value is reported
// by check, before a run starts).
func (c *fixedClock) now() time.Time {
	c.once.Do(c.init)
	if !c.set {
		return time.Now()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.next
	c.next = c.next.Add(time.Second)
	return t
}

// check reports a PTSRUN_CLOCK that cannot be read.
func (c *fixedClock) check() error {
	c.once.Do(c.init)
	return c.err
}
