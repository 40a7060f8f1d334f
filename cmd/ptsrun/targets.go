package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/engine/fio"
	"github.com/ptsrun/ptsrun/engine/native"
	"github.com/ptsrun/ptsrun/engine/sim"
	"github.com/ptsrun/ptsrun/precondition"
)

// Kinds of target set.
const (
	setSim    = device.KindSim
	setLocal  = "local"           // block devices and files on this host
	setRemote = device.KindRemote // targets on fio servers
)

// targetPlan is a checked target set: what will be opened and by which
// engine. Making one changes nothing.
type targetPlan struct {
	Kind       string
	Engine     string
	Sim        []sim.Model
	Local      []device.Target
	Remote     []fio.Target
	Identities []device.Identity
	Poll       time.Duration // native.Options.Poll
	FS         device.FS     // where the targets were inspected; the live system when zero
}

func (p *targetPlan) fs() device.FS {
	if p.FS.Root == "" {
		return device.Live
	}
	return p.FS
}

// targetSet is an opened target set with its engine.
type targetSet struct {
	*targetPlan
	Engine engine.Engine
}

// targetOptions are the command-line inputs that choose targets.
type targetOptions struct {
	Specs       []string
	Engine      string
	FioServers  []string
	DestroyData []string
	// Gate applies the safety check (run, workload, resume); plan only
	// reports.
	Gate bool
}

// planTargets checks the targets and the engine without changing anything.
// Unsafe targets give an error wrapping device.ErrUnsafe.
func planTargets(o targetOptions) (*targetPlan, error) {
	p := &targetPlan{Engine: o.Engine}
	if len(o.FioServers) > 0 {
		return planRemote(p, o)
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
	}
	sims := 0
	for _, sp := range specs {
		if sp.Kind == device.KindSim {
			sims++
		}
	}
	switch {
	case sims == len(specs):
		p.Kind = setSim
		switch p.Engine {
		case "", "sim":
			p.Engine = "sim"
		case "native", "fio":
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
	case sims > 0:
		return nil, errors.New("simulated drives and real targets cannot be one target set")
	}
	p.Kind = setLocal
	switch p.Engine {
	case "":
		p.Engine = "native"
	case "native", "fio":
	case "sim":
		return nil, errors.New("engine sim drives only simulated drives (--target sim:MODEL)")
	default:
		return nil, fmt.Errorf("unknown engine %q: want sim, native or fio", p.Engine)
	}
	seen := map[string]bool{}
	for _, sp := range specs {
		t, err := device.Live.Inspect(sp)
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
	}
	if p.Engine == "fio" {
		// Before a file target is made: fio must load the file checked here.
		if err := fio.CheckTargets(p.fioTargets()); err != nil {
			return nil, err
		}
	}
	if o.Gate {
		sys, err := device.Live.System()
		if err != nil {
			return nil, err
		}
		if err := device.Live.Gate(p.Local, sys, o.DestroyData); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// planRemote reads --fio-server HOST:PORT[=TARGET]: the targets are on the
// servers' hosts, where ptsrun cannot look; writing to them needs
// --destroy-data naming each HOST:PORT=TARGET.
func planRemote(p *targetPlan, o targetOptions) (*targetPlan, error) {
	if p.Engine != "" && p.Engine != "fio" {
		return nil, fmt.Errorf("--fio-server drives targets through fio; engine %s cannot", p.Engine)
	}
	p.Engine, p.Kind = "fio", setRemote
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
		if err := fio.CheckTargets([]fio.Target{{Name: spec, Path: path}}); err != nil {
			return nil, err
		}
		if o.Gate && !contains(o.DestroyData, spec) {
			return nil, fmt.Errorf("%w: ptsrun cannot check %s on %s: confirm that its data may be destroyed with --destroy-data %s",
				device.ErrUnsafe, path, addr, spec)
		}
		p.Remote = append(p.Remote, fio.Target{Name: spec, Path: path, Server: addr, LogicalBlock: 512})
		p.Identities = append(p.Identities, device.Identity{Spec: spec, Kind: device.KindRemote, Path: path,
			Interface: "fio server", Notes: "on the fio server at " + addr + "; identity not visible from here"})
	}
	return p, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func simIdentity(spec string, id sim.Identity) device.Identity {
	return device.Identity{
		Spec: spec, Kind: device.KindSim, Vendor: id.Vendor, Model: id.Product, Serial: id.Serial,
		Firmware: id.Firmware, CapacityBytes: id.Capacity, LogicalBlock: id.LogicalBlock,
		PhysicalBlock: 4096, Interface: "simulated NVMe", OverProvision: id.OP, WriteCache: "enabled",
		Notes: fmt.Sprintf("model: %d dies, %.1f %% over-provisioning, power-loss protection %v", id.Dies, id.OP*100, id.PLP),
	}
}

// describe names the engine before it is opened (for run.json).
func (p *targetPlan) describe() string {
	switch p.Engine {
	case "sim":
		return sim.Description
	case "native":
		return "native " + native.Probe()
	case "fio":
		if v, err := fio.ProbeVersion(""); err == nil {
			return "fio " + strings.TrimPrefix(v.Raw, "fio-")
		}
	}
	return p.Engine
}

// open makes file targets that do not exist yet and opens the engine. dir is
// the run directory (sim drives keep their state in dir/sim/N, fio its job
// files in dir/fio); "" keeps everything in memory or temporary.
func (p *targetPlan) open(dir string, trace int) (*targetSet, error) {
	set := &targetSet{targetPlan: p}
	switch p.Kind {
	case setSim:
		var ts []sim.Target
		for i, m := range p.Sim {
			state := ""
			if dir != "" {
				state = filepath.Join(dir, "sim", fmt.Sprint(i))
			}
			ts = append(ts, sim.Target{Name: p.Identities[i].Spec, Model: m, StateDir: state})
		}
		e, err := sim.Open(ts)
		if err != nil {
			return nil, err
		}
		e.SetTrace(trace)
		for i := range ts {
			p.Identities[i] = simIdentity(ts[i].Name, e.Identity(i))
		}
		set.Engine = e
	case setLocal:
		for i := range p.Local {
			if err := p.Local[i].Prepare(device.Live); err != nil {
				return nil, err
			}
		}
		if p.Engine == "native" {
			var ts []native.Target
			for _, t := range p.Local {
				ts = append(ts, native.Target{Name: t.Raw, Path: devicePath(t), Size: t.Capacity, LogicalBlock: t.LogicalBlock})
			}
			e, err := native.Open(ts, native.Options{Trace: trace, Poll: p.Poll})
			if err != nil {
				return nil, err
			}
			set.Engine = e
		} else {
			e, err := fio.Open(p.fioTargets(), fio.Options{WorkDir: fioDir(dir), Trace: trace})
			if err != nil {
				return nil, err
			}
			set.Engine = e
		}
	case setRemote:
		e, err := fio.Open(p.Remote, fio.Options{WorkDir: fioDir(dir), Trace: trace})
		if err != nil {
			return nil, err
		}
		set.Engine = e
	}
	return set, nil
}

// fioTargets are the local targets as the fio engine gets them.
func (p *targetPlan) fioTargets() []fio.Target {
	var ts []fio.Target
	for _, t := range p.Local {
		ts = append(ts, fio.Target{Name: t.Raw, Path: devicePath(t), Size: t.Capacity, LogicalBlock: t.LogicalBlock})
	}
	return ts
}

// checkRunDir refuses a run directory whose name would change on its way
// into fio's job files (log options, the hold lock): no control characters
// with any engine, and nothing fio's parser alters with fio.
func checkRunDir(dir, engine string) error {
	if err := device.CheckControl(dir); err != nil {
		return fmt.Errorf("run directory %q: %w", dir, err)
	}
	if engine == "fio" {
		if _, err := fio.CheckWorkDir(fioDir(dir)); err != nil {
			return fmt.Errorf("run directory %q: %w", dir, err)
		}
	}
	return nil
}

func fioDir(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "fio")
}

func devicePath(t device.Target) string {
	if t.Block != nil {
		return t.Block.Path()
	}
	return t.Path
}

// purgeKind is the kind the purge methods are chosen for.
func (p *targetPlan) purgeKind() string {
	switch p.Kind {
	case setSim:
		return device.KindSim
	case setRemote:
		return device.KindRemote
	}
	if p.Local[0].Kind == device.KindFile {
		return device.KindFile
	}
	return device.KindBlock
}

// purger is the purge of the target set: by the engine for a simulated
// drive and targets on fio servers, which only it reaches. For local
// targets a method that erases more than the targets (every namespace of an
// NVMe controller) is put to the safety gate of each namespace it would
// erase besides them.
func (p *targetPlan) purger(method string, destroy []string, eng engine.Engine, progress func(string)) *precondition.Purger {
	pg := &precondition.Purger{Method: method, Progress: progress}
	if ep, ok := eng.(engine.Purger); ok && p.Kind != setLocal {
		pg.Engine = ep
	}
	for _, t := range p.Local {
		pg.Devs = append(pg.Devs, precondition.DevOf(t))
	}
	pg.ConfirmWide = func(d precondition.Dev, what string) error {
		for _, t := range p.Local {
			if devicePath(t) != d.Path {
				continue
			}
			fs := p.fs()
			sys, err := fs.System()
			if err != nil {
				return err
			}
			return fs.GateNamespaces(t, fs.OtherNamespaces(t), sys, destroy, what)
		}
		return fmt.Errorf("%w: %s is not a target of this run", device.ErrUnsafe, d.Path)
	}
	return pg
}

// widePurge decides, before anything is written, the purge of targets that
// share their NVMe controller with other namespaces: which method, what it
// erases, or why it is refused. ok is false when no target has such
// neighbours.
func (p *targetPlan) widePurge(ctx context.Context, method string, destroy []string) (ch precondition.Choice, ok bool, err error) {
	if method == precondition.None {
		return ch, false, nil
	}
	for _, t := range p.Local {
		if t.Block != nil && len(t.Block.Namespaces) > 0 {
			ch, err = p.purger(method, destroy, nil, nil).Resolve(ctx)
			return ch, true, err
		}
	}
	return ch, false, nil
}
