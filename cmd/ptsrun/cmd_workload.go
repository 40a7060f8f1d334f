package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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
		Usage: "run one workload on a target for a time, outside the PTS methodology",
		UsageText: "ptsrun workload --target T --engine native|fio|sim --access random|seq --read PCT --bs SIZE[:PCT,...]\n" +
			"   --tc N --qd N --time DURATION [--active-range PCT] [--zones IO%/RANGE%:...] [--json]\n" +
			"   [--out DIR [--tested-by NAME] [--lab NAME] [--dut-note K=V ...]]\n\n" +
			"The PTS-E composite workload (ECW, 40/60 at TC1/QD32):\n" +
			"   --read 40 --bs 0.5k:4,1k:1,1.5k:1,2k:1,2.5k:1,3k:1,3.5k:1,4k:67,8k:10,16k:7,32k:3,64k:3 --zones 50/5:30/15:20/80",
		Flags: append([]cli.Flag{
			&cli.StringSliceFlag{Name: "target", Usage: "a block device, file:PATH[:SIZE] or sim:MODEL (repeatable: loaded at once)"},
			&cli.StringFlag{Name: "engine", Usage: "native (default for devices and files), fio, or sim"},
			&cli.StringSliceFlag{Name: "fio-server", Usage: "HOST:PORT[=TARGET] of a fio server (repeatable; engine fio)"},
			&cli.StringFlag{Name: "access", Value: "random", Usage: "random or seq"},
			&cli.IntFlag{Name: "read", Value: 100, Usage: "read percentage, 0…100"},
			&cli.StringFlag{Name: "bs", Value: "4k", Usage: "block size (512, 4k, 128k, 1m), or a block-size split SIZE:PCT,... " +
				"(4k:67,8k:33: each size's share of the I/Os, adding up to 100)"},
			&cli.StringFlag{Name: "zones", Usage: "random I/O in zones of the active range, IO%/RANGE% pairs as fio's zoned distribution writes them " +
				"(50/5:30/15:20/80: 50 % of the I/Os to the first 5 %, 30 % to the next 15 %, 20 % to the last 80 %)"},
			&cli.IntFlag{Name: "tc", Value: 1, Usage: "threads per target"},
			&cli.IntFlag{Name: "qd", Value: 32, Usage: "queue depth per thread"},
			&cli.DurationFlag{Name: "time", Value: time.Minute, Usage: "duration"},
			&cli.Float64Flag{Name: "active-range", Value: 100, Usage: "active range in %"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the address and data streams"},
			&cli.StringSliceFlag{Name: "destroy-data", Usage: "confirm that the named target (serial or path) may be overwritten"},
			pollFlag(),
			&cli.BoolFlag{Name: "json", Usage: "print the measurement as JSON"},
			&cli.StringFlag{Name: "out", Usage: "record the workload and its per-second series in this directory"},
		}, operatorFlags()...),
		Action: func(c *cli.Context) error {
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
	// when the workload writes.
	Targets  targets.Options
	Workload engine.Workload // checked
	Poll     string          // --poll, parsed by runWorkload
	Operator pts.Operator
	Dir      string // --out: record the workload as a run directory here
	JSON     bool
}

// workloadOptionsFrom reads workload's flags.
func workloadOptionsFrom(c *cli.Context) (workloadOptions, error) {
	if c.Args().Len() > 0 {
		return workloadOptions{}, fmt.Errorf("unexpected argument %q", c.Args().First())
	}
	acc, err := engine.ParseAccess(c.String("access"))
	if err != nil {
		return workloadOptions{}, err
	}
	w := engine.Workload{Access: acc, ReadPct: c.Int("read"), TC: c.Int("tc"), QD: c.Int("qd"),
		ActiveRange: c.Float64("active-range"), Duration: c.Duration("time"), Seed: c.Uint64("seed")}
	if w.BlockSize, w.BlockSplit, err = parseBS(c.String("bs")); err != nil {
		return workloadOptions{}, fmt.Errorf("--bs: %w", err)
	}
	for _, bs := range blockSizes(w) {
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
	if err := w.Validate(512); err != nil {
		return workloadOptions{}, err
	}
	op, err := operatorFromFlags(c)
	if err != nil {
		return workloadOptions{}, err
	}
	return workloadOptions{
		Targets: targets.Options{Specs: c.StringSlice("target"), Engine: c.String("engine"),
			FioServers: c.StringSlice("fio-server"), DestroyData: c.StringSlice("destroy-data")},
		Workload: w, Poll: c.String("poll"), Operator: op, Dir: c.String("out"), JSON: c.Bool("json"),
	}, nil
}

// parseBS reads --bs: a block size ("4k"), or a block-size split
// ("4k:67,8k:33"); a split of one size is that size.
func parseBS(s string) (int64, []engine.BlockShare, error) {
	if !strings.Contains(s, ":") {
		bs, err := engine.ParseSize(s)
		return bs, nil, err
	}
	split, err := engine.ParseBlockSplit(s)
	if err != nil {
		return 0, nil, err
	}
	if len(split) == 1 {
		return split[0].Bytes, nil, nil
	}
	return 0, split, nil
}

// blockSizes are the sizes of w's I/Os.
func blockSizes(w engine.Workload) []int64 {
	if len(w.BlockSplit) == 0 {
		return []int64{w.BlockSize}
	}
	var out []int64
	for _, s := range w.BlockSplit {
		out = append(out, s.Bytes)
	}
	return out
}

// workloadKey names the cell of a recorded workload: its matrix key
// ("rnd-4k-70/30"), or, with a block-size split or zones, a name that holds
// them as the flags write them, so that results.json and the tables carry
// them: "rnd-4k:67,8k:33-40/60-zoned:50/5:30/15:20/80".
func workloadKey(w engine.Workload) pts.CellKey {
	if len(w.BlockSplit) == 0 && len(w.Zones) == 0 {
		return pts.KeyOf(w)
	}
	acc := strings.ToLower(pts.AccessLabel(w.Access)) // rnd, seq
	bs := engine.SizeKey(w.BlockSize)
	if len(w.BlockSplit) > 0 {
		bs = w.SplitKey()
	}
	name := acc + "-" + bs + "-" + pts.MixLabel(w.ReadPct)
	if len(w.Zones) > 0 {
		name += "-zoned:" + w.ZonesKey()
	}
	return pts.Named(name)
}

// workloadResult is the JSON of `ptsrun workload --json` and DIR/workload.json.
type workloadResult struct {
	Tool     string            `json:"tool"`
	Version  string            `json:"version"`
	Engine   string            `json:"engine"`
	Workload engine.Workload   `json:"workload"`
	Targets  []string          `json:"targets"`
	Elapsed  float64           `json:"elapsed_s"`
	Read     dirJSON           `json:"read"`
	Write    dirJSON           `json:"write"`
	Total    dirJSON           `json:"total"`
	CPU      engine.CPU        `json:"cpu"`
	PerTgt   []targetJSON      `json:"per_target,omitempty"`
	Seconds  []engine.Second   `json:"seconds,omitempty"`
	Hosts    map[string]string `json:"host,omitempty"`
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

// runWorkload runs one workload on the targets, prints its measurement and,
// with opts.Dir, records it as a run directory.
func runWorkload(ctx context.Context, opts workloadOptions, stdout, stderr io.Writer) (err error) {
	w, dir := opts.Workload, opts.Dir
	if dir != "" {
		if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
			return fmt.Errorf("output directory %s is not empty", dir)
		}
	}
	// Reading destroys nothing: only workloads that write are gated.
	to := opts.Targets
	to.Gate = w.ReadPct < 100
	tp, err := targets.Check(to)
	if err != nil {
		return err
	}
	for _, t := range tp.Local {
		for _, bs := range blockSizes(w) {
			if bs%t.LogicalBlock != 0 {
				return fmt.Errorf("--bs: block size %s is not a multiple of %s's logical block size %d", engine.FormatSize(bs), t.Raw, t.LogicalBlock)
			}
		}
	}
	if tp.Engine == targets.Fio {
		if err := w.WholePercentages(); err != nil {
			return fmt.Errorf("--bs/--zones: %w: fio reads shares as whole percentages (it would run 1.5 %% as 1 %%); use the native engine or whole percentages", err)
		}
	}
	for _, id := range tp.Identities {
		if id.CapacityBytes > 0 {
			if err := w.Fits(id.CapacityBytes, id.LogicalBlock); err != nil {
				return fmt.Errorf("target %s: %w", id.Spec, err)
			}
		}
	}
	poll, err := pts.ParsePoll(opts.Poll)
	if err != nil {
		return err
	}
	if dir != "" {
		if err := tp.CheckRunDir(dir); err != nil {
			return err
		}
		undo, perr := prepareDir(dir)
		if perr != nil {
			return perr
		}
		// A workload that fails or is stopped leaves no half-made directory.
		defer func() {
			if err != nil {
				undo()
			}
		}()
	}
	set, err := tp.Open(dir, targets.OpenOptions{Poll: poll.Duration()})
	if err != nil {
		return err
	}
	defer set.Engine.Close()
	started := time.Now().UTC()
	names := tp.Names()
	desc := set.Engine.Describe()
	if !opts.JSON {
		fmt.Fprintf(stderr, "ptsrun workload: %s on %v with %s for %v\n", w.Description(), names, desc, w.Duration)
	}
	m, err := engine.RunCell(ctx, set.Engine, engine.Cell{Workload: w})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("%w: the workload was stopped; nothing recorded", pts.ErrInterrupted)
		}
		return err
	}
	res := workloadResult{Tool: "ptsrun", Version: version, Engine: desc, Workload: w, Targets: names,
		Elapsed: m.Elapsed.Seconds(), Read: dirOf(m.Read, m.Elapsed), Write: dirOf(m.Write, m.Elapsed),
		Total: dirOf(m.Total(), m.Elapsed), CPU: m.CPU, Seconds: m.Seconds}
	for _, t := range m.Targets {
		res.PerTgt = append(res.PerTgt, targetJSON{Target: t.Target, Host: t.Host, Read: dirOf(t.Read, m.Elapsed), Write: dirOf(t.Write, m.Elapsed),
			CPU: t.CPU})
	}
	if dir != "" {
		if err := saveWorkload(dir, res); err != nil {
			return err
		}
		rec := workloadRecord{Dir: dir, Targets: tp, Engine: desc, Poll: poll, Started: started, Operator: opts.Operator,
			Cells: []recordedCell{{Key: workloadKey(w), Workload: w, Measurement: m, Started: started}}}
		if err := recordWorkload(rec); err != nil {
			return err
		}
	}
	if opts.JSON {
		out := res
		out.Seconds = nil
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, string(b))
		return nil
	}
	printWorkload(stdout, res)
	if dir != "" {
		fmt.Fprintf(stderr, "recorded in %s (workload.json, seconds.csv, a run directory: results.json, tables, report.pdf)\n", dir)
	}
	return nil
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
		cells = append(cells, pts.ImportedCell{Workload: c.Workload, Measurement: c.Measurement, Time: c.Started})
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
	_, err = writeReport(r.Dir, "", "a4", ri, res)
	return err
}

func printWorkload(w io.Writer, r workloadResult) {
	fmt.Fprintf(w, "%s, %s, %.1f s\n", r.Workload.Description(), r.Engine, r.Elapsed)
	fmt.Fprintf(w, "%-7s %12s %10s %10s %9s %9s %9s %9s %9s %9s\n", "", "IOPS", "MB/s", "mean ms", "p50", "p99", "p99.9", "p99.99", "p99.999", "max ms")
	row := func(name string, d dirJSON) {
		if d.IOs == 0 {
			return
		}
		p := func(k string) float64 { return d.Percentiles[k] }
		fmt.Fprintf(w, "%-7s %12.0f %10.1f %10.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f\n", name, d.IOPS, d.MBps, d.LatMeanMs,
			p("50"), p("99"), p("99.9"), p("99.99"), p("99.999"), d.LatMaxMs)
	}
	row("read", r.Read)
	row("write", r.Write)
	row("total", r.Total)
	fmt.Fprintf(w, "host CPU: user %.1f %%, system %.1f %% (%s)\n", r.CPU.User*100, r.CPU.Sys*100, r.CPU.Unit())
	for _, t := range r.PerTgt {
		tot := t.Read.IOPS + t.Write.IOPS
		fmt.Fprintf(w, "  %s%s: %.0f IOPS, %.1f MB/s", t.Target, hostSuffix(t.Host), tot, t.Read.MBps+t.Write.MBps)
		if c := t.CPU; c != nil {
			fmt.Fprintf(w, ", CPU %.1f %% (%s)", (c.User+c.Sys)*100, c.Unit())
		}
		fmt.Fprintln(w)
	}
}

func hostSuffix(h string) string {
	if h == "" {
		return ""
	}
	return " on " + h
}

func saveWorkload(dir string, r workloadResult) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := pts.WriteFileAtomic(filepath.Join(dir, "workload.json"), append(b, '\n')); err != nil {
		return err
	}
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	_ = cw.Write([]string{"second", "read_iops", "write_iops", "read_mbps", "write_mbps", "lat_mean_ms"})
	for i, s := range r.Seconds {
		_ = cw.Write([]string{strconv.Itoa(i + 1), strconv.FormatInt(s.ReadIOs, 10), strconv.FormatInt(s.WriteIOs, 10),
			strconv.FormatFloat(float64(s.ReadBytes)/1e6, 'f', -1, 64), strconv.FormatFloat(float64(s.WriteBytes)/1e6, 'f', -1, 64),
			strconv.FormatFloat(s.LatMeanNs/1e6, 'f', -1, 64)})
	}
	cw.Flush()
	return pts.WriteFileAtomic(filepath.Join(dir, "seconds.csv"), buf.Bytes())
}
