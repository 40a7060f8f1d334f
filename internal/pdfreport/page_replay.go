package pdfreport

import (
	"math"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/matrix"
)

// Replay is what the report of `ptsrun replay` shows: the replay's and
// the capture's per-second series, and the fidelity figures in words.
// The caller (rundir) makes it of the replay's result.
type Replay struct {
	Start, Finish time.Time
	Capture       string // the capture's file, format and device
	Target        string // the target's label
	Engine        string
	CPUIdle       string // the host's idle CPUs while it ran (cpuidle.State.Label); "" not recorded
	Setup         []KV   // speed, slots: the header's set-up column
	Params        []KV   // the headline figures: the header's test parameters
	Fidelity      []KV   // lateness, delayed, totals: the table
	Notes         []string
	// The series, per second of the replay: the replay's I/Os by their
	// completion, the capture's by their start.
	Replayed, Captured []matrix.Interval
	CapturedLatency    bool // the capture has completions, so a response time
}

// ReplayDoc is the report of a replay: one page, IOPS and response time
// over time, the replay beside the capture.
func ReplayDoc(r Replay, paperSize string) *Doc {
	paper := "A4"
	if strings.EqualFold(paperSize, "letter") {
		paper = "Letter"
	}
	d := &Doc{Paper: paper, Kind: "Replay",
		Footer: "ptsrun replay — a captured workload issued at its times, after the SNIA RWSW method (not RWSW compliant)"}
	d.Header = Header{Start: stamp(r.Start), Finish: stamp(r.Finish), Spec: "replay of a capture", Vendor: "Replay", Model: r.Target,
		TestedBy: "not stated", Lab: "not stated",
		Platform: []KV{{"Engine", orDash(r.Engine)}}, Device: []KV{{"Target", orDash(r.Target)}}}
	if r.CPUIdle != "" {
		d.Header.Platform = append(d.Header.Platform, KV{"CPU idle", r.CPUIdle}) // as a PTS report's header has it
	}
	p := &Page{Test: "Replay", Title: "IOPS and response time over time, replay beside the capture", Landmark: "replay",
		Setup: r.Setup, Params: r.Params, Flow: true}
	lines := []string{"The capture: " + r.Capture + ".",
		"Each of its I/Os issued at its captured time, of its size and direction, at its offset mapped onto the target. " +
			"The replay's IOPS and response time count its I/Os by the second they completed in; the capture's, by the second they started in."}
	p.Blocks = append(p.Blocks, Paragraph{Lines: append(lines, r.Notes...)})
	per := func(in []matrix.Interval, name string, f func(d *matrix.IntervalDir) (float64, float64)) series {
		s := series{name: name}
		for _, iv := range in {
			var v, w float64
			for _, d := range []*matrix.IntervalDir{iv.Read, iv.Write} {
				if d != nil {
					a, b := f(d)
					v, w = v+a, w+b
				}
			}
			y := v
			if w > 0 {
				y = v / w
			} else if w < 0 {
				y = math.NaN()
			}
			s.xs, s.ys = append(s.xs, iv.StartS+iv.Seconds), append(s.ys, y)
		}
		return s
	}
	iops := func(d *matrix.IntervalDir) (float64, float64) { return d.IOPS, 0 }
	lat := func(d *matrix.IntervalDir) (float64, float64) {
		if d.MeanMs == nil {
			return 0, -1
		}
		return *d.MeanMs * float64(d.IOs), float64(d.IOs)
	}
	ss := []series{per(r.Replayed, "replay", iops), per(r.Captured, "capture", iops)}
	p.Blocks = append(p.Blocks, Chart{Caption: "IOPS per second, the replay and the capture",
		Plot: linePlot("IOPS per second", "Second", "IOPS", thinSeries(ss, maxSecondsBuckets), false), Height: 68,
		Summary: seriesRanges(ss, fmtIOPS)})
	ls := []series{per(r.Replayed, "replay", lat)}
	if r.CapturedLatency {
		ls = append(ls, per(r.Captured, "capture", lat))
	}
	caption := "Mean response time per second, the replay and the capture"
	if !r.CapturedLatency {
		caption = "Mean response time per second of the replay (the capture has no completions, so no response time)"
	}
	p.Blocks = append(p.Blocks, Chart{Caption: caption,
		Plot: linePlot("Mean response time per second", "Second", "Response time (ms)", thinSeries(ls, maxSecondsBuckets), false), Height: 68,
		Summary: seriesRanges(ls, fmtMs)})
	rows := [][]string{}
	for _, kv := range r.Fidelity {
		rows = append(rows, []string{kv.K, kv.V})
	}
	p.Blocks = append(p.Blocks, Table{Caption: "Fidelity of the replay", Head: []string{"Figure", "Value"}, Rows: rows,
		Widths: []float64{1, 2}, Align: "LL"})
	d.Pages = []*Page{p}
	return d
}
