package telemetry

import (
	"encoding/json"
	"fmt"
	"strings"
)

// healthLog is the NVMe SMART / Health Information log (02h), the fields
// a Reading takes from it, as both nvme-cli (`nvme smart-log -o json`)
// and smartctl (its nvme_smart_health_information_log) print it: one
// struct of the log's fields, decoded from either tool's key names
// (healthKeys), and read into a Reading in one place (fill).
type healthLog struct {
	CriticalWarning, Temperature               num
	AvailSpare, SpareThresh, PercentUsed       num
	DataUnitsRead, DataUnitsWritten            num
	PowerCycles, PowerOnHours, UnsafeShutdowns num
	MediaErrors, ErrLogEntries                 num
	WarningTempTime, CriticalCompTime          num
	TMT1Count, TMT2Count, TMT1Time, TMT2Time   num
	Sensors                                    []num // 1 to 8, in order; an absent one unknown
}

// healthKeys are a tool's key names of the log's fields.
type healthKeys struct {
	fields map[string]func(*healthLog) *num
	// sensors is the key of the sensors' array (smartctl), or the
	// prefix of keys numbered from 1 (nvme-cli: temperature_sensor_1).
	sensors       string
	sensorsNumber bool
}

func keyMap(names [18]string) map[string]func(*healthLog) *num {
	ptrs := [18]func(*healthLog) *num{
		func(l *healthLog) *num { return &l.CriticalWarning }, func(l *healthLog) *num { return &l.Temperature },
		func(l *healthLog) *num { return &l.AvailSpare }, func(l *healthLog) *num { return &l.SpareThresh },
		func(l *healthLog) *num { return &l.PercentUsed }, func(l *healthLog) *num { return &l.DataUnitsRead },
		func(l *healthLog) *num { return &l.DataUnitsWritten }, func(l *healthLog) *num { return &l.PowerCycles },
		func(l *healthLog) *num { return &l.PowerOnHours }, func(l *healthLog) *num { return &l.UnsafeShutdowns },
		func(l *healthLog) *num { return &l.MediaErrors }, func(l *healthLog) *num { return &l.ErrLogEntries },
		func(l *healthLog) *num { return &l.WarningTempTime }, func(l *healthLog) *num { return &l.CriticalCompTime },
		func(l *healthLog) *num { return &l.TMT1Count }, func(l *healthLog) *num { return &l.TMT2Count },
		func(l *healthLog) *num { return &l.TMT1Time }, func(l *healthLog) *num { return &l.TMT2Time },
	}
	m := map[string]func(*healthLog) *num{}
	for i, n := range names {
		if n != "" && ptrs[i] != nil {
			m[n] = ptrs[i]
		}
	}
	return m
}

var (
	nvmeCLIKeys = healthKeys{fields: keyMap([18]string{"critical_warning", "temperature",
		"avail_spare", "spare_thresh", "percent_used", "data_units_read", "data_units_written",
		"power_cycles", "power_on_hours", "unsafe_shutdowns", "media_errors", "num_err_log_entries",
		"warning_temp_time", "critical_comp_time",
		"thm_temp1_trans_count", "thm_temp2_trans_count", "thm_temp1_total_time", "thm_temp2_total_time"}),
		sensors: "temperature_sensor_", sensorsNumber: true}
	smartctlKeys = healthKeys{fields: keyMap([18]string{"critical_warning", "temperature",
		"available_spare", "available_spare_threshold", "percentage_used", "data_units_read", "data_units_written",
		"power_cycles", "power_on_hours", "unsafe_shutdowns", "media_errors", "num_err_log_entries",
		"warning_temp_time", "critical_comp_time",
		"thermal_mgmt_temperature_1_transition_count", "thermal_mgmt_temperature_2_transition_count",
		"thermal_mgmt_temperature_1_total_time", "thermal_mgmt_temperature_2_total_time"}),
		sensors: "temperature_sensors"}
)

// decode reads the log from a JSON object in a tool's key names. A field
// that is absent, null or not a number is unknown; nvme-cli -v prints the
// critical warning as an object with its "value".
func (l *healthLog) decode(obj []byte, keys healthKeys) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return err
	}
	*l = healthLog{}
	for k, raw := range m {
		if f, ok := keys.fields[k]; ok {
			_ = f(l).UnmarshalJSON(raw) // never fails: not a number is unknown
		}
	}
	if cw, ok := m["critical_warning"]; ok && !l.CriticalWarning.ok {
		var v struct {
			Value num `json:"value"`
		}
		if json.Unmarshal(cw, &v) == nil {
			l.CriticalWarning = v.Value
		}
	}
	if keys.sensorsNumber {
		for i := 1; i <= 8; i++ {
			var n num
			if raw, ok := m[fmt.Sprintf("%s%d", keys.sensors, i)]; ok {
				_ = n.UnmarshalJSON(raw)
			}
			l.Sensors = append(l.Sensors, n)
		}
	} else if raw, ok := m[keys.sensors]; ok && !strings.EqualFold(strings.TrimSpace(string(raw)), "null") {
		if err := json.Unmarshal(raw, &l.Sensors); err != nil {
			l.Sensors = nil
		}
	}
	return nil
}

// celsius reads a temperature in whole °C, as smartctl prints them.
func celsius(n num) (float64, bool) {
	v, ok := n.int()
	if !ok || v <= -274 || v >= 1000 {
		return 0, false
	}
	return float64(v), true
}

// fill sets r's fields the log has, of source s; temp reads its
// temperatures (kelvin for nvme-cli, celsius for smartctl).
func (l healthLog) fill(r *Reading, s string, temp func(num) (float64, bool)) {
	setU := func(f *Field[uint64], n num) {
		if v, ok := n.uint(); ok {
			*f = known(v, s)
		}
	}
	if v, ok := l.CriticalWarning.uint(); ok && v <= 0xff {
		r.CriticalWarning = known(DecodeCriticalWarning(uint8(v)), s)
	}
	if c, ok := temp(l.Temperature); ok {
		r.Temperature = known(c, s)
	}
	var sensors []Sensor
	for i, t := range l.Sensors {
		if c, ok := temp(t); ok {
			sensors = append(sensors, Sensor{Label: nvmeSensorLabel(i + 1), Celsius: c})
		}
	}
	if len(sensors) > 0 {
		r.Sensors = known(sensors, s)
	}
	setU(&r.AvailableSpare, l.AvailSpare)
	setU(&r.AvailableSpareThreshold, l.SpareThresh)
	setU(&r.PercentUsed, l.PercentUsed)
	if v, ok := l.DataUnitsRead.mulUint(nvmeDataUnit); ok {
		r.BytesRead = known(v, s)
	}
	if v, ok := l.DataUnitsWritten.mulUint(nvmeDataUnit); ok {
		r.BytesWritten = known(v, s)
	}
	setU(&r.PowerCycles, l.PowerCycles)
	setU(&r.PowerOnHours, l.PowerOnHours)
	setU(&r.UnsafeShutdowns, l.UnsafeShutdowns)
	setU(&r.MediaErrors, l.MediaErrors)
	setU(&r.ErrorLogEntries, l.ErrLogEntries)
	setU(&r.WarningTempMinutes, l.WarningTempTime)
	setU(&r.CriticalTempMinutes, l.CriticalCompTime)
	setU(&r.ThermalMgmt1Transitions, l.TMT1Count)
	setU(&r.ThermalMgmt2Transitions, l.TMT2Count)
	setU(&r.ThermalMgmt1Seconds, l.TMT1Time)
	setU(&r.ThermalMgmt2Seconds, l.TMT2Time)
}
