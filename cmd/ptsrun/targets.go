package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/engine/sim"
)

// targetSet is the opened targets of a run with the engine that drives them.
type targetSet struct {
	Kind       string
	Identities []device.Identity
	Engine     engine.Engine
}

// parseSimTarget reads "sim" or "sim:MODEL".
func parseSimTarget(spec string) (sim.Model, bool, error) {
	name, ok := strings.CutPrefix(spec, "sim")
	if !ok || (name != "" && name[0] != ':') {
		return sim.Model{}, false, nil
	}
	m, err := sim.Lookup(strings.TrimPrefix(name, ":"))
	return m, true, err
}

// checkTargets validates target specs and the engine name without touching
// anything, and returns the kind of the set.
func checkTargets(specs []string, engineName string) (string, error) {
	if len(specs) == 0 {
		return "", fmt.Errorf("no target: name one with --target (sim, sim:client, sim:enterprise)")
	}
	for _, s := range specs {
		_, isSim, err := parseSimTarget(s)
		if err != nil {
			return "", err
		}
		if !isSim {
			return "", fmt.Errorf("target %q: block devices and files are not supported yet; use a simulated drive (sim:client, sim:enterprise)", s)
		}
	}
	switch engineName {
	case "", "sim":
	case "native", "fio":
		return "", fmt.Errorf("engine %s cannot drive a simulated drive; use --engine sim", engineName)
	default:
		return "", fmt.Errorf("unknown engine %q: want sim, native or fio", engineName)
	}
	return device.KindSim, nil
}

// identify describes the targets without opening or changing anything.
func identify(specs []string) ([]device.Identity, error) {
	var ids []device.Identity
	for i, s := range specs {
		m, _, err := parseSimTarget(s)
		if err != nil {
			return nil, err
		}
		ids = append(ids, simIdentity(s, sim.IdentityOf(m, i)))
	}
	return ids, nil
}

func simIdentity(spec string, id sim.Identity) device.Identity {
	return device.Identity{
		Spec: spec, Kind: device.KindSim, Vendor: id.Vendor, Model: id.Product, Serial: id.Serial,
		Firmware: id.Firmware, CapacityBytes: id.Capacity, LogicalBlock: id.LogicalBlock,
		PhysicalBlock: 4096, Interface: "simulated NVMe", OverProvision: id.OP,
		Notes: fmt.Sprintf("model: %d dies, %.1f %% over-provisioning, power-loss protection %v", id.Dies, id.OP*100, id.PLP),
	}
}

// openTargets opens the targets for a run in dir (sim drives keep their
// state in dir/sim/N) and reports who they say they are.
func openTargets(specs []string, dir string) (*targetSet, error) {
	var ts []sim.Target
	for i, s := range specs {
		m, _, err := parseSimTarget(s)
		if err != nil {
			return nil, err
		}
		state := ""
		if dir != "" {
			state = filepath.Join(dir, "sim", fmt.Sprint(i))
		}
		ts = append(ts, sim.Target{Name: s, Model: m, StateDir: state})
	}
	e, err := sim.Open(ts)
	if err != nil {
		return nil, err
	}
	set := &targetSet{Kind: device.KindSim, Engine: e}
	for i, t := range ts {
		set.Identities = append(set.Identities, simIdentity(t.Name, e.Identity(i)))
	}
	return set, nil
}
