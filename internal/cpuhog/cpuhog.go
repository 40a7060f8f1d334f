package cpuhog

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// childEnv marks a process started as a hog.
const childEnv = "PTSRUN_CPUHOG_CHILD"

func init() {
	if os.Getenv(childEnv) == "1" {
		spin()
	}
}

// sink keeps the loop's work from being optimised away.
//
//lint:ignore U1000 written by the spin, read by nobody, on purpose
var sink uint64

func spin() {
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
		sink = x
	}
}

// Hogs are running busy processes.
type Hogs struct{ procs []*exec.Cmd }

// Start starts n busy processes, one per CPU when n ≤ 0.
func Start(n int) (*Hogs, error) {
	if n <= 0 {
		n = runtime.NumCPU()
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cpuhog: %w", err)
	}
	h := &Hogs{}
	for range n {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		if err := cmd.Start(); err != nil {
			h.Stop()
			return nil, fmt.Errorf("cpuhog: starting %s: %w", self, err)
		}
		h.procs = append(h.procs, cmd)
	}
	return h, nil
}

// Len is the number of busy processes.
func (h *Hogs) Len() int { return len(h.procs) }

// Stop kills the busy processes and waits for them.
func (h *Hogs) Stop() {
	for _, p := range h.procs {
		_ = p.Process.Kill()
		_ = p.Wait()
	}
	h.procs = nil
}

// T keeps n busy processes (one per CPU when n ≤ 0) running until tb ends.
func T(tb testing.TB, n int) {
	tb.Helper()
	h, err := Start(n)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(h.Stop)
}
