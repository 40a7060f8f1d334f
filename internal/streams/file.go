package streams

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ptsrun/ptsrun/internal/capture"
)

// ReadFile characterises the capture in the file path (- for stdin) of
// the device chosen (all: every device), with the name errors and the
// report call it by.
func ReadFile(path string, stdin io.Reader, device string, parse capture.Options, opt Options) (*Report, string, error) {
	rep, _, name, err := readFile(path, stdin, device, parse, opt, nil)
	return rep, name, err
}

// A Capture is a capture file characterised for a run (`run --tests
// rwsw`): its report, its dominant demand intensity, and the sha256 of
// the file's bytes, which a resumed run checks it again by.
type Capture struct {
	Report *Report
	Demand Demand
	SHA256 string
}

// MapSteps is about how many steps ReadCapture's report has of a capture
// shorter than that many default steps.
const MapSteps = 16

// ReadCapture reads and characterises the capture file path (a file:
// a run records which), of the device chosen, with the default options.
func ReadCapture(path, device string, parse capture.Options) (*Capture, error) {
	h := sha256.New()
	rep, c, name, err := readFile(path, nil, device, parse, Options{}, h)
	if err != nil {
		return nil, err // it names the file
	}
	// A capture shorter than MapSteps default steps is stepped finer, so
	// that its report shows it over time.
	if span := time.Duration(rep.Totals.Duration * float64(time.Second)); rep.Timed && span > 0 && span < MapSteps*DefaultStep {
		step := max((span+MapSteps-1)/MapSteps, time.Millisecond).Round(time.Millisecond)
		if rep, err = Characterise(c, rep.Devices, rep.Device, Options{Step: step}); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return &Capture{Report: rep, Demand: Dominant(c), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// FileSHA256 is the sha256 of the file path's bytes.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// readFile reads and characterises a capture, the file's bytes also
// written to hash when there is one.
func readFile(path string, stdin io.Reader, device string, parse capture.Options, opt Options, hash io.Writer) (*Report, *capture.Capture, string, error) {
	c, name, err := capture.ReadFile(path, stdin, parse, hash)
	if err != nil {
		return nil, nil, name, err
	}
	one, err := c.Select(device)
	if err != nil {
		return nil, nil, name, fmt.Errorf("%s: %w", name, err)
	}
	rep, err := Characterise(one, c.Devices(), device, opt)
	if err != nil {
		return nil, nil, name, fmt.Errorf("%s: %w", name, err)
	}
	return rep, one, name, nil
}
