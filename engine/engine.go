package engine

import (
	"context"
	"errors"
	"time"
)

// Engine runs workloads on the target set it was opened for.
type Engine interface {
	// Run executes one workload and returns its measurement. When ctx is
	// cancelled Run stops as soon as it can and returns ctx's error; the
	// partial measurement is not a result.
	Run(ctx context.Context, w Workload) (Measurement, error)
	// Describe names the engine and its version ("fio 3.33", "native io_uring").
	Describe() string
	Close() error
}

// Purger is implemented by engines whose targets purge themselves (the
// simulated drive). Real devices are purged by the precondition package.
// Purge returns how long the purge took on the target's own clock.
type Purger interface {
	Purge(ctx context.Context) (time.Duration, error)
}

// RemotePurger is implemented by engines that reach targets ptsrun cannot
// open itself (fio servers' hosts): they run a purge substitute there, the
// way they run workloads. Neither substitute is a PTS purge.
type RemotePurger interface {
	// PurgeSubstitute runs job (PurgeTrim or PurgeZeroFill) on every
	// target at once. The report says what ran and what was checked, as
	// far as it got when there is an error too.
	PurgeSubstitute(ctx context.Context, job string) (PurgeReport, error)
}

// Purge substitutes a RemotePurger runs.
const (
	PurgeTrim     = "trim"      // discard every block
	PurgeZeroFill = "zero-fill" // write zeros over every block
)

// PurgeReport is what a purge substitute ran and found.
type PurgeReport struct {
	Args     []string // the command, runnable by hand
	Output   string   // what it did, per target
	Exit     int
	Duration time.Duration
	Verified string // what was checked, per target
}

// WriteCacher is implemented by engines that control the target's volatile
// write cache themselves (the simulated drive).
type WriteCacher interface {
	WriteCache() (enabled bool, err error)
	SetWriteCache(enabled bool) error
}

// ErrIO marks a measurement ended by an I/O error on the target.
var ErrIO = errors.New("I/O error")
