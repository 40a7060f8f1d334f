package golden

import (
	"fmt"
	"io"
	"math"

	"github.com/ptsrun/ptsrun/internal/comparison"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// ComparisonSummary is a comparison for scripts (compare --json): the runs,
// the reference first, and every headline cell with each run's value and
// ratio to the reference; null where a run has no value.
type ComparisonSummary struct {
	Runs []ComparedRunSummary `json:"runs"`
	// Tests are the tests compared (the reference and another run hold
	// them); NotCompared the others, with the runs that hold them.
	Tests       []pts.TestID         `json:"tests"`
	NotCompared []NotComparedSummary `json:"not_compared"`
	Headlines   []HeadlineSummary    `json:"headlines"`
	HeatMap     *HeatMapSummary      `json:"heatmap,omitempty"`
}

// NotComparedSummary is a test only some runs hold, not the reference and
// another: the runs that hold it.
type NotComparedSummary struct {
	Test pts.TestID `json:"test"`
	Runs []string   `json:"runs"`
}

// HeatMapSummary is the ratio heat-map of the runs' workloads outside the
// PTS: run ÷ reference per workload and metric, for each run after the
// reference; null where either has no value.
type HeatMapSummary struct {
	Workloads     []string       `json:"workloads"`
	Metrics       []pts.Metric   `json:"metrics"`
	Ratios        [][][]*float64 `json:"ratios"`         // [run after the reference][workload][metric]
	GeometricMean [][]*float64   `json:"geometric_mean"` // [run after the reference][metric]
}

// ComparedRunSummary is one run of a comparison.
type ComparedRunSummary struct {
	Name       string `json:"name"`
	Path       string `json:"path"`
	Profile    string `json:"profile"`
	Conforming bool   `json:"conforming"`
}

// HeadlineSummary is one headline cell across the runs.
type HeadlineSummary struct {
	Label         string     `json:"label"`
	Metric        pts.Metric `json:"metric"`
	Unit          string     `json:"unit"`
	LowerIsBetter bool       `json:"lower_is_better"`
	Values        []*float64 `json:"values"` // per run
	Ratios        []*float64 `json:"ratios"` // run ÷ reference, per run after the reference; null when not scored
	// Loads are each run's TC/QD of an operating point ("" without it);
	// DifferentLoads names them when the runs chose the point at different
	// loads, which is then not scored.
	Loads          []string `json:"loads,omitempty"`
	DifferentLoads string   `json:"different_loads,omitempty"`
}

// Summary is the comparison for scripts.
func (c *Comparison) Summary() ComparisonSummary {
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil // JSON has no NaN: absent
		}
		return &v
	}
	out := ComparisonSummary{Runs: []ComparedRunSummary{}, Headlines: []HeadlineSummary{}, Tests: c.Tests, NotCompared: []NotComparedSummary{}}
	for _, h := range c.NotCompared {
		n := NotComparedSummary{Test: h.Test}
		for _, i := range h.Runs {
			n.Runs = append(n.Runs, c.Runs[i].Name)
		}
		out.NotCompared = append(out.NotCompared, n)
	}
	for _, r := range c.Runs {
		out.Runs = append(out.Runs, ComparedRunSummary{Name: r.Name, Path: r.Path, Profile: r.Results.Profile, Conforming: r.Results.Conforming})
	}
	for _, h := range c.Headlines {
		hs := HeadlineSummary{Label: h.Label, Metric: h.Metric, Unit: h.Metric.Unit(), LowerIsBetter: h.Metric.LowerIsBetter(),
			Values: []*float64{}, Ratios: []*float64{}, Loads: h.Loads, DifferentLoads: h.Differ}
		for i, v := range h.Values {
			hs.Values = append(hs.Values, num(v))
			if i > 0 {
				hs.Ratios = append(hs.Ratios, num(h.Ratio(i)))
			}
		}
		out.Headlines = append(out.Headlines, hs)
	}
	if hm := c.HeatMap; hm != nil {
		h := &HeatMapSummary{Workloads: hm.Workloads, Metrics: hm.Metrics}
		nums := func(vs []float64) []*float64 {
			out := []*float64{}
			for _, v := range vs {
				out = append(out, num(v))
			}
			return out
		}
		for i := range hm.Ratios {
			var rows [][]*float64
			for _, r := range hm.Ratios[i] {
				rows = append(rows, nums(r))
			}
			h.Ratios = append(h.Ratios, rows)
			h.GeometricMean = append(h.GeometricMean, nums(hm.Mean[i]))
		}
		out.HeatMap = h
	}
	return out
}

// PrintSummary writes the headline cells of every run, with ratios.
func (c *Comparison) PrintSummary(w io.Writer) {
	width := 28
	for _, h := range c.Headlines {
		width = max(width, len([]rune(h.Label)))
	}
	// A value, with the load of an operating point.
	value := func(h comparison.Headline, i int) string {
		s := FormatValue(h.Metric, h.Values[i])
		if i < len(h.Loads) && h.Loads[i] != "" {
			s += " at " + h.Loads[i]
		}
		return s
	}
	col := 16
	for _, h := range c.Headlines {
		for i := range h.Values {
			col = max(col, len([]rune(value(h, i))))
		}
	}
	fmt.Fprintf(w, "%-*s", width, "headline")
	for i, r := range c.Runs {
		fmt.Fprintf(w, " %*s", col, clip(fmt.Sprintf("%c %s", 'A'+i, r.Name), col))
	}
	for i := 1; i < len(c.Runs); i++ {
		fmt.Fprintf(w, " %8s", fmt.Sprintf("%c/A", 'A'+i))
	}
	fmt.Fprintln(w)
	for _, h := range c.Headlines {
		fmt.Fprintf(w, "%-*s", width, h.Label)
		for i := range h.Values {
			fmt.Fprintf(w, " %*s", col, value(h, i))
		}
		for i := 1; i < len(h.Values); i++ {
			r := h.Ratio(i)
			s := "–"
			if !math.IsNaN(r) && !math.IsInf(r, 0) {
				s = fmt.Sprintf("%.3f", r)
			}
			fmt.Fprintf(w, " %8s", s)
		}
		if h.Differ != "" {
			fmt.Fprintf(w, "  chosen at different loads: not scored")
		}
		fmt.Fprintln(w)
	}
	for _, l := range c.Scope() {
		fmt.Fprintln(w, l)
	}
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
