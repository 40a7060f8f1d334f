package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Model describes a simulated drive. Times are per NAND operation.
type Model struct {
	Name     string // catalogue name: "client", "enterprise"
	Vendor   string
	Product  string
	Firmware string

	UserBytes int64   // user capacity (decimal, as drives are sold)
	OP        float64 // spare flash as a fraction of user capacity

	Dies            int
	PageBytes       int64 // NAND page; one program writes a page
	EraseBlockBytes int64 // per die
	TRead           time.Duration
	TProg           time.Duration
	TErase          time.Duration

	MaxIOPS    float64 // controller command rate
	MaxReadBW  float64 // bytes/s, link and controller
	MaxWriteBW float64
	LinkBW     float64       // bytes/s for the transfer part of a command's latency
	CmdLatency time.Duration // controller time per command
	BufLatency time.Duration // write acknowledged from the write buffer
	// PLP: power-loss-protected buffer; writes are acknowledged from it even
	// with the volatile write cache disabled.
	PLP bool
	// Noise is the relative standard deviation of a run's throughput
	// (temperature, firmware scheduling): round-to-round scatter.
	Noise float64
	// HiccupProb is the chance per I/O of a firmware pause of 2–8 ms.
	HiccupProb float64
	// While the host is idle, background garbage collection uses IdleGCShare
	// of the dies' time to free blocks ahead of the next writes, until
	// IdleFreeShare of the spare (over-provisioned) blocks are free. Host
	// writes then find free blocks and run without collecting, until the
	// surplus is used up: why bursts after longer idle run faster (PTS HIR).
	IdleGCShare   float64
	IdleFreeShare float64
	// Thermal is its power, cooling, throttling and wear (thermal.go).
	Thermal Thermal
}

var catalogue = []Model{
	{
		Name: "client", Vendor: "ptsrun", Product: "SIM-C512 (model)", Firmware: "SIM1",
		UserBytes: 1_024_209_543_168, OP: 0.0737,
		Dies: 48, PageBytes: 16 << 10, EraseBlockBytes: 6 << 20,
		TRead: 60 * time.Microsecond, TProg: 800 * time.Microsecond, TErase: 4 * time.Millisecond,
		MaxIOPS: 600_000, MaxReadBW: 3.5e9, MaxWriteBW: 3.0e9, LinkBW: 3.9e9,
		CmdLatency: 15 * time.Microsecond, BufLatency: 10 * time.Microsecond,
		PLP: false, Noise: 0.01, HiccupProb: 4e-6,
		IdleGCShare: 0.25, IdleFreeShare: 0.6,
		Thermal: Thermal{IdleW: 2.5, ReadIOJ: 1.5e-6, WriteIOJ: 2.5e-6, ReadByteJ: 0.3e-9, WriteByteJ: 0.4e-9,
			NANDReadByteJ: 0.25e-9, NANDProgByteJ: 3.5e-9,
			AmbientC: 30, CelsiusPerW: 3.5, HeatJPerC: 50,
			TMT1C: 80, TMT2C: 85, TMT1Share: 0.7, TMT2Share: 0.4, HysteresisC: 3,
			WarningC: 82, CriticalC: 86, PECycles: 1500, Cooling: "normal"},
	},
	{
		Name: "enterprise", Vendor: "ptsrun", Product: "SIM-E1600 (model)", Firmware: "SIM1",
		UserBytes: 3_200_631_791_616, OP: 0.20,
		Dies: 64, PageBytes: 16 << 10, EraseBlockBytes: 6 << 20,
		TRead: 70 * time.Microsecond, TProg: 500 * time.Microsecond, TErase: 3500 * time.Microsecond,
		MaxIOPS: 1_000_000, MaxReadBW: 6.8e9, MaxWriteBW: 4.0e9, LinkBW: 7.8e9,
		CmdLatency: 12 * time.Microsecond, BufLatency: 8 * time.Microsecond,
		PLP: true, Noise: 0.008, HiccupProb: 3e-6,
		IdleGCShare: 0.08, IdleFreeShare: 0.25,
		Thermal: Thermal{IdleW: 5, ReadIOJ: 2e-6, WriteIOJ: 3e-6, ReadByteJ: 0.3e-9, WriteByteJ: 0.4e-9,
			NANDReadByteJ: 0.25e-9, NANDProgByteJ: 3e-9,
			AmbientC: 30, CelsiusPerW: 1.8, HeatJPerC: 100,
			TMT1C: 78, TMT2C: 83, TMT1Share: 0.7, TMT2Share: 0.4, HysteresisC: 3,
			WarningC: 80, CriticalC: 85, PECycles: 7000, Cooling: "normal"},
	},
}

// DefaultModel is the model `sim` alone names.
const DefaultModel = "enterprise"

// Lookup returns the named model, with the options that follow a '?'
// applied ("enterprise?cooling=weak": Thermal.applyOptions).
func Lookup(name string) (Model, error) {
	name, opts, _ := strings.Cut(name, "?")
	if name == "" {
		name = DefaultModel
	}
	for _, m := range catalogue {
		if m.Name == name {
			if err := m.applyOptions(opts); err != nil {
				return Model{}, err
			}
			return m, nil
		}
	}
	return Model{}, fmt.Errorf("unknown simulated drive model %q: known models are %s", name, strings.Join(Names(), ", "))
}

// Names lists the catalogue.
func Names() []string {
	var n []string
	for _, m := range catalogue {
		n = append(n, m.Name)
	}
	slices.Sort(n)
	return n
}
