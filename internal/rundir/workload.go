package rundir

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/jsonfmt"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// WorkloadResult is a measured workload as `ptsrun workload --json`
// prints it and DIR/workload.json holds it; a run of several workloads
// (presets) is a WorkloadSet of them.
type WorkloadResult struct {
	Tool     string          `json:"tool,omitempty"`
	Version  string          `json:"version,omitempty"`
	Preset   string          `json:"preset,omitempty"`
	Engine   string          `json:"engine"`
	Workload engine.Workload `json:"workload"`
	Targets  []string        `json:"targets"`
	Elapsed  float64         `json:"elapsed_s"` // the measurement's: without the ramp
	Read     engine.Figures  `json:"read"`
	Write    engine.Figures  `json:"write"`
	Total    engine.Figures  `json:"total"`
	CPU      engine.CPU      `json:"cpu"`
	PerTgt   []TargetFigures `json:"per_target,omitempty"`
	Seconds  []engine.Second `json:"seconds,omitempty"` // the ramp's first, marked
}

// WorkloadSet is the JSON of a run of several workloads (presets): each
// one's result, in the order they ran, the fields they share once.
type WorkloadSet struct {
	Tool      string           `json:"tool"`
	Version   string           `json:"version"`
	Engine    string           `json:"engine"`
	Targets   []string         `json:"targets"`
	Workloads []WorkloadResult `json:"workloads"`
}

// TargetFigures is one target's share of a workload.
type TargetFigures struct {
	Target string         `json:"target"`
	Host   string         `json:"host,omitempty"`
	Read   engine.Figures `json:"read"`
	Write  engine.Figures `json:"write"`
	CPU    *engine.CPU    `json:"cpu,omitempty"`
}

// ResultOf is a measured workload's result: w, run with the engine desc
// describes on the targets names, measured m; preset names the preset it
// is ("" for none), version ptsrun's.
func ResultOf(version, desc string, names []string, preset string, w engine.Workload, m engine.Measurement) WorkloadResult {
	res := WorkloadResult{Tool: "ptsrun", Version: version, Preset: preset, Engine: desc, Workload: w, Targets: names,
		Elapsed: m.Elapsed.Seconds(), Read: engine.FiguresOf(m.Read, m.Elapsed), Write: engine.FiguresOf(m.Write, m.Elapsed),
		Total: engine.FiguresOf(m.Total(), m.Elapsed), CPU: m.CPU, Seconds: m.Seconds}
	for _, t := range m.Targets {
		res.PerTgt = append(res.PerTgt, TargetFigures{Target: t.Target, Host: t.Host, Read: engine.FiguresOf(t.Read, m.Elapsed),
			Write: engine.FiguresOf(t.Write, m.Elapsed), CPU: t.CPU})
	}
	return res
}

// SetOf is several workloads' results as one: the shared fields once.
func SetOf(results []WorkloadResult) WorkloadSet {
	out := WorkloadSet{Tool: "ptsrun", Version: results[0].Version, Engine: results[0].Engine, Targets: results[0].Targets}
	for _, r := range results {
		r.Tool, r.Version = "", ""
		out.Workloads = append(out.Workloads, r)
	}
	return out
}

// writeWorkloads writes workload.json and seconds.csv of a recording's
// cells: one workload's result as it is, several (presets) as a
// WorkloadSet, and their series, the whole set's and each target's, with
// a column naming the preset of each row when there are presets.
func writeWorkloads(dir string, ri pts.RunInfo, presets []string, cells []Cell) error {
	var results []WorkloadResult
	var parts []matrix.SeriesPart
	var lead []string
	if len(presets) > 0 {
		lead = []string{"workload"}
	}
	for i, c := range cells {
		p := ""
		if len(presets) > 0 {
			p = presets[i]
		}
		results = append(results, ResultOf(ri.Version, ri.Engine, ri.Config.Targets, p, c.Workload, c.Measurement))
		part := matrix.SeriesPart{Series: matrix.SeriesOf(c.Workload, &c.Measurement)}
		if len(presets) > 0 {
			part.Lead = []string{p}
		}
		parts = append(parts, part)
	}
	var v any = results[0]
	if len(presets) > 0 {
		v = SetOf(results)
	}
	if err := writeJSON(filepath.Join(dir, WorkloadFile), v); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := matrix.WriteSeriesCSV(&buf, lead, parts); err != nil {
		return err
	}
	return pts.WriteFileAtomic(filepath.Join(dir, SecondsFile), buf.Bytes())
}

// writeJSON writes v, laid out as jsonfmt does, atomically.
func writeJSON(path string, v any) error {
	b, err := jsonfmt.Marshal(v)
	if err != nil {
		return err
	}
	return pts.WriteFileAtomic(path, b)
}

// Print writes the result for people: its figures per direction, host
// CPU and each target's share.
func (r WorkloadResult) Print(w io.Writer) {
	fmt.Fprintf(w, "%s, %s, %.1f s", r.Workload.Description(), r.Engine, r.Elapsed)
	if r.Workload.Ramp > 0 {
		fmt.Fprint(w, " after the ramp")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-7s %12s %10s %10s %9s %9s %9s %9s %9s %9s\n", "", "IOPS", "MB/s", "mean ms", "p50", "p99", "p99.9", "p99.99", "p99.999", "max ms")
	row := func(name string, d engine.Figures) {
		if d.IOs == 0 {
			return
		}
		fmt.Fprintf(w, "%-7s %12.0f %10.1f %10.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f\n", name, d.IOPS, d.MBps, d.LatMeanMs,
			d.Percentile(50), d.Percentile(99), d.Percentile(99.9), d.Percentile(99.99), d.Percentile(99.999), d.LatMaxMs)
	}
	row("read", r.Read)
	row("write", r.Write)
	row("total", r.Total)
	switch {
	case r.CPU.Zero() && strings.HasPrefix(r.Engine, engine.Sim):
		// The simulated drive runs on a virtual clock: no host CPU time
		// of its I/O exists to measure.
		fmt.Fprintln(w, "host CPU: not measured (the simulated drive runs on a virtual clock)")
	case r.CPU.Zero():
		fmt.Fprintln(w, "host CPU: not measured")
	default:
		fmt.Fprintf(w, "host CPU: user %.1f %%, system %.1f %% (%s)\n", r.CPU.User*100, r.CPU.Sys*100, r.CPU.Unit())
	}
	for _, t := range r.PerTgt {
		tot := t.Read.IOPS + t.Write.IOPS
		fmt.Fprintf(w, "  %s%s: %.0f IOPS, %.1f MB/s", t.Target, OnHost(t.Host), tot, t.Read.MBps+t.Write.MBps)
		if c := t.CPU; c != nil {
			fmt.Fprintf(w, ", CPU %.1f %% (%s)", (c.User+c.Sys)*100, c.Unit())
		}
		fmt.Fprintln(w)
	}
}

// OnHost says where a target or job ran: " on HOST", or "" on this one.
func OnHost(h string) string {
	if h == "" {
		return ""
	}
	return " on " + h
}
