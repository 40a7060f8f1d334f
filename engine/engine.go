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

// WriteCacher is implemented by engines that control the target's volatile
// write cache themselves (the simulated drive).
type WriteCacher interface {
	WriteCache() (enabled bool, err error)
	SetWriteCache(enabled bool) error
}

// ErrIO marks a measurement ended by an I/O error on the target.
var ErrIO = errors.New("I/O error")
