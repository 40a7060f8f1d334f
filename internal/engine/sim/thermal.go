package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Thermal is a model's power, cooling and health: what heats the drive,
// how fast it cools, where it throttles and how it wears. Energies are in
// joules, powers in watts, temperatures in °C.
type Thermal struct {
	IdleW float64 // controller and DRAM, busy or not
	// Energy per host I/O (the controller's command work) and per byte
	// moved over the link, reads and writes apart.
	ReadIOJ, WriteIOJ     float64
	ReadByteJ, WriteByteJ float64
	// Energy per byte read from and programmed to the NAND: the FTL's
	// host writes and its garbage collection's relocations alike, which is
	// why write amplification heats the drive.
	NANDReadByteJ, NANDProgByteJ float64
	// AmbientC is the air the drive is cooled by; CelsiusPerW its thermal
	// resistance to it (the cooling), HeatJPerC its heat capacity: the
	// time constant is their product, minutes.
	AmbientC, CelsiusPerW, HeatJPerC float64
	// TMT1C and TMT2C are where the controller throttles, lightly (to
	// TMT1Share of its rates) and heavily (TMT2Share), as an NVMe thermal
	// management transition; it returns HysteresisC below each.
	TMT1C, TMT2C         float64
	TMT1Share, TMT2Share float64
	HysteresisC          float64
	// WarningC and CriticalC are the drive's WCTEMP and CCTEMP.
	WarningC, CriticalC float64
	// PECycles is the NAND's endurance: percentage used is the NAND bytes
	// written against PECycles programs of the whole flash.
	PECycles float64
	// MediaErrorsPerTB is media errors per 10^12 NAND bytes written: 0
	// unless the target's options ask for them (media-errors=N).
	MediaErrorsPerTB float64
	// Cooling names the cooling as the target's options gave it.
	Cooling string
}

// Cooling settings a target's options may name: the thermal resistance
// to ambient of each, as a multiple of the model's own (its airflow as
// specified).
var coolings = []struct {
	name   string
	factor float64
}{
	{"normal", 1},
	{"weak", 2.5},
	{"none", 5},
}

// thermalState is a drive's temperature, throttling and health counters.
type thermalState struct {
	TempC float64
	// Level is the throttling: 0 none, 1 TMT1, 2 TMT2.
	Level int32
	// Transitions into and seconds at each level; seconds at or above
	// WCTEMP and CCTEMP (NVMe counts those in minutes).
	TMT1Count, TMT2Count int64
	TMT1Sec, TMT2Sec     float64
	WarnSec, CritSec     float64
	// NAND bytes programmed and read over the drive's life (purges do not
	// reset them), and the errors found.
	NANDWritten, NANDRead int64
	MediaErrors           int64
}

func newThermalState(t Thermal) thermalState { return thermalState{TempC: t.AmbientC} }

// share is the part of its rates the drive runs at, throttled.
func (d *Drive) throttleShare() float64 {
	switch d.th.Level {
	case 1:
		return d.m.Thermal.TMT1Share
	case 2:
		return d.m.Thermal.TMT2Share
	}
	return 1
}

// heat advances the drive's temperature by dt seconds in which it did
// nr reads and nw writes of mean size bs, and its NAND read nandR and
// programmed nandW bytes: exact for constant power over the step (the
// temperature relaxes to ambient plus power × resistance with the time
// constant), then the throttling level from where it ends.
func (d *Drive) heat(dt float64, nr, nw int64, bs float64, nandR, nandW int64) {
	t := &d.m.Thermal
	if t.CelsiusPerW <= 0 || dt <= 0 {
		return
	}
	s := &d.th
	s.NANDWritten += nandW
	s.NANDRead += nandR
	if t.MediaErrorsPerTB > 0 {
		s.MediaErrors = int64(float64(s.NANDWritten) / 1e12 * t.MediaErrorsPerTB)
	}
	joules := float64(nr)*(t.ReadIOJ+bs*t.ReadByteJ) + float64(nw)*(t.WriteIOJ+bs*t.WriteByteJ) +
		float64(nandR)*t.NANDReadByteJ + float64(nandW)*t.NANDProgByteJ
	p := t.IdleW + joules/dt
	eq := t.AmbientC + p*t.CelsiusPerW
	tau := t.CelsiusPerW * t.HeatJPerC
	s.TempC = eq + (s.TempC-eq)*math.Exp(-dt/tau)
	switch s.Level {
	case 1:
		s.TMT1Sec += dt
	case 2:
		s.TMT2Sec += dt
	}
	if s.TempC >= t.WarningC {
		s.WarnSec += dt
	}
	if s.TempC >= t.CriticalC {
		s.CritSec += dt
	}
	level := s.Level
	switch {
	case s.TempC >= t.TMT2C:
		level = 2
	case s.TempC >= t.TMT1C && level < 1:
		level = 1
	case level == 2 && s.TempC < t.TMT2C-t.HysteresisC:
		level = 1
	}
	if level == 1 && s.TempC < t.TMT1C-t.HysteresisC {
		level = 0
	}
	if level > s.Level {
		if level == 2 {
			s.TMT2Count++
		} else {
			s.TMT1Count++
		}
	}
	s.Level = level
}

// Health is what a simulated drive says of its temperature and health,
// as a SMART / Health log would.
type Health struct {
	TempC                        float64
	WarningC, CriticalC          float64
	TMT1Count, TMT2Count         uint64
	TMT1Sec, TMT2Sec             uint64
	WarnMinutes, CritMinutes     uint64
	CriticalWarning              uint8 // bit 1: temperature at or above WCTEMP
	MediaErrors                  uint64
	PercentUsed, Spare, SpareMin uint64
	HostRead, HostWritten        uint64
	NANDRead, NANDWritten        uint64
	PowerOnHours                 uint64
	Cooling                      string
}

func (d *Drive) health() Health {
	t, s := d.m.Thermal, d.th
	h := Health{TempC: math.Round(s.TempC*10) / 10, WarningC: t.WarningC, CriticalC: t.CriticalC,
		TMT1Count: uint64(s.TMT1Count), TMT2Count: uint64(s.TMT2Count),
		TMT1Sec: uint64(s.TMT1Sec), TMT2Sec: uint64(s.TMT2Sec),
		WarnMinutes: uint64(s.WarnSec / 60), CritMinutes: uint64(s.CritSec / 60),
		MediaErrors: uint64(s.MediaErrors), SpareMin: 10,
		HostRead: uint64(d.hostRead), HostWritten: uint64(d.hostWritten),
		NANDRead: uint64(s.NANDRead), NANDWritten: uint64(s.NANDWritten),
		PowerOnHours: uint64(d.clock / time.Hour), Cooling: t.Cooling}
	if s.TempC >= t.WarningC {
		h.CriticalWarning |= 1 << 1
	}
	if t.PECycles > 0 {
		flash := float64(d.m.UserBytes) * (1 + d.m.OP)
		h.PercentUsed = uint64(float64(s.NANDWritten) / (flash * t.PECycles) * 100)
	}
	h.Spare = 100 - min(90, h.PercentUsed/10)
	return h
}

// applyOptions reads a target's options ("cooling=weak",
// "media-errors=2", joined by '&') into the model.
func (m *Model) applyOptions(opts string) error {
	for _, kv := range strings.Split(opts, "&") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("simulated drive option %q: want NAME=VALUE (cooling=normal|weak|none, media-errors=N, ambient=C)", kv)
		}
		switch k {
		case "cooling":
			found := false
			var names []string
			for _, c := range coolings {
				names = append(names, c.name)
				if c.name == v {
					m.Thermal.CelsiusPerW, m.Thermal.Cooling, found = m.Thermal.CelsiusPerW*c.factor, c.name, true
				}
			}
			if !found {
				return fmt.Errorf("simulated drive option cooling=%s: want one of %s", v, strings.Join(names, ", "))
			}
		case "media-errors":
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
				return fmt.Errorf("simulated drive option media-errors=%s: want a number of errors per TB written, 0 or more", v)
			}
			m.Thermal.MediaErrorsPerTB = n
		case "ambient":
			c, err := strconv.ParseFloat(v, 64)
			if err != nil || c < -20 || c > 60 {
				return fmt.Errorf("simulated drive option ambient=%s: want the ambient temperature in °C, -20 to 60", v)
			}
			m.Thermal.AmbientC = c
		default:
			return fmt.Errorf("unknown simulated drive option %q: known are cooling, media-errors, ambient", k)
		}
	}
	return nil
}

// Health is drive i's temperature and health as the model has them now.
func (e *Engine) Health(i int) Health { return e.drives[i].d.health() }

// DriveName is drive i as a set's per-target figures name it: the
// target as written, '#', its serial.
func (e *Engine) DriveName(i int) string { return e.drives[i].t.Name + "#" + e.drives[i].serial }

// Drives is how many drives the set has.
func (e *Engine) Drives() int { return len(e.drives) }
