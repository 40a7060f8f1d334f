package capture

import (
	"fmt"
	"io"
	"os"
)

// ReadFile parses the capture in the file path, or in stdin when path is
// "-"; name is what its errors call it. With a hash, every byte of the
// file goes to it too, those after where the parser stopped included: a
// run records the capture it read by its digest.
func ReadFile(path string, stdin io.Reader, opt Options, hash io.Writer) (c *Capture, name string, err error) {
	name, r := path, stdin
	if path == "-" {
		name = "standard input"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, name, err
		}
		defer f.Close()
		r = f
	}
	if hash != nil {
		r = io.TeeReader(r, hash)
	}
	if c, err = Parse(r, name, opt); err != nil {
		return nil, name, err
	}
	if hash != nil {
		if _, err := io.Copy(io.Discard, r); err != nil {
			return nil, name, fmt.Errorf("%s: %w", name, err)
		}
	}
	return c, name, nil
}
