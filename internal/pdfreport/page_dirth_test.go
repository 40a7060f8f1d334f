package pdfreport

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// landmarks are a document's page landmarks, in order.
func landmarks(d *Doc) []string {
	var out []string
	for _, p := range d.Pages {
		if p.Test != "" {
			out = append(out, p.Landmark)
		}
	}
	return out
}

// paramsOf is the Test Parameters column of the first page with that
// landmark.
func paramsOf(t *testing.T, d *Doc, landmark string) map[string]string {
	t.Helper()
	for _, p := range d.Pages {
		if p.Landmark == landmark {
			kv := map[string]string{}
			for _, x := range p.Params {
				kv[x.K] = x.V
			}
			return kv
		}
	}
	t.Fatalf("no page %s", landmark)
	return nil
}

// demandPageOrder is the pages of a demand-intensity test that ran to
// its end, in order (as ADATA's pages P1–P15).
func demandPageOrder(p string) []string {
	return []string{p + "-pc", "window", p + "-prewrites", p + "-convergence", "window", p + "-dv", p + "-di", p + "-toio", p + "-table",
		p + "-points", p + "-point-prewrite", p + "-point-histogram", p + "-point-prewrite", p + "-point-histogram",
		p + "-point-prewrite", p + "-point-histogram"}
}

// DIRTH's pages: the preconditioning, the demand variation's pages in
// the PTS's order, the TC × QD tables as the CSV tables have them, the
// operating points and how they were chosen, and each point's pre-write
// and histogram with its MRT in the title.
func TestDIRTHPages(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", func(c *pts.Config) { c.Tests = []pts.TestID{pts.DIRTH} })
	doc := Build(ri, res, Options{})
	assert.Equal(t, demandPageOrder("dirth"), landmarks(doc))
	tr := res.Find(pts.DIRTH)
	require.Len(t, tr.OperatingPoints, 3)
	text := doc.Text()

	// The header carries the test's own rows.
	params := paramsOf(t, doc, "dirth-dv")
	assert.Equal(t, "RND 8 KiB 65/35", params["Test stimulus"])
	assert.Equal(t, "32,16,8,6,4,2,1", params["TC (outer)"])
	assert.Equal(t, "32,16,8,6,4,2,1", params["QD (inner)"])
	assert.Equal(t, "5 ms", params["ART ceiling"])
	var loads []string
	for _, p := range tr.OperatingPoints {
		loads = append(loads, fmt.Sprintf("TC%d/QD%d", p.TC, p.QD))
	}
	assert.Equal(t, strings.Join(loads, ", "), params["Max / Mid / Min"])

	// Each point: its pages titled with its load, its MRT, its rule.
	for _, s := range tr.Stages {
		p := s.Point
		if p == nil {
			continue
		}
		label := pts.PointLabel(p.Point)
		mrt := figureOf(t, s, pts.FigHistMRT)
		says(t, text, fmt.Sprintf("– %s (TC%d/QD%d) Pre-Writes\n", label, p.TC, p.QD))
		says(t, text, fmt.Sprintf("– %s (TC%d/QD%d) Response Time Histogram, MRT = %s ms\n", label, p.TC, p.QD, fmtMs(mrt)))
		says(t, text, fmt.Sprintf("%s, TC%d/QD%d: %s.", label, p.TC, p.QD, p.Rule), "the points page says how it was chosen")
		pp := paramsOf(t, doc, "dirth-points")
		assert.NotEmpty(t, pp["Points read from"])
	}
	// The points' rules in the test's own words (pts), as the plan and the
	// docs print them.
	for _, r := range pts.DIRTHTest.RulesOf(ri.Config) {
		if r.Name == "MaxIOPS" || r.Name == "MidIOPS" || r.Name == "MinIOPS" {
			says(t, text, r.Name+": "+r.Text+".")
		}
	}
	says(t, text, "MaxIOPS: the highest IOPS whose ART is below 5 ms, from the measurement window's last round")
	says(t, text, "ART ceiling 5 ms", "the ceiling is drawn on the demand-intensity plot")
	says(t, text, "Host CPU utilisation over TC × QD (the PTS's 3D plot): not measured.", "the simulated drive has no host CPU")
	saysNot(t, text, "No results:")

	// The tables print the CSV tables' numbers.
	for _, tb := range res.Tables() {
		if tb.Name != "dirth_iops" && tb.Name != "dirth_art_ms" {
			continue
		}
		require.Len(t, tb.Rows, 7)
		m := pts.MetricIOPS
		if tb.Name == "dirth_art_ms" {
			m = pts.MetricLatMean
		}
		for i, row := range tb.Rows {
			var want []string
			for _, v := range tb.Values[i] {
				want = append(want, m.Format(v))
			}
			says(t, text, "\n"+row+" | "+strings.Join(want, " | ")+"\n", "%s row TC %s", tb.Name, row)
		}
	}

	// Read back: every page carries the test's header, and the points
	// table prints each point.
	pages := pdftotext(t, render(t, doc, res.Start))
	points := pageWith(t, pages, "Operating Points: MaxIOPS, MidIOPS and MinIOPS")
	for _, p := range tr.OperatingPoints {
		assert.Regexp(t, regexp.MustCompile(fmt.Sprintf(`%s\s+TC%d/QD%d\s+%d\s+%s`, pts.PointLabel(p.Point), p.TC, p.QD, p.TC*p.QD,
			regexp.QuoteMeta(fmtIOPS(p.IOPS)))), points)
	}
	n := 0
	for _, p := range pages {
		if strings.Contains(p, "DIRTH Test – Report Page") {
			n++
		}
	}
	assert.Equal(t, len(demandPageOrder("dirth")), n)
}

// says checks the report's text has a sentence, without printing all of
// the text when it has not.
func says(t *testing.T, text, want string, msg ...any) {
	t.Helper()
	assert.True(t, strings.Contains(text, want), "the report does not say %q %v", want, msg)
}

func saysNot(t *testing.T, text, want string, msg ...any) {
	t.Helper()
	if i := strings.Index(text, want); i >= 0 {
		t.Errorf("the report says %q (%v): …%s…", want, msg, text[max(0, i-200):min(len(text), i+200)])
	}
}

// figureOf is a timeline's figure of that name.
func figureOf(t *testing.T, s matrix.StageResult, name string) float64 {
	t.Helper()
	require.NotNil(t, s.Summary, s.Title)
	for _, f := range s.Summary.Figures {
		if f.Name == name {
			return f.Value
		}
	}
	t.Fatalf("%s has no figure %q", s.Title, name)
	return 0
}

// ECW's pages are DIRTH's, with the composite workload written out. The
// run is ECW's golden's (golden/tests_golden_test.go): three TCs and QDs
// and shorter points, every stage and page of the test all the same.
func TestECWPages(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.ECW}
		c.Params = map[string]string{"ecw-tc": "32,4,1", "ecw-qd": "32,4,1", "ecw-prewrite": "20m", "ecw-histogram": "5m"}
	})
	doc := Build(ri, res, Options{})
	assert.Equal(t, demandPageOrder("ecw"), landmarks(doc))
	params := paramsOf(t, doc, "ecw-di")
	assert.Equal(t, "RND composite 40/60, 3 LBA zones", params["Test stimulus"])
	text := doc.Text()
	says(t, text, "The stimulus is the enterprise composite workload: RND, 40/60, block sizes by share of I/Os 0.5 KiB 4 %")
	says(t, text, "LBA zones: 50 % of I/O → first 5 %, 30 % → next 15 %, 20 % → last 80 % (of the active range).")
	saysNot(t, text, "RND 0 KiB", "a composite workload has no one block size")
	for _, p := range doc.Pages {
		if p.Test == "ECW" {
			assert.Equal(t, "", p.Warning, "page %q", p.Title)
		}
	}
}

// Host CPU, where the engine measured it, is a shaded TC × QD matrix on a
// page of its own.
func TestDemandCPU(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.DIRTH}
		c.Params = map[string]string{"dirth-tc": "2,1", "dirth-qd": "4,1"}
	})
	dv := &res.Find(pts.DIRTH).Stages[1]
	for i := range dv.Cells {
		dv.Cells[i].CPU = &matrix.CPUResult{UserPct: float64(dv.Cells[i].TC * dv.Cells[i].QD), SysPct: 1}
	}
	doc := Build(ri, res, Options{})
	var cpu *Page
	for _, p := range doc.Pages {
		if p.Landmark == "dirth-cpu" {
			cpu = p
		}
	}
	require.NotNil(t, cpu, "a page of host CPU")
	m, ok := cpu.Blocks[len(cpu.Blocks)-1].(Matrix)
	require.True(t, ok)
	assert.Equal(t, []string{"2", "1"}, m.Rows)
	assert.Equal(t, []string{"4", "1"}, m.Cols)
	assert.Equal(t, [][]float64{{9, 3}, {5, 2}}, m.Values)
	assert.Equal(t, "% of all host CPUs", m.Unit)
	saysNot(t, doc.Text(), "not measured")
}

// An interrupted run still gives the test's pages, saying what is
// missing: a demand variation cut short chooses no points; one cut
// before its first round has a page saying so; a point cut before its
// first sample is named on the points page.
func TestDemandPagesIncomplete(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, _, dir := simRun(t, "enterprise", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.DIRTH}
		c.Params = map[string]string{"dirth-tc": "4,1", "dirth-qd": "4,1", "dirth-pc-round": "4s", "dirth-pc-track": "1s",
			"dirth-round-prewrite": "2s", "dirth-prewrite": "3s", "dirth-histogram": "3s"}
		c.MaxRounds = 6
	})
	recs, _, err := pts.LoadJournal(dir)
	require.NoError(t, err)
	upTo := func(stop func(pts.Record) bool) []pts.Record {
		var keep []pts.Record
		for _, r := range recs {
			if stop(r) {
				break
			}
			keep = append(keep, r)
		}
		return keep
	}
	for _, tc := range []struct {
		name  string
		stop  func(pts.Record) bool
		marks []string
		says  []string
	}{
		{"demand variation in round 2", func(r pts.Record) bool { return r.Type == pts.RecRoundStart && r.Stage == "dirth" && r.Round == 2 },
			[]string{"dirth-pc", "window", "dirth-prewrites", "dirth-convergence", "window", "dirth-dv", "dirth-di", "dirth-toio", "dirth-table", "dirth-points"},
			[]string{"Not chosen: the demand variation did not end, so there are no operating points and no histograms.",
				"MaxIOPS pre-write and histogram run: not run, the run stopped before it.",
				"No measurement window: 1 of the 5 rounds a window needs.",
				"param Max / Mid / Min: not chosen (the demand variation did not end)"}},
		{"demand variation before its first round", func(r pts.Record) bool { return r.Type == pts.RecRoundEnd && r.Stage == "dirth" },
			[]string{"dirth-pc", "window", "no-results", "dirth-points"},
			[]string{"DIRTH demand variation: no complete round, so there is nothing to report for this stage.",
				"Not chosen: the demand variation did not end"}},
		{"MaxIOPS before its first sample", func(r pts.Record) bool { return r.Type == pts.RecSample && r.Stage == "dirth-max" },
			[]string{"dirth-pc", "window", "dirth-prewrites", "dirth-convergence", "window", "dirth-dv", "dirth-di", "dirth-toio", "dirth-table", "dirth-points"},
			[]string{"MaxIOPS pre-write and histogram run: interrupted before its first sample; `ptsrun resume` continues it.",
				"MidIOPS pre-write and histogram run: not run, the run stopped before it."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			part := matrix.Build(ri, upTo(tc.stop), true)
			doc := Build(ri, part, Options{})
			assert.Equal(t, tc.marks, landmarks(doc))
			text := doc.Text()
			for _, s := range tc.says {
				says(t, text, s)
			}
			pdf := render(t, doc, part.Start)
			assert.GreaterOrEqual(t, len(pageObj.FindAll(pdf, -1)), len(doc.Pages), "every page is drawn")
			assert.NotContains(t, shownText(t, pdf), "could not be drawn")
		})
	}
}
