//go:build !linux

package native

import (
	"context"
	"errors"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Target is one block device or file the engine drives: the engines' one
// target type; the native engine takes only targets on this host.
type Target = engine.Target

// Options tune the engine.
type Options struct {
	ForcePread bool
	NoPin      bool
	Trace      int
	Poll       time.Duration
	IdlePolls  bool
}

// Engine is not available on this OS.
type Engine struct{}

var errOS = errors.New("the native engine needs Linux")

// Open fails: the native engine needs Linux.
func Open([]Target, Options) (*Engine, error) { return nil, errOS }

func (*Engine) RunCells(context.Context, string, []engine.Cell, func(int, engine.Measurement, time.Duration) error) error {
	return errOS
}
func (*Engine) Describe() string { return "native (not supported on this OS)" }
func (*Engine) Close() error     { return nil }
func (*Engine) Mode() string     { return "" }

// Probe says the engine is not available.
func Probe() string { return "unavailable on this OS" }

// Replay fails: the native engine needs Linux.
func (*Engine) Replay(context.Context, engine.Timed) (engine.TimedResult, error) {
	return engine.TimedResult{}, errOS
}
