package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// kelvin converts NVMe's temperatures (whole kelvins) to °C; 0 K is a
// sensor that does not report.
func kelvin(n num) (float64, bool) {
	k, ok := n.int()
	if !ok || k <= 0 || k > 1273 {
		return 0, false
	}
	return math.Round((float64(k)-273.15)*100) / 100, true
}

// jsonObject is the first JSON object of a tool's output, which may have
// lines before it.
func jsonObject(out []byte) ([]byte, bool) {
	i := bytes.IndexByte(out, '{')
	if i < 0 {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(out[i:]))
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return nil, false
	}
	return raw, true
}

// nvmeFailure is why nvme-cli printed no JSON: its message (stderr, then
// stdout, first line) and the error it says.
func nvmeFailure(tool string, res Result) error {
	msg := firstLine(res.Stderr, res.Stdout)
	switch {
	case msg == "":
		return fmt.Errorf("%s printed nothing (exit status %d)", tool, res.ExitCode)
	case strings.Contains(msg, "Invalid sub-command"):
		return fmt.Errorf("%w: %s says %q: nvme-cli 2.0 or later has it", ErrNoTool, tool, msg)
	}
	return fmt.Errorf("%w: %s says %q (exit status %d)", classify(msg), tool, msg, res.ExitCode)
}

func parseNVMeResult(dev string, res Result) (Reading, error) {
	if _, ok := jsonObject(res.Stdout); !ok || res.ExitCode != 0 {
		return Reading{}, nvmeFailure("nvme smart-log", res)
	}
	return ParseNVMeSmartLog(dev, res.Stdout)
}

func parseOCPResult(dev string, res Result) (Reading, error) {
	if _, ok := jsonObject(res.Stdout); !ok || res.ExitCode != 0 {
		return Reading{}, nvmeFailure("nvme ocp smart-add-log", res)
	}
	return ParseOCPSmartLog(dev, res.Stdout)
}

// ParseNVMeSmartLog reads the output of `nvme smart-log DEV -o json`
// (nvme-print-json.c, json_smart_log; the same keys since nvme-cli 1.x,
// which printed counters as floats, 2.x as strings, later as numbers).
// Temperatures are in kelvins.
func ParseNVMeSmartLog(dev string, stdout []byte) (Reading, error) {
	obj, ok := jsonObject(stdout)
	if !ok {
		return Reading{}, errors.New("output of nvme smart-log holds no JSON object")
	}
	var l healthLog
	if err := l.decode(obj, nvmeCLIKeys); err != nil {
		return Reading{}, fmt.Errorf("output of nvme smart-log: %v", err)
	}
	r := Reading{Device: dev, Sources: []string{SourceNVMe}}
	l.fill(&r, SourceNVMe, kelvin)
	if r.Empty() {
		return Reading{}, errors.New("output of nvme smart-log has none of the SMART log's fields")
	}
	return r, nil
}

// ocpHiLo is a 128-bit counter as nvme-cli's ocp plugin prints it.
type ocpHiLo struct {
	Hi num `json:"hi"`
	Lo num `json:"lo"`
}

func (h *ocpHiLo) uint() (uint64, bool) {
	if h == nil {
		return 0, false
	}
	hi, ok1 := h.Hi.uint()
	lo, ok2 := h.Lo.uint()
	return lo, ok1 && ok2 && hi == 0
}

// ocpSmartLog is `nvme ocp smart-add-log DEV -o json` (plugins/ocp):
// the OCP Datacenter NVMe SSD extended SMART log (C0h), in the key names
// of its JSON output version 1 (words with spaces, the default) and 2.
type ocpSmartLog struct {
	PMUW1     *ocpHiLo `json:"Physical media units written"`
	PMUR1     *ocpHiLo `json:"Physical media units read"`
	PMUW2     *ocpHiLo `json:"physical_media_units_written"`
	PMUR2     *ocpHiLo `json:"physical_media_units_read"`
	Throttle1 num      `json:"Number of Thermal throttling events"`
	Throttle2 num      `json:"thermal_throttling_events"`
}

// ParseOCPSmartLog reads the output of `nvme ocp smart-add-log DEV -o
// json`: the bytes written to and read from the media (physical media
// units, in bytes) and the thermal throttling events.
func ParseOCPSmartLog(dev string, stdout []byte) (Reading, error) {
	obj, ok := jsonObject(stdout)
	if !ok {
		return Reading{}, errors.New("output of nvme ocp smart-add-log holds no JSON object")
	}
	var l ocpSmartLog
	if err := json.Unmarshal(obj, &l); err != nil {
		return Reading{}, fmt.Errorf("output of nvme ocp smart-add-log: %v", err)
	}
	const s = SourceOCP
	r := Reading{Device: dev, Sources: []string{s}}
	pick := func(a, b *ocpHiLo) *ocpHiLo {
		if a != nil {
			return a
		}
		return b
	}
	if v, ok := pick(l.PMUW1, l.PMUW2).uint(); ok {
		r.NANDBytesWritten = known(v, s)
	}
	if v, ok := pick(l.PMUR1, l.PMUR2).uint(); ok {
		r.NANDBytesRead = known(v, s)
	}
	for _, t := range []num{l.Throttle1, l.Throttle2} {
		if v, ok := t.uint(); ok {
			r.ThrottlingEvents = known(v, s)
			break
		}
	}
	if r.Empty() {
		return Reading{}, errors.New("output of nvme ocp smart-add-log has no physical media units nor throttling events")
	}
	return r, nil
}
