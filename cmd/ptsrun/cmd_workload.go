package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/pts"
	"github.com/ptsrun/ptsrun/targets"
)

func workloadCommand() *cli.Command {
	return &cli.Command{
		Name:  "workload",
		Usage: "run one workload, or named presets one after the other, on a target for a time, outside the PTS methodology",
		UsageText: "ptsrun workload --target T --engine native|fio|sim --access random|seq --read PCT --bs SIZE[:PCT,...]\n" +
			"   --tc N --qd N --time DURATION [--ramp DURATION] [--interval DURATION] [--random-pct PCT] [--rate-iops N] [--rate-mbps N]\n" +
			"   [--size PCT | --active-range PCT] [--zones IO%/RANGE%:...] [--json]\n" +
			"   [--out DIR [--tested-by NAME] [--lab NAME] [--dut-note K=V ...]]\n" +
			"ptsrun workload --preset NAME[,NAME...] --target T [--tc N] [--qd N] [--time D] [--ramp D] [--rate-iops N] [--out DIR]\n" +
			"ptsrun workload --preset list\n\n" +
			"The PTS-E composite workload (ECW, 40/60 at TC1/QD32):\n" +
			"   --read 40 --bs 0.5k:4,1k:1,1.5k:1,2k:1,2.5k:1,3k:1,3.5k:1,4k:67,8k:10,16k:7,32k:3,64k:3 --zones 50/5:30/15:20/80\n\n" +
			"A preset brings its workload, load, time and ramp; --tc, --qd, --time, --ramp, --active-range or --size,\n" +
			"--rate-iops, --rate-mbps and --seed given on the command line override them, for every preset named.\n" +
			"--time is each workload's whole time, its ramp included.",
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "target", Usage: "a block device, file:PATH[:SIZE] or sim:MODEL (repeatable: loaded at once)"},
			&cli.StringFlag{Name: "engine", Usage: "native (default for devices and files), fio, or sim"},
			&cli.StringSliceFlag{Name: "fio-server", Usage: "HOST:PORT[=TARGET] of a fio server (repeatable; engine fio)"},
			&cli.StringFlag{Name: "preset", Usage: "run named workloads one after the other into one run directory, a cell each: " +
				"NAME[,NAME...]; list prints them with their parameters"},
			&cli.StringFlag{Name: "access", Value: "random", Usage: "random or seq"},
			&cli.IntFlag{Name: "read", Value: 100, Usage: "read percentage, 0…100"},
			&cli.StringFlag{Name: "bs", Value: "4k", Usage: "block size (512, 4k, 128k, 1m), or a block-size split SIZE:PCT,... " +
				"(4k:67,8k:33: each size's share of the I/Os, adding up to 100)"},
			&cli.StringFlag{Name: "zones", Usage: "random I/O in zones of the active range, IO%/RANGE% pairs as fio's zoned distribution writes them " +
				"(50/5:30/15:20/80: 50 % of the I/Os to the first 5 %, 30 % to the next 15 %, 20 % to the last 80 %)"},
			&cli.Float64Flag{Name: "random-pct", Value: 100, Usage: "share of a random workload's I/Os at random offsets, the rest continuing " +
				"where the thread's last I/O of the same direction ended (fio percentage_random, vdbench seekpct)"},
			&cli.IntFlag{Name: "tc", Value: 1, Usage: "threads per target"},
			&cli.IntFlag{Name: "qd", Value: 32, Usage: "queue depth per thread"},
			&cli.DurationFlag{Name: "time", Value: time.Minute, Usage: "duration, the ramp included"},
			&cli.DurationFlag{Name: "ramp", Usage: "a warm-up at the start of --time: run, kept in the per-second series (marked), " +
				"left out of the results (fio ramp_time, vdbench warmup)"},
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "length of each entry of the time series: IOPS, MB/s, mean, p99, " +
				"p99.9 and max latency per direction and per target (whole milliseconds, from 100ms)"},
			&cli.Float64Flag{Name: "rate-iops", Usage: "cap each target at this many IOPS, spread over its threads (fio rate_iops, vdbench iorate)"},
			&cli.Float64Flag{Name: "rate-mbps", Usage: "cap each target at this many MB/s (decimal), spread over its threads (fio rate)"},
			&cli.Float64Flag{Name: "active-range", Value: 100, Usage: "active range in %"},
			&cli.StringFlag{Name: "size", Usage: "how much of each target, in %, as fio's size=80%: the active range"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the address and data streams"},
			&cli.StringSliceFlag{Name: "destroy-data", Usage: "confirm that the named target (serial or path) may be overwritten"},
			pollFlag(),
			&cli.BoolFlag{Name: "json", Usage: "print the measurement as JSON"},
			&cli.StringFlag{Name: "out", Usage: "record the workload and its per-second series in this directory"},
		}, append(operatorFlags(), vdbenchFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.IsSet("vdbench") || c.IsSet("dry-run") {
				return vdbenchCommand(c)
			}
			if strings.EqualFold(strings.TrimSpace(c.String("preset")), "list") {
				return listPresets(c.App.Writer, c.Bool("json"))
			}
			opts, err := workloadOptionsFrom(c)
			if err != nil {
				return err
			}
			return runWorkload(c.Context, opts, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// workloadOptions are workload's options.
type workloadOptions struct {
	// Targets name the targets and the engine; runWorkload gates them
	// when a workload writes.
	Targets  targets.Options
	Workload engine.Workload // the flags' workload, checked
	// Presets are the presets to run, in order, checked; Set names the
	// flags the command line gave, which override a preset's settings.
	Presets  []string
	Set      map[string]bool
	Poll     string // --poll, parsed by runWorkload
	Operator pts.Operator
	Dir      string // --out: record the workloads as a run directory here
	JSON     bool
}

// workloadCell is one workload of a `ptsrun workload` run: its cell's key
// in the run directory, a name for the engine's files, and the workload.
type workloadCell struct {
	Key      pts.CellKey
	Preset   string // the preset's name; "" for the flags' workload
	Workload engine.Workload
}

// presetOverrides are the flags that replace a preset's settings.
var presetOverrides = []string{"tc", "qd", "time", "ramp", "active-range", "size", "rate-iops", "rate-mbps", "seed", "interval"}

// cells are the workloads opts runs, for targets whose logical block is
// minBlock bytes (0: 512; the composite preset leaves out the sizes such
// targets cannot take). A preset whose settings the flags break is named.
func (opts workloadOptions) cells(minBlock int64) ([]workloadCell, error) {
	if len(opts.Presets) == 0 {
		return []workloadCell{{Key: workloadKey(opts.Workload), Workload: opts.Workload}}, nil
	}
	var out []workloadCell
	for _, name := range opts.Presets {
		p, err := pts.LookupPreset(name, minBlock)
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
			return nil, fmt.Errorf("--preset %s: %w", p.Name, err)
		}
		out = append(out, workloadCell{Key: pts.Named(p.Name), Preset: p.Name, Workload: w})
	}
	return out, nil
}

// label names a cell for people: the preset, or the workload.
func (c workloadCell) label() string {
	if c.Preset != "" {
		return "preset " + c.Preset
	}
	return c.Workload.Description()
}

// progressLabel names the cell briefly on the progress line.
func (c workloadCell) progressLabel() string {
	if c.Preset != "" {
		return c.Preset
	}
	return c.Workload.String()
}

// fileName names the cell's files in an engine's folder (fio's job files):
// the preset's name without the '/' of a mix, or "" for the engine's own.
func (c workloadCell) fileName(i int) string {
	if c.Preset == "" {
		return ""
	}
	return fmt.Sprintf("%02d-%s", i+1, strings.ReplaceAll(c.Preset, "/", "-"))
}

// workloadOptionsFrom reads workload's flags.
func workloadOptionsFrom(c *cli.Context) (workloadOptions, error) {
	if c.Args().Len() > 0 {
		return workloadOptions{}, fmt.Errorf("unexpected argument %q", c.Args().First())
	}
	set := map[string]bool{}
	for _, f := range c.FlagNames() {
		if c.IsSet(f) {
			set[f] = true
		}
	}
	var presets []string
	if c.IsSet("preset") {
		for _, name := range strings.Split(c.String("preset"), ",") {
			if _, err := pts.LookupPreset(name, 0); err != nil {
				return workloadOptions{}, fmt.Errorf("--preset: %w", err)
			}
			presets = append(presets, strings.ToLower(strings.TrimSpace(name)))
		}
		for _, f := range []string{"access", "read", "bs", "zones", "random-pct"} {
			if set[f] {
				return workloadOptions{}, fmt.Errorf("--%s: a preset sets its own workload; leave --%s out, or run without --preset", f, f)
			}
		}
	}
	acc, err := engine.ParseAccess(c.String("access"))
	if err != nil {
		return workloadOptions{}, err
	}
	w := engine.Workload{Access: acc, ReadPct: c.Int("read"), TC: c.Int("tc"), QD: c.Int("qd"),
		ActiveRange: c.Float64("active-range"), Duration: c.Duration("time"), Seed: c.Uint64("seed"),
		Ramp: c.Duration("ramp")}
	if w.BlockSize, w.BlockSplit, err = engine.ParseBlockSizes(c.String("bs")); err != nil {
		return workloadOptions{}, fmt.Errorf("--bs: %w", err)
	}
	for _, bs := range w.BlockSizes() {
		if bs%512 != 0 {
			return workloadOptions{}, fmt.Errorf("--bs: block size %s is not a multiple of 512 bytes, the smallest logical block size", engine.FormatSize(bs))
		}
	}
	if z := c.String("zones"); c.IsSet("zones") {
		if acc == engine.Sequential {
			return workloadOptions{}, errors.New("--zones: zones spread random I/O over the active range; --access seq writes streams")
		}
		if w.Zones, err = engine.ParseZones(z); err != nil {
			return workloadOptions{}, fmt.Errorf("--zones: %w", err)
		}
	}
	if err := workloadFlags(c, set, &w, len(presets) > 0); err != nil {
		return workloadOptions{}, err
	}
	dir, err := outPath(c, "out")
	if err != nil {
		return workloadOptions{}, err
	}
	opts := workloadOptions{
		Targets: targets.Options{Specs: c.StringSlice("target"), Engine: c.String("engine"),
			FioServers: c.StringSlice("fio-server"), DestroyData: c.StringSlice("destroy-data")},
		Workload: w, Presets: presets, Set: set, Poll: c.String("poll"), Dir: dir, JSON: c.Bool("json"),
	}
	if len(presets) > 0 {
		if _, err := opts.cells(0); err != nil {
			return workloadOptions{}, err
		}
	} else if err := w.Validate(512); err != nil {
		return workloadOptions{}, err
	}
	if opts.Operator, err = operatorFromFlags(c); err != nil {
		return workloadOptions{}, err
	}
	return opts, nil
}

// workloadFlags reads the options of workloads outside the PTS into w, and
// refuses what no engine could run, naming the flag. With a preset the
// ramp is checked against each preset's time by cells.
func workloadFlags(c *cli.Context, set map[string]bool, w *engine.Workload, preset bool) error {
	if set["ramp"] {
		switch {
		case w.Ramp < 0:
			return fmt.Errorf("--ramp %v: a ramp is a duration of zero or more", w.Ramp)
		case !preset && w.Ramp >= w.Duration:
			return fmt.Errorf("--ramp %v: the ramp must be shorter than the run (--time %v), which it is part of", w.Ramp, w.Duration)
		}
	}
	if set["interval"] {
		iv := c.Duration("interval")
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
	for _, f := range []struct {
		name string
		to   *float64
	}{{"rate-iops", &w.RateIOPS}, {"rate-mbps", &w.RateMBps}} {
		if !set[f.name] {
			continue
		}
		v := c.Float64(f.name)
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("--%s %s: a rate cap is a number above zero (leave --%s out for none)", f.name, fmtFlag(v), f.name)
		}
		*f.to = v
	}
	if set["size"] {
		v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c.String("size")), "%")), 64)
		switch {
		case err != nil || math.IsNaN(v):
			return fmt.Errorf("--size %q: not a percentage of each target (80, or 80%%)", c.String("size"))
		case !(v > 0 && v <= 100):
			return fmt.Errorf("--size %s%%: a size is a share of each target above 0 and at most 100 %%", fmtFlag(v))
		case set["active-range"] && v != w.ActiveRange:
			return fmt.Errorf("--size %s%% and --active-range %s%%: both set the active range; give one", fmtFlag(v), fmtFlag(w.ActiveRange))
		}
		w.ActiveRange = v
	}
	if set["random-pct"] {
		v := c.Float64("random-pct")
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

// listPresets prints every preset and its parameters (--preset list).
func listPresets(out io.Writer, asJSON bool) error {
	ps := pts.Presets(0)
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
		return printJSON(out, list)
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

// workloadKey names the cell of a recorded workload (pts.WorkloadKey).
func workloadKey(w engine.Workload) pts.CellKey { return pts.WorkloadKey(w) }

// workloadResult is the JSON of `ptsrun workload --json` and DIR/workload.json
// for one workload, and of each workload of a run of several (workloadSet).
type workloadResult struct {
	Tool     string            `json:"tool,omitempty"`
	Version  string            `json:"version,omitempty"`
	Preset   string            `json:"preset,omitempty"`
	Engine   string            `json:"engine"`
	Workload engine.Workload   `json:"workload"`
	Targets  []string          `json:"targets"`
	Elapsed  float64           `json:"elapsed_s"` // the measurement's: without the ramp
	Read     dirJSON           `json:"read"`
	Write    dirJSON           `json:"write"`
	Total    dirJSON           `json:"total"`
	CPU      engine.CPU        `json:"cpu"`
	PerTgt   []targetJSON      `json:"per_target,omitempty"`
	Seconds  []engine.Second   `json:"seconds,omitempty"` // the ramp's first, marked
	Hosts    map[string]string `json:"host,omitempty"`
}

// workloadSet is the JSON of a run of several workloads (presets): each
// one's result, in the order they ran.
type workloadSet struct {
	Tool      string           `json:"tool"`
	Version   string           `json:"version"`
	Engine    string           `json:"engine"`
	Targets   []string         `json:"targets"`
	Workloads []workloadResult `json:"workloads"`
}

type dirJSON struct {
	IOs         int64              `json:"ios"`
	Bytes       int64              `json:"bytes"`
	IOPS        float64            `json:"iops"`
	MBps        float64            `json:"mbps"`
	LatMeanMs   float64            `json:"lat_mean_ms"`
	LatMinMs    float64            `json:"lat_min_ms"`
	LatMaxMs    float64            `json:"lat_max_ms"`
	Percentiles map[string]float64 `json:"lat_percentiles_ms,omitempty"`
}

type targetJSON struct {
	Target string      `json:"target"`
	Host   string      `json:"host,omitempty"`
	Read   dirJSON     `json:"read"`
	Write  dirJSON     `json:"write"`
	CPU    *engine.CPU `json:"cpu,omitempty"`
}

var workloadPercentiles = []float64{50, 90, 99, 99.9, 99.99, 99.999}

func dirOf(d engine.DirStats, el time.Duration) dirJSON {
	j := dirJSON{IOs: d.IOs, Bytes: d.Bytes, IOPS: d.IOPS(el), MBps: d.MBps(el), LatMeanMs: d.MeanLatNs() / 1e6,
		LatMinMs: float64(d.LatMinNs) / 1e6, LatMaxMs: float64(d.LatMaxNs) / 1e6}
	if d.IOs > 0 {
		j.Percentiles = map[string]float64{}
		for _, p := range workloadPercentiles {
			j.Percentiles[strconv.FormatFloat(p, 'f', -1, 64)] = float64(d.PercentileNs(p)) / 1e6
		}
	}
	return j
}

// runWorkload runs the workloads of opts on the targets, one after the
// other, prints each one's measurement and, with opts.Dir, records them as
// a run directory, a cell each: rewritten after every workload, so that
// the ones done are on disk before the next starts, and kept if a later
// one fails or is stopped.
func runWorkload(ctx context.Context, opts workloadOptions, stdout, stderr io.Writer) (err error) {
	dir := opts.Dir
	if dir != "" {
		if err := checkNewDir(dir); err != nil {
			return err
		}
	}
	cells, err := opts.cells(0)
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
		if cells, err = opts.cells(minBlock); err != nil {
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
	poll, err := pts.ParsePoll(opts.Poll)
	if err != nil {
		return err
	}
	recorded := 0
	if dir != "" {
		if err := tp.CheckRunDir(dir); err != nil {
			return err
		}
		undo, perr := prepareDir(dir)
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
	}
	set, err := tp.Open(dir, targets.OpenOptions{Poll: poll.Duration(), ReadOnly: !to.Gate})
	if err != nil {
		return err
	}
	defer set.Close()
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
	rec := workloadRecord{Dir: dir, Targets: tp, Engine: desc, Poll: poll, Started: started, Operator: opts.Operator}
	var results []workloadResult
	runCells := make([]engine.Cell, len(cells))
	for i, c := range cells {
		runCells[i] = engine.Cell{Name: c.fileName(i), Workload: c.Workload}
	}
	cellStart := started
	prog := newProgress(stderr, stdout, opts.JSON)
	live := &intervalProgress{p: prog}
	live.running(cells[0].progressLabel(), cells[0].Workload)
	ctx = engine.WithIntervalFunc(ctx, live.interval)
	err = set.Engine.RunCells(ctx, "workload", runCells, func(i int, m engine.Measurement, _ time.Duration) error {
		prog.finish()
		c := cells[i]
		if i+1 < len(cells) {
			defer live.running(cells[i+1].progressLabel(), cells[i+1].Workload)
		}
		res := resultOf(desc, names, c, m)
		results = append(results, res)
		rec.Cells = append(rec.Cells, recordedCell{Key: c.Key, Workload: c.Workload, Measurement: m, Started: cellStart, Ended: time.Now().UTC()})
		if dir != "" {
			if err := saveWorkloads(dir, results, rec.Cells, len(opts.Presets) > 0); err != nil {
				return err
			}
			if err := recordWorkload(rec); err != nil {
				return err
			}
			recorded++
		}
		if !opts.JSON {
			if c.Preset != "" {
				fmt.Fprintf(stdout, "%s (%d of %d):\n", c.label(), i+1, len(cells))
			}
			printWorkload(stdout, res)
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
			return printJSON(stdout, results[0])
		}
		return printJSON(stdout, setOf(results))
	}
	if dir != "" {
		fmt.Fprintf(stderr, "recorded in %s (workload.json, seconds.csv, a run directory: results.json, tables, report.pdf)\n", dir)
	}
	return nil
}

// checkCell refuses, before anything is made or run, a workload the
// targets or the engine cannot take, naming the flag or preset it came
// from.
func checkCell(c workloadCell, tp *targets.Plan) error {
	w := c.Workload
	from := "--bs"
	if c.Preset != "" {
		from = "--preset " + c.Preset
	}
	for _, t := range tp.Local {
		for _, bs := range w.BlockSizes() {
			if bs%t.LogicalBlock != 0 {
				return fmt.Errorf("%s: block size %s is not a multiple of %s's logical block size %d", from, engine.FormatSize(bs), t.Raw, t.LogicalBlock)
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

// resultOf is a measured workload's JSON.
func resultOf(desc string, names []string, c workloadCell, m engine.Measurement) workloadResult {
	res := workloadResult{Tool: "ptsrun", Version: version, Preset: c.Preset, Engine: desc, Workload: c.Workload, Targets: names,
		Elapsed: m.Elapsed.Seconds(), Read: dirOf(m.Read, m.Elapsed), Write: dirOf(m.Write, m.Elapsed),
		Total: dirOf(m.Total(), m.Elapsed), CPU: m.CPU, Seconds: m.Seconds}
	for _, t := range m.Targets {
		res.PerTgt = append(res.PerTgt, targetJSON{Target: t.Target, Host: t.Host, Read: dirOf(t.Read, m.Elapsed), Write: dirOf(t.Write, m.Elapsed),
			CPU: t.CPU})
	}
	return res
}

// setOf is the JSON of several workloads' results: the shared fields once.
func setOf(results []workloadResult) workloadSet {
	out := workloadSet{Tool: "ptsrun", Version: version, Engine: results[0].Engine, Targets: results[0].Targets}
	for _, r := range results {
		r.Tool, r.Version = "", ""
		out.Workloads = append(out.Workloads, r)
	}
	return out
}

// workloadRecord is measured workloads to record in a run directory, in
// the order they ran.
type workloadRecord struct {
	Dir      string
	Targets  *targets.Plan // as opened
	Engine   string        // the opened engine's description
	Poll     pts.Poll
	Started  time.Time
	Operator pts.Operator
	Cells    []recordedCell
	Source   string // what recorded it, for run.json; "ptsrun workload" when empty
}

// recordedCell is one measured workload of a record: its cell's key (a
// preset's or vdbench run's name, else workloadKey) and what it measured.
type recordedCell struct {
	Key         pts.CellKey
	Workload    engine.Workload
	Measurement engine.Measurement
	Started     time.Time
	Ended       time.Time // when it was measured; Started + its time when zero
}

// recordWorkload makes r.Dir a run directory of custom cells, one per
// workload, so that report, compare and check take workloads like any run.
func recordWorkload(r workloadRecord) error {
	w := r.Cells[0].Workload
	cfg := pts.DefaultConfig()
	// No tests and no profile: nothing of the PTS applies.
	cfg.Tests, cfg.Profile = nil, ""
	cfg.Targets = r.Targets.Names()
	cfg.Engine = string(r.Targets.Engine)
	cfg.CellTime = pts.Duration(w.Duration)
	cfg.ActiveRange = w.ActiveRange
	cfg.Seed = w.Seed
	cfg.Purge = "none"
	if r.Poll != pts.PollAuto {
		cfg.Poll = r.Poll.String()
	}
	stage := pts.Stage{ID: "custom", Test: "custom", Title: "Workload", MaxRounds: 1}
	var cells []pts.ImportedCell
	for i, c := range r.Cells {
		stage.Cells = append(stage.Cells, pts.Cell{Index: i, Key: c.Key, Workload: c.Workload})
		end := c.Ended
		if end.IsZero() && !c.Started.IsZero() {
			end = c.Started.Add(c.Measurement.Elapsed + c.Workload.Ramp)
		}
		cells = append(cells, pts.ImportedCell{Workload: c.Workload, Measurement: c.Measurement, Time: end, Started: c.Started})
	}
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: version, Spec: "PTS " + pts.SpecRevision,
		Created: r.Started, Config: cfg, Stages: []pts.Stage{stage}, Targets: r.Targets.Identities,
		Host: targets.ProbeHost(version), Engine: r.Engine, Source: "ptsrun workload", Operator: r.Operator}
	if r.Source != "" {
		ri.Source = r.Source
	}
	if err := pts.WriteWorkload(r.Dir, ri, cells...); err != nil {
		return err
	}
	res, ri, err := matrix.Load(r.Dir)
	if err != nil {
		return err
	}
	if err := res.Save(r.Dir); err != nil {
		return err
	}
	_, err = writeReport(r.Dir, "", "a4", false, ri, res)
	return err
}

// saveWorkloads writes workload.json and seconds.csv: one workload's
// result as it is, several (presets) as a workloadSet, and their series,
// the whole set's and each target's, with a column naming the workload.
func saveWorkloads(dir string, results []workloadResult, cells []recordedCell, several bool) error {
	var v any = results[0]
	if several {
		v = setOf(results)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := pts.WriteFileAtomic(filepath.Join(dir, "workload.json"), append(b, '\n')); err != nil {
		return err
	}
	var lead []string
	if several {
		lead = []string{"workload"}
	}
	var parts []matrix.SeriesPart
	for k, c := range cells {
		part := matrix.SeriesPart{Series: matrix.SeriesOf(c.Workload, &c.Measurement)}
		if several {
			part.Lead = []string{results[k].Preset}
		}
		parts = append(parts, part)
	}
	var buf bytes.Buffer
	if err := matrix.WriteSeriesCSV(&buf, lead, parts); err != nil {
		return err
	}
	return pts.WriteFileAtomic(filepath.Join(dir, "seconds.csv"), buf.Bytes())
}
