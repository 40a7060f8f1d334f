package pdfreport

import (
	"fmt"
	"math"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The Host Idle Recovery test's pages (PTS 2.0.2 §11): the
// preconditioning's convergence and measurement window; IOPS against time
// over every wait state, the bursts as points and the returns to the
// baseline as lines; each wait state against the baseline.
func init() {
	registerPages(pts.HIRTest, testPages{report: withResults((*builder).hir), summary: summaryRows(steadyLevels, figureRows)})
}

func (b *builder) hir(td *pts.TestDef, stages []matrix.StageResult) {
	for _, s := range stages {
		b.stage(s)
		if s.Timeline {
			b.hirTimeline(td, s)
			continue
		}
		setup := b.setup(s)
		params := b.params(s, "RND 4 KiB writes in rounds", "0/100", "4 KiB")
		b.iopsTracking(td, s, setup, params, convergence{title: "Preconditioning: Steady State Convergence", landmark: "hir-pc",
			caption: "IOPS of each preconditioning round's tracked end, RND 4 KiB 0/100", plot: "Preconditioning IOPS per round"})
	}
}

func (b *builder) hirTimeline(td *pts.TestDef, s matrix.StageResult) {
	setup, params := b.setup(s), b.timelineParams(s)
	bursts := map[int]string{}
	for _, g := range b.stageDef(s).Timeline {
		if g.Group != 0 {
			bursts[g.Group] = fmt.Sprintf("wait state %d bursts", g.Group)
		}
	}
	plotted := groupSeries(s, bursts, func(x pts.Sample) float64 { return x.IOPS })
	for i := range plotted {
		plotted[i].points = true
	}
	// The baseline's stretches, one after each wait state, are one series
	// broken by a NaN, so that no line crosses the bursts between them.
	base := series{name: "return to baseline"}
	for i, x := range s.Samples {
		if x.Idle || x.Group != 0 {
			continue
		}
		if i > 0 && s.Samples[i-1].Group != 0 && len(base.xs) > 0 {
			base.xs, base.ys = append(base.xs, math.NaN()), append(base.ys, math.NaN())
		}
		base.xs, base.ys = append(base.xs, x.Minute()), append(base.ys, x.IOPS)
	}
	if len(base.xs) > 0 {
		plotted = append(plotted, base)
	}
	b.add(&Page{Test: td.Name, Title: "IOPS vs Time: all wait states", Setup: setup, Params: params, Landmark: "hir-time",
		Blocks: []Block{
			Chart{Caption: "IOPS of every 5 s write burst (points, one colour per wait state) and of each minute of the returns to the baseline (lines); x counts idle time",
				Plot: timePlot("IOPS vs time, all wait states", "IOPS", plotted, false), Summary: summarize(plotted, fmtIOPS)},
		}})
	if s.Summary == nil {
		return
	}
	baseline, returns := math.NaN(), math.NaN()
	var lines []string
	for _, f := range s.Summary.Figures {
		v := "not measured"
		if !math.IsNaN(f.Value) {
			v = f.String()
		}
		switch f.Name {
		case "baseline":
			baseline = f.Value
			lines = append(lines, fmt.Sprintf("Baseline: %s, %s. Each ratio below is to it.", v, f.Definition))
		case "returns to the baseline":
			returns = f.Value
			lines = append(lines, fmt.Sprintf("Returns to the baseline: %s, %s.", v, f.Definition))
		}
	}
	rows := [][]string{}
	mean := series{name: "mean burst IOPS"}
	ref := series{name: "baseline IOPS"}
	back := series{name: "returns to the baseline"}
	var labels []string
	for _, r := range s.Summary.Rows {
		rows = append(rows, []string{fmt.Sprintf("%.0f", r[0]), fmt.Sprintf("%.0f", r[1]), fmt.Sprintf("%.0f", r[2]), fmtIOPS(r[3]), fmtRatio(r[4])})
		labels = append(labels, fmt.Sprintf("WS %.0f (%.0f s idle)", r[0], r[1]))
		mean.xs, mean.ys = append(mean.xs, float64(len(mean.xs))), append(mean.ys, r[3])
		ref.xs, ref.ys = append(ref.xs, float64(len(ref.xs))), append(ref.ys, baseline)
		back.xs, back.ys = append(back.xs, float64(len(back.xs))), append(back.ys, returns)
	}
	blocks := []Block{Paragraph{Lines: lines}}
	if len(labels) > 0 {
		blocks = append(blocks, Chart{Caption: "Mean IOPS of the bursts of each wait state, against the baseline",
			Plot:    barPlotX("Mean burst IOPS per wait state", "Wait state (idle after each 5 s burst)", "IOPS", labels, []series{mean, ref, back}),
			Summary: summarize([]series{mean, ref, back}, fmtIOPS), Height: 85})
	}
	blocks = append(blocks, Table{Caption: "Each wait state: its bursts' mean IOPS and their ratio to the baseline",
		Head: []string{"Wait state", "Idle s after each burst", "Bursts", "Mean burst IOPS", "Ratio to the baseline"}, Rows: rows})
	b.add(&Page{Test: td.Name, Title: "Wait States against the Baseline", Setup: setup, Params: params, Landmark: "hir-summary", Blocks: blocks})
}
