package pdfreport

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/ptsrun/ptsrun/internal/golden/goldentest"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// simRun is goldentest's, under the name the tests use.
var simRun = goldentest.SimRun

func render(t testing.TB, d *Doc, created time.Time) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, d.Render(&buf, created))
	return buf.Bytes()
}

var pageObj = regexp.MustCompile(`/Type /Page\b[^s]`)

func golden(t *testing.T, name, got string) {
	t.Helper()
	goldentest.File(t, filepath.Join("testdata", name), []byte(got), *update)
}

// TestReportGolden guards the report's content, page by page: every number,
// caption, header field and series, as the report prints them.
func TestReportGolden(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", nil)
	doc := Build(ri, res, Options{})
	golden(t, "enterprise.golden", doc.Text())

	pdf := render(t, doc, res.Start)
	assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")), "not a PDF")
	assert.Less(t, len(pdf), 5<<20, "the report must stay under 5 MB")
	// The same results give the same file.
	assert.Equal(t, pdf, render(t, Build(ri, res, Options{}), res.Start), "rendering is not deterministic")
	// Fonts are embedded, not referenced.
	assert.Contains(t, string(pdf), "/FontFile2")
	assert.Contains(t, string(pdf), "/MediaBox [0 0 595.28 841.89]", "A4 by default")
	// It says ptsrun made it: ptsrun replaces only a report of its own.
	assert.True(t, Produced(pdf))
	for _, other := range [][]byte{nil, []byte("%PDF-1.3\n/Producer (other)"), bytes.Replace(pdf, []byte("%PDF-"), []byte("%PDX-"), 1),
		[]byte("hello")} {
		assert.False(t, Produced(other), "%.20q", other)
	}
}

// pdftotext reads the PDF back the way a reader would; the test skips when
// poppler-utils is missing (CI installs it).
func pdftotext(t *testing.T, pdf []byte) []string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not found (apt-get install poppler-utils); skipping the read-back checks")
	}
	f := filepath.Join(t.TempDir(), "report.pdf")
	require.NoError(t, os.WriteFile(f, pdf, 0o644))
	out, err := exec.Command("pdftotext", "-layout", f, "-").CombinedOutput()
	require.NoError(t, err, "%s", out)
	pages := strings.Split(string(out), "\f")
	if len(pages) > 0 && strings.TrimSpace(pages[len(pages)-1]) == "" {
		pages = pages[:len(pages)-1]
	}
	return pages
}

// TestReportReadsBack renders the report and reads it back: every sheet
// carries the header with its page number, and the tables print the same
// numbers as the CSV tables.
func TestReportReadsBack(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", nil)
	pdf := render(t, Build(ri, res, Options{}), res.Start)
	pages := pdftotext(t, pdf)
	n := len(pageObj.FindAll(pdf, -1))
	require.Equal(t, n, len(pages), "pdftotext and the page objects disagree")
	require.GreaterOrEqual(t, n, 15)
	for i, p := range pages {
		assert.Contains(t, p, fmt.Sprintf("Page %d of %d", i+1, n))
		assert.Contains(t, p, "SNIA SSS TWG: Solid State Storage")
		assert.Contains(t, p, "Rev. PTS-E 2.0.2")
		for _, col := range []string{"Test Platform", "Device Under Test", "Set-Up Parameters", "Test Parameters"} {
			assert.Contains(t, p, col, "page %d", i+1)
		}
		assert.Contains(t, p, "Start: 2026-01-02 03:04", "page %d: the run's own start time", i+1)
	}
	// The IOPS table prints the CSV's numbers, rounded to whole IOPS.
	page := pageWith(t, pages, "Tabular Data and 3D Plot equivalent")
	for _, tb := range res.Tables() {
		if tb.Name != "iops" {
			continue
		}
		for i, row := range tb.Rows {
			var want []string
			for _, v := range tb.Values[i] {
				want = append(want, fmtIOPS(v))
			}
			line := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(strings.Replace(row, "KiB", " KiB", 1)) + `\s+(.*)$`).FindStringSubmatch(page)
			require.NotNil(t, line, "row %s missing from the IOPS table", row)
			assert.Equal(t, want, strings.Fields(line[1]), "IOPS table row %s", row)
		}
	}
	summary := pages[0]
	assert.Contains(t, summary, "Compliance verdict: Does NOT conform")
	assert.Contains(t, summary, "simulated SSD")
}

func pageWith(t *testing.T, pages []string, s string) string {
	t.Helper()
	for _, p := range pages {
		if strings.Contains(p, s) {
			return p
		}
	}
	t.Fatalf("no page contains %q", s)
	return ""
}

// A run that never reaches steady state says so on every page of its tests,
// in its verdict and in the determination tables.
func TestReportNotSteady(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "client", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.IOPS}
		c.CellTime = pts.Duration(10 * time.Second)
		c.MaxRounds = 6
		c.SS.MaxRange, c.SS.MaxSlope = 0.005, 0.002
	})
	require.False(t, res.Tests[0].Stages[0].Steady)
	doc := Build(ri, res, Options{})
	text := doc.Text()
	assert.Contains(t, text, "steady state was not reached in 6 rounds")
	assert.Contains(t, text, "FAIL: not steady")
	assert.Contains(t, text, "range ≤ 0.5 %, slope excursion ≤ 0.2 %")
	assert.Contains(t, text, "Allowed maximum data excursion (0.5 % of average)")
	for _, p := range doc.Pages {
		if p.Test != "" {
			assert.Equal(t, "SS NOT ACHIEVED", p.Warning, "page %q", p.Title)
		}
	}
	pages := pdftotext(t, render(t, doc, res.Start))
	for _, p := range pages[1:] {
		if strings.Contains(p, "IOPS Test") {
			assert.Contains(t, p, "SS NOT ACHIEVED")
		}
	}
}

// A skipped purge and a short run are deviations, listed in plain words.
func TestReportDeviations(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.TP}
		c.CellTime = pts.Duration(5 * time.Second)
		c.Purge = "none"
		c.TPActiveRange = 50
	})
	text := Build(ri, res, Options{}).Text()
	for _, want := range []string{
		"Does NOT conform to SNIA SSS PTS-E 2.0.2",
		"Each cell ran 5s instead of the PTS's 1m0s.",
		"Throughput: the active range was 50 %, below the PTS-E profile's 100 %.",
		"Throughput 1024 KiB and Throughput 128 KiB: the device was not purged (--purge none).",
		"device Purge: none (not purged)",
	} {
		assert.True(t, strings.Contains(text, want), "the report does not say %q", want)
	}
}

func TestReportLetter(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "client", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.LAT}
		c.CellTime = pts.Duration(10 * time.Second)
	})
	pdf := render(t, Build(ri, res, Options{Paper: "letter"}), res.Start)
	assert.Contains(t, string(pdf), "/MediaBox [0 0 612.00 792.00]")
	assert.NotContains(t, string(pdf), "595.28")
}

// An interrupted run still gives a report: what is there, marked incomplete.
func TestReportIncomplete(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, dir := simRun(t, "client", func(c *pts.Config) {
		c.Tests = []pts.TestID{pts.IOPS}
		c.CellTime = pts.Duration(10 * time.Second)
	})
	recs, _, err := pts.LoadJournal(dir)
	require.NoError(t, err)
	// Keep the journal up to the middle of round 2.
	var keep []pts.Record
	for _, r := range recs {
		if r.Type == pts.RecCell && r.Round == 2 && *r.Cell == 20 {
			break
		}
		keep = append(keep, r)
	}
	part := matrix.Build(ri, keep, true)
	require.False(t, part.Complete)
	full, cut := res.Tests[0].Stages[0], part.Tests[0].Stages[0]
	require.Greater(t, full.Rounds, 1, "the whole run must go past the cut")
	require.False(t, cut.Complete)
	require.Equal(t, 1, cut.Rounds, "round 1 is complete, round 2 cut short")

	doc := Build(ri, part, Options{})
	assert.Contains(t, doc.Header.Finish, "(incomplete)")
	text := doc.Text()
	for _, want := range []string{
		"param Complete: no",
		"IOPS: the stage did not finish (1 complete round).",
		"The journal's last line was cut short (the process was killed); that record is ignored.",
		"incomplete (1 rounds)",
		"No measurement window: 1 of the 5 rounds a window needs.",
	} {
		assert.True(t, strings.Contains(text, want), "the report does not say %q", want)
	}
	// What is there: round 1 of every tracking variable, as the whole run
	// measured it, and no round after it.
	for i, tv := range cut.Tracking {
		require.Len(t, tv.Values, 1, tv.Name)
		assert.Equal(t, full.Tracking[i].Values[0], tv.Values[0], "%s: round 1 is the same journal", tv.Name)
		line := "\n" + tv.Name + ": " + fmtIOPS(tv.Values[0]) + "\n"
		assert.True(t, strings.Contains(text, line), "the convergence plot does not show round 1 alone: %q", line)
	}
	pages := 0
	for _, p := range doc.Pages {
		if p.Test == "" {
			continue
		}
		pages++
		assert.Equal(t, "STAGE INCOMPLETE", p.Warning, "page %q", p.Title)
	}
	assert.NotZero(t, pages, "the test's pages are there")
	assert.NotContains(t, text, "Average of the window | 0 IOPS", "no window, no zeros made up for it")

	pdf := render(t, doc, part.Start)
	assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")))
	assert.GreaterOrEqual(t, len(pageObj.FindAll(pdf, -1)), len(doc.Pages), "every page is drawn")
	assert.Contains(t, shownText(t, pdf), "STAGE INCOMPLETE", "the drawn pages carry the warning")
}

// BenchmarkReport builds and renders the full report of an IOPS +
// throughput + latency run (the results already loaded).
func BenchmarkReport(b *testing.B) {
	ri, res, _ := simRun(b, "enterprise", nil)
	b.ReportAllocs()
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		if err := Build(ri, res, Options{}).Render(&buf, res.Start); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "pdf-bytes")
}

// A plot gonum cannot draw (nothing positive on a log axis) becomes a note
// on its page; the report is still written. The note is read back from the
// PDF itself, and by pdftotext as well where it is installed.
func TestUndrawablePlot(t *testing.T) {
	p := plot.New()
	p.Y.Scale = plot.LogScale{}
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
	require.NoError(t, err)
	p.Add(l)
	d := &Doc{Pages: []*Page{{Title: "broken", Blocks: []Block{
		Chart{Caption: "zeros on a log axis", Plot: p},
		Paragraph{Lines: []string{"text after the plot"}},
	}}}}
	pdf := render(t, d, time.Unix(0, 0))
	assert.True(t, bytes.HasPrefix(pdf, []byte("%PDF-")))
	assert.True(t, bytes.HasSuffix(bytes.TrimSpace(pdf), []byte("%%EOF")), "the file is whole")
	require.Len(t, pageObj.FindAll(pdf, -1), 1)
	shown := shownText(t, pdf)
	assert.Contains(t, shown, "This plot could not be drawn from these results")
	assert.Contains(t, shown, "zeros on a log axis", "the caption stays")
	assert.Contains(t, shown, "text after the plot", "the page goes on after the plot")

	if _, err := exec.LookPath("pdftotext"); err == nil {
		pages := pdftotext(t, pdf)
		require.Len(t, pages, 1)
		assert.Contains(t, pages[0], "This plot could not be drawn")
	}
}

// Each latency table's caption says how its values are made from the
// window, and the values are what it says: the maximum of the maxima for
// MRT, their mean in a table of its own.
func TestLatencyTableCaptionsMatchValues(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", nil)
	doc := Build(ri, res, Options{})
	var page *Page
	for _, p := range doc.Pages {
		if p.Landmark == "lat-table" {
			page = p
		}
	}
	require.NotNil(t, page)
	tables := map[string]Table{}
	for _, b := range page.Blocks {
		if tb, ok := b.(Table); ok {
			tables[strings.SplitN(tb.Caption, " (", 2)[0]] = tb
		}
	}
	lat := res.Find("lat").Stages[0]
	c := lat.Cells[0] // 8 KiB 100/0: row 0, column 1
	for _, tc := range []struct {
		title, says string
		want        float64
	}{
		{"Maximum response time", "the maximum over the measurement window", c.LatMaxMs},
		{"Mean of each round's maximum response time", "as other PTS tools report MRT", c.LatMaxMeanMs},
		{"Average response time", "I/O-weighted mean", c.LatMeanMs},
	} {
		tb, ok := tables[tc.title]
		require.True(t, ok, "no table %q on the page", tc.title)
		assert.Contains(t, tb.Caption, tc.says)
		assert.NotContains(t, tb.Caption, "window average", "not every table is an average")
		assert.Equal(t, fmtMs(tc.want), tb.Rows[0][1], tc.title)
	}
	assert.NotEqual(t, fmtMs(c.LatMaxMs), fmtMs(c.LatMaxMeanMs), "the test needs a cell whose two figures differ")
}

// The header names each test's outer and inner loop as pts defines them:
// throughput loops over block sizes outside, R/W mixes inside.
func TestLoopLabelsInHeaders(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", nil)
	doc := Build(ri, res, Options{})
	seen := map[string]bool{}
	for _, p := range doc.Pages {
		keys := map[string]bool{}
		for _, kv := range p.Params {
			keys[kv.K] = true
		}
		switch p.Test {
		case "Throughput":
			if len(p.Params) > 0 {
				assert.True(t, keys["Block size (outer)"] && keys["R/W mix (inner)"], "%s: %v", p.Title, p.Params)
				seen[p.Test] = true
			}
		case "IOPS", "Latency":
			if len(p.Params) > 0 {
				assert.True(t, keys["R/W mix (outer)"] && keys["Block size (inner)"], "%s: %v", p.Title, p.Params)
				seen[p.Test] = true
			}
		}
	}
	assert.Len(t, seen, 3)
}

// A quick look (--block-sizes, --mixes) says so on page 1, its headers
// list what ran, and its tables keep the full matrix with the cells left
// out empty, never zero.
func TestReportQuickLook(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", func(c *pts.Config) {
		c.CellTime = pts.Duration(5 * time.Second)
		c.BlockSizes = []int64{4 << 10, 64 << 10, 1 << 20}
		c.Mixes = []int{100, 65, 0}
	})
	doc := Build(ri, res, Options{})
	text := doc.Text()
	summary, _, _ := strings.Cut(text, "\n=== section 2 ")
	for _, want := range []string{
		"IOPS: a quick look at 9 of the matrix's 56 cells (--block-sizes, --mixes); left out: block sizes 128, 32, 16, 8 and 0.5 KiB; " +
			"R/W mixes 95/5, 50/50, 35/65 and 5/95.",
		"Throughput: a quick look at 2 of the matrix's 4 cells (--block-sizes); left out: the stage of block size 128 KiB.",
		"Latency: a quick look at 3 of the matrix's 9 cells (--block-sizes); left out: block sizes 8 and 0.5 KiB.",
	} {
		assert.Contains(t, summary, want, "page 1 names what was left out")
	}
	params := map[string]map[string]string{}
	for _, p := range doc.Pages {
		if p.Test == "" || len(p.Params) == 0 {
			continue
		}
		params[p.Test] = map[string]string{}
		for _, kv := range p.Params {
			params[p.Test][kv.K] = kv.V
		}
	}
	assert.Equal(t, "IOPS loop: RND, 3 R/W mixes × 3 block sizes", params["IOPS"]["Test stimulus"])
	assert.Equal(t, "100/0, 65/35, 0/100", params["IOPS"]["R/W mix (outer)"])
	assert.Equal(t, "1024, 64, 4 KiB", params["IOPS"]["Block size (inner)"])
	assert.Equal(t, "1024 KiB (this stage of 1024 KiB)", params["Throughput"]["Block size (outer)"])
	assert.Equal(t, "Latency loop: RND, 3 R/W mixes × 1 block size", params["Latency"]["Test stimulus"])
	assert.Equal(t, "4 KiB", params["Latency"]["Block size (inner)"])

	assert.Contains(t, text, "\n128 KiB | – | – | – | – | – | – | –\n", "a left-out row of the IOPS table")
	assert.Regexp(t, `\n4 KiB \| [0-9,]+ \| – \| [0-9,]+ \| – \| – \| – \| [0-9,]+\n`, text, "the IOPS table's 4 KiB row")
	assert.Contains(t, text, "\n128 KiB | – | –\n", "the throughput stage left out")
	assert.NotContains(t, text, "| 0 |", "nothing left out shows as zero")
	// The 2D plot joins the cells that ran: a line per mix through its
	// three block sizes, no gap at the sizes left out.
	assert.Regexp(t, `\n100/0: [0-9,]+ [0-9,]+ [0-9,]+\n65/35: [0-9,]+ [0-9,]+ [0-9,]+\n0/100: [0-9,]+ [0-9,]+ [0-9,]+\nPlot \d+ – IOPS against block size`, text)
}

// XSR's pages: throughput over its access groups, throughput with the
// response times, and each group's figures with the recovery time and its
// definition.
func TestXSRPages(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", func(c *pts.Config) {
		c.Tests, c.Params = []pts.TestID{pts.XSR}, map[string]string{"xsr-groups": "2h,1h,3h"}
	})
	doc := Build(ri, res, Options{})
	marks := map[string]bool{}
	for _, p := range doc.Pages {
		marks[p.Landmark] = true
	}
	for _, m := range []string{"xsr-throughput", "xsr-response", "xsr-summary"} {
		assert.True(t, marks[m], "page %s", m)
	}
	assert.False(t, marks["appendix-tracking"], "a time series has no tracking variables per round")
	text := doc.Text()
	assert.Contains(t, text, "Recovery time: ")
	assert.Contains(t, text, pts.XSRRecovery)
	assert.Contains(t, text, "Cross Stimulus Recovery | SEQ 1024 KiB W / RND 8 KiB W | recovery time: ")
	assert.Contains(t, text, "Sustained recovery: ")
	assert.NotContains(t, text, "SS NOT ACHIEVED", "no steady state is sought")
}

// WSAT's pages: IOPS against time (linear and log), TGBW and drive fills
// (GB said to be 10^9 bytes), the response times, the last hour's
// histogram, and every hour with the write cliff defined.
func TestWSATPages(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "client", func(c *pts.Config) {
		c.Tests, c.Params = []pts.TestID{pts.WSAT}, map[string]string{"wsat-fills": "2", "wsat-time": "3h"}
	})
	doc := Build(ri, res, Options{})
	marks := map[string]bool{}
	for _, p := range doc.Pages {
		marks[p.Landmark] = true
	}
	for _, m := range []string{"wsat-time", "wsat-tgbw", "wsat-response", "wsat-histogram", "wsat-summary"} {
		assert.True(t, marks[m], "page %s", m)
	}
	text := doc.Text()
	assert.Contains(t, text, "TGBW in GB, 10^9 bytes (--wsat-tgbw)")
	assert.Contains(t, text, "IOPS against drive fills")
	assert.Contains(t, text, pts.WSATCliff)
	assert.Contains(t, text, "Write Saturation: --wsat-fills 2 instead of 4.")
	st := res.Find(pts.WSAT).Stages[0]
	assert.Contains(t, st.EndedBy, "2 × the capacity was written", "client: 2 fills come before 3 hours")

	// TGBW in GiB, the forks' and the glossary's reading: every TGBW of the
	// pages in it, and no deviation.
	ri, res, _ = simRun(t, "client", func(c *pts.Config) {
		c.Tests, c.Params = []pts.TestID{pts.WSAT}, map[string]string{"wsat-fills": "2", "wsat-tgbw": "GiB"}
	})
	text = Build(ri, res, Options{}).Text()
	for _, want := range []string{"TGBW in GiB, 2^30 bytes (--wsat-tgbw)", "| TGBW GiB |", "GiB written (", "TGBW (GiB) and drive fills",
		"This run: --wsat-tgbw GiB, as "} {
		assert.Contains(t, text, want)
	}
	assert.NotContains(t, text, "TGBW GB")
	assert.NotContains(t, text, "--wsat-tgbw GiB instead", "another harness's reading is no deviation")
}

// The readings appendix: each test's rules in its description's words,
// then every reading the run rests on with its source, the other
// harnesses' readings and the flag for another; the verdict names it.
func TestReadingsAppendix(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", func(c *pts.Config) {
		c.Tests, c.Params = []pts.TestID{pts.XSR}, map[string]string{"xsr-groups": "30m,20m,30m"}
	})
	doc := Build(ri, res, Options{})
	text := doc.Text()
	assert.Contains(t, text, "Compliance verdict: Does NOT conform to SNIA SSS PTS-E 2.0.2 for the Cross Stimulus Recovery test, as read in appendix C:")
	_, appendix, ok := strings.Cut(text, "Report – Appendix C: How this report reads PTS 2.0.2\n")
	require.True(t, ok, "appendix C")
	for _, r := range pts.XSRTest.RulesOf(ri.Config) {
		assert.Contains(t, appendix, strings.ToUpper(r.Name[:1])+r.Name[1:]+": "+r.Text+".")
	}
	for i, r := range pts.ReadingsOf(ri.Config) {
		assert.Contains(t, appendix, fmt.Sprintf("C.%d %s\nptsrun reads it as: %s.\nSource: %s.", i+1, r.Topic, r.Ours, r.Source))
		assert.Contains(t, appendix, "Another reading: "+r.ChooseWords()+".")
	}
	assert.Contains(t, appendix, "This run: --xsr-groups 30m,20m,30m (a deviation).")
}

// HIR's pages: the preconditioning's convergence and window, IOPS against
// time over every wait state, and each wait state against the baseline,
// the baseline defined on the page.
func TestHIRPages(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", func(c *pts.Config) {
		c.Tests, c.Params = []pts.TestID{pts.HIR}, map[string]string{"hir-cycles": "40", "hir-baseline": "5m", "hir-wait-states": "1,10"}
	})
	doc := Build(ri, res, Options{})
	marks := map[string]bool{}
	for _, p := range doc.Pages {
		marks[p.Landmark] = true
	}
	for _, m := range []string{"hir-pc", "window", "hir-time", "hir-summary"} {
		assert.True(t, marks[m], "page %s", m)
	}
	text := doc.Text()
	assert.Contains(t, text, "Baseline: ")
	assert.Contains(t, text, pts.HIRBaseline+". Each ratio below is to it.")
	assert.Contains(t, text, "Returns to the baseline: ")
	assert.Contains(t, text, "10 | 50 | 40 | ")
	assert.Contains(t, text, "setup Pre-condition: the drive as HIR preconditioning left it")
	assert.Contains(t, text, "Host Idle Recovery: --hir-cycles 40 instead of 360.")
	assert.Contains(t, text, "30m0s per round: cells of 29m0s and 1m0s")
	st := res.Find(pts.HIR)
	require.Len(t, st.Stages, 2)
	assert.True(t, st.Stages[0].Steady, "the preconditioning reached steady state")
	sum := st.Stages[1].Summary
	require.NotNil(t, sum)
	require.Len(t, sum.Rows, 2)
	assert.Greater(t, sum.Rows[1][3], sum.Rows[0][3], "longer idle, faster bursts")
}

// WSAT's optional steady-state method adds its convergence and window
// pages, is no deviation, and its verdict is on the first page.
func TestWSATSteadyStatePages(t *testing.T) {
	t.Parallel() // a simulated run, CPU-bound: beside the others
	ri, res, _ := simRun(t, "enterprise", func(c *pts.Config) {
		// Fills enough for the simulated drive to reach steady state first.
		c.Tests, c.Params = []pts.TestID{pts.WSAT}, map[string]string{"wsat-ss": "true", "wsat-fills": "8"}
	})
	doc := Build(ri, res, Options{})
	marks := map[string]bool{}
	for _, p := range doc.Pages {
		marks[p.Landmark] = true
	}
	for _, m := range []string{"wsat-time", "wsat-ss", "window", "wsat-summary", "appendix-tracking"} {
		assert.True(t, marks[m], "page %s", m)
	}
	text := doc.Text()
	for _, d := range res.Deviations {
		assert.NotContains(t, d.Text, "--wsat-ss", "an option the PTS offers is not a deviation")
	}
	assert.Contains(t, text, "This run: --wsat-fills 8 (a deviation); --wsat-ss true, as ", "the readings appendix says how the run read the stop rule")
	assert.Contains(t, text, "Write Saturation | ")
	assert.Regexp(t, `\d+ samples; steady at round \d+ \(window \d+–\d+\)`, text)
	assert.Contains(t, text, "IOPS of the round's check minute")
	st := res.Find(pts.WSAT).Stages[0]
	assert.True(t, st.Steady)
	assert.True(t, st.SeeksSteady())
}
