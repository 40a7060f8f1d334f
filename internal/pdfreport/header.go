package pdfreport

import (
	"fmt"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// engineLabel names the engine, with the native engine's completion
// polling when it was not left to the engine. The setting is written as
// the run asked for it ("100us"), as run.json keeps it.
func engineLabel(ri pts.RunInfo) string {
	if poll, err := ri.Config.PollDuration(); err == nil && poll != 0 && ri.Config.Engine == pts.EngineNative {
		return ri.Engine + ", poll " + ri.Config.Poll
	}
	return orDash(ri.Engine)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// decimal writes a capacity as drives are sold: GB, TB.
func decimal(b int64) string {
	if b <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%s (%d bytes)", device.FormatCapacity(b), b)
}

// header fills the part of the SNIA page header that every page shares
// (the PTS's report format).
func (b *builder) header() {
	ri, h := b.ri, &b.doc.Header
	h.Start, h.Finish = stamp(b.res.Start), stamp(b.res.Finish)
	if !b.res.Complete {
		h.Finish += " (incomplete)"
	}
	h.Spec = ri.Profile.Short + " " + pts.SpecRevision
	if ri.Profile.Short == "" { // an imported table has no profile
		h.Spec = "PTS " + pts.SpecRevision
	}
	h.TestedBy, h.Lab = stated(ri.TestedBy), stated(ri.Lab)
	var vendors, models []string
	for _, t := range ri.Targets {
		vendors = append(vendors, orDash(t.Vendor))
		models = append(models, orDash(t.Model))
	}
	h.Vendor, h.Model = strings.Join(unique(vendors), ", "), strings.Join(unique(models), ", ")
	host := ri.Host
	cpu := host.CPUModel
	if host.CPUs > 0 {
		cpu = fmt.Sprintf("%s × %d", orDash(cpu), host.CPUs)
	}
	h.Platform = []KV{
		{"Host", orDash(host.Hostname)},
		{"Motherboard", orNotKnown(host.DMI.Motherboard())},
		{"CPU", orDash(cpu)},
		{"Memory", memLabel(host.MemoryBytes)},
		{"OS", osLabel(host)},
		{"HBA", strings.Join(unique(mapTargets(ri.Targets, hbaLabel)), "; ")},
	}
	// The host's idle CPUs: at a low queue depth their wake-up is in every
	// response time (cpuidle), so the page says what they were held to.
	if host.CPUIdle != nil {
		h.Platform = append(h.Platform, KV{"CPU idle", host.CPUIdle.Label()})
	}
	if link := strings.Join(unique(mapTargets(ri.Targets, hbaLink)), "; "); strings.Trim(link, "; ") != "" {
		h.Platform = append(h.Platform, KV{"HBA link", link})
	}
	// Telemetry: what read the drives' temperature and health; in this
	// column, which has room where a target set fills the device's.
	h.Platform = append(h.Platform, KV{"Test software", b.software()}, KV{"Engine", engineLabel(ri)}, KV{"Telemetry", b.res.Telemetry.Source()})
	t := ri.Targets
	dev := func(f func(int) string) string {
		var v []string
		for i := range t {
			v = append(v, f(i))
		}
		return strings.Join(unique(v), "; ")
	}
	h.Device = []KV{
		{"Model", dev(func(i int) string { return orDash(t[i].Vendor + " " + t[i].Model) })},
		{"Path", dev(func(i int) string { return orDash(targetPath(t[i])) })},
		{"Serial / FW", dev(func(i int) string { return orDash(t[i].Serial) + " / " + orDash(t[i].Firmware) })},
		{"Capacity", dev(func(i int) string { return decimal(t[i].CapacityBytes) })},
		{"Interface", dev(func(i int) string { return orDash(strings.Join(unique([]string{t[i].Interface, t[i].Transport}), " ")) })},
	}
	facts := dutFacts(t, ri.DUTNotes)
	h.Device = append(h.Device, facts[:2]...) // NAND type and form factor, where the SNIA template has them
	if link := dev(func(i int) string { return t[i].PCIeLink }); strings.Trim(link, "; ") != "" {
		h.Device = append(h.Device, KV{"PCIe link", link})
	}
	h.Device = append(h.Device, []KV{
		{"Block size", dev(func(i int) string {
			if t[i].LogicalBlock <= 0 {
				return "–"
			}
			if t[i].PhysicalBlock <= 0 { // a file: the filesystem's, not known
				return fmt.Sprintf("%d B logical", t[i].LogicalBlock)
			}
			return fmt.Sprintf("%d B logical, %d B physical", t[i].LogicalBlock, t[i].PhysicalBlock)
		})},
		{"Write cache", cacheLabel(b.res.WriteCache)},
		{"Purge", b.purgeLabel()},
	}...)
	h.Device = append(h.Device, facts[2:]...)
	if len(t) > 1 {
		h.Device = append(h.Device, KV{"Targets", fmt.Sprintf("%d, loaded at once", len(t))})
	}
	if len(t) > 0 && t[0].Kind == device.KindSim {
		h.Device = append(h.Device, KV{"Note", "simulated drive: a model, not hardware"})
	}
}

// stated is what the operator said, or that they did not say.
func stated(s string) string {
	if strings.TrimSpace(s) == "" {
		return "not stated"
	}
	return strings.TrimSpace(s)
}

func orNotKnown(s string) string {
	if s == "" {
		return "not known"
	}
	return s
}

func osLabel(h device.Host) string {
	if h.Kernel == "" {
		return orDash(h.OS)
	}
	return strings.TrimSpace(orDash(h.OS) + ", kernel " + h.Kernel + " " + h.Arch)
}

func mapTargets(t []device.Identity, f func(device.Identity) string) []string {
	var out []string
	for _, x := range t {
		out = append(out, f(x))
	}
	return out
}

// hbaLabel is the Test Platform's HBA row for one target: the adapter it
// hangs off, or why there is none to name.
func hbaLabel(t device.Identity) string {
	switch {
	case t.HBA != nil && t.HBA.OnDrive:
		return "none, NVMe on PCIe: " + t.HBA.Label()
	case t.HBA != nil:
		return t.HBA.Label()
	case t.Kind == device.KindSim:
		return "none (simulated drive)"
	case t.Kind == device.KindFile:
		return "none (file target)"
	case t.Kind == device.KindRemote:
		return "not known (target on a fio server)"
	case t.Kind == "imported":
		return "not known (imported results)"
	case t.Interface == "loop":
		return strings.TrimSpace("none (loop device " + t.Notes + ")")
	case t.Kind == device.KindBlock && t.Interface == "NVMe" && t.Transport != "" && t.Transport != "pcie":
		return "none (NVMe over " + t.Transport + ")"
	}
	return "not known"
}

// hbaLink is the PCIe link of an adapter between host and drive; an NVMe
// drive's own link is in the Device Under Test column.
func hbaLink(t device.Identity) string {
	if t.HBA == nil || t.HBA.OnDrive || t.HBA.Link == "" {
		return ""
	}
	if t.HBA.MaxLink != "" && t.HBA.MaxLink != t.HBA.Link {
		return t.HBA.Link + " (capable of " + t.HBA.MaxLink + ")"
	}
	return t.HBA.Link
}

// dutFacts are the header rows of what is known of the device beyond its
// name: NAND type and form factor first, always, then whatever else the
// device reports or the operator states. The device's word stands; where
// the operator states something else, the row says so beside it.
func dutFacts(targets []device.Identity, notes []device.Fact) []KV {
	keys := []string{device.FactNAND, device.FactFormFactor}
	for _, t := range targets {
		for _, f := range t.Facts {
			keys = append(keys, f.Key)
		}
	}
	note := map[string]string{}
	for _, n := range notes {
		keys = append(keys, n.Key)
		note[n.Key] = n.Value
	}
	var out []KV
	for _, k := range unique(keys) {
		var reported []string
		differs := false
		for _, t := range targets {
			v := "not reported"
			for _, f := range t.Facts {
				if f.Key == k {
					v = f.Value + " (" + f.Source + ")"
					differs = differs || note[k] != "" && !strings.EqualFold(note[k], f.Value)
				}
			}
			reported = append(reported, v)
		}
		reported = unique(reported)
		byDevice := len(reported) > 1 || len(reported) == 1 && reported[0] != "not reported"
		v := strings.Join(reported, "; ")
		switch {
		case byDevice && differs:
			v += "; the operator states " + note[k]
		case byDevice:
		case note[k] != "":
			v = note[k] + " (" + device.SourceOperator + ")"
		default:
			v = notStated(targets)
		}
		out = append(out, KV{k, v})
	}
	return out
}

// notStated says why a fact is missing: nobody stated it, or there is no
// device to have it.
func notStated(targets []device.Identity) string {
	if len(targets) > 0 {
		switch t := targets[0]; {
		case t.Kind == device.KindSim:
			return "none (simulated drive)"
		case t.Kind == device.KindFile, t.Interface == "loop":
			return "not known (" + t.Interface + " target)"
		case t.Kind == device.KindBlock:
			return "not stated; the device does not report it"
		}
	}
	return "not stated"
}

// targetPath is where a target is: its device or file, or the model for
// a simulated drive.
func targetPath(t device.Identity) string {
	p := t.Path
	if p == "" {
		p = t.Spec
	}
	if len(t.Loops) > 0 {
		p += " (loop device " + strings.Join(t.Loops, ", ") + " stacked on it)"
	}
	return p
}

func memLabel(b int64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}

func cacheLabel(s string) string {
	switch s {
	case "enabled":
		return "WCE (enabled)"
	case "disabled":
		return "WCD (disabled)"
	case "none":
		return "none (no volatile write cache)"
	}
	return "unknown"
}

func (b *builder) purgeLabel() string {
	if b.ri.NotRecorded(pts.UnrecordedPurge) {
		return notRecorded
	}
	for _, t := range b.res.Tests {
		for _, s := range t.Stages {
			if p := s.Purge; p != nil {
				switch {
				case p.Skipped:
					return "none (not purged)"
				case !p.Compliant:
					return p.Method + " (substitute, NOT a PTS purge)"
				case len(p.Erased) > 0:
					return p.Method + " (controller-wide: " + strings.Join(p.Erased, ", ") + ")"
				}
				return p.Method
			}
		}
	}
	return "–"
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "–"
	}
	return strings.TrimSpace(s)
}

func unique(v []string) []string {
	var out []string
	for _, s := range v {
		found := false
		for _, o := range out {
			found = found || o == s
		}
		if !found {
			out = append(out, s)
		}
	}
	return out
}

func cacheShort(s string) string {
	switch s {
	case "enabled":
		return "WCE"
	case "disabled":
		return "WCD"
	case "none":
		return "no volatile write cache"
	}
	return "write cache unknown"
}
