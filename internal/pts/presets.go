package pts

import (
	"fmt"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Preset is a named workload of `ptsrun workload --preset`: what it runs,
// at what load, for how long, and where it comes from. Its Workload has
// TC, QD, Duration (the ramp included) and Ramp set; the active range is
// 100 % and the seed 0 (the command line's apply).
type Preset struct {
	Name     string
	Group    string // the family it belongs to, for --preset list
	About    string // where it comes from
	Workload engine.Workload
}

// Preset families, in the order --preset list shows them.
const (
	PresetsWSAT  = "PTS WSAT stimuli"
	PresetsArray = "array acceptance"
	PresetsHCI   = "HCI-style suite"
)

// PresetTime is how long a WSAT stimulus runs as a preset, where the PTS
// runs it for hours: long enough for the IOPS to settle after a fresh
// start on most drives; --time runs it longer, to its write cliff.
const PresetTime = 10 * time.Minute

// Presets is every preset, for targets whose logical block is minBlock
// bytes (0: 512): the composite one leaves out the sizes they cannot take,
// as the WSAT's composite stimulus does.
func Presets(minBlock int64) []Preset {
	ent := Profiles[0] // PTS-E: the WSAT stimuli's load
	wsat := func(stimulus, name string) Preset {
		for _, s := range wsatStimuli(minBlock) {
			if s.name == stimulus {
				w := s.w
				w.TC, w.QD, w.ActiveRange, w.Duration = ent.TC, ent.QD, 100, PresetTime
				return Preset{Name: name, Group: PresetsWSAT, Workload: w,
					About: "PTS 2.0.2 WSAT (§10) stimulus " + s.about + ", at the PTS-E load " + fmt.Sprintf("TC%d/QD%d", ent.TC, ent.QD)}
			}
		}
		panic("pts: no WSAT stimulus " + stimulus)
	}
	load := func(acc engine.Access, bs int64, read, tc, qd int, ramp, measured time.Duration) engine.Workload {
		return engine.Workload{Access: acc, BlockSize: bs, ReadPct: read, TC: tc, QD: qd, ActiveRange: 100,
			Duration: ramp + measured, Ramp: ramp}
	}
	hci := func(bs int64, read int, random float64) engine.Workload {
		// vdbench threads=4 (four synchronous streams per device), fio
		// ramp_time=360 runtime=600: as HCI suites run it.
		w := load(engine.Random, bs, read, 4, 1, 6*time.Minute, 10*time.Minute)
		w.RandomPct = random
		return w
	}
	const hciAbout = "HCI-style suite (vdbench threads=4 per device, fio ramp_time=360 runtime=600), "
	return []Preset{
		// The PTS WSAT stimuli (pts/wsat.go, PTS 2.0.2 §10), taken from
		// WSAT's own list rather than copied:
		// write-intensive: the PTS's default stimulus, RND 4 KiB writes.
		wsat("write", "write-intensive"),
		// oltp: the PTS 2.0.x optional OLTP stimulus, RND 8 KiB 65/35.
		wsat("oltp", "oltp"),
		// vod: the optional video-on-demand stimulus, SEQ 128 KiB 90/10.
		wsat("vod", "vod"),
		// metadata: the optional metadata stimulus, SEQ 0.5 KiB 50/50.
		wsat("metadata", "metadata"),
		// composite: the optional composite block-size stimulus, the
		// PTS-E composite workload's split and zones (pts/ecw.go), 40/60.
		wsat("composite", "composite"),

		// Array acceptance runs (issue 14): an OLTP database's 4 KiB 70/30
		// at 16 threads × QD32 for an hour after a 15-minute warm-up.
		{Name: "dbms", Group: PresetsArray, Workload: load(engine.Random, 4*KiB, 70, 16, 32, 15*time.Minute, time.Hour),
			About: "array acceptance: a database's RND 4 KiB 70/30 at 16 threads × QD32, an hour after a 15-minute warm-up"},
		// Array acceptance: 128 KiB sequential bandwidth, each way.
		{Name: "seq128k-read", Group: PresetsArray, Workload: load(engine.Sequential, 128*KiB, 100, 4, 32, 5*time.Minute, 30*time.Minute),
			About: "array acceptance: SEQ 128 KiB reads, four streams, 30 minutes after a 5-minute warm-up"},
		{Name: "seq128k-write", Group: PresetsArray, Workload: load(engine.Sequential, 128*KiB, 0, 4, 32, 5*time.Minute, 30*time.Minute),
			About: "array acceptance: SEQ 128 KiB writes, four streams, 30 minutes after a 5-minute warm-up"},
		// Streaming: 4 MiB sequential reads behind a deep queue (media
		// servers, backup restores).
		{Name: "streaming", Group: PresetsArray, Workload: load(engine.Sequential, 4*MiB, 100, 1, 64, 5*time.Minute, 30*time.Minute),
			About: "array acceptance: streaming, SEQ 4 MiB reads, one stream 64 deep, 30 minutes after a 5-minute warm-up"},

		// An HCI-style suite (issue 14): the five workloads
		// hyper-converged infrastructure benchmarks (HCIBench's vdbench and
		// fio profiles) run on every device of a cluster, then compare
		// between transports as a ratio heat-map.
		// hci-4k-read: small random reads, the IOPS ceiling.
		{Name: "hci-4k-read", Group: PresetsHCI, Workload: hci(4*KiB, 100, 0), About: hciAbout + "4 KiB 100 % read"},
		// hci-4k-70/30: the classic OLTP-like mix.
		{Name: "hci-4k-70/30", Group: PresetsHCI, Workload: hci(4*KiB, 70, 0), About: hciAbout + "4 KiB 70/30"},
		// hci-4k-50/50-rnd80: a write-heavy mix, a fifth of it sequential
		// (vdbench seekpct=80).
		{Name: "hci-4k-50/50-rnd80", Group: PresetsHCI, Workload: hci(4*KiB, 50, 80), About: hciAbout + "4 KiB 50/50, 80 % random (vdbench seekpct=80)"},
		// hci-64k-75/25-rnd80: large I/O, bandwidth-bound.
		{Name: "hci-64k-75/25-rnd80", Group: PresetsHCI, Workload: hci(64*KiB, 75, 80), About: hciAbout + "64 KiB 75 % read, 80 % random"},
		// hci-8k-75/25-rnd80: database-page-sized I/O.
		{Name: "hci-8k-75/25-rnd80", Group: PresetsHCI, Workload: hci(8*KiB, 75, 80), About: hciAbout + "8 KiB 75 % read, 80 % random"},
	}
}

// PresetNames are the presets' names, in --preset list's order.
func PresetNames() []string {
	var out []string
	for _, p := range Presets(0) {
		out = append(out, p.Name)
	}
	return out
}

// LookupPreset finds a preset by name (case does not matter), for targets
// of logical block minBlock.
func LookupPreset(name string, minBlock int64) (Preset, error) {
	for _, p := range Presets(minBlock) {
		if strings.EqualFold(p.Name, strings.TrimSpace(name)) {
			return p, nil
		}
	}
	return Preset{}, fmt.Errorf("unknown preset %q: known are %s (--preset list shows them)", name, strings.Join(PresetNames(), ", "))
}
