package pdfreport

import (
	"strings"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// Options choose the paper, and hand in what the report shows of a run
// that its results do not hold.
type Options struct {
	Paper string // A4 (default) or Letter
	// JobFiles are the fio job files the appendix shows, by stage ID: each
	// stage's first cell of round 1, as the caller read them.
	JobFiles map[string]JobFile
	// Fio is a `ptsrun fio` run's job files, gate verdicts and per-job
	// figures; nil for other runs.
	Fio *FioRun
}

// JobFile is a job file fio ran: its name in the run directory's fio
// folder, and its text.
type JobFile struct{ Name, Text string }

// Build describes the report of a run: the summary, the pages of each
// test in the order of pts (registered by their page files), the
// per-target page and the appendix.
func Build(ri pts.RunInfo, res *matrix.Results, opt Options) *Doc {
	paper := "A4"
	if strings.EqualFold(opt.Paper, "letter") {
		paper = "Letter"
	}
	b := &builder{ri: ri, res: res, opt: opt, doc: &Doc{Paper: paper}}
	b.header()
	b.summary()
	for _, td := range reportedTests() {
		if t := res.Find(td.ID); t != nil && pagesOf[td.ID].report != nil {
			pagesOf[td.ID].report(b, td, t.Stages)
			b.healthPages(td, t.Stages)
		}
	}
	b.perTarget()
	b.appendix()
	return b.doc
}

// builder collects a report's pages, in order.
type builder struct {
	ri  pts.RunInfo
	res *matrix.Results
	opt Options
	doc *Doc
	// warning goes on the header of every page of the stage being built.
	warning string
	tables  []matrix.Table // the results' tables, made once
}

// tableOf is the results' table of a test's metric, empty when they have
// none.
func (b *builder) tableOf(td *pts.TestDef, m pts.Metric) matrix.Table {
	if b.tables == nil {
		b.tables = b.res.Tables()
	}
	for _, def := range td.Tables {
		for _, t := range b.tables {
			if def.Metric == m && t.Name == def.Name {
				return t
			}
		}
	}
	return matrix.Table{}
}

func (b *builder) add(p *Page) {
	if p.Test != "" {
		p.Warning = b.warning
	}
	if p.Setup == nil && p.Params == nil {
		p.Setup, p.Params = b.runSetup(), b.runParams()
	}
	b.doc.Pages = append(b.doc.Pages, p)
}

// view is a stage's standing in its procedure's words: the one place the
// report asks a stage's kind.
func (b *builder) view(s matrix.StageResult) pts.StageView { return s.View(b.testOf(s)) }

// empty says a stage has no value to report: no complete round or sample,
// and no published values either.
func (b *builder) empty(s matrix.StageResult) bool { return b.view(s).Empty }

// noResults is the one page of a stage that has no value to report,
// saying why, instead of a set of empty plots and tables.
func (b *builder) noResults(test string, s matrix.StageResult) {
	b.stage(s)
	no := b.view(s).NoResults
	lines := []string{no[0], no[1]}
	if s.Purge != nil || s.Precondition != nil {
		lines = append(lines, "The purge and preconditioning it did are in the appendix.")
	}
	b.add(&Page{Test: test, Title: "No results: " + s.Title, Setup: b.setup(s), Landmark: "no-results",
		Params: b.params(s, s.Title, "–", "–"), Blocks: []Block{Paragraph{Lines: lines}}})
}

// stage sets the header warning for a stage's pages.
func (b *builder) stage(s matrix.StageResult) {
	switch {
	case s.Published():
		b.warning = "PUBLISHED VALUES"
	case !s.Started:
		b.warning = "STAGE NOT RUN"
	case !s.Complete:
		b.warning = "STAGE INCOMPLETE"
	case !s.SeeksSteady():
		b.warning = "" // one stimulus over time: no steady state to reach
	case !s.Steady:
		b.warning = "SS NOT ACHIEVED"
	default:
		b.warning = ""
	}
}
