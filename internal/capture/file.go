package capture

import (
	"bytes"
	"context"
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
	} else if head, err := blktraceHead(path); err == nil && IsBlktrace(head) && (opt.Format == "" || opt.Format == Auto || opt.Format == Blkparse) {
		// blktrace's binary records: blkparse makes them the text Parse
		// reads. The digest is still the file's own bytes.
		text, read, err := BlktraceText(context.Background(), path)
		if err != nil {
			return nil, path, err
		}
		if hash != nil {
			f, err := os.Open(path)
			if err != nil {
				return nil, path, err
			}
			defer f.Close()
			if _, err := io.Copy(hash, f); err != nil {
				return nil, path, fmt.Errorf("%s: %w", path, err)
			}
		}
		opt.Format = Blkparse
		c, err = Parse(bytes.NewReader(text), read+" through blkparse", opt)
		return c, path, err
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
