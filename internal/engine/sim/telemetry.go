package sim

import (
	"context"

	"github.com/ptsrun/ptsrun/internal/telemetry"
)

// Reading is drive i's temperature and health as a telemetry reading:
// every figure the model keeps, each of source "sim".
func (e *Engine) Reading(i int) telemetry.Reading {
	sd := e.drives[i]
	h := sd.d.health()
	const s = telemetry.SourceSim
	f := func(v uint64) telemetry.Field[uint64] { return telemetry.Field[uint64]{Value: v, Source: s} }
	c := func(v float64) telemetry.Field[float64] { return telemetry.Field[float64]{Value: v, Source: s} }
	return telemetry.Reading{
		Device: sd.t.Name + "#" + sd.serial, Sources: []string{s},
		Temperature: c(h.TempC), WarningTemp: c(h.WarningC), CriticalTemp: c(h.CriticalC),
		CriticalWarning: telemetry.Field[telemetry.CriticalWarning]{Value: telemetry.DecodeCriticalWarning(h.CriticalWarning), Source: s},
		ThermalMgmt1Transitions: f(h.TMT1Count), ThermalMgmt1Seconds: f(h.TMT1Sec),
		ThermalMgmt2Transitions: f(h.TMT2Count), ThermalMgmt2Seconds: f(h.TMT2Sec),
		WarningTempMinutes: f(h.WarnMinutes), CriticalTempMinutes: f(h.CritMinutes),
		MediaErrors: f(h.MediaErrors), ErrorLogEntries: f(h.MediaErrors),
		PercentUsed: f(h.PercentUsed), AvailableSpare: f(h.Spare), AvailableSpareThreshold: f(h.SpareMin),
		BytesRead: f(h.HostRead), BytesWritten: f(h.HostWritten),
		NANDBytesRead: f(h.NANDRead), NANDBytesWritten: f(h.NANDWritten),
		PowerOnHours: f(h.PowerOnHours), PowerCycles: f(1), UnsafeShutdowns: f(0),
	}
}

// Sources are the drives of the set as telemetry sources, in order.
func (e *Engine) Sources() []telemetry.Source {
	var out []telemetry.Source
	for i := range e.drives {
		out = append(out, simSource{e: e, i: i})
	}
	return out
}

// simSource reads one simulated drive's model: never fails, costs nothing.
type simSource struct {
	e *Engine
	i int
}

func (s simSource) Name() string   { return telemetry.SourceSim }
func (s simSource) Device() string { d := s.e.drives[s.i]; return d.t.Name + "#" + d.serial }
func (s simSource) Where() string  { return "the simulated drive's thermal and health model" }
func (s simSource) Read(context.Context) (telemetry.Reading, error) {
	return s.e.Reading(s.i), nil
}
