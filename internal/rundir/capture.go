package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/streams"
)

// ReadApplied reads the capture file path (in format, of device: "all"
// for every one) into the applied workload `run --tests rwsw` records in
// run.json: the workload, the dominant demand intensity as TC × QD, the
// file's sha256 and the whole characterisation, read once.
func ReadApplied(path, format, device string) (*pts.Applied, error) {
	if device == "" {
		device = "all"
	}
	if err := captureFile(path); err != nil {
		return nil, err
	}
	c, err := streams.ReadCapture(path, device, capture.Options{Format: capture.Format(format), Event: 'Q'})
	if err != nil {
		return nil, err
	}
	rep := c.Report
	a := &pts.Applied{Capture: path, SHA256: c.SHA256, Format: string(rep.Format), Device: rep.Device, Covered: rep.Workload.Covered,
		SequentialRule: rep.SequentialRule, OIO: c.Demand.OIO, OIOSource: c.Demand.Source}
	a.TC, a.QD = pts.DemandOf(a.OIO)
	for _, s := range rep.Workload.Streams {
		acc := engine.Random
		if s.Access == "sequential" {
			acc = engine.Sequential
		}
		a.Streams = append(a.Streams, engine.Stream{Read: s.Dir == capture.Read.String(), Access: acc, Bytes: s.Size, Percent: s.Share})
		a.CaptureShares = append(a.CaptureShares, s.CaptureShare)
	}
	if a.Characterisation, err = json.Marshal(rep); err != nil {
		return nil, err
	}
	return a, nil
}

// ApplyCapture reads --capture's file (path; "" for none) into the
// applied workload of c's rwsw test; only rwsw takes a capture.
func ApplyCapture(c *pts.Config, path, format, device string) error {
	if path == "" {
		return nil
	}
	if !slices.Contains(c.Tests, pts.RWSW) {
		return fmt.Errorf("--capture %s: only --tests rwsw takes a capture", path)
	}
	a, err := ReadApplied(path, format, device)
	if err != nil {
		return fmt.Errorf("--capture: %w", err)
	}
	c.RWSW = a
	return nil
}

// CheckCapture refuses to resume the rwsw run in dir with a capture
// other than the one its applied workload was read from (by sha256);
// path "" checks nothing.
func CheckCapture(dir, path string) error {
	if path == "" {
		return nil
	}
	if err := captureFile(path); err != nil {
		return fmt.Errorf("--capture: %w", err)
	}
	ri, err := pts.LoadRunInfo(dir)
	if err != nil {
		return err
	}
	if ri.Config.RWSW == nil {
		return fmt.Errorf("--capture %s: the run in %s has no rwsw test to take a capture", path, dir)
	}
	sum, err := streams.FileSHA256(path)
	if err != nil {
		return err
	}
	return ri.Config.RWSW.CheckCapture(path, sum)
}

// captureFile refuses an rwsw capture that is not a regular file: run.json
// records it by path and sha256 for resume to check, so standard input
// ("-", read once) cannot be one, and a device node or fifo (/dev/zero)
// would be read without end.
func captureFile(path string) error {
	if path == "-" {
		return errors.New("-: an rwsw capture must be a file: run.json records its sha256, and resume reads it again")
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: an rwsw capture must be a regular file, not %s", path, st.Mode().Type())
	}
	return nil
}
