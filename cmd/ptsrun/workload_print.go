package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ptsrun/ptsrun/pts"
)

// printWorkload writes a workload's result for people: its figures per
// direction, host CPU and each target's share.
func printWorkload(w io.Writer, r workloadResult) {
	fmt.Fprintf(w, "%s, %s, %.1f s", r.Workload.Description(), r.Engine, r.Elapsed)
	if r.Workload.Ramp > 0 {
		fmt.Fprint(w, " after the ramp")
	}
	fmt.Fprintln(w)
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
	switch {
	case r.CPU.Zero() && strings.HasPrefix(r.Engine, pts.EngineSim):
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
