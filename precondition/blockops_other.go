//go:build !linux

package precondition

import (
	"context"
	"errors"
)

// Discard, zero-fill and the read-back check need Linux block devices.
var errNotLinux = errors.New("block-device purges need Linux")

func discardRun(context.Context, *Purger, Dev, *recorder) error  { return errNotLinux }
func zeroFillRun(context.Context, *Purger, Dev, *recorder) error { return errNotLinux }
func sample(Dev) (sampleSet, error)                              { return sampleSet{}, errNotLinux }
