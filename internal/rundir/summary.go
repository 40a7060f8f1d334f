package rundir

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// Summary is what a command that writes a run's results says at its end
// (run, resume, demo, report, import): the files it wrote, the verdicts
// and the headline figures. With --json it is one JSON object on stdout:
// the last line of run's event stream, the only line of report's and
// import's output.
type Summary struct {
	Type       string             `json:"type"` // "summary"
	Dir        string             `json:"dir"`
	Files      SummaryFiles       `json:"files"`
	Conforming bool               `json:"conforming"`
	Verdict    string             `json:"verdict"`
	Scope      string             `json:"scope,omitempty"`
	Complete   bool               `json:"complete"`
	Deviations []matrix.Deviation `json:"deviations"`
	// Health are the drives' health deviations in measurement windows
	// (check --strict-health fails on them).
	Health   []matrix.HealthDeviation `json:"health_deviations,omitempty"`
	Stages   []StageSummary           `json:"stages"`
	Headline []HeadlineValue          `json:"headline"`
	// Imported runs: what from, and the results left out.
	ImportedFrom string   `json:"imported_from,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
}

// SummaryFiles are the files a run's results were written to.
type SummaryFiles struct {
	Results string   `json:"results_json"`
	Tables  []string `json:"tables"` // every CSV
	Report  string   `json:"report_pdf"`
}

// StageSummary is one stage's verdict.
type StageSummary struct {
	Test    pts.TestID `json:"test"`
	Stage   string     `json:"stage"`
	Title   string     `json:"title"`
	Steady  bool       `json:"steady"`
	SSRound int        `json:"ss_round,omitempty"`
	Window  [2]int     `json:"window"`
	Rounds  int        `json:"rounds"`
	Cells   int        `json:"cells"` // with results
	State   string     `json:"state"` // in words, as the text summary says it
}

// DeviationTexts are the deviations in words, then the health
// deviations, "HEALTH: " before each: what the text summary lists.
func (s Summary) DeviationTexts() []string {
	var out []string
	for _, d := range s.Deviations {
		out = append(out, d.Text)
	}
	for _, d := range s.Health {
		out = append(out, "HEALTH: "+d.Text)
	}
	return out
}

// Summary describes the run b built, in its directory.
func (b *Built) Summary() Summary {
	res, dir, pdf := b.Results, b.Dir, b.PDF
	s := Summary{Type: "summary", Dir: dir, Conforming: res.Conforming, Verdict: res.Verdict, Scope: res.Scope, Complete: res.Complete,
		Deviations: res.Deviations, Health: res.HealthDeviations, Stages: []StageSummary{}, Headline: headline(res),
		Files: SummaryFiles{Results: filepath.Join(dir, ResultsFile), Tables: []string{}, Report: pdf}}
	if s.Deviations == nil {
		s.Deviations = []matrix.Deviation{}
	}
	if s.Headline == nil {
		s.Headline = []HeadlineValue{}
	}
	for _, name := range res.TableFiles() {
		s.Files.Tables = append(s.Files.Tables, filepath.Join(dir, TablesDir, name))
	}
	for _, t := range res.Tests {
		for _, st := range t.Stages {
			n := 0
			for _, c := range st.Cells {
				if c.Present() {
					n++
				}
			}
			s.Stages = append(s.Stages, StageSummary{Test: t.Test, Stage: st.ID, Title: st.Title, Steady: st.Steady,
				SSRound: st.SSRound, Window: st.Window, Rounds: st.Rounds, Cells: n, State: stageState(t.Test, st)})
		}
	}
	return s
}

// stageState says where a stage of test stands, in its procedure's words.
func stageState(test pts.TestID, s matrix.StageResult) string { return s.View(test).State }

type HeadlineValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// headline picks the numbers people quote: the brief headlines of the
// tests' definitions.
func headline(res *matrix.Results) []HeadlineValue {
	var out []HeadlineValue
	for _, h := range res.Headlines() {
		if !h.Brief {
			continue
		}
		c := h.Cell
		name := h.Key.Words()
		if h.Label != "" {
			name = fmt.Sprintf("%s TC%d/QD%d", h.Label, c.TC, c.QD)
		} else if h.Key.Name != "" && c.TC > 0 {
			// A cell named for its place in a TC × QD sweep.
			name = fmt.Sprintf("%s TC%d/QD%d", pts.Def(h.Test).Name, c.TC, c.QD)
		}
		if h.Words != "" {
			// A headline in words of its own: an operating point's two
			// measurements, as the report prints them.
			out = append(out, HeadlineValue{name, h.Words})
			continue
		}
		val := func(m pts.Metric, unit string) string {
			v, ok := c.Value(m)
			if !ok {
				return "–" // e.g. fio printed no 99.999 % and gave no bins
			}
			return m.Format(v) + unit // as the report writes it
		}
		var parts, names []string
		allMs := true
		for _, m := range h.Metrics {
			switch m.Unit() {
			case "IOPS":
				parts = append(parts, val(m, " IOPS"))
			case "MB/s":
				parts = append(parts, val(m, " MB/s"))
			default:
				parts = append(parts, val(m, ""))
			}
			names = append(names, map[pts.Metric]string{pts.MetricLatMean: "mean", pts.MetricLatP99999: "99.999%", pts.MetricLatMax: "max"}[m])
			allMs = allMs && m.Unit() == "ms"
		}
		switch {
		case allMs:
			out = append(out, HeadlineValue{fmt.Sprintf("%s QD%d %s", name, c.QD, strings.Join(names, "/")), strings.Join(parts, " / ") + " ms"})
		case len(h.Metrics) == 1 && h.Metrics[0] == pts.MetricIOPS:
			out = append(out, HeadlineValue{"IOPS " + name, parts[0]})
		default:
			for i, m := range h.Metrics {
				if m.Unit() == "ms" {
					parts[i] = names[i] + " " + parts[i] + " ms"
				}
			}
			out = append(out, HeadlineValue{name, strings.Join(parts, ", ")})
		}
	}
	return out
}
