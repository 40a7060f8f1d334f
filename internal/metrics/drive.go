package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/ptsrun/ptsrun/internal/telemetry"
)

// driveLabels are a drive metric's: the run and the device read.
var driveLabels = []string{"run", "device"}

// driveGauges are the drives' temperature and health, from the journal's
// telemetry records. A figure the drive does not report is left out,
// never written as 0.
type driveGauges struct {
	gauges []driveGauge
}

type driveGauge struct {
	g   *prometheus.GaugeVec
	get func(telemetry.Reading) (float64, bool)
}

func u(f func(telemetry.Reading) telemetry.Field[uint64]) func(telemetry.Reading) (float64, bool) {
	return func(r telemetry.Reading) (float64, bool) {
		v, ok := f(r).Get()
		return float64(v), ok
	}
}

func sum2(a, b func(telemetry.Reading) telemetry.Field[uint64]) func(telemetry.Reading) (float64, bool) {
	return func(r telemetry.Reading) (float64, bool) {
		x, ok1 := a(r).Get()
		y, ok2 := b(r).Get()
		return float64(x + y), ok1 || ok2
	}
}

func newDriveGauges(register func(name, help string) *prometheus.GaugeVec) driveGauges {
	var d driveGauges
	add := func(name, help string, get func(telemetry.Reading) (float64, bool)) {
		d.gauges = append(d.gauges, driveGauge{g: register(name, help), get: get})
	}
	add("ptsrun_drive_temperature_celsius", "The drive's (composite) temperature at its last reading between cells.",
		func(r telemetry.Reading) (float64, bool) { return r.Temperature.Get() })
	add("ptsrun_drive_critical_warning", "The drive's NVMe critical warning byte (0: none) at its last reading.",
		func(r telemetry.Reading) (float64, bool) {
			w, ok := r.CriticalWarning.Get()
			return float64(w.Raw), ok
		})
	add("ptsrun_drive_thermal_management_transitions", "Thermal management transitions (TMT1 + TMT2) over the drive's life.",
		sum2(func(r telemetry.Reading) telemetry.Field[uint64] { return r.ThermalMgmt1Transitions },
			func(r telemetry.Reading) telemetry.Field[uint64] { return r.ThermalMgmt2Transitions }))
	add("ptsrun_drive_thermal_management_seconds", "Seconds in thermal management (TMT1 + TMT2) over the drive's life.",
		sum2(func(r telemetry.Reading) telemetry.Field[uint64] { return r.ThermalMgmt1Seconds },
			func(r telemetry.Reading) telemetry.Field[uint64] { return r.ThermalMgmt2Seconds }))
	add("ptsrun_drive_media_errors", "Media and data integrity errors over the drive's life.",
		u(func(r telemetry.Reading) telemetry.Field[uint64] { return r.MediaErrors }))
	add("ptsrun_drive_percentage_used", "The drive's estimate of its life used, in %.",
		u(func(r telemetry.Reading) telemetry.Field[uint64] { return r.PercentUsed }))
	add("ptsrun_drive_available_spare_percent", "The drive's available spare, in % of its spare capacity.",
		u(func(r telemetry.Reading) telemetry.Field[uint64] { return r.AvailableSpare }))
	add("ptsrun_drive_host_written_bytes", "Bytes the host wrote over the drive's life, as the drive counts them.",
		u(func(r telemetry.Reading) telemetry.Field[uint64] { return r.BytesWritten }))
	add("ptsrun_drive_nand_written_bytes", "Bytes the drive wrote to its NAND over its life, where it reports them.",
		u(func(r telemetry.Reading) telemetry.Field[uint64] { return r.NANDBytesWritten }))
	return d
}

// set writes the readings' known figures, one series per device.
func (d driveGauges) set(run string, rs []telemetry.Reading) {
	for _, r := range rs {
		l := prometheus.Labels{"run": run, "device": r.Device}
		for _, g := range d.gauges {
			if v, ok := g.get(r); ok {
				g.g.With(l).Set(v)
			} else {
				g.g.Delete(l)
			}
		}
	}
}
