package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// smartctlJSON is the part of `smartctl --json -a` read here, in
// smartmontools' key names (smartctl.cpp, ataprint.cpp, scsiprint.cpp,
// nvmeprint.cpp; JSON format 1.0, smartctl 7.0 and later).
type smartctlJSON struct {
	Smartctl struct {
		Version  []int `json:"version"`
		Messages []struct {
			String   string `json:"string"`
			Severity string `json:"severity"`
		} `json:"messages"`
		ExitStatus *int `json:"exit_status"`
	} `json:"smartctl"`
	Device struct {
		Name     string `json:"name"`
		Protocol string `json:"protocol"`
	} `json:"device"`
	SmartStatus struct {
		Passed *bool `json:"passed"`
	} `json:"smart_status"`
	Temperature struct {
		Current          num `json:"current"`
		OpLimitMax       num `json:"op_limit_max"`
		CriticalLimitMax num `json:"critical_limit_max"`
		DriveTrip        num `json:"drive_trip"`
	} `json:"temperature"`
	PowerOnTime struct {
		Hours num `json:"hours"`
	} `json:"power_on_time"`
	PowerCycleCount  num `json:"power_cycle_count"`
	LogicalBlockSize num `json:"logical_block_size"`
	SpareAvailable   struct {
		CurrentPercent   num `json:"current_percent"`
		ThresholdPercent num `json:"threshold_percent"`
	} `json:"spare_available"`
	EnduranceUsed struct {
		CurrentPercent num `json:"current_percent"`
	} `json:"endurance_used"`
	HostReads  hostIO `json:"host_reads"`
	HostWrites hostIO `json:"host_writes"`

	NVMeThreshold struct {
		Warning  num `json:"warning"`
		Critical num `json:"critical"`
	} `json:"nvme_composite_temperature_threshold"`
	// NVMeLog is the SMART / Health log in smartctl's key names
	// (nvmeprint.cpp); temperatures in °C.
	NVMeLog json.RawMessage `json:"nvme_smart_health_information_log"`

	ATAAttributes struct {
		Table []struct {
			ID         int    `json:"id"`
			Name       string `json:"name"`
			Value      num    `json:"value"`
			Worst      num    `json:"worst"`
			Thresh     num    `json:"thresh"`
			WhenFailed string `json:"when_failed"`
			Raw        struct {
				Value  num    `json:"value"`
				String string `json:"string"`
			} `json:"raw"`
		} `json:"table"`
	} `json:"ata_smart_attributes"`
	ATAErrorLog struct {
		Extended *struct {
			Count num `json:"count"`
		} `json:"extended"`
		Summary *struct {
			Count num `json:"count"`
		} `json:"summary"`
	} `json:"ata_smart_error_log"`

	SCSIGrownDefects num `json:"scsi_grown_defect_list"`
	SCSIPercentUsed  num `json:"scsi_percentage_used_endurance_indicator"`
	SCSIErrorCounter map[string]struct {
		TotalUncorrected num `json:"total_uncorrected_errors"`
	} `json:"scsi_error_counter_log"`
}

func (j smartctlJSON) hasNVMeLog() bool {
	return len(j.NVMeLog) > 0 && string(bytes.TrimSpace(j.NVMeLog)) != "null"
}

type hostIO struct {
	Units        num `json:"units"`
	BytesPerUnit num `json:"bytes_per_unit"`
}

func (h hostIO) bytes() (uint64, bool) {
	unit, ok := h.BytesPerUnit.uint()
	if !ok {
		return 0, false
	}
	return h.Units.mulUint(unit)
}

// smartctl's exit status bits (smartctl(8)): 0 the command line did not
// parse (smartctl also sets it when it cannot tell the device's type), 1
// the device could not be opened, 2 a command to the device failed. The
// others are the drive's health, not a failure to read it.
const (
	smartctlBadArgs = 1 << 0
	smartctlNoOpen  = 1 << 1
)

func parseSmartctlResult(dev string, res Result) (Reading, error) {
	r, err := ParseSmartctl(dev, res.Stdout)
	if err != nil && !bytes.Contains(res.Stdout, []byte("{")) {
		// Not JSON at all: smartctl older than 7.0, or something else.
		if msg := firstLine(res.Stderr, res.Stdout); msg != "" {
			return Reading{}, fmt.Errorf("%w (exit status %d): %s", err, res.ExitCode, msg)
		}
	}
	return r, err
}

// ParseSmartctl reads the output of `smartctl --json -a DEV` (ATA, SCSI
// or NVMe). A smartctl that could not read the device (its exit status's
// bits 0 and 1) is an error that says why, in smartctl's words, wrapping
// ErrUnsupported or ErrPermission where they say that.
func ParseSmartctl(dev string, stdout []byte) (Reading, error) {
	var j smartctlJSON
	if err := json.Unmarshal(stdout, &j); err != nil {
		return Reading{}, fmt.Errorf("output is not smartctl's JSON (smartctl 7.0 or later prints it with --json): %v", err)
	}
	var msgs []string
	for _, m := range j.Smartctl.Messages {
		if s := strings.TrimSpace(m.String); s != "" {
			msgs = append(msgs, s)
		}
	}
	said := strings.Join(msgs, "; ")
	if j.Smartctl.ExitStatus == nil && j.Device.Name == "" {
		return Reading{}, errors.New("output is not smartctl's JSON: no smartctl.exit_status and no device")
	}
	if st := j.Smartctl.ExitStatus; st != nil && *st&(smartctlBadArgs|smartctlNoOpen) != 0 {
		if said == "" {
			said = "no message"
		}
		return Reading{}, fmt.Errorf("%w: smartctl says %q (exit status %d)", classify(said), said, *st)
	}

	const s = SourceSmartctl
	r := Reading{Device: dev, Sources: []string{s}}
	setU := func(f *Field[uint64], n num) {
		if v, ok := n.uint(); ok {
			*f = known(v, s)
		}
	}
	setC := func(f *Field[float64], n num) {
		if v, ok := n.int(); ok && v > -274 && v < 1000 {
			*f = known(float64(v), s)
		}
	}
	if p := j.SmartStatus.Passed; p != nil {
		r.SMARTPassed = known(*p, s)
	}

	// The protocol's own figures first, then smartctl's protocol-independent
	// ones (which newer smartctl derives from them, or from ATA's device
	// statistics).
	if j.hasNVMeLog() {
		var l healthLog
		if err := l.decode(j.NVMeLog, smartctlKeys); err != nil {
			return Reading{}, fmt.Errorf("smartctl's nvme_smart_health_information_log: %v", err)
		}
		l.fill(&r, s, celsius)
		setC(&r.WarningTemp, j.NVMeThreshold.Warning)
		setC(&r.CriticalTemp, j.NVMeThreshold.Critical)
	}

	if t := j.ATAAttributes.Table; len(t) > 0 {
		attrs := make([]Attribute, 0, len(t))
		lbs, ok := j.LogicalBlockSize.uint()
		if !ok || lbs == 0 {
			lbs = 512
		}
		for _, a := range t {
			raw, _ := a.Raw.Value.uint()
			value, _ := a.Value.int()
			worst, _ := a.Worst.int()
			thresh, _ := a.Thresh.int()
			attrs = append(attrs, Attribute{ID: a.ID, Name: a.Name, Value: int(value), Worst: int(worst),
				Thresh: int(thresh), Raw: raw, RawString: a.Raw.String, WhenFailed: a.WhenFailed})
			count, ok := rawCount(a.Raw.String, a.Raw.Value)
			if !ok {
				continue
			}
			f := map[int]*Field[uint64]{5: &r.ReallocatedSectors, 187: &r.ReportedUncorrectable, 188: &r.CommandTimeouts,
				197: &r.PendingSectors, 198: &r.OfflineUncorrectable, 199: &r.CRCErrors}[a.ID]
			switch {
			case f != nil:
				*f = known(count, s)
			case a.ID == 241 || a.ID == 242:
				unit, ok := lbaUnit(a.Name, lbs)
				if !ok || count > ^uint64(0)/unit {
					continue
				}
				if a.ID == 241 {
					r.BytesWritten = known(count*unit, s)
				} else {
					r.BytesRead = known(count*unit, s)
				}
			}
		}
		r.Attributes = known(attrs, s)
	}
	if e := j.ATAErrorLog.Extended; e != nil {
		setU(&r.ErrorLogEntries, e.Count)
	} else if e := j.ATAErrorLog.Summary; e != nil {
		setU(&r.ErrorLogEntries, e.Count)
	}

	setU(&r.GrownDefects, j.SCSIGrownDefects)
	setU(&r.PercentUsed, j.SCSIPercentUsed)
	if len(j.SCSIErrorCounter) > 0 {
		var sum uint64
		all := true
		for _, k := range []string{"read", "write", "verify"} {
			c, ok := j.SCSIErrorCounter[k]
			if !ok {
				continue
			}
			v, ok := c.TotalUncorrected.uint()
			if !ok || sum+v < sum {
				all = false
				break
			}
			sum += v
		}
		if all {
			r.MediaErrors = known(sum, s)
		}
	}
	setC(&r.CriticalTemp, j.Temperature.DriveTrip)

	// Protocol-independent figures, where the protocol's gave none.
	if !r.Temperature.Known() {
		setC(&r.Temperature, j.Temperature.Current)
	}
	if !r.WarningTemp.Known() {
		setC(&r.WarningTemp, j.Temperature.OpLimitMax)
	}
	if !r.CriticalTemp.Known() {
		setC(&r.CriticalTemp, j.Temperature.CriticalLimitMax)
	}
	if !r.PowerOnHours.Known() {
		setU(&r.PowerOnHours, j.PowerOnTime.Hours)
	}
	if !r.PowerCycles.Known() {
		setU(&r.PowerCycles, j.PowerCycleCount)
	}
	if !r.AvailableSpare.Known() {
		setU(&r.AvailableSpare, j.SpareAvailable.CurrentPercent)
	}
	if !r.AvailableSpareThreshold.Known() {
		setU(&r.AvailableSpareThreshold, j.SpareAvailable.ThresholdPercent)
	}
	if !r.PercentUsed.Known() {
		setU(&r.PercentUsed, j.EnduranceUsed.CurrentPercent)
	}
	// ATA's device statistics count in logical sectors, exactly; the
	// attributes' units are the vendor's.
	if v, ok := j.HostWrites.bytes(); ok && !j.hasNVMeLog() {
		r.BytesWritten = known(v, s)
	}
	if v, ok := j.HostReads.bytes(); ok && !j.hasNVMeLog() {
		r.BytesRead = known(v, s)
	}

	if r.Empty() {
		if said == "" {
			said = "nothing of the device's health"
		}
		return Reading{}, fmt.Errorf("%w: smartctl printed no temperature or health (%s)", ErrUnsupported, said)
	}
	return r, nil
}

// nvmeDataUnit is the size of NVMe's data units: 1000 blocks of 512 bytes.
const nvmeDataUnit = 1000 * 512

func nvmeSensorLabel(n int) string { return "Sensor " + strconv.Itoa(n) }

// rawCount is an attribute's count as smartctl reads it: the leading
// number of its raw string (which smartctl formats by its drive
// database: "0", "12 (Min/Max 20/45)", "0 0 0" for some 188s), else its
// raw value.
func rawCount(s string, raw num) (uint64, bool) {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end > 0 {
		if v, err := strconv.ParseUint(s[:end], 10, 64); err == nil {
			return v, true
		}
	}
	return raw.uint()
}

// lbaUnit is the bytes one count of attribute 241 or 242 stands for, by
// its name in smartctl's drive database; false for units it cannot tell.
func lbaUnit(name string, logical uint64) (uint64, bool) {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "lbas"), strings.HasSuffix(n, "_sectors"):
		return logical, true
	case strings.HasSuffix(n, "_32mib"):
		return 32 << 20, true
	case strings.HasSuffix(n, "_gib"):
		return 1 << 30, true
	case strings.HasSuffix(n, "_mib"):
		return 1 << 20, true
	}
	return 0, false
}

// classify is the error a tool's message says: ErrPermission,
// ErrUnsupported, or a plain one.
func classify(msg string) error {
	m := strings.ToLower(msg)
	for _, c := range []struct {
		err  error
		says []string
	}{
		{ErrPermission, []string{"operation not permitted", "permission denied"}},
		{ErrUnsupported, []string{"unable to detect device type", "unknown usb bridge", "inappropriate ioctl", "invalid argument",
			"operation not supported", "not supported", "unsupported", "invalid field", "invalid log page",
			"nvme status", "unknown guid", "unable to read c0", "lacks smart capability", "smart support is: unavailable"}},
	} {
		for _, s := range c.says {
			if strings.Contains(m, s) {
				return c.err
			}
		}
	}
	return errors.New("failed")
}

// firstLine is the first line of text the first non-empty output has,
// without terminal escapes.
func firstLine(outs ...[]byte) string {
	for _, o := range outs {
		for _, l := range strings.Split(string(o), "\n") {
			l = strings.TrimSpace(stripEscapes(l))
			if l != "" {
				return l
			}
		}
	}
	return ""
}

// stripEscapes removes ANSI escape sequences (nvme-cli's bold usage).
func stripEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
