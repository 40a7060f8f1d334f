package capture

import (
	"io"
	"os"
)

// ReadFile parses the capture in the file path, or in stdin when path is
// "-"; name is what its errors call it.
func ReadFile(path string, stdin io.Reader, opt Options) (c *Capture, name string, err error) {
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
	c, err = Parse(r, name, opt)
	return c, name, err
}
