package precondition

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
)

// Methods besides the catalogue's.
const (
	Auto      = "auto"
	None      = "none"
	SimFormat = "sim-format" // the simulated drive's own format with user-data erase
)

// Result is what a purge did (PTS §3.2: the method and its result are reported).
type Result struct {
	Method    string        `json:"method"`
	Compliant bool          `json:"compliant"` // a PTS purge, not a substitute
	Skipped   bool          `json:"skipped,omitempty"`
	Commands  []Command     `json:"commands,omitempty"`
	Duration  time.Duration `json:"duration_ns"`
	Verified  string        `json:"verified,omitempty"` // how completion was checked
	Note      string        `json:"note,omitempty"`
	// Erased is every device the purge erased, when that is more than the
	// targets: a controller-wide NVMe purge erases every namespace.
	Erased []string `json:"erased,omitempty"`
}

// Command is an external command run for a purge or a device setting; the
// engine package holds it because the engines that purge report theirs.
type Command = engine.Command

// Methods lists every method name the command line accepts.
func Methods() []string {
	names := []string{Auto, None, SimFormat}
	for _, m := range catalogue {
		names = append(names, m.name)
	}
	return names
}

// Choose checks the requested method against the kind of target set (sim,
// block, file, remote) before anything runs. auto stays auto for real
// devices: it is resolved by probing them when the purge runs.
func Choose(requested string, kind string) (string, error) {
	requested = strings.ToLower(strings.TrimSpace(requested))
	if requested == "" {
		requested = Auto
	}
	if !slices.Contains(Methods(), requested) {
		return "", fmt.Errorf("unknown purge method %q: known methods are %s", requested, strings.Join(Methods(), ", "))
	}
	switch {
	case requested == None:
		return None, nil
	case kind == device.KindSim && (requested == Auto || requested == SimFormat):
		return SimFormat, nil
	case kind == device.KindSim:
		return "", fmt.Errorf("purge method %s does not apply to a simulated drive", requested)
	case requested == SimFormat:
		return "", fmt.Errorf("purge method %s applies only to simulated drives", requested)
	case kind == device.KindRemote && requested != Auto && requested != Discard && requested != ZeroFill:
		return "", fmt.Errorf("purge method %s cannot reach targets on fio servers: ptsrun reaches them only through fio, "+
			"which can trim them (discard) or write zeros over them (zero-fill), substitutes that are not a PTS purge; "+
			"use --purge auto, discard or zero-fill, or purge them on their hosts and run with --purge none", requested)
	case kind == device.KindFile && requested != Auto && requested != Discard && requested != ZeroFill:
		return "", fmt.Errorf("purge method %s does not apply to a file: use discard, zero-fill or auto", requested)
	}
	return requested, nil
}

// Applicable checks, before anything runs, that a method named by the user
// applies to every target's interface (whether the device supports it is
// probed when the purge runs).
func Applicable(method string, devs []Dev) error {
	m := lookup(method)
	if m == nil {
		return nil // auto, none, sim-format: checked by Choose
	}
	for _, d := range devs {
		if !m.applies(d) {
			return fmt.Errorf("purge method %s does not apply to %s (%s)", m.name, d.Path, d.Interface)
		}
	}
	return nil
}

// Purger purges a target set with a method: it is the PTS purge step, and
// hands the job to the engine for targets only the engine reaches.
type Purger struct {
	Method string
	Devs   []Dev // real targets on this host
	// Engine purges the targets only it reaches, instead of Devs: a
	// simulated drive (sim-format) or targets on fio servers (the
	// substitutes).
	Engine   engine.Purger
	Exec     Exec          // external tools; System{} when nil
	Poll     time.Duration // status polling interval; 5 s when zero
	Progress func(string)  // progress lines, optional
	// ConfirmWide is asked before a method that erases more than its
	// target d is chosen: erased lists what it erases besides d (the whole
	// disk of a partition, every other namespace of an NVMe controller),
	// what names the method. It returns an error wrapping
	// device.ErrUnsafe when any of those may not be destroyed. nil refuses
	// every such method.
	ConfirmWide func(d Dev, erased []string, what string) error
}

func (p *Purger) exec() Exec {
	if p.Exec == nil {
		return System{}
	}
	return p.Exec
}

// poll calls done until it reports completion or an error.
func (p *Purger) poll(ctx context.Context, done func() (bool, error)) error {
	every := p.Poll
	if every == 0 {
		every = 5 * time.Second
	}
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(every):
		}
	}
}

// Purge runs the method on every target and checks its completion: by what
// the device reports (sanitize logs, sense data, exit status) and, where the
// device promises what erased blocks read as, by reading some back.
func (p *Purger) Purge(ctx context.Context) (Result, error) {
	start := time.Now()
	switch p.Method {
	case None:
		return Result{Method: None, Skipped: true,
			Note: "no purge: the run starts from whatever state the device was in"}, nil
	case SimFormat:
		if p.Engine == nil {
			return Result{}, errors.New("no engine to purge the simulated drive")
		}
		rep, err := p.Engine.Purge(ctx, engine.PurgeFormat)
		if err != nil {
			return Result{}, fmt.Errorf("purging the simulated drive: %w", err)
		}
		return Result{Method: SimFormat, Compliant: true, Duration: rep.Duration,
			Note: "simulated drive: format with user-data erase, every block erased (device time)"}, nil
	}
	if p.Engine != nil {
		return p.purgeRemote(ctx)
	}
	if len(p.Devs) == 0 {
		return Result{}, fmt.Errorf("purge method %s: no target", p.Method)
	}
	rec := &recorder{x: p.exec(), log: p.Progress}
	ch, err := p.resolve(ctx, rec)
	if err != nil {
		return Result{Method: p.Method, Commands: rec.cmds}, err
	}
	m := ch.method
	res := Result{Method: m.name, Compliant: m.compliant, Note: ch.note, Erased: ch.Erased}
	var verified []string
	for _, d := range p.Devs {
		c, err := m.run(ctx, p, d, rec)
		if err != nil {
			res.Commands = rec.cmds
			return res, fmt.Errorf("%s on %s: %w", m.name, d.Path, err)
		}
		how, err := check(ctx, m, d, c, rec)
		if err != nil {
			res.Commands = rec.cmds
			return res, fmt.Errorf("%s on %s: %w", m.name, d.Path, err)
		}
		verified = append(verified, d.Path+": "+how)
	}
	res.Commands = rec.cmds
	res.Duration = time.Since(start)
	res.Verified = strings.Join(verified, "; ")
	if !m.compliant {
		res.Note = strings.TrimSpace(res.Note + " " + m.about)
	}
	return res, nil
}

// check says how a method's completion on d was established: what the
// device reported, and a read-back where the device promises a pattern.
func check(ctx context.Context, m *method, d Dev, c completion, rec *recorder) (string, error) {
	pattern, why := m.expect(ctx, d, c, rec)
	if pattern < 0 {
		return fmt.Sprintf("%s; not read back: %s", c.evidence, why), nil
	}
	n, wrong, err := readBack(d, byte(pattern))
	if err != nil {
		return "", fmt.Errorf("checking the result: %w", err)
	}
	if wrong > 0 {
		return "", fmt.Errorf("%s, yet %d of %d sampled blocks read back otherwise: the purge did not happen", why, wrong, n)
	}
	return fmt.Sprintf("%s; %d sampled blocks read back as %s (%s)", c.evidence, n, patternName(pattern), why), nil
}

// Choice is the method a purge will use and what it erases.
type Choice struct {
	Method string
	// Erased is every device the purge erases when that is more than the
	// targets (the other namespaces of an NVMe controller); empty otherwise.
	Erased []string
	method *method
	note   string
}

// Resolve decides, before anything is written, which method the purge will
// use and what it erases, running only read-only probes (nvme id-ctrl,
// hdparm -I, …). A method that erases more than the targets is put to
// ConfirmWide; its refusal is returned.
func (p *Purger) Resolve(ctx context.Context) (Choice, error) {
	switch p.Method {
	case None, SimFormat:
		return Choice{Method: p.Method}, nil
	}
	return p.resolve(ctx, &recorder{x: p.exec()})
}

// remoteJobs are the substitutes for targets on fio servers, in the order
// auto tries them: a trim is quick and leaves the drive as a discard does;
// a zero-fill works on anything fio can write.
var remoteJobs = []struct{ method, job, about string }{
	{Discard, engine.PurgeTrim, "discard (TRIM/UNMAP/Deallocate) of every block by an fio trim job (rw=trim) run through the fio servers: a substitute, not a PTS purge"},
	{ZeroFill, engine.PurgeZeroFill, "zeros written over every block by an fio job (zero_buffers=1) run through the fio servers: a substitute, not a PTS purge"},
}

// RemoteAbout says what a method does to targets on fio servers.
func RemoteAbout(method string) string {
	if method == Auto {
		return "an fio trim job through the fio servers, else an fio zero-fill job: substitutes, NOT a PTS purge"
	}
	for _, j := range remoteJobs {
		if j.method == method {
			return j.about
		}
	}
	return Catalogue()[method]
}

// purgeRemote runs a substitute through the engine on targets on fio
// servers. auto takes the trim, and the zero-fill when the trim fails on
// any target (a file, a device without discards), on every target alike.
func (p *Purger) purgeRemote(ctx context.Context) (Result, error) {
	start := time.Now()
	res := Result{Method: p.Method}
	var failed []string
	for _, j := range remoteJobs {
		if p.Method != Auto && p.Method != j.method {
			continue
		}
		if p.Progress != nil {
			p.Progress(fmt.Sprintf("%s through the fio servers (an fio %s job)", j.method, j.job))
		}
		rep, err := p.Engine.Purge(ctx, j.job)
		res.Commands = append(res.Commands, Command{Args: rep.Args, Target: "every target", Output: rep.Output, Exit: rep.Exit, Duration: rep.Duration})
		if err != nil {
			failed = append(failed, j.method+": "+err.Error())
			if ctx.Err() != nil || p.Method != Auto || j.method == ZeroFill {
				res.Method = j.method
				return res, fmt.Errorf("purge through the fio servers: %s", strings.Join(failed, "; then "))
			}
			continue
		}
		res.Method, res.Verified, res.Duration = j.method, rep.Verified, time.Since(start)
		res.Note = j.about
		if p.Method == Auto {
			note := "auto: targets on fio servers are reached only through fio, which has no PTS purge"
			if len(failed) > 0 {
				note += "; the trim failed (" + strings.Join(failed, "; ") + "), so zeros were written instead"
			}
			res.Note = note + ". " + j.about
		}
		return res, nil
	}
	return res, fmt.Errorf("purge method %s cannot reach targets on fio servers", p.Method)
}

// resolve returns the method to run: the one asked for, checked against
// every target, or for auto the first in the catalogue that every target
// supports, preferring one that erases the targets alone. The note says what
// auto passed over.
func (p *Purger) resolve(ctx context.Context, rec *recorder) (Choice, error) {
	if p.Method != Auto {
		m := lookup(p.Method)
		if m == nil {
			return Choice{}, fmt.Errorf("unknown purge method %q", p.Method)
		}
		for _, d := range p.Devs {
			if !m.applies(d) {
				return Choice{}, fmt.Errorf("purge method %s does not apply to %s (%s)", m.name, d.Path, d.Interface)
			}
			if ok, why := m.probe(ctx, rec.x, d, rec); !ok {
				return Choice{}, fmt.Errorf("purge method %s: %s", m.name, why)
			}
		}
		return p.confirm(ctx, m, rec, "")
	}
	// Compliant methods that erase more than the targets wait until no
	// compliant method erases the targets alone, and then go in the order
	// of how much more they erase: the first one confirmed is taken.
	var skipped []string
	var wide []*method
	for i := range catalogue {
		m := &catalogue[i]
		if !p.supported(ctx, m, rec, &skipped) {
			continue
		}
		if m.compliant && p.erasesBeyond(ctx, m, rec) > 0 {
			wide = append(wide, m)
			continue
		}
		if !m.compliant && len(wide) > 0 {
			ch, err := p.confirmFirst(ctx, wide, rec)
			if err == nil || !p.partitions() {
				return ch, err // a compliant purge exists: it is confirmed, not swapped for a substitute
			}
			// On a partition the PTS purges erase its whole disk: unless
			// that is confirmed, only the partition is purged, with a
			// substitute.
			skipped = append(skipped, strings.TrimPrefix(err.Error(), device.ErrUnsafe.Error()+": "))
			wide = nil
		}
		note := ""
		if !m.compliant {
			note = "auto found no PTS purge for this device"
			if len(skipped) > 0 {
				note += " (" + strings.Join(skipped, "; ") + ")"
			}
			note += "."
		}
		return Choice{Method: m.name, method: m, note: note}, nil
	}
	if len(wide) > 0 {
		return p.confirmFirst(ctx, wide, rec)
	}
	return Choice{}, fmt.Errorf("no purge method works here: %s", strings.Join(skipped, "; "))
}

// confirmFirst confirms the methods in the order of how much they erase
// beyond the targets (the catalogue's among equals) and returns the first
// confirmed, or the refusal of the one that erases least.
func (p *Purger) confirmFirst(ctx context.Context, ms []*method, rec *recorder) (Choice, error) {
	ms = slices.Clone(ms)
	slices.SortStableFunc(ms, func(a, b *method) int { return p.erasesBeyond(ctx, a, rec) - p.erasesBeyond(ctx, b, rec) })
	var first error
	for _, m := range ms {
		ch, err := p.confirm(ctx, m, rec, "")
		if err == nil {
			return ch, nil
		}
		if first == nil {
			first = err
		}
	}
	return Choice{}, first
}

// partitions reports whether any target is a partition.
func (p *Purger) partitions() bool {
	return slices.ContainsFunc(p.Devs, func(d Dev) bool { return d.Disk != "" })
}

// supported reports whether m applies to and is supported by every target,
// adding why not to skipped.
func (p *Purger) supported(ctx context.Context, m *method, rec *recorder, skipped *[]string) bool {
	for _, d := range p.Devs {
		if !m.applies(d) {
			return false
		}
		if good, why := m.probe(ctx, rec.x, d, rec); !good {
			*skipped = append(*skipped, m.name+": "+why)
			return false
		}
	}
	return true
}

// erased lists the devices m erases on d besides d itself: the whole disk
// when d is a partition (every method but discard and zero-fill), and the
// other namespaces of an NVMe controller when the method covers them all
// (or when the controller cannot be asked whether it does).
func (p *Purger) erased(ctx context.Context, m *method, d Dev, rec *recorder) []string {
	if m.partial {
		return nil
	}
	var out []string
	if d.Disk != "" {
		out = append(out, d.Disk)
	}
	if m.wide != nil && len(d.Namespaces) > 0 {
		if id, err := rec.idCtrl(ctx, d); err != nil || m.wide(id) {
			out = append(out, d.Namespaces...)
		}
	}
	return out
}

// erasesBeyond counts the devices m erases besides the targets.
func (p *Purger) erasesBeyond(ctx context.Context, m *method, rec *recorder) int {
	n := 0
	for _, d := range p.Devs {
		n += len(p.erased(ctx, m, d, rec))
	}
	return n
}

// confirm returns m as the choice once every device it erases beyond the
// targets has been confirmed.
func (p *Purger) confirm(ctx context.Context, m *method, rec *recorder, note string) (Choice, error) {
	ch := Choice{Method: m.name, method: m, note: note}
	for _, d := range p.Devs {
		erased := p.erased(ctx, m, d, rec)
		if len(erased) == 0 {
			continue
		}
		if p.ConfirmWide == nil {
			scope := "more than the target"
			if d.Disk == "" {
				scope = "every namespace of " + d.Controller
			}
			return Choice{}, fmt.Errorf("%w: %s of %s erases %s, also %s, and nothing confirmed that",
				device.ErrUnsafe, m.about, d.Path, scope, strings.Join(erased, ", "))
		}
		if err := p.ConfirmWide(d, erased, m.about); err != nil {
			return Choice{}, err
		}
		ch.Erased = append(ch.Erased, d.Path)
		ch.Erased = append(ch.Erased, erased...)
	}
	return ch, nil
}

// Plan describes what auto would try, in order, for targets of an interface.
func Plan(iface string) []string {
	var out []string
	d := Dev{Kind: device.KindBlock, Interface: iface}
	if iface == "file" {
		d.Kind = device.KindFile
	}
	for _, m := range catalogue {
		if m.applies(d) {
			out = append(out, m.name)
		}
	}
	return out
}
