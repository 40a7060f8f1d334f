package engine

import (
	"context"
	"errors"
	"time"
)

// Engine runs workloads on the target set it was opened for.
type Engine interface {
	// RunCells runs cells one after the other and calls done(i, m, wall)
	// with cell i's measurement and the wall time it took; cell i+1 does
	// no I/O before done has returned, so that the caller can journal a
	// cell before the next one starts. An engine that can only run the
	// cells in one go (fio through fio servers) calls done for each, in
	// order, when all have run, with an equal share of the wall time, and
	// returns a failure of that run as a *BatchError. name names the cells
	// as a whole (a round), for such an engine's files. An error from done stops RunCells, which returns it
	// as it is. When ctx is cancelled RunCells stops as soon as it can and
	// returns ctx's error: the cells done was called for are results, the
	// one cut short is not.
	RunCells(ctx context.Context, name string, cells []Cell, done func(i int, m Measurement, wall time.Duration) error) error
	// Describe names the engine and its version ("fio 3.33", "native io_uring").
	Describe() string
	Close() error
}

// Cell is one workload to run, named for the files an engine keeps of it
// (fio's job files); an engine names an unnamed cell itself.
type Cell struct {
	Name     string
	Workload Workload
}

// RunCell runs one cell and returns its measurement, for callers with a
// single workload (ptsrun workload, plan's estimate, tests).
func RunCell(ctx context.Context, e Engine, c Cell) (Measurement, error) {
	var out Measurement
	err := e.RunCells(ctx, c.Name, []Cell{c}, func(_ int, m Measurement, _ time.Duration) error {
		out = m
		return nil
	})
	return out, err
}

// RunEach is RunCells for an engine that measures one workload at a time
// with run.
func RunEach(ctx context.Context, cells []Cell, done func(int, Measurement, time.Duration) error,
	run func(context.Context, Workload) (Measurement, error)) error {
	for i, c := range cells {
		start := time.Now()
		m, err := run(ctx, c.Workload)
		if err != nil {
			return err
		}
		if err := done(i, m, time.Since(start)); err != nil {
			return err
		}
	}
	return nil
}

// BatchError is the failure of cells an engine ran in one go: it belongs
// to all of them, not to the first one without a measurement.
type BatchError struct{ Err error }

func (e *BatchError) Error() string { return e.Err.Error() }
func (e *BatchError) Unwrap() error { return e.Err }

// ErrIO marks a measurement ended by an I/O error on the target.
var ErrIO = errors.New("I/O error")

// Rest is an idle workload on a real target: no I/O for its duration, in
// wall time; the measurement is empty but for the time. ctx ends it early
// with ctx's error.
func Rest(ctx context.Context, w Workload) (Measurement, error) {
	t := time.NewTimer(w.Duration)
	defer t.Stop()
	start := time.Now()
	select {
	case <-ctx.Done():
		return Measurement{}, ctx.Err()
	case <-t.C:
	}
	return Measurement{Engine: "idle", Elapsed: time.Since(start)}, nil
}
