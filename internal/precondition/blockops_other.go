//go:build !linux

package precondition

import (
	"context"
	"errors"
)

// Discard, zero-fill and the read-back check need Linux block devices.
var errNotLinux = errors.New("block-device purges need Linux")

func discardRun(context.Context, *Purger, Dev, *recorder) (completion, error) {
	return completion{}, errNotLinux
}
func zeroFillRun(context.Context, *Purger, Dev, *recorder) (completion, error) {
	return completion{}, errNotLinux
}
func readBack(Dev, byte) (int, int, error) { return 0, 0, errNotLinux }
