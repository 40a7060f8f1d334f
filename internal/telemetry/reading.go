package telemetry

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Names of the sources, as a Field's Source and a Reading's Sources say
// them.
const (
	SourceHwmon    = "hwmon"        // the kernel's hwmon sensors in sysfs
	SourceNVMe     = "nvme-cli"     // nvme smart-log: the NVMe SMART / Health Information log (02h)
	SourceOCP      = "nvme-cli-ocp" // nvme ocp smart-add-log: the OCP extended SMART log (C0h)
	SourceSmartctl = "smartctl"     // smartctl --json -a
	SourceSim      = "sim"          // the simulated drive's model (engine/sim), not hardware
)

// Field is one figure of a Reading and the source it came from. A Field
// without a source is not known, whatever its value: "not available" is
// never 0.
//
// Value comes first and Source second: Compact reads them by index.
type Field[T any] struct {
	Value  T      `json:"value"`
	Source string `json:"source"`
}

// Known reports whether a source gave the figure.
func (f Field[T]) Known() bool { return f.Source != "" }

// IsZero is !Known: an unknown figure is left out of JSON (omitzero).
func (f Field[T]) IsZero() bool { return !f.Known() }

// Get is the value and whether it is known.
func (f Field[T]) Get() (T, bool) { return f.Value, f.Known() }

// known is a Field of v from source.
func known[T any](v T, source string) Field[T] { return Field[T]{Value: v, Source: source} }

// Sensor is one temperature sensor of a drive besides its composite
// temperature.
type Sensor struct {
	// Label is the sensor's name: "Sensor 1" … "Sensor 8" for NVMe's
	// temperature sensors, whichever source read them; hwmon's label
	// otherwise (or "tempN" without one).
	Label   string  `json:"label"`
	Celsius float64 `json:"celsius"`
}

// Attribute is one ATA SMART attribute as smartctl prints it.
type Attribute struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Value int    `json:"value"` // normalized, as the drive reports it
	Worst int    `json:"worst"`
	// Thresh is the drive's failure threshold for Value.
	Thresh int `json:"thresh"`
	// Raw is smartctl's raw value (all 48 bits); RawString smartctl's
	// reading of it by its drive database ("36 (Min/Max 20/45)").
	Raw       uint64 `json:"raw"`
	RawString string `json:"raw_string"`
	// WhenFailed is "now", "past" or "" as smartctl says.
	WhenFailed string `json:"when_failed,omitempty"`
}

// CriticalWarning is NVMe's Critical Warning byte (SMART / Health log,
// byte 0), with its bits named.
type CriticalWarning struct {
	Raw uint8 `json:"raw"`
	// Flags names the bits set: spare_below_threshold, temperature,
	// reliability_degraded, read_only, volatile_backup_failed,
	// pmr_unreliable, bit6, bit7.
	Flags []string `json:"flags,omitempty"`
}

var criticalWarningBits = [8]struct{ flag, words string }{
	{"spare_below_threshold", "available spare below its threshold"},
	{"temperature", "temperature above or below a threshold"},
	{"reliability_degraded", "reliability degraded by media or internal errors"},
	{"read_only", "media placed in read-only mode"},
	{"volatile_backup_failed", "volatile memory backup device failed"},
	{"pmr_unreliable", "persistent memory region read-only or unreliable"},
	{"bit6", "reserved bit 6 set"},
	{"bit7", "reserved bit 7 set"},
}

// DecodeCriticalWarning names the bits of a Critical Warning byte.
func DecodeCriticalWarning(raw uint8) CriticalWarning {
	w := CriticalWarning{Raw: raw}
	for i, b := range criticalWarningBits {
		if raw&(1<<i) != 0 {
			w.Flags = append(w.Flags, b.flag)
		}
	}
	return w
}

// String says the warnings in words, "none" without any.
func (w CriticalWarning) String() string {
	if w.Raw == 0 {
		return "none"
	}
	var out []string
	for i, b := range criticalWarningBits {
		if w.Raw&(1<<i) != 0 {
			out = append(out, b.words)
		}
	}
	return fmt.Sprintf("0x%02x: %s", w.Raw, strings.Join(out, "; "))
}

// Reading is what the sources of one device say of its temperature and
// health at one moment. Temperatures are in °C, byte counts in bytes,
// times as their names say.
type Reading struct {
	// Device is the device node read ("/dev/nvme0n1"; a partition's disk).
	Device string `json:"device"`
	// Sources are the sources the reading comes from, in the order they
	// were merged.
	Sources []string `json:"sources,omitempty"`

	// Temperature is the drive's composite temperature (NVMe), or its
	// one temperature (ATA, SCSI).
	Temperature Field[float64] `json:"temperature_c,omitzero"`
	// Sensors are the drive's other temperature sensors, by label.
	Sensors Field[[]Sensor] `json:"sensors,omitzero"`
	// WarningTemp is the temperature above which the drive warns or
	// throttles: NVMe's WCTEMP (hwmon: the temperature threshold
	// feature), ATA's specified maximum operating temperature, drivetemp's
	// temp1_max.
	WarningTemp Field[float64] `json:"warning_temp_c,omitzero"`
	// CriticalTemp is the temperature at which the drive is at risk:
	// NVMe's CCTEMP, SCSI's drive trip temperature, drivetemp's temp1_crit.
	CriticalTemp Field[float64] `json:"critical_temp_c,omitzero"`

	// SMARTPassed is smartctl's overall health self-assessment.
	SMARTPassed Field[bool] `json:"smart_passed,omitzero"`
	// CriticalWarning is NVMe's critical warning byte, decoded.
	CriticalWarning Field[CriticalWarning] `json:"critical_warning,omitzero"`

	// Thermal management (NVMe 1.3): how often the controller moved to a
	// lighter (1) or heavier (2) throttling and the seconds it spent
	// there, and the minutes the composite temperature spent at or above
	// WCTEMP and CCTEMP.
	ThermalMgmt1Transitions Field[uint64] `json:"thermal_mgmt_1_transitions,omitzero"`
	ThermalMgmt1Seconds     Field[uint64] `json:"thermal_mgmt_1_seconds,omitzero"`
	ThermalMgmt2Transitions Field[uint64] `json:"thermal_mgmt_2_transitions,omitzero"`
	ThermalMgmt2Seconds     Field[uint64] `json:"thermal_mgmt_2_seconds,omitzero"`
	WarningTempMinutes      Field[uint64] `json:"warning_temp_minutes,omitzero"`
	CriticalTempMinutes     Field[uint64] `json:"critical_temp_minutes,omitzero"`
	// ThrottlingEvents is the OCP log's count of thermal throttling events.
	ThrottlingEvents Field[uint64] `json:"throttling_events,omitzero"`

	// MediaErrors: NVMe's media and data integrity errors; SCSI's total
	// uncorrected read, write and verify errors.
	MediaErrors Field[uint64] `json:"media_errors,omitzero"`
	// ErrorLogEntries: NVMe's error information log entries over the
	// drive's life; ATA's error log count.
	ErrorLogEntries Field[uint64] `json:"error_log_entries,omitzero"`
	// PercentUsed is the drive's estimate of its life used (may pass 100).
	PercentUsed Field[uint64] `json:"percent_used,omitzero"`
	// AvailableSpare and its threshold, in % of the spare capacity.
	AvailableSpare          Field[uint64] `json:"available_spare_pct,omitzero"`
	AvailableSpareThreshold Field[uint64] `json:"available_spare_threshold_pct,omitzero"`

	// BytesRead and BytesWritten are what the host read and wrote: NVMe's
	// data units (1000 × 512 bytes each), ATA's device statistics or LBAs
	// read and written (attributes 242, 241).
	BytesRead    Field[uint64] `json:"bytes_read,omitzero"`
	BytesWritten Field[uint64] `json:"bytes_written,omitzero"`
	// NANDBytesRead and NANDBytesWritten are what the drive read from and
	// wrote to its media (OCP's physical media units): with BytesWritten,
	// the write amplification.
	NANDBytesRead    Field[uint64] `json:"nand_bytes_read,omitzero"`
	NANDBytesWritten Field[uint64] `json:"nand_bytes_written,omitzero"`

	PowerOnHours    Field[uint64] `json:"power_on_hours,omitzero"`
	PowerCycles     Field[uint64] `json:"power_cycles,omitzero"`
	UnsafeShutdowns Field[uint64] `json:"unsafe_shutdowns,omitzero"`

	// ATA SMART attributes by their usual IDs, the raw count as smartctl
	// reads it: 5, 187, 188, 197, 198, 199.
	ReallocatedSectors    Field[uint64] `json:"reallocated_sectors,omitzero"`
	ReportedUncorrectable Field[uint64] `json:"reported_uncorrectable,omitzero"`
	CommandTimeouts       Field[uint64] `json:"command_timeouts,omitzero"`
	PendingSectors        Field[uint64] `json:"pending_sectors,omitzero"`
	OfflineUncorrectable  Field[uint64] `json:"offline_uncorrectable,omitzero"`
	CRCErrors             Field[uint64] `json:"crc_errors,omitzero"`
	// Attributes is every ATA SMART attribute smartctl listed.
	Attributes Field[[]Attribute] `json:"ata_attributes,omitzero"`

	// GrownDefects is SCSI's grown defect list length.
	GrownDefects Field[uint64] `json:"grown_defects,omitzero"`
}

// Empty reports whether no figure is known.
func (r Reading) Empty() bool {
	v := reflect.ValueOf(r)
	for i := range v.NumField() {
		if f, ok := v.Field(i).Interface().(interface{ Known() bool }); ok && f.Known() {
			return false
		}
	}
	return true
}

// Merge combines readings of one device into one: each figure from the
// first reading, in the order given, that knows it. Give the readings in
// the order of the sources' preference (Detect's order).
func Merge(rs ...Reading) Reading {
	var out Reading
	dst := reflect.ValueOf(&out).Elem()
	for _, r := range rs {
		if out.Device == "" {
			out.Device = r.Device
		}
		for _, s := range r.Sources {
			if !slices.Contains(out.Sources, s) {
				out.Sources = append(out.Sources, s)
			}
		}
		src := reflect.ValueOf(r)
		for i := range src.NumField() {
			f, ok := src.Field(i).Interface().(interface{ Known() bool })
			if !ok || !f.Known() {
				continue
			}
			if !dst.Field(i).Interface().(interface{ Known() bool }).Known() {
				dst.Field(i).Set(src.Field(i))
			}
		}
	}
	return out
}

// WriteAmplification is the NAND bytes written per host byte written
// between two readings of one drive: false when either lacks one of the
// counts or the host wrote nothing between them.
func WriteAmplification(before, after Reading) (float64, bool) {
	hb, ok1 := before.BytesWritten.Get()
	ha, ok2 := after.BytesWritten.Get()
	nb, ok3 := before.NANDBytesWritten.Get()
	na, ok4 := after.NANDBytesWritten.Get()
	if !ok1 || !ok2 || !ok3 || !ok4 || ha <= hb || na < nb {
		return 0, false
	}
	return float64(na-nb) / float64(ha-hb), true
}
