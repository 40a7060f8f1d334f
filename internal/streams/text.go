package streams

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ptsrun/ptsrun/internal/units"
)

// Text writes the report as tables for people; name is the capture's file.
func (r *Report) Text(w io.Writer, name string) error {
	if r.Coarse != nil {
		return r.coarseText(w, name)
	}
	var devs []string
	for _, d := range r.Devices {
		devs = append(devs, fmt.Sprintf("%s (%d I/Os)", d.Device, d.IOs))
	}
	t := r.Totals
	fmt.Fprintf(w, "Capture %s (%s): devices %s; characterised: %s\n", name, r.Format, strings.Join(devs, ", "), r.Device)
	fmt.Fprintf(w, "I/O streams %s. Sequential: %s.\n\n", Method, SequentialRule)
	fmt.Fprintf(w, "Totals: %d I/Os (%.1f %% reads, %.1f %% sequential), %s read, %s written, %d streams\n",
		t.IOs, t.ReadPct, t.SequentialPct, byteCount(t.ReadBytes), byteCount(t.WriteBytes), t.Streams)
	if r.Timed {
		fmt.Fprintf(w, "        %.3f s, %s IOPS, demand intensity %s (%s)\n", t.Duration, num(t.IOPS, "%.1f"), num(t.DemandIntensity, "%.2f"), t.DemandSource)
	} else {
		fmt.Fprintf(w, "        no times: the capture's I/Os are untimed (a version 2 iolog without wait lines)\n")
	}
	if len(t.Dropped) > 0 {
		var kinds []string
		for k := range t.Dropped {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		var d []string
		for _, k := range kinds {
			d = append(d, fmt.Sprintf("%s %d", k, t.Dropped[k]))
		}
		fmt.Fprintf(w, "Dropped (neither read nor write): %s\n", strings.Join(d, ", "))
	}
	fmt.Fprintf(w, "\nStreams: the top %d of %d cover %.1f %% of the I/Os\n", r.Top, len(r.Streams), r.TopShare)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tSTREAM\tI/Os\tSHARE %\tCUMULATIVE %\t")
	for i, s := range r.Streams[:r.Top] {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.1f\t%.1f\t\n", i+1, s.Stream, s.IOs, s.Share, s.Cumulative)
	}
	if rest := len(r.Streams) - r.Top; rest > 0 {
		fmt.Fprintf(tw, "\t%d others\t%d\t%.1f\t100.0\t\n", rest, t.IOs-sumIOs(r.Streams[:r.Top]), 100-r.TopShare)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nSteps of %s: each stream's share of the step's I/Os (the columns are the streams above, by #)\n", time.Duration(r.Step*float64(time.Second)))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"START s", "END s", "I/Os", "IOPS", "DEMAND"}
	for i := range r.Top {
		head = append(head, fmt.Sprintf("#%d %%", i+1))
	}
	fmt.Fprintln(tw, strings.Join(append(head, "OTHER %"), "\t")+"\t")
	for _, s := range r.Steps {
		row := []string{fmt.Sprintf("%.3f", s.Start), fmt.Sprintf("%.3f", s.End), fmt.Sprint(s.IOs), num(s.IOPS, "%.1f"), num(s.DemandIntensity, "%.2f")}
		for _, v := range s.Shares {
			row = append(row, fmt.Sprintf("%.1f", v))
		}
		fmt.Fprintln(tw, strings.Join(append(row, fmt.Sprintf("%.1f", s.Other)), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nApplied test workload: the top %d streams, %.1f %% of the I/Os (at least %.0f %%, at most %d streams), renormalised to 100 %%\n",
		len(r.Workload.Streams), r.Workload.Covered, WorkloadCover, WorkloadStreams)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "STREAM\tSHARE %\tOF THE CAPTURE %\t")
	for _, s := range r.Workload.Streams {
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t\n", s.Stream, s.Share, s.CaptureShare)
	}
	return tw.Flush()
}

func sumIOs(s []StreamShare) int {
	n := 0
	for _, x := range s {
		n += x.IOs
	}
	return n
}

func num(v *float64, format string) string {
	if v == nil {
		return "unknown"
	}
	return fmt.Sprintf(format, *v)
}

func byteCount(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
	}
	return units.FormatSize(b)
}
