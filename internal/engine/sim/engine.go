package sim

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Target is one simulated drive of a target set.
type Target struct {
	Name     string // as the user wrote it: "sim:enterprise"
	Model    Model
	StateDir string // where the drive persists; "" keeps it in memory
}

// Identity is what a simulated drive reports about itself.
type Identity struct {
	Vendor, Product, Serial, Firmware string
	Capacity                          int64 // bytes
	LogicalBlock                      int64
	OP                                float64
	Dies                              int
	PLP                               bool
}

type simDrive struct {
	t      Target
	d      *Drive
	st     *store
	serial string
	salt   uint64
}

// Engine runs workloads on one or more simulated drives.
type Engine struct {
	drives []*simDrive
	trace  int
}

// SetTrace keeps the first n I/Os of every thread in each measurement: the
// addresses the simulated host issues, from the generator the real engines
// use.
func (e *Engine) SetTrace(n int) { e.trace = n }

var _ engine.Engine = (*Engine)(nil)
var _ engine.Purger = (*Engine)(nil)
var _ engine.WriteCacher = (*Engine)(nil)

// Open makes or reloads the drives of a target set.
func Open(targets []Target) (*Engine, error) {
	if len(targets) == 0 {
		return nil, fmt.Errorf("no simulated drive named")
	}
	e := &Engine{}
	for i, t := range targets {
		serial := IdentityOf(t.Model, i).Serial
		h := fnv.New64a()
		h.Write([]byte(t.Model.Name))
		sd := &simDrive{t: t, serial: serial, salt: h.Sum64() + uint64(i)}
		if t.StateDir == "" {
			sd.d = newDrive(t.Model)
		} else {
			d, st, ser, err := openStore(t.StateDir, t.Model, serial)
			if err != nil {
				e.Close()
				return nil, err
			}
			sd.d, sd.st, sd.serial = d, st, ser
		}
		e.drives = append(e.drives, sd)
	}
	for _, sd := range e.drives {
		sd.d.keepIntervals = len(e.drives) > 1
	}
	return e, nil
}

// IdentityOf is what a new drive of model m at position i of a target set
// reports, before any drive exists.
func IdentityOf(m Model, i int) Identity {
	return Identity{Vendor: m.Vendor, Product: m.Product, Firmware: m.Firmware,
		Serial:   fmt.Sprintf("%sSIM-%04d", strings.ToUpper(m.Name[:1]), i+1),
		Capacity: m.UserBytes, LogicalBlock: 512, OP: m.OP, Dies: m.Dies, PLP: m.PLP}
}

// Identity of drive i as it is.
func (e *Engine) Identity(i int) Identity {
	sd := e.drives[i]
	id := IdentityOf(sd.t.Model, i)
	id.Serial = sd.serial
	return id
}

// Description is how the engine names itself (Describe), and what run.json
// records as the engine of a run on simulated drives.
const Description = "sim (ptsrun simulated SSD model, not hardware)"

// Describe names the engine.
func (e *Engine) Describe() string { return Description }

func (e *Engine) do(ctx context.Context, o op) ([]engine.Measurement, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []engine.Measurement
	for _, sd := range e.drives {
		oo := o
		oo.Salt = sd.salt
		if sd.st != nil {
			if err := sd.st.record(&oo); err != nil {
				return nil, err
			}
		}
		out = append(out, sd.d.apply(oo))
		if sd.st != nil {
			sd.st.sinceSnap++
			if sd.st.sinceSnap >= snapshotEvery {
				if err := sd.st.snapshot(sd.d, sd.serial); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// RunCells runs each cell on every drive of the set at once.
func (e *Engine) RunCells(ctx context.Context, _ string, cells []engine.Cell, done func(int, engine.Measurement, time.Duration) error) error {
	return engine.RunEach(ctx, cells, done, e.run)
}

// run executes the workload on every drive of the set at once. A run is
// short in wall time and is not cut by ctx once started, so that the
// drive's state and its log agree.
func (e *Engine) run(ctx context.Context, w engine.Workload) (engine.Measurement, error) {
	if err := w.Validate(512); err != nil {
		return engine.Measurement{}, err
	}
	ms, err := e.do(ctx, op{Op: "run", Workload: &w})
	if err != nil {
		return engine.Measurement{}, err
	}
	m := merge(e.drives, ms)
	m.MaxDepth = w.QD // the model keeps every thread's QD I/Os in flight (Little's law)
	for i, s := range m.Seconds {
		engine.ReportInterval(ctx, i, s)
	}
	if e.trace > 0 {
		for i, sd := range e.drives {
			for th := 0; th < w.TC; th++ {
				g := engine.NewAddrGen(w, sd.t.Model.UserBytes, th, w.TC, i)
				for k := 0; k < e.trace && !g.Done(); k++ {
					io := g.Next()
					m.Trace = append(m.Trace, engine.TraceIO{Target: i, Thread: th, Offset: io.Offset, Size: io.Size, Read: io.Read})
				}
			}
		}
	}
	return m, nil
}

// merge combines the per-drive measurements of a set.
func merge(drives []*simDrive, ms []engine.Measurement) engine.Measurement {
	if len(ms) == 1 {
		return ms[0]
	}
	out := engine.Measurement{Engine: engine.Sim}
	for i, m := range ms {
		out.Read.Merge(m.Read)
		out.Write.Merge(m.Write)
		out.Elapsed = max(out.Elapsed, m.Elapsed)
		out.DeviceTime = max(out.DeviceTime, m.DeviceTime)
		out.Targets = append(out.Targets, engine.TargetStats{Target: drives[i].t.Name + "#" + drives[i].serial,
			Read: m.Read, Write: m.Write, Seconds: m.Seconds})
	}
	// Each interval of the whole from the drives' histograms of it:
	// percentiles do not merge.
	var n int
	for _, sd := range drives {
		n = max(n, len(sd.d.intervals))
	}
	var iv engine.IntervalStats
	for s := 0; s < n; s++ {
		iv.Reset()
		ramp := false
		for i, sd := range drives {
			if s < len(sd.d.intervals) {
				iv.Merge(&sd.d.intervals[s])
				ramp = ramp || ms[i].Seconds[s].Ramp
			}
		}
		out.Seconds = append(out.Seconds, iv.Second(ramp))
	}
	for _, sd := range drives {
		sd.d.intervals = sd.d.intervals[:0]
	}
	return out
}

// Purge formats every drive (job engine.PurgeFormat): each returns to its
// fresh-out-of-box state, and the report says how long that takes the
// drives: every block erased, the dies working in parallel.
func (e *Engine) Purge(ctx context.Context, job string) (engine.PurgeReport, error) {
	if job != engine.PurgeFormat {
		return engine.PurgeReport{}, fmt.Errorf("a simulated drive purges by its format, not by %s", job)
	}
	if _, err := e.do(ctx, op{Op: "purge"}); err != nil {
		return engine.PurgeReport{}, err
	}
	var longest time.Duration
	for _, sd := range e.drives {
		longest = max(longest, sd.d.purgeTime())
	}
	return engine.PurgeReport{Duration: longest}, nil
}

// WriteCache reports whether the volatile write cache is enabled. The
// drives of a set share one setting.
func (e *Engine) WriteCache() (bool, error) { return e.drives[0].d.wce, nil }

// SetWriteCache enables or disables the volatile write cache.
func (e *Engine) SetWriteCache(enabled bool) error {
	_, err := e.do(context.Background(), op{Op: "wce", Enabled: enabled})
	return err
}

// DeviceWriteCaches is each drive's write cache, by name#serial.
func (e *Engine) DeviceWriteCaches() map[string]bool {
	out := map[string]bool{}
	for _, sd := range e.drives {
		out[sd.t.Name+"#"+sd.serial] = sd.d.wce
	}
	return out
}

// RestoreDeviceWriteCaches sets the drives named to their state: one state
// for all, since the drives of a set share their setting.
func (e *Engine) RestoreDeviceWriteCaches(states map[string]bool) error {
	var want []bool
	for _, sd := range e.drives {
		if on, ok := states[sd.t.Name+"#"+sd.serial]; ok && !slices.Contains(want, on) {
			want = append(want, on)
		}
	}
	switch len(want) {
	case 0:
		return nil
	case 1:
		return e.SetWriteCache(want[0])
	}
	return errors.New("the simulated drives of a set share one write-cache setting: they cannot be set apart")
}

// TakeCommands returns nothing: the drive runs no external command.
func (e *Engine) TakeCommands() []engine.Command { return nil }

// Clock is drive i's virtual time under I/O.
func (e *Engine) Clock(i int) time.Duration { return e.drives[i].d.clock }

// Close snapshots every persisted drive.
func (e *Engine) Close() error {
	var first error
	for _, sd := range e.drives {
		if sd.st == nil {
			continue
		}
		if sd.st.sinceSnap > 0 {
			if err := sd.st.snapshot(sd.d, sd.serial); err != nil && first == nil {
				first = err
			}
		}
		if err := sd.st.log.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func durationNs(ns int64) time.Duration { return time.Duration(ns) }
