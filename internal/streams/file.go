package streams

import (
	"fmt"
	"io"

	"github.com/ptsrun/ptsrun/internal/capture"
)

// ReadFile characterises the capture in the file path (- for stdin) of
// the device chosen (all: every device), with the name errors and the
// report call it by.
func ReadFile(path string, stdin io.Reader, device string, parse capture.Options, opt Options) (*Report, string, error) {
	c, name, err := capture.ReadFile(path, stdin, parse)
	if err != nil {
		return nil, name, err
	}
	one, err := c.Select(device)
	if err != nil {
		return nil, name, fmt.Errorf("%s: %w", name, err)
	}
	rep, err := Characterise(one, c.Devices(), device, opt)
	if err != nil {
		return nil, name, fmt.Errorf("%s: %w", name, err)
	}
	return rep, name, nil
}
