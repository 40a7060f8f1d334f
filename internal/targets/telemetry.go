package targets

import (
	"context"

	"github.com/ptsrun/ptsrun/internal/engine/sim"
	"github.com/ptsrun/ptsrun/internal/telemetry"
)

// Telemetry is the sampler of the set's drives' temperature and health:
// a simulated drive's model, a block device's sources as telemetry.Detect
// finds them. none says why there is no source at all ("" when there is
// one): a file, a loop device, a target on a fio server.
func (s *Set) Telemetry() (sampler *telemetry.Sampler, none string) {
	sampler = &telemetry.Sampler{}
	switch s.Plan.Kind {
	case Simulated:
		e, ok := s.Engine.(*sim.Engine)
		if !ok {
			return nil, "the simulated drives' engine has no model to read"
		}
		for i := range e.Drives() {
			sampler.Devices = append(sampler.Devices, []telemetry.Source{simSource{e: e, i: i}})
		}
		return sampler, ""
	case Local:
		n := 0
		for _, t := range s.Plan.Local {
			srcs := telemetry.Detect(t.Block)
			n += len(srcs)
			sampler.Devices = append(sampler.Devices, srcs)
		}
		if n == 0 {
			return nil, "no telemetry source: the targets are files or block devices without SMART or hwmon (loop, device-mapper, md, virtio)"
		}
		return sampler, ""
	}
	return nil, "no telemetry source: the targets are on fio servers, which ptsrun cannot read from here"
}

// simSource reads one simulated drive's thermal and health model: it
// never fails and costs nothing.
type simSource struct {
	e *sim.Engine
	i int
}

func (s simSource) Name() string   { return telemetry.SourceSim }
func (s simSource) Device() string { return s.e.DriveName(s.i) }
func (s simSource) Where() string  { return "the simulated drive's thermal and health model" }
func (s simSource) Read(context.Context) (telemetry.Reading, error) {
	return SimReading(s.e.DriveName(s.i), s.e.Health(s.i)), nil
}

// SimReading is a simulated drive's health as a telemetry reading: every
// figure the model keeps, each of source "sim".
func SimReading(name string, h sim.Health) telemetry.Reading {
	const src = telemetry.SourceSim
	u := func(v uint64) telemetry.Field[uint64] { return telemetry.Field[uint64]{Value: v, Source: src} }
	c := func(v float64) telemetry.Field[float64] { return telemetry.Field[float64]{Value: v, Source: src} }
	return telemetry.Reading{
		Device: name, Sources: []string{src},
		Temperature: c(h.TempC), WarningTemp: c(h.WarningC), CriticalTemp: c(h.CriticalC),
		CriticalWarning:         telemetry.Field[telemetry.CriticalWarning]{Value: telemetry.DecodeCriticalWarning(h.CriticalWarning), Source: src},
		ThermalMgmt1Transitions: u(h.TMT1Count), ThermalMgmt1Seconds: u(h.TMT1Sec),
		ThermalMgmt2Transitions: u(h.TMT2Count), ThermalMgmt2Seconds: u(h.TMT2Sec),
		WarningTempMinutes: u(h.WarnMinutes), CriticalTempMinutes: u(h.CritMinutes),
		MediaErrors: u(h.MediaErrors), ErrorLogEntries: u(h.MediaErrors),
		PercentUsed: u(h.PercentUsed), AvailableSpare: u(h.Spare), AvailableSpareThreshold: u(h.SpareMin),
		BytesRead: u(h.HostRead), BytesWritten: u(h.HostWritten),
		NANDBytesRead: u(h.NANDRead), NANDBytesWritten: u(h.NANDWritten),
		PowerOnHours: u(h.PowerOnHours), PowerCycles: u(1), UnsafeShutdowns: u(0),
	}
}
