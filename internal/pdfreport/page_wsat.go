package pdfreport

import (
	"fmt"
	"math"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The Write Saturation test's pages (PTS 2.0.2 §10): IOPS against time
// (linear and log), against TGBW and against drive fills; the response
// times against time; the last hour's response-time histogram; each hour
// and the write cliff.
func init() {
	registerPages(pts.WSATTest, testPages{report: withResults((*builder).wsat), summary: figureRows})
}

func (b *builder) wsat(td *pts.TestDef, stages []matrix.StageResult) {
	for _, s := range stages {
		b.stage(s)
		setup, params := b.setup(s), b.timelineParams(s)
		along := func(name string, x, y func(pts.Sample) float64) []series {
			one := series{name: name}
			for _, smp := range s.Samples {
				if !smp.Idle {
					one.xs, one.ys = append(one.xs, x(smp)), append(one.ys, y(smp))
				}
			}
			return []series{one}
		}
		minute := func(x pts.Sample) float64 { return x.Minute() }
		iops := func(x pts.Sample) float64 { return x.IOPS }
		byTime := along("IOPS", minute, iops)
		b.add(&Page{Test: td.Name, Title: "IOPS vs Time", Setup: setup, Params: params, Landmark: "wsat-time",
			Blocks: []Block{
				Chart{Caption: "IOPS per interval from fresh-out-of-box", Plot: timePlot("IOPS vs time", "IOPS", byTime, false), Summary: summarize(byTime, fmtIOPS)},
				Chart{Caption: "IOPS per interval, log scale", Plot: timePlot("IOPS vs time (log)", "IOPS", byTime, true), Summary: summarize(byTime, fmtIOPS)},
			}})
		unit, per := pts.TGBWUnit(b.ri.Config)
		units := map[string]string{"GB": "GB, 10^9 bytes", "GiB": "GiB, 2^30 bytes"}[unit]
		tgbw := along("IOPS", func(x pts.Sample) float64 { return float64(x.Written) / per }, iops)
		blocks := []Block{Chart{Caption: "IOPS against the total data written since the purge, TGBW in " + units + " (--wsat-tgbw)",
			Plot: linePlot("IOPS vs TGBW", "TGBW ("+units+")", "IOPS", tgbw, false), Summary: summarize(tgbw, fmtIOPS)}}
		if s.Capacity > 0 {
			fills := along("IOPS", func(x pts.Sample) float64 { return float64(x.Written) / float64(s.Capacity) }, iops)
			blocks = append(blocks, Chart{Caption: fmt.Sprintf("IOPS against drive fills: TGBW in capacities of %s", decimal(s.Capacity)),
				Plot: linePlot("IOPS vs drive fills", "Drive fills", "IOPS", fills, false), Summary: summarize(fills, fmtIOPS)})
		}
		b.add(&Page{Test: td.Name, Title: "IOPS vs TGBW and Drive Fills", Setup: setup, Params: params, Landmark: "wsat-tgbw", Blocks: blocks})
		art := along("ART", minute, func(x pts.Sample) float64 { return x.LatMeanMs })
		p5 := along("99.999 %", minute, func(x pts.Sample) float64 { return x.LatP99999Ms })
		mrt := along("MRT", minute, func(x pts.Sample) float64 { return x.LatMaxMs })
		b.add(&Page{Test: td.Name, Title: "Response Times vs Time: ART, 99.999 % and MRT", Setup: setup, Params: params, Landmark: "wsat-response",
			Blocks: []Block{
				Chart{Caption: "Average response time (ART) per interval", Plot: timePlot("ART", "ms", art, false), Summary: summarize(art, fmtMs)},
				Chart{Caption: "99.999 % response time per interval, log scale", Plot: timePlot("99.999 %", "ms", p5, true), Summary: summarize(p5, fmtMs)},
				Chart{Caption: "Maximum response time (MRT) per interval, log scale", Plot: timePlot("MRT", "ms", mrt, true), Summary: summarize(mrt, fmtMs)},
			}})
		// The optional steady-state method: the check minutes round by
		// round, and the measurement window.
		if len(s.Tracking) > 0 {
			b.iopsTracking(td, s, setup, params, convergence{title: "Steady State Convergence: the check minute of each round", landmark: "wsat-ss",
				caption: "IOPS of each round's 1 min check, after its 30 min of the stimulus", plot: "Check-minute IOPS per round"})
		}
		if h := s.TailHist; h != nil && h.Count() > 0 {
			title := fmt.Sprintf("the last hour of I/O, minutes %.0f–%.0f", s.TailFrom, s.Samples[len(s.Samples)-1].Minute())
			hist, clp, sum := histogramPlots(title, h)
			b.add(&Page{Test: td.Name, Title: "Response Time Histogram – Confidence Level Plot", Setup: setup, Params: params, Landmark: "wsat-histogram",
				Blocks: []Block{
					Paragraph{Lines: []string{"The response times of every I/O of " + title + ", at the stimulus's load (" + b.timelineLoad(s) +
						"): the drive as the series leaves it. It is not a separate TC1/QD1 measurement, which some harnesses run after WSAT."}},
					Chart{Caption: "Response-time histogram (I/Os per latency bin, log scales)", Plot: hist, Summary: sum},
					Chart{Caption: "Confidence level: share of I/Os at or under each response time", Plot: clp, Summary: sum},
				}})
		}
		if s.Summary == nil {
			continue
		}
		rows := [][]string{}
		for _, r := range s.Summary.Rows {
			fill := "–"
			if s.Capacity > 0 {
				fill = fmtNum(r[4] * per / float64(s.Capacity))
			}
			hour := fmt.Sprintf("%.0f", r[0])
			if len(r) > 5 && r[5] < 59.5 {
				hour += fmt.Sprintf(" (%.0f min)", r[5])
			}
			rows = append(rows, []string{hour, fmtIOPS(r[1]), fmtMs(r[2]), fmtMs(r[3]), fmtNum(r[4]), fill})
		}
		var lines []string
		for _, f := range s.Summary.Figures {
			v := "not reached"
			if !math.IsNaN(f.Value) {
				v = f.String()
				if f.Unit == unit+" written" && s.Capacity > 0 {
					v += fmt.Sprintf(" (%s drive fills)", fmtNum(f.Value*per/float64(s.Capacity)))
				}
			}
			lines = append(lines, fmt.Sprintf("%s: %s, %s.", f.Name, v, f.Definition))
		}
		b.add(&Page{Test: td.Name, Title: "Every Hour and the Write Cliff", Setup: setup, Params: params, Landmark: "wsat-summary",
			Blocks: []Block{
				Paragraph{Lines: lines},
				Table{Caption: "Every hour of the series: its mean IOPS and ART, peak MRT, and TGBW (" + unit + ") and drive fills at its end",
					Head: []string{"Hour", "Mean IOPS", "Mean ART ms", "Peak MRT ms", "TGBW " + unit, "Drive fills"}, Rows: rows},
			}})
	}
}
