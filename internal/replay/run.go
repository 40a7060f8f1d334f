package replay

import (
	"context"
	"errors"
	"fmt"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/cpuidle"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/targets"
)

// Prepared is a replay checked and planned: nothing written yet.
type Prepared struct {
	Options Options
	CPUIdle cpuidle.Setting  // Options.CPUIdle, parsed
	Name    string           // the capture as its errors name it
	Capture *capture.Capture // the device chosen
	Plan    *targets.Plan
	Timed   engine.Timed
	Depth   string // DepthRule
	Writes  bool
}

// Prepare reads the capture, checks the target (through the safety gate
// when the capture writes) and plans the replay. It writes nothing: a
// malformed capture, a refused target or a capture that does not fit
// stop it first.
func Prepare(o Options) (*Prepared, error) {
	if o.Speed == 0 {
		o.Speed = 1
	}
	idle, err := cpuidle.Parse(o.CPUIdle)
	if err != nil {
		return nil, err
	}
	if o.Depth < 0 {
		return nil, fmt.Errorf("--depth %d: want a positive number of slots, or 0 for the capture's", o.Depth)
	}
	if len(o.Targets.Specs) != 1 || len(o.Targets.FioServers) > 0 {
		return nil, errors.New("replay takes one --target, a block device or file:PATH[:SIZE] on this host")
	}
	if len(o.Args) != 1 {
		return nil, errors.New("replay needs one capture: a file, or - for standard input")
	}
	if o.Event == "" {
		o.Event = "Q"
	}
	parse, err := capture.OptionsOf(o.Format, o.Event)
	if err != nil {
		return nil, err
	}
	c, name, err := capture.ReadFile(o.Args[0], o.Stdin, parse, nil)
	if err != nil {
		return nil, err
	}
	one, err := c.Select(o.Device)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &Prepared{Options: o, CPUIdle: idle, Name: name, Capture: one}
	for _, io := range one.IOs {
		p.Writes = p.Writes || io.Dir == capture.Write
	}
	to := o.Targets
	to.Gate = p.Writes // a capture of reads only writes nothing
	if p.Plan, err = targets.Check(to); err != nil {
		return nil, err
	}
	if p.Plan.Kind != targets.Local {
		return nil, errors.New("replay needs a block device or file on this host: a simulated drive has no timed replay")
	}
	t := p.Plan.Local[0]
	if p.Timed, p.Depth, err = plan(one, t.Capacity, t.LogicalBlock, o.Speed, o.Depth); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// Run opens the target and replays the capture on it; dir is the run
// directory (the fio engine keeps its job file, iolog and logs in
// dir/fio). A replay cut short still returns what it measured, with the
// error.
func (p *Prepared) Run(ctx context.Context, dir string) (*Result, error) {
	set, err := p.Plan.Open(dir, targets.OpenOptions{ReadOnly: !p.Writes, CPUIdle: p.CPUIdle})
	if err != nil {
		return nil, err
	}
	defer set.Close()
	if w := set.CPUIdle.Warning(); w != "" && p.Options.Warn != nil {
		fmt.Fprintf(p.Options.Warn, "ptsrun replay: %s\n", w)
	}
	r, ok := set.Engine.(engine.Replayer)
	if !ok {
		return nil, fmt.Errorf("engine %s cannot replay", set.Engine.Describe())
	}
	tr, err := r.Replay(ctx, p.Timed)
	if tr.Issue == nil {
		return nil, err
	}
	res := p.result(tr)
	res.CPUIdle = set.CPUIdle
	return res, err
}
