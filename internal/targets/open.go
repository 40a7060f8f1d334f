package targets

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/cpuidle"
	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/fio"
	"github.com/ptsrun/ptsrun/internal/engine/native"
	"github.com/ptsrun/ptsrun/internal/engine/sim"
)

// Set is an opened target set: its plan and the engine that drives it.
// Close it, not only its engine: it holds the block devices it writes.
type Set struct {
	Plan   *Plan
	Engine engine.Engine
	holds  *device.Holds
	// CPUIdle is the host's idle states while the set is open, and the
	// PM QoS request it holds (OpenOptions.CPUIdle); nil for simulated
	// drives and fio servers' targets, whose hosts ptsrun does not set.
	CPUIdle *cpuidle.State
	idle    *cpuidle.Hold
}

// OpenOptions tune the engine Open opens.
type OpenOptions struct {
	// Poll is the native engine's completion polling (native.Options.Poll):
	// 0 lets the engine choose, negative never polls.
	Poll time.Duration
	// Trace keeps the first Trace I/Os of every thread in each measurement.
	Trace int
	// ReadOnly says nothing will be written: the block devices are not
	// held exclusively (a device may be read while it is mounted).
	ReadOnly bool
	// CPUIdle is how quick to wake the host's idle CPUs are kept while
	// the set of local targets is open (--cpu-idle; the zero value,
	// cpuidle.Shallow, keeps them polling).
	CPUIdle cpuidle.Setting
}

// Open makes file targets that do not exist yet and opens the engine. dir is
// the run directory (sim drives keep their state in dir/sim/N, fio its job
// files in dir/fio); "" keeps everything in memory or temporary. Unless
// o.ReadOnly, every local block device is first held with O_EXCL
// (device.HoldExclusive) until the Set is closed, whichever engine drives
// it: a mount, md, dm or LVM claim then fails with EBUSY while the run
// writes, and a device claimed since the gate checked it is refused
// (device.ErrUnsafe).
func (p *Plan) Open(dir string, o OpenOptions) (*Set, error) {
	set := &Set{Plan: p}
	var err error
	switch p.Kind {
	case Simulated:
		set.Engine, err = p.openSim(dir, o)
	case Local:
		if !o.ReadOnly {
			if set.holds, err = device.HoldExclusive(p.blockPaths()); err != nil {
				return nil, err
			}
		}
		for i := range p.Local {
			if err := p.Local[i].Prepare(p.fs); err != nil {
				set.holds.Release()
				return nil, err
			}
		}
		// Held before the engine opens: the native engine's polling
		// follows what the idle CPUs do (native.Options.IdlePolls).
		var st cpuidle.State
		set.idle, st = cpuidle.Take(o.CPUIdle, "/", cpuidle.QoSPath)
		set.CPUIdle = &st
		if p.Engine == Native {
			set.Engine, err = p.openNative(o, st.Polls())
		} else {
			set.Engine, err = p.openFio(p.localFioTargets(), dir, o)
		}
	case Remote:
		set.Engine, err = p.openFio(p.Remote, dir, o)
	default:
		err = fmt.Errorf("targets: no engine for a target set of kind %v", p.Kind)
	}
	if err != nil {
		set.idle.Release()
		set.holds.Release()
		return nil, err
	}
	return set, nil
}

// Close closes the engine, then lets go of the devices held.
func (s *Set) Close() error {
	err := s.Engine.Close()
	s.idle.Release()
	return errors.Join(err, s.holds.Release())
}

// Held are the block devices the set holds exclusively.
func (s *Set) Held() []string { return s.holds.Paths() }

// blockPaths are the device nodes of the local block targets.
func (p *Plan) blockPaths() []string {
	var out []string
	for _, t := range p.Local {
		if t.Block != nil {
			out = append(out, t.Block.Path())
		}
	}
	return out
}

func (p *Plan) openSim(dir string, o OpenOptions) (engine.Engine, error) {
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
	e.SetTrace(o.Trace)
	for i := range ts {
		p.Identities[i] = simIdentity(ts[i].Name, e.Identity(i))
	}
	return e, nil
}

func (p *Plan) openNative(o OpenOptions, idlePolls bool) (engine.Engine, error) {
	var ts []engine.Target
	for _, t := range p.Local {
		ts = append(ts, engine.Target{Name: t.Raw, Path: devicePath(t), Size: t.Capacity, LogicalBlock: t.LogicalBlock})
	}
	e, err := native.Open(ts, native.Options{Trace: o.Trace, Poll: o.Poll, IdlePolls: idlePolls})
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (p *Plan) openFio(ts []engine.Target, dir string, o OpenOptions) (engine.Engine, error) {
	e, err := fio.Open(ts, fio.Options{WorkDir: fioDir(dir), Trace: o.Trace})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// CheckRunDir refuses a run directory whose name would change on its way
// into fio's job files (log options, the hold lock): no control characters
// with any engine, and nothing fio's parser alters with fio.
func (p *Plan) CheckRunDir(dir string) error {
	if err := device.CheckControl(dir); err != nil {
		return fmt.Errorf("run directory %q: %w", dir, err)
	}
	if p.Engine == Fio {
		if _, err := fio.CheckWorkDir(fioDir(dir)); err != nil {
			return fmt.Errorf("run directory %q: %w", dir, err)
		}
	}
	return nil
}

// CheckWorkload refuses, before anything is opened, a workload the engine
// would run otherwise than asked (fio: shares that are not whole
// percentages, a rate cap whose per-thread share rounds to nothing).
func (p *Plan) CheckWorkload(w engine.Workload) error {
	if p.Engine == Fio {
		return fio.CheckWorkload(w)
	}
	return nil
}

// SeriesNote says what w's time series will lack on these targets' engine,
// "" when nothing: fio keeps every histogram window in memory until its
// threads end, so past a budget ptsrun asks it for none, and the
// intervals have no percentiles or maximum (fio.HistLogFits).
func (p *Plan) SeriesNote(w engine.Workload) string {
	if p.Engine != Fio || w.Idle || w.Passes > 0 {
		return ""
	}
	ok, need, minIv := fio.HistLogFits(w, len(p.Names()))
	if ok {
		return ""
	}
	note := fmt.Sprintf("no per-interval percentiles or maximum: fio keeps each histogram window in memory until it ends, "+
		"about %d MiB for this run at %v intervals (ptsrun allows 256 MiB)", need>>20, w.SeriesInterval())
	if minIv > 0 {
		note += fmt.Sprintf("; --interval %v or longer has them", minIv)
	}
	return note
}

func fioDir(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "fio")
}

// ProbeHost describes this host for run.json (device.FS.ProbeHost), with the
// fio version when fio is installed. version is ptsrun's.
func ProbeHost(version string) device.Host {
	h := device.Live.ProbeHost(version)
	if v, err := fio.ProbeVersion(""); err == nil {
		h.Fio = v.Raw
	}
	return h
}

// Describe names the engine before it is opened, for run.json: with the
// fio version of host (ProbeHost), the I/O path native would take, or what
// the simulated drive is.
func (p *Plan) Describe(host device.Host) string {
	switch p.Engine {
	case Sim:
		return sim.Description
	case Native:
		return "native " + native.Probe()
	case Fio:
		if host.Fio != "" {
			return "fio " + strings.TrimPrefix(host.Fio, "fio-")
		}
	}
	return string(p.Engine)
}

// JobFile is the fio job file of one host.
type JobFile struct {
	Host string // "local", or the fio server's HOST:PORT
	Text string
}

// JobFiles are the fio job files the engine fio would run for w on the
// targets, one per host, in the order the fio servers were named; none for
// other engines. ptsrun plan prints them.
func (p *Plan) JobFiles(w engine.Workload) []JobFile {
	if p.Engine != Fio {
		return nil
	}
	byHost := fio.JobFilesFor(w, append(p.localFioTargets(), p.Remote...))
	var out []JobFile
	if text, ok := byHost["local"]; ok {
		out = append(out, JobFile{Host: "local", Text: text})
	}
	for _, t := range p.Remote {
		if text, ok := byHost[t.Server]; ok {
			out = append(out, JobFile{Host: t.Server, Text: text})
			delete(byHost, t.Server)
		}
	}
	return out
}

// SeqWriteMBps estimates the simulated drives' sequential write speed for w
// from a short run on a fresh in-memory drive of each model (the last
// model's when they differ); 0 for real targets, whose speed is known only
// when they run.
func (p *Plan) SeqWriteMBps(ctx context.Context, w engine.Workload) float64 {
	var mbps float64
	for _, m := range p.Sim {
		mbps = simSeqWriteMBps(ctx, m, w)
	}
	return mbps
}

// Capacities are the targets' capacities in bytes, as far as they are
// known before the run: a simulated drive's and a local target's; none
// of targets on fio servers.
func (p *Plan) Capacities() []int64 {
	var out []int64
	for _, m := range p.Sim {
		out = append(out, m.UserBytes)
	}
	for _, t := range p.Local {
		out = append(out, t.Capacity)
	}
	return out
}

// What a round run through fio servers costs on top of its cells' time,
// measured on two local servers: the server sleeps up to 1 s between a
// client's commands, and fio pauses about 0.2 s between stonewalled jobs.
const (
	remoteRoundOverhead = 1200 * time.Millisecond
	remoteCellOverhead  = 200 * time.Millisecond
)

// Overheads are what a round costs on these targets besides its cells'
// time: through fio servers a round is one fio invocation, the server's
// start-up wait once, then fio's pause between stonewalled cells; nothing
// otherwise.
func (p *Plan) Overheads() (perRound, perCell time.Duration) {
	if p.Kind == Remote {
		return remoteRoundOverhead, remoteCellOverhead
	}
	return 0, 0
}

func simSeqWriteMBps(ctx context.Context, m sim.Model, w engine.Workload) float64 {
	e, err := sim.Open([]sim.Target{{Name: "plan", Model: m}})
	if err != nil {
		return 0
	}
	defer e.Close()
	r, err := engine.RunCell(ctx, e, engine.Cell{Workload: w})
	if err != nil {
		return 0
	}
	return r.Write.MBps(r.Elapsed)
}
