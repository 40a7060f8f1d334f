package vdbench

import (
	"fmt"
	"io"
	"strings"
)

// What describes a run's workload for people, its random share with it.
func (r Run) What() string {
	w := r.Workload
	if w.RandomPct > 0 {
		return fmt.Sprintf("%s, %g %% of the I/Os random", w.Description(), w.RandomPct)
	}
	return w.Description()
}

// RateWords says a run's rate for people: "" at max.
func (r Run) RateWords() string {
	if r.IORate == 0 {
		return ""
	}
	return fmt.Sprintf(", iorate=%g: at most %g IOPS per target", r.IORate, r.Workload.RateIOPS)
}

// Print writes the translation (--dry-run): the targets, then each run
// with its workload and the ptsrun workload command that runs it alone.
func (p *Plan) Print(w io.Writer) {
	fmt.Fprintf(w, "vdbench %s: %d run(s) on %d target(s)\n", p.File, len(p.Runs), len(p.Targets))
	for _, t := range p.Targets {
		fmt.Fprintf(w, "  sd=%s lun=%s → %s (%s)\n", t.SD, t.Lun, t.Spec, t.Pos)
	}
	for _, r := range p.Runs {
		wl := r.Workload
		fmt.Fprintf(w, "%s (rd=%s, %s) on sd %s:\n", r.Name, r.RD, r.Pos, strings.Join(r.SDs, ", "))
		warm := fmt.Sprintf("warmup=%v", r.Warmup)
		if r.Warmup == 0 {
			warm = "vdbench's first interval"
		}
		fmt.Fprintf(w, "  %s; vdbench threads=%d per sd\n", r.What(), r.Threads)
		fmt.Fprintf(w, "  %v: elapsed=%v after a %v warm-up (%s), left out of the results", wl.Duration, r.Elapsed, wl.Ramp, warm)
		if r.EOF {
			fmt.Fprint(w, "; ends at the end of the range if that comes first (seekpct=eof)")
		}
		if r.Pause > 0 {
			fmt.Fprintf(w, "; after a pause of %v", r.Pause)
		}
		fmt.Fprintln(w)
		if r.IORate > 0 {
			fmt.Fprintf(w, "  iorate=%g over %d sd(s): at most %g IOPS per target\n", r.IORate, len(r.SDs), wl.RateIOPS)
		} else {
			fmt.Fprintln(w, "  iorate=max")
		}
		var args []string
		for _, t := range r.Targets {
			args = append(args, "--target", t)
		}
		args = append(args, "--access", wl.Access.String(), "--read", fmt.Sprint(wl.ReadPct), "--bs", wl.BSKey(),
			"--tc", fmt.Sprint(wl.TC), "--qd", fmt.Sprint(wl.QD), "--time", wl.Duration.String(), "--ramp", wl.Ramp.String())
		if wl.RangeStart > 0 || wl.ActiveRange != 100 {
			args = append(args, "--active-range", fmt.Sprint(wl.ActiveRange))
		}
		if wl.RandomPct > 0 {
			args = append(args, "--random-pct", fmt.Sprint(wl.RandomPct))
		}
		if wl.RateIOPS > 0 {
			args = append(args, "--rate-iops", fmt.Sprint(wl.RateIOPS))
		}
		if wl.RangeStart == 0 && !r.EOF {
			fmt.Fprintf(w, "  = ptsrun workload %s\n", strings.Join(args, " "))
		}
	}
	if len(p.Notes) > 0 {
		fmt.Fprintln(w, "accepted without a bearing on the runs:")
		for _, n := range p.Notes {
			fmt.Fprintf(w, "  %s: %s: %s\n", n.Pos, n.Param, n.Text)
		}
	}
}
