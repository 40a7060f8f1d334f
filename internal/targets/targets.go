package targets

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/fio"
	"github.com/ptsrun/ptsrun/internal/engine/sim"
	"github.com/ptsrun/ptsrun/internal/precondition"
	"github.com/ptsrun/ptsrun/internal/units"
)

// Kind is the kind of a target set: one set is all of one kind.
type Kind int

const (
	// Simulated drives (sim, sim:MODEL), which only the sim engine drives.
	Simulated Kind = iota + 1
	// Local block devices and files on this host, driven by the native or
	// the fio engine.
	Local
	// Remote targets on the hosts of fio servers (--fio-server), which
	// only fio reaches and ptsrun cannot inspect.
	Remote
)

func (k Kind) String() string {
	switch k {
	case Simulated:
		return "simulated"
	case Local:
		return "local"
	case Remote:
		return "remote"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// EngineName names a workload engine as --engine and run.json's config do.
type EngineName string

// The engines, by the engine package's names.
const (
	Native EngineName = engine.Native
	Fio    EngineName = engine.Fio
	Sim    EngineName = engine.Sim
)

// Options are what the user named: the inputs that choose a target set and
// its engine.
type Options struct {
	Specs       []string // --target
	Engine      string   // --engine; "" chooses the kind's default
	FioServers  []string // --fio-server HOST:PORT[=TARGET]
	DestroyData []string // --destroy-data SERIAL-OR-PATH (HOST:PORT=TARGET for fio servers)
	// Gate applies the safety check (run, resume, a workload that writes);
	// plan only reports what it would say.
	Gate bool
	// FS is where local targets are inspected: the live system when zero.
	FS device.FS
}

// Plan is a checked target set: what will be opened, and by which engine.
// Making one changes nothing.
type Plan struct {
	Kind   Kind
	Engine EngineName
	// The targets, of Kind: simulated drive models, local targets, or
	// targets on fio servers.
	Sim    []sim.Model
	Local  []device.Target
	Remote []engine.Target
	// Identities are the targets' identities, in the order named; Open
	// updates a simulated drive's to the drive as it is.
	Identities []device.Identity
	// Specs are the --target specs as checked, relative paths made
	// absolute (device.ParseSpec): what a run records, so that resume
	// checks the same targets from any working directory.
	Specs []string

	fs   device.FS
	devs []precondition.Dev // Local as the purge and the write cache see them
}

// Check checks the targets and the engine without changing anything.
// Unsafe targets give an error wrapping device.ErrUnsafe.
func Check(o Options) (*Plan, error) {
	p := &Plan{Engine: EngineName(o.Engine), fs: o.FS}
	if p.fs.Root == "" {
		p.fs = device.Live
	}
	if len(o.FioServers) > 0 {
		p.Specs = o.Specs
		return p.checkRemote(o)
	}
	if len(o.Specs) == 0 {
		return nil, errors.New("no target: name one with --target (a block device, file:PATH[:SIZE], sim, sim:client, sim:enterprise)")
	}
	var specs []device.Spec
	for _, s := range o.Specs {
		sp, err := device.ParseSpec(s)
		if err != nil {
			return nil, err
		}
		specs = append(specs, sp)
		p.Specs = append(p.Specs, sp.Raw)
	}
	sims := 0
	for _, sp := range specs {
		if sp.Kind == device.KindSim {
			sims++
		}
	}
	switch {
	case sims == len(specs):
		return p.checkSim(specs)
	case sims > 0:
		return nil, errors.New("simulated drives and real targets cannot be one target set")
	}
	return p.checkLocal(specs, o)
}

// checkSim plans simulated drives.
func (p *Plan) checkSim(specs []device.Spec) (*Plan, error) {
	p.Kind = Simulated
	switch p.Engine {
	case "", Sim:
		p.Engine = Sim
	case Native, Fio:
		return nil, fmt.Errorf("engine %s cannot drive a simulated drive; use --engine sim", p.Engine)
	default:
		return nil, fmt.Errorf("unknown engine %q: want sim, native or fio", p.Engine)
	}
	for i, sp := range specs {
		m, err := sim.Lookup(sp.Model)
		if err != nil {
			return nil, err
		}
		p.Sim = append(p.Sim, m)
		p.Identities = append(p.Identities, simIdentity(sp.Raw, sim.IdentityOf(m, i)))
	}
	return p, nil
}

// checkLocal plans block devices and files on this host, and gates them
// when o.Gate says so.
func (p *Plan) checkLocal(specs []device.Spec, o Options) (*Plan, error) {
	p.Kind = Local
	switch p.Engine {
	case "":
		p.Engine = Native
	case Native, Fio:
	case Sim:
		return nil, errors.New("engine sim drives only simulated drives (--target sim:MODEL)")
	default:
		return nil, fmt.Errorf("unknown engine %q: want sim, native or fio", p.Engine)
	}
	seen := map[string]bool{}
	for _, sp := range specs {
		t, err := p.fs.Inspect(sp)
		if err != nil {
			return nil, err
		}
		key := t.Path
		if t.Block != nil {
			key = t.Block.Path()
		}
		if seen[key] {
			return nil, fmt.Errorf("target %s is named twice", t.Raw)
		}
		seen[key] = true
		p.Local = append(p.Local, t)
		p.Identities = append(p.Identities, t.Identity)
		p.devs = append(p.devs, precondition.DevOf(t))
	}
	if p.Engine == Fio {
		// Before a file target is made: fio must load the file checked here.
		if err := fio.CheckTargets(p.localFioTargets()); err != nil {
			return nil, err
		}
	}
	if o.Gate {
		sys, err := p.fs.System()
		if err != nil {
			return nil, err
		}
		if err := p.fs.Gate(p.Local, sys, o.DestroyData); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// checkRemote reads --fio-server HOST:PORT[=TARGET]: the targets are on the
// servers' hosts, where ptsrun cannot look; writing to them needs
// --destroy-data naming each HOST:PORT=TARGET.
func (p *Plan) checkRemote(o Options) (*Plan, error) {
	if p.Engine != "" && p.Engine != Fio {
		return nil, fmt.Errorf("--fio-server drives targets through fio; engine %s cannot", p.Engine)
	}
	p.Engine, p.Kind = Fio, Remote
	if len(o.Specs) > 1 {
		return nil, errors.New("with --fio-server, name each server's target as HOST:PORT=TARGET (one --target at most, used on every server)")
	}
	for _, s := range o.FioServers {
		if err := device.CheckControl(s); err != nil {
			return nil, fmt.Errorf("fio server %q: %w", s, err)
		}
		addr, path, ok := strings.Cut(s, "=")
		if !ok {
			if len(o.Specs) == 0 {
				return nil, fmt.Errorf("fio server %q has no target: write HOST:PORT=TARGET", s)
			}
			path = o.Specs[0]
			if err := device.CheckControl(path); err != nil {
				return nil, fmt.Errorf("target %q: %w", path, err)
			}
		}
		if strings.HasPrefix(path, "sim") || strings.HasPrefix(path, "file:") {
			return nil, fmt.Errorf("fio server %s: target %q must be a path on that host", addr, path)
		}
		spec := addr + "=" + path
		if err := fio.CheckTargets([]engine.Target{{Name: spec, Path: path}}); err != nil {
			return nil, err
		}
		if o.Gate && !slices.Contains(o.DestroyData, spec) {
			return nil, fmt.Errorf("%w: ptsrun cannot check %s on %s: confirm that its data may be destroyed with --destroy-data %s",
				device.ErrUnsafe, path, addr, spec)
		}
		p.Remote = append(p.Remote, engine.Target{Name: spec, Path: path, Server: addr, LogicalBlock: 512})
		p.Identities = append(p.Identities, device.Identity{Spec: spec, Kind: device.KindRemote, Path: path,
			Interface: "fio server", Notes: "on the fio server at " + addr + "; identity not visible from here"})
	}
	return p, nil
}

// simIdentity is a simulated drive's identity as a device's.
func simIdentity(spec string, id sim.Identity) device.Identity {
	return device.Identity{
		Spec: spec, Kind: device.KindSim, Vendor: id.Vendor, Model: id.Product, Serial: id.Serial,
		Firmware: id.Firmware, CapacityBytes: id.Capacity, LogicalBlock: id.LogicalBlock,
		PhysicalBlock: 4096, Interface: "simulated NVMe", OverProvision: id.OP, WriteCache: "enabled",
		Notes: fmt.Sprintf("model: %d dies, %.1f %% over-provisioning, power-loss protection %v", id.Dies, id.OP*100, id.PLP),
	}
}

// Confirmations are the --destroy-data values that name the targets as
// they are now: what resuming a run on them asks for (a file the run made
// is there now, and named by its path).
func (p *Plan) Confirmations() []string {
	var out []string
	switch p.Kind {
	case Remote:
		for _, t := range p.Remote {
			out = append(out, t.Name)
		}
	case Local:
		sys, err := p.fs.System()
		for _, t := range p.Local {
			switch {
			case t.Block == nil:
				out = append(out, t.Path)
			case err != nil:
				out = append(out, t.Block.Path())
			default:
				out = append(out, p.fs.Check(t, sys).Confirm)
			}
		}
	}
	return out
}

// Verdict is what a run would make of a local target: its safety
// verdict in words, and why it would be refused, if it would.
type Verdict struct {
	Target  string   `json:"target"`
	Verdict string   `json:"verdict"`
	Refused []string `json:"refused,omitempty"`
}

// Verdicts judge the local targets as a run's gate does, with the
// confirmations destroy, and change nothing: what `ptsrun plan` says of
// them. None for other kinds.
func (p *Plan) Verdicts(destroy []string) ([]Verdict, error) {
	if len(p.Local) == 0 {
		return nil, nil
	}
	sys, err := p.fs.System()
	if err != nil {
		return nil, err
	}
	var out []Verdict
	for _, t := range p.Local {
		v := p.fs.Check(t, sys)
		pt := Verdict{Target: t.Raw}
		switch {
		case !v.Usable:
			pt.Verdict, pt.Refused = "REFUSED: "+strings.Join(v.Refused, "; "), v.Refused
		case v.New:
			pt.Verdict = "a new file of " + units.FormatSize(t.Capacity)
		case v.Confirmed(t, destroy):
			pt.Verdict = fmt.Sprintf("%s, %d bytes; its data will be destroyed (confirmed)", t.Identity.Label(), t.Capacity)
		default:
			pt.Verdict = fmt.Sprintf("%s, %d bytes; needs --destroy-data %s", t.Identity.Label(), t.Capacity, v.Confirm)
		}
		out = append(out, pt)
	}
	return out, nil
}

// Devs are the local targets as a purge and the write-cache control see
// them, in the order named; none for other kinds.
func (p *Plan) Devs() []precondition.Dev { return p.devs }

// MinBlock is the largest logical block size of the targets when it is
// above 512 bytes (a 4Kn drive), else 0: pts.Config.MinBlock.
func (p *Plan) MinBlock() int64 {
	var mb int64
	for _, t := range p.Identities {
		if t.LogicalBlock > 512 {
			mb = max(mb, t.LogicalBlock)
		}
	}
	return mb
}

// Names are the targets' specs, in the order named.
func (p *Plan) Names() []string {
	var names []string
	for _, id := range p.Identities {
		names = append(names, id.Spec)
	}
	return names
}

// localFioTargets are the local targets as the fio engine gets them.
func (p *Plan) localFioTargets() []engine.Target {
	var ts []engine.Target
	for _, t := range p.Local {
		ts = append(ts, engine.Target{Name: t.Raw, Path: devicePath(t), Size: t.Capacity, LogicalBlock: t.LogicalBlock})
	}
	return ts
}

func devicePath(t device.Target) string {
	if t.Block != nil {
		return t.Block.Path()
	}
	return t.Path
}
