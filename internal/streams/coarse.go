package streams

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ptsrun/ptsrun/internal/capture"
)

// CoarseReport is the characterisation of a coarse capture
// (/proc/diskstats): the mix and the intensity per step, no streams.
type CoarseReport struct {
	Label   string       `json:"label"` // capture.CoarseLabel
	Device  string       `json:"device"`
	SampleS float64      `json:"sample_s"` // the capture's interval
	Steps   []CoarseStep `json:"steps"`
}

// CoarseStep is one step of a coarse capture's report.
type CoarseStep struct {
	Start float64 `json:"start_s"`
	End   float64 `json:"end_s"`
	IOs   int64   `json:"ios"`
	IOPS  float64 `json:"iops"`
	// ReadPct and MeanSize (bytes) are nil in a step without I/O.
	ReadPct  *float64 `json:"read_pct"`
	MeanSize *float64 `json:"mean_size_bytes"`
	// DemandIntensity is the mean number of I/Os outstanding.
	DemandIntensity float64 `json:"demand_intensity"`
}

// NoStreams is what a coarse capture's report says in place of its
// streams.
const NoStreams = "none: a coarse capture has counts per step, not I/Os, so no random or sequential split and no streams"

// characteriseCoarse is Characterise of a coarse capture.
func characteriseCoarse(c *capture.Capture, devices []capture.DeviceCount, opt Options) (*Report, error) {
	co := c.Coarse
	if len(co.Steps) == 0 {
		return nil, fmt.Errorf("the coarse capture has no steps")
	}
	r := &Report{Method: Method, SequentialRule: NoStreams, Format: c.Format, Devices: devices, Device: co.Device, Timed: true,
		Step: opt.Step.Seconds(), Top: 0, Streams: []StreamShare{}, Steps: []Step{}}
	cr := &CoarseReport{Label: capture.CoarseLabel, Device: co.Device, SampleS: co.Interval.Seconds()}
	t := &r.Totals
	var busy, span float64 // outstanding × seconds, seconds sampled
	var cur *CoarseStep
	var curBusy, curSpan float64
	end := func() {
		if cur == nil {
			return
		}
		if curSpan > 0 {
			cur.IOPS, cur.DemandIntensity = float64(cur.IOs)/curSpan, curBusy/curSpan
		}
		cr.Steps = append(cr.Steps, *cur)
	}
	for _, s := range co.Steps {
		k := int(s.Start / opt.Step)
		if cur == nil || k != int(time.Duration(cur.Start*float64(time.Second))/opt.Step) {
			end()
			start := time.Duration(k) * opt.Step
			cur = &CoarseStep{Start: start.Seconds(), End: (start + opt.Step).Seconds()}
			curBusy, curSpan = 0, 0
		}
		n := s.Reads + s.Writes
		sec := s.Length.Seconds()
		cur.IOs += n
		if n > 0 {
			rp := pct(int(s.Reads), int(n))
			size := float64(s.ReadBytes+s.WriteBytes) / float64(n)
			if cur.ReadPct != nil { // weight by I/Os
				prev := cur.IOs - n
				rp = (*cur.ReadPct*float64(prev) + rp*float64(n)) / float64(cur.IOs)
				size = (*cur.MeanSize*float64(prev) + size*float64(n)) / float64(cur.IOs)
			}
			cur.ReadPct, cur.MeanSize = ptr(rp), ptr(size)
		}
		curBusy, curSpan = curBusy+s.Outstanding*sec, curSpan+sec
		busy, span = busy+s.Outstanding*sec, span+sec
		t.IOs += int(n)
		t.ReadIOs += int(s.Reads)
		t.WriteIOs += int(s.Writes)
		t.ReadBytes += s.ReadBytes
		t.WriteBytes += s.WriteBytes
	}
	end()
	last := co.Steps[len(co.Steps)-1]
	cr.Steps[len(cr.Steps)-1].End = min(cr.Steps[len(cr.Steps)-1].End, (last.Start + last.Length).Seconds())
	t.Bytes = t.ReadBytes + t.WriteBytes
	t.Duration = (last.Start + last.Length - co.Steps[0].Start).Seconds()
	t.ReadPct = pct(t.ReadIOs, t.IOs)
	if span > 0 {
		t.IOPS, t.DemandIntensity = ptr(float64(t.IOs)/span), ptr(busy/span)
	}
	t.DemandSource = "coarse: the kernel's weighted time doing I/O over the time sampled (/proc/diskstats)"
	r.Coarse = cr
	return r, nil
}

// coarseText is Text of a coarse capture's report.
func (r *Report) coarseText(w io.Writer, name string) error {
	t, cr := r.Totals, r.Coarse
	fmt.Fprintf(w, "Capture %s (%s): device %s, sampled every %s\n", name, r.Format, cr.Device, time.Duration(cr.SampleS*float64(time.Second)))
	fmt.Fprintf(w, "This capture is %s.\nStreams: %s.\n\n", cr.Label, NoStreams)
	fmt.Fprintf(w, "Totals: %d I/Os (%.1f %% reads), %s read, %s written\n", t.IOs, t.ReadPct, byteCount(t.ReadBytes), byteCount(t.WriteBytes))
	fmt.Fprintf(w, "        %.3f s, %s IOPS, demand intensity %s (%s)\n\n", t.Duration, num(t.IOPS, "%.1f"), num(t.DemandIntensity, "%.2f"), t.DemandSource)
	fmt.Fprintf(w, "Steps of %s (coarse): the mix and the intensity\n", time.Duration(r.Step*float64(time.Second)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "START s\tEND s\tI/Os\tIOPS\tREAD %\tMEAN SIZE\tDEMAND\t")
	for _, s := range cr.Steps {
		size := "-"
		if s.MeanSize != nil {
			size = byteCount(int64(*s.MeanSize))
		}
		fmt.Fprintf(tw, "%.3f\t%.3f\t%d\t%.1f\t%s\t%s\t%.2f\t\n", s.Start, s.End, s.IOs, s.IOPS, num(s.ReadPct, "%.1f"), size, s.DemandIntensity)
	}
	return tw.Flush()
}
