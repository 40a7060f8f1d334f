package custom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/cpuidle"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/metrics"
	"github.com/ptsrun/ptsrun/internal/presets"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/rundir"
	"github.com/ptsrun/ptsrun/internal/targets"
	"github.com/ptsrun/ptsrun/internal/units"
)

// Progress shows workloads as they run (the command line's status line).
type Progress interface {
	Running(label string, w engine.Workload) // the workload whose intervals come next
	Interval(i int, s engine.Second)         // one of them, as the engine completes it
	Done()                                   // the workload shown has ended
}

// Output is where a command of workloads prints: its results on Stdout,
// what it does on Stderr, the running workload on Progress.
type Output struct {
	Stdout, Stderr io.Writer
	Progress       Progress
}

// WorkloadOptions are `ptsrun workload`'s options, checked.
type WorkloadOptions struct {
	// Targets name the targets and the engine; RunWorkload gates them
	// when a workload writes.
	Targets  targets.Options
	Workload engine.Workload // the flags' workload, checked
	// Presets are the presets to run, in order, checked; Set names the
	// flags the command line gave, which override a preset's settings.
	Presets  []string
	Set      map[string]bool
	Poll     string // --poll, parsed by RunWorkload
	CPUIdle  string // --cpu-idle, parsed by RunWorkload
	Operator pts.Operator
	Dir      string // --out: record the workloads as a run directory here
	JSON     bool
	Version  string // ptsrun's, for what it records
	Metrics  string // --metrics-textfile: write each interval's metrics to this file (metrics.Open)
}

// WorkloadFlags are workload's flags as given: Set names those given.
type WorkloadFlags struct {
	Set                             map[string]bool
	Preset, Access, BS, Zones, Size string
	Read, TC, QD                    int
	Time, Ramp, Interval            time.Duration
	RandomPct, RateIOPS, RateMBps   float64
	ActiveRange                     float64
	Seed                            uint64
}

// Cell is one workload of a `ptsrun workload` run: its cell's key in the
// run directory, the preset it is, and the workload.
type Cell struct {
	Key      pts.CellKey
	Preset   string // the preset's name; "" for the flags' workload
	Workload engine.Workload
}

// presetOverrides are the flags that replace a preset's settings.
var presetOverrides = []string{"tc", "qd", "time", "ramp", "active-range", "size", "rate-iops", "rate-mbps", "seed", "interval"}

// ParseWorkloadFlags reads the flags into options, and refuses what no
// engine could run, naming the flag; Check checks the workloads they make.
func ParseWorkloadFlags(f WorkloadFlags) (WorkloadOptions, error) {
	set := f.Set
	var chosen []string
	if set["preset"] {
		for _, name := range strings.Split(f.Preset, ",") {
			if _, err := presets.Lookup(name, 0); err != nil {
				return WorkloadOptions{}, fmt.Errorf("--preset: %w", err)
			}
			chosen = append(chosen, strings.ToLower(strings.TrimSpace(name)))
		}
		for _, fl := range []string{"access", "read", "bs", "zones", "random-pct"} {
			if set[fl] {
				return WorkloadOptions{}, fmt.Errorf("--%s: a preset sets its own workload; leave --%s out, or run without --preset", fl, fl)
			}
		}
	}
	acc, err := engine.ParseAccess(f.Access)
	if err != nil {
		return WorkloadOptions{}, err
	}
	w := engine.Workload{Access: acc, ReadPct: f.Read, TC: f.TC, QD: f.QD, ActiveRange: f.ActiveRange, Duration: f.Time, Seed: f.Seed,
		Ramp: f.Ramp}
	if w.BlockSize, w.BlockSplit, err = engine.ParseBlockSizes(f.BS); err != nil {
		return WorkloadOptions{}, fmt.Errorf("--bs: %w", err)
	}
	for _, bs := range w.BlockSizes() {
		if bs%512 != 0 {
			return WorkloadOptions{}, fmt.Errorf("--bs: block size %s is not a multiple of 512 bytes, the smallest logical block size", units.FormatSize(bs))
		}
	}
	if set["zones"] {
		if acc == engine.Sequential {
			return WorkloadOptions{}, errors.New("--zones: zones spread random I/O over the active range; --access seq writes streams")
		}
		if w.Zones, err = engine.ParseZones(f.Zones); err != nil {
			return WorkloadOptions{}, fmt.Errorf("--zones: %w", err)
		}
	}
	if err := f.apply(&w, len(chosen) > 0); err != nil {
		return WorkloadOptions{}, err
	}
	return WorkloadOptions{Workload: w, Presets: chosen, Set: set}, nil
}

// apply reads the options of workloads outside the PTS into w. With a
// preset the ramp is checked against each preset's time by cells.
func (f WorkloadFlags) apply(w *engine.Workload, preset bool) error {
	set := f.Set
	if set["time"] && f.Time <= 0 {
		return fmt.Errorf("--time %v: a workload runs for a time above zero, such as 1m", f.Time)
	}
	if set["ramp"] {
		switch {
		case w.Ramp < 0:
			return fmt.Errorf("--ramp %v: a ramp is a duration of zero or more", w.Ramp)
		case !preset && w.Ramp >= w.Duration:
			return fmt.Errorf("--ramp %v: the ramp must be shorter than the run (--time %v), which it is part of", w.Ramp, w.Duration)
		}
	}
	if set["interval"] {
		iv := f.Interval
		switch {
		case iv < engine.MinInterval || iv%time.Millisecond != 0:
			return fmt.Errorf("--interval %v: whole milliseconds from %v", iv, engine.MinInterval)
		case !preset && iv > w.Duration:
			return fmt.Errorf("--interval %v: longer than the run (--time %v)", iv, w.Duration)
		}
		if iv != time.Second { // one second is the default, left unsaid
			w.Interval = iv
		}
	}
	if !preset && w.Ramp > 0 && w.Ramp%w.SeriesInterval() != 0 {
		return fmt.Errorf("--ramp %v: not a whole number of intervals (--interval %v): the series marks whole intervals as the ramp's",
			w.Ramp, w.SeriesInterval())
	}
	for _, r := range []struct {
		name string
		v    float64
		to   *float64
	}{{"rate-iops", f.RateIOPS, &w.RateIOPS}, {"rate-mbps", f.RateMBps, &w.RateMBps}} {
		if !set[r.name] {
			continue
		}
		if !(r.v > 0) || math.IsInf(r.v, 0) {
			return fmt.Errorf("--%s %s: a rate cap is a number above zero (leave --%s out for none)", r.name, fmtFlag(r.v), r.name)
		}
		*r.to = r.v
	}
	if set["size"] {
		v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f.Size), "%")), 64)
		switch {
		case err != nil || math.IsNaN(v):
			return fmt.Errorf("--size %q: not a percentage of each target (80, or 80%%)", f.Size)
		case !(v > 0 && v <= 100):
			return fmt.Errorf("--size %s%%: a size is a share of each target above 0 and at most 100 %%", fmtFlag(v))
		case set["active-range"] && v != w.ActiveRange:
			return fmt.Errorf("--size %s%% and --active-range %s%%: both set the active range; give one", fmtFlag(v), fmtFlag(w.ActiveRange))
		}
		w.ActiveRange = v
	}
	if set["random-pct"] {
		v := f.RandomPct
		switch {
		case w.Access == engine.Sequential:
			return errors.New("--random-pct: a sequential workload (--access seq) has no random share")
		case v == 0:
			return errors.New("--random-pct 0: all sequential is --access seq (fio's percentage_random=0)")
		case !(v > 0 && v <= 100):
			return fmt.Errorf("--random-pct %s: outside 0…100 (the share of I/Os at random offsets)", fmtFlag(v))
		case v < 100:
			w.RandomPct = v
		}
	}
	return nil
}

// fmtFlag writes a number as it was most likely typed.
func fmtFlag(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Check refuses workloads that no engine could run: each preset's with
// the flags that override it, or the flags' workload.
func (opts WorkloadOptions) Check() error {
	if len(opts.Presets) > 0 {
		_, err := opts.Cells(0)
		return err
	}
	return opts.flagError(opts.Workload.Validate(512))
}

// workloadFlags are the flags that set a field of the workload (by its
// JSON name, engine.WorkloadError) that the flags' checks leave to
// Validate.
var workloadFlags = map[string]string{"tc": "tc", "qd": "qd", "read_pct": "read", "active_range_pct": "active-range"}

// flagError names the flag of a workload Validate refused for a field a
// flag given sets: "--tc: thread count 0 outside 1…256".
func (opts WorkloadOptions) flagError(err error) error {
	var we *engine.WorkloadError
	if !errors.As(err, &we) {
		return err
	}
	flag := workloadFlags[we.Field]
	if flag == "active-range" && opts.Set["size"] {
		flag = "size"
	}
	if flag == "" || !opts.Set[flag] && len(opts.Presets) > 0 {
		return err
	}
	return fmt.Errorf("--%s: %s", flag, we.Reason)
}

// Cells are the workloads opts runs, for targets whose logical block is
// minBlock bytes (0: 512; the composite preset leaves out the sizes such
// targets cannot take). A preset whose settings the flags break is named.
func (opts WorkloadOptions) Cells(minBlock int64) ([]Cell, error) {
	if len(opts.Presets) == 0 {
		return []Cell{{Key: pts.WorkloadKey(opts.Workload), Workload: opts.Workload}}, nil
	}
	var out []Cell
	for _, name := range opts.Presets {
		p, err := presets.Lookup(name, minBlock)
		if err != nil {
			return nil, fmt.Errorf("--preset: %w", err)
		}
		w, f := p.Workload, opts.Workload
		w.Seed = f.Seed
		for _, flag := range presetOverrides {
			if !opts.Set[flag] {
				continue
			}
			switch flag {
			case "tc":
				w.TC = f.TC
			case "qd":
				w.QD = f.QD
			case "time":
				w.Duration = f.Duration
			case "ramp":
				w.Ramp = f.Ramp
			case "active-range", "size":
				w.ActiveRange = f.ActiveRange
			case "rate-iops":
				w.RateIOPS = f.RateIOPS
			case "rate-mbps":
				w.RateMBps = f.RateMBps
			case "interval":
				w.Interval = f.Interval
			}
		}
		if w.Interval > w.Duration {
			return nil, fmt.Errorf("--interval %v: longer than preset %s's time of %v (--time)", w.Interval, p.Name, w.Duration)
		}
		if w.Ramp > 0 && w.Ramp%w.SeriesInterval() != 0 {
			return nil, fmt.Errorf("--interval %v: preset %s's ramp of %v is not a whole number of intervals; give another --interval or --ramp",
				w.SeriesInterval(), p.Name, w.Ramp)
		}
		if w.Ramp >= w.Duration {
			switch {
			case opts.Set["ramp"]:
				return nil, fmt.Errorf("--ramp %v: the ramp must be shorter than preset %s's time of %v (--time)", w.Ramp, p.Name, w.Duration)
			default:
				return nil, fmt.Errorf("--time %v: preset %s ramps for %v; give a shorter --ramp too", w.Duration, p.Name, w.Ramp)
			}
		}
		if err := w.Validate(512); err != nil {
			if ferr := opts.flagError(err); ferr != err {
				return nil, fmt.Errorf("%w (with preset %s)", ferr, p.Name)
			}
			return nil, fmt.Errorf("--preset %s: %w", p.Name, err)
		}
		out = append(out, Cell{Key: pts.Named(p.Name), Preset: p.Name, Workload: w})
	}
	return out, nil
}

// label names a cell for people: the preset, or the workload.
func (c Cell) label() string {
	if c.Preset != "" {
		return "preset " + c.Preset
	}
	return c.Workload.Description()
}

// progressLabel names the cell briefly on the progress line.
func (c Cell) progressLabel() string {
	if c.Preset != "" {
		return c.Preset
	}
	return c.Workload.String()
}

// fileName names the cell's files in an engine's folder (fio's job files):
// the preset's name without the '/' of a mix, or "" for the engine's own.
func (c Cell) fileName(i int) string {
	if c.Preset == "" {
		return ""
	}
	return fmt.Sprintf("%02d-%s", i+1, strings.ReplaceAll(c.Preset, "/", "-"))
}

// RunWorkload runs the workloads of opts on the targets, one after the
// other, prints each one's measurement and, with opts.Dir, records them
// as a run directory, a cell each: rewritten after every workload, so
// that the ones done are on disk before the next starts, and kept if a
// later one fails or is stopped.
func RunWorkload(ctx context.Context, opts WorkloadOptions, out Output) (err error) {
	stdout, stderr := out.Stdout, out.Stderr
	tf, err := metrics.Open(opts.Metrics, opts.Version, stderr)
	if err != nil {
		return err
	}
	out.Progress = metrics.TeeProgress(out.Progress, tf)
	dir := opts.Dir
	if dir != "" {
		if err := rundir.CheckNew(dir); err != nil {
			return err
		}
	}
	cells, err := opts.Cells(0)
	if err != nil {
		return err
	}
	// Reading destroys nothing: only workloads that write are gated.
	to := opts.Targets
	for _, c := range cells {
		to.Gate = to.Gate || c.Workload.ReadPct < 100
	}
	tp, err := targets.Check(to)
	if err != nil {
		return err
	}
	// The composite preset leaves out what 4Kn targets cannot take.
	var minBlock int64
	for _, id := range tp.Identities {
		minBlock = max(minBlock, id.LogicalBlock)
	}
	if minBlock > 512 && len(opts.Presets) > 0 {
		if cells, err = opts.Cells(minBlock); err != nil {
			return err
		}
	}
	for _, c := range cells {
		if err := checkCell(c, tp); err != nil {
			return err
		}
		if note := tp.SeriesNote(c.Workload); note != "" && !opts.JSON {
			fmt.Fprintf(stderr, "ptsrun workload: %s: %s\n", c.progressLabel(), note)
		}
	}
	poll, err := engine.ParsePoll(opts.Poll)
	if err != nil {
		return err
	}
	idle, err := cpuidle.Parse(opts.CPUIdle)
	if err != nil {
		return err
	}
	recorded := 0
	if dir != "" {
		if err := tp.CheckRunDir(dir); err != nil {
			return err
		}
		undo, perr := rundir.Make(dir)
		if perr != nil {
			return perr
		}
		// A workload that fails or is stopped before any is recorded
		// leaves no half-made directory.
		defer func() {
			if err != nil && recorded == 0 {
				undo()
			}
		}()
		// Held while it records, as run and resume hold theirs: a second
		// command recording into the directory, or a run, is refused.
		lock, lerr := rundir.TakeLock(dir, "workload")
		if lerr != nil {
			undo = func() {} // the holder's directory: nothing of it is removed
			return lerr
		}
		defer lock.Release() // before the undo above
	}
	set, err := tp.Open(dir, targets.OpenOptions{Poll: poll.Duration(), ReadOnly: !to.Gate, CPUIdle: idle})
	if err != nil {
		return err
	}
	defer set.Close()
	if w := set.CPUIdle.Warning(); w != "" && !opts.JSON {
		fmt.Fprintf(stderr, "ptsrun workload: %s\n", w)
	}
	started := time.Now().UTC()
	names := tp.Names()
	desc := set.Engine.Describe()
	if !opts.JSON {
		if len(opts.Presets) > 0 {
			var total time.Duration
			for _, c := range cells {
				total += c.Workload.Duration
			}
			fmt.Fprintf(stderr, "ptsrun workload: %d preset(s), %s, on %s with %s for %v\n", len(cells), strings.Join(opts.Presets, ", "),
				strings.Join(names, ", "), desc, total)
		} else {
			fmt.Fprintf(stderr, "ptsrun workload: %s on %s with %s for %v\n", cells[0].Workload.Description(), strings.Join(names, ", "), desc,
				cells[0].Workload.Duration)
		}
	}
	rec := rundir.Recording{Dir: dir, Targets: tp, Engine: desc, Poll: poll, CPUIdle: set.CPUIdle, Started: started, Operator: opts.Operator, Version: opts.Version}
	var results []rundir.WorkloadResult
	runCells := make([]engine.Cell, len(cells))
	for i, c := range cells {
		runCells[i] = engine.Cell{Name: c.fileName(i), Workload: c.Workload}
	}
	if tf != nil {
		var total time.Duration
		for _, c := range cells {
			total += c.Workload.Duration
		}
		tf.BeginWorkloads(dir, names, total)
	}
	cellStart := started
	out.Progress.Running(cells[0].progressLabel(), cells[0].Workload)
	ctx = engine.WithIntervalFunc(ctx, out.Progress.Interval)
	err = set.Engine.RunCells(ctx, "workload", runCells, func(i int, m engine.Measurement, _ time.Duration) error {
		out.Progress.Done()
		c := cells[i]
		if i+1 < len(cells) {
			defer out.Progress.Running(cells[i+1].progressLabel(), cells[i+1].Workload)
		}
		res := rundir.ResultOf(opts.Version, desc, names, c.Preset, c.Workload, m)
		results = append(results, res)
		rec.Cells = append(rec.Cells, rundir.Cell{Key: c.Key, Workload: c.Workload, Measurement: m, Started: cellStart, Ended: time.Now().UTC()})
		if c.Preset != "" {
			rec.Presets = append(rec.Presets, c.Preset)
		}
		if dir != "" {
			if _, err := rundir.Record(rec); err != nil {
				return err
			}
			recorded++
		}
		if !opts.JSON {
			if c.Preset != "" {
				fmt.Fprintf(stdout, "%s (%d of %d):\n", c.label(), i+1, len(cells))
			}
			res.Print(stdout)
		}
		cellStart = time.Now().UTC()
		return nil
	})
	if err != nil {
		stopped := errors.Is(err, context.Canceled)
		switch {
		case stopped && recorded > 0:
			return fmt.Errorf("%w: stopped during %s; the %d workload(s) before it are recorded in %s", pts.ErrInterrupted,
				cells[len(results)].label(), recorded, dir)
		case stopped:
			return fmt.Errorf("%w: the workload was stopped; nothing recorded", pts.ErrInterrupted)
		case recorded > 0:
			return fmt.Errorf("%s: %w (the %d workload(s) before it are recorded in %s)", cells[len(results)].label(), err, recorded, dir)
		}
		return err
	}
	if opts.JSON {
		for i := range results {
			results[i].Seconds = nil
		}
		if len(opts.Presets) == 0 {
			return PrintJSON(stdout, results[0])
		}
		return PrintJSON(stdout, rundir.SetOf(results))
	}
	if dir != "" {
		fmt.Fprintf(stderr, "recorded in %s (%s, %s, a run directory: results.json, tables, report.pdf)\n", dir, rundir.WorkloadFile, rundir.SecondsFile)
	}
	return nil
}

// checkCell refuses, before anything is made or run, a workload the
// targets or the engine cannot take, naming the flag or preset it came
// from.
func checkCell(c Cell, tp *targets.Plan) error {
	w := c.Workload
	from := "--bs"
	if c.Preset != "" {
		from = "--preset " + c.Preset
	}
	for _, t := range tp.Local {
		for _, bs := range w.BlockSizes() {
			if bs%t.LogicalBlock != 0 {
				return fmt.Errorf("%s: block size %s is not a multiple of %s's logical block size %d", from, units.FormatSize(bs), t.Raw, t.LogicalBlock)
			}
		}
	}
	if tp.Engine == targets.Fio {
		if err := w.WholePercentages(); err != nil {
			return fmt.Errorf("--bs/--zones: %w: fio reads shares as whole percentages (it would run 1.5 %% as 1 %%); use the native engine or whole percentages", err)
		}
		if w.RandomPct != math.Trunc(w.RandomPct) {
			return fmt.Errorf("--random-pct %s: fio's percentage_random takes whole percentages; use the native engine or a whole percentage", fmtFlag(w.RandomPct))
		}
	}
	if err := tp.CheckWorkload(w); err != nil {
		if c.Preset != "" {
			return fmt.Errorf("--preset %s: engine %s: %w", c.Preset, tp.Engine, err)
		}
		return fmt.Errorf("engine %s: %w", tp.Engine, err)
	}
	for _, id := range tp.Identities {
		if id.CapacityBytes > 0 {
			if err := w.Fits(id.CapacityBytes, id.LogicalBlock); err != nil {
				if c.Preset != "" {
					return fmt.Errorf("--preset %s: target %s: %w", c.Preset, id.Spec, err)
				}
				return fmt.Errorf("target %s: %w", id.Spec, err)
			}
		}
	}
	return nil
}

// ListPresets prints every preset and its parameters (--preset list).
func ListPresets(out io.Writer, asJSON bool) error {
	ps := presets.All(0)
	if asJSON {
		type presetJSON struct {
			Name     string          `json:"name"`
			Group    string          `json:"group"`
			About    string          `json:"about"`
			Workload engine.Workload `json:"workload"`
		}
		var list []presetJSON
		for _, p := range ps {
			list = append(list, presetJSON{p.Name, p.Group, p.About, p.Workload})
		}
		return PrintJSON(out, list)
	}
	group := ""
	for _, p := range ps {
		if p.Group != group {
			if group != "" {
				fmt.Fprintln(out)
			}
			group = p.Group
			fmt.Fprintf(out, "%s:\n", group)
		}
		w := p.Workload
		ramp := "no ramp"
		if w.Ramp > 0 {
			ramp = "ramp " + pts.ShortDuration(w.Ramp)
		}
		fmt.Fprintf(out, "  %-20s %-36s %6s, %s\n", p.Name, w.String(), pts.ShortDuration(w.Duration), ramp)
		fmt.Fprintf(out, "  %-20s %s\n", "", p.About)
		if d := w.Description(); len(w.BlockSplit) > 0 || len(w.Zones) > 0 {
			fmt.Fprintf(out, "  %-20s %s\n", "", strings.TrimPrefix(d[strings.Index(d, " — ")+len(" — "):], " "))
		}
	}
	fmt.Fprintln(out, "\nTimes include the ramp. --tc, --qd, --time, --ramp, --active-range/--size, --rate-iops, --rate-mbps and --seed override a preset's.")
	return nil
}

// PrintJSON writes v as one indented JSON document.
func PrintJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
