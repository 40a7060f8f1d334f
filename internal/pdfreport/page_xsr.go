package pdfreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The Cross Stimulus Recovery test's pages (PTS 2.0.2 §12): throughput
// over all access groups; throughput with the average and maximum response
// times; each group's figures and the recovery time, defined on the page.
func init() {
	registerPages(pts.XSRTest, testPages{report: withResults((*builder).xsr), summary: figureRows})
}

func (b *builder) xsr(td *pts.TestDef, stages []matrix.StageResult) {
	for _, s := range stages {
		b.stage(s)
		setup, params := b.setup(s), b.timelineParams(s)
		mb := groupSeries(s, b.groupNames(s), func(x pts.Sample) float64 { return x.MBps })
		b.add(&Page{Test: td.Name, Title: "Throughput vs Time: all access groups", Setup: setup, Params: params, Landmark: "xsr-throughput",
			Blocks: []Block{Chart{Caption: "Throughput per minute, one series per access group", Plot: timePlot("MB/s per minute", "MB/s", mb, false),
				Summary: summarize(mb, fmtMBps)}}})
		all := func(name string, v func(pts.Sample) float64) []series {
			one := series{name: name}
			for _, x := range s.Samples {
				if !x.Idle {
					one.xs, one.ys = append(one.xs, x.Minute()), append(one.ys, v(x))
				}
			}
			return []series{one}
		}
		tp := all("MB/s", func(x pts.Sample) float64 { return x.MBps })
		art := all("ART", func(x pts.Sample) float64 { return x.LatMeanMs })
		mrt := all("MRT", func(x pts.Sample) float64 { return x.LatMaxMs })
		b.add(&Page{Test: td.Name, Title: "Throughput, ART and MRT vs Time", Setup: setup, Params: params, Landmark: "xsr-response",
			Blocks: []Block{
				Chart{Caption: "Throughput per minute", Plot: timePlot("Throughput", "MB/s", tp, false), Summary: summarize(tp, fmtMBps)},
				Chart{Caption: "Average response time (ART) per minute, log scale", Plot: timePlot("Average response time", "ms", art, true), Summary: summarize(art, fmtMs)},
				Chart{Caption: "Maximum response time (MRT) per minute, log scale", Plot: timePlot("Maximum response time", "ms", mrt, true), Summary: summarize(mrt, fmtMs)},
			}})
		if s.Summary == nil {
			continue
		}
		rows := [][]string{}
		for _, r := range s.Summary.Rows {
			rows = append(rows, []string{fmt.Sprintf("%.0f", r[0]), fmtNum(r[1]), fmtMBps(r[2]), fmtMBps(r[3]), fmtMs(r[4]), fmtMs(r[5])})
		}
		var lines []string
		for _, f := range s.Summary.Figures {
			v := "not reached in access group 3"
			if !math.IsNaN(f.Value) {
				v = f.String()
			}
			name := strings.ToUpper(f.Name[:1]) + f.Name[1:]
			lines = append(lines, fmt.Sprintf("%s: %s. It is defined as the %s.", name, v, f.Definition))
		}
		b.add(&Page{Test: td.Name, Title: "Access groups and the recovery time", Setup: setup, Params: params, Landmark: "xsr-summary",
			Blocks: []Block{
				Table{Caption: "Each access group: its mean and last minute's throughput, its peak average and maximum response time",
					Head: []string{"Access group", "Minutes", "Mean MB/s", "MB/s at the end", "Peak ART ms", "Peak MRT ms"}, Rows: rows},
				Paragraph{Lines: lines},
			}})
	}
}

// groupNames names each group of a timeline stage by its workload: "group
// 2: RND 8 KiB 0/100, 6h0m0s".
func (b *builder) groupNames(s matrix.StageResult) map[int]string {
	names := map[int]string{}
	for _, g := range b.stageDef(s).Timeline {
		if _, ok := names[g.Group]; !ok {
			names[g.Group] = fmt.Sprintf("group %d: %s, %v", g.Group, pts.KeyOf(g.Workload).Label(), g.Workload.Duration)
		}
	}
	return names
}

// groupSeries is a timeline's figure per sample, one series per group
// that names names.
func groupSeries(s matrix.StageResult, names map[int]string, v func(pts.Sample) float64) []series {
	var out []series
	at := map[int]int{}
	for _, x := range s.Samples {
		if x.Idle {
			continue
		}
		i, ok := at[x.Group]
		if !ok {
			name, ok := names[x.Group]
			if !ok {
				continue
			}
			i = len(out)
			at[x.Group] = i
			out = append(out, series{name: name})
		}
		out[i].xs, out[i].ys = append(out[i].xs, x.Minute()), append(out[i].ys, v(x))
	}
	return out
}
