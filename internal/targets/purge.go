package targets

import (
	"context"
	"fmt"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/precondition"
)

// purgeKind is the kind of target set purge methods are chosen for
// (precondition.Choose).
func (p *Plan) purgeKind() string {
	switch p.Kind {
	case Simulated:
		return device.KindSim
	case Remote:
		return device.KindRemote
	}
	if p.Local[0].Kind == device.KindFile {
		return device.KindFile
	}
	return device.KindBlock
}

// ChoosePurge checks the requested purge method (--purge) against the kind
// of targets and each local target before anything runs, and returns the
// method. auto stays auto for real devices: it is resolved by probing them
// when the purge runs.
func (p *Plan) ChoosePurge(requested string) (string, error) {
	method, err := precondition.Choose(requested, p.purgeKind())
	if err != nil {
		return "", err
	}
	if err := precondition.Applicable(method, p.devs); err != nil {
		return "", err
	}
	return method, nil
}

// purger is the purge of the target set with method: by eng for a
// simulated drive and targets on fio servers, which only it reaches. For
// local targets a method that erases more than the targets (the whole
// disk of a partition, every namespace of an NVMe controller) is put to
// the safety gate of each device it would erase besides them, with the
// rules of a target and the confirmations of destroy (--destroy-data).
func (p *Plan) purger(method string, destroy []string, eng engine.Engine, progress func(string)) *precondition.Purger {
	pg := &precondition.Purger{Method: method, Progress: progress, Devs: p.devs}
	if ep, ok := eng.(engine.Purger); ok && p.Kind != Local {
		pg.Engine = ep
	}
	pg.ConfirmWide = func(d precondition.Dev, erased []string, what string) error {
		for _, t := range p.Local {
			if devicePath(t) != d.Path || t.Block == nil {
				continue
			}
			sys, err := p.fs.System()
			if err != nil {
				return err
			}
			others, err := p.fs.BlockTargets(erased)
			if err != nil {
				return err
			}
			return p.fs.GateErased(t, others, sys, destroy, what)
		}
		return fmt.Errorf("%w: %s is not a block device target of this run", device.ErrUnsafe, d.Path)
	}
	return pg
}

// WidePurge decides, before anything is written, the purge of targets that
// are partitions or share their NVMe controller with other namespaces:
// which method, what it erases, or why it is refused (device.ErrUnsafe).
// ok is false when no target is such.
func (p *Plan) WidePurge(ctx context.Context, method string, destroy []string) (ch precondition.Choice, ok bool, err error) {
	if method == precondition.None {
		return ch, false, nil
	}
	for _, t := range p.Local {
		if t.Block != nil && (len(t.Block.Namespaces) > 0 || t.Block.Partition) {
			ch, err = p.purger(method, destroy, nil, nil).Resolve(ctx)
			return ch, true, err
		}
	}
	return ch, false, nil
}

// Purger is the PTS purge of the opened set with method (from
// Plan.ChoosePurge); progress, if not nil, gets progress lines of a long
// purge. Targets on fio servers are purged by the engine or not at all:
// when it cannot, only method none is accepted.
func (s *Set) Purger(method string, destroy []string, progress func(string)) (*precondition.Purger, error) {
	pg := s.Plan.purger(method, destroy, s.Engine, progress)
	if s.Plan.Kind == Remote && pg.Engine == nil && method != precondition.None {
		return nil, fmt.Errorf("engine %s cannot purge targets on fio servers: run with --purge none", s.Engine.Describe())
	}
	return pg, nil
}

// WriteCache controls the volatile write cache of the set: the devices'
// own with their interface's tools for local targets, else the engine's
// when it has one (the simulated drive); nil when nothing can.
func (s *Set) WriteCache() engine.WriteCacher {
	if s.Plan.Kind == Local {
		return &precondition.CacheControl{Devs: s.Plan.devs}
	}
	if wc, ok := s.Engine.(engine.WriteCacher); ok {
		return wc
	}
	return nil
}
