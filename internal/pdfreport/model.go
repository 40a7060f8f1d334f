package pdfreport

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"

	"github.com/ptsrun/ptsrun/internal/pts"
)

// Doc is a report: the header every page shares, and the pages.
type Doc struct {
	Paper  string // A4 or Letter
	Header Header
	Pages  []*Page
	// Kind titles pages that belong to no test ("Report", "Comparison");
	// Footer is the line under every page. Both have report defaults.
	Kind, Footer string
}

// Header is the part of the SNIA page header that is the same on every page.
type Header struct {
	Start, Finish string // test run start and finish (the run's own times)
	Spec          string // "PTS-E 2.0.2"
	Vendor, Model string
	TestedBy, Lab string // the operator and laboratory, "not stated" when not given
	Platform      []KV   // Test Platform column
	Device        []KV   // Device Under Test column
}

// KV is one row of a header column.
type KV struct{ K, V string }

// Page is one report page.
type Page struct {
	Test     string // "IOPS", "Throughput", "Latency"; "" for the summary and appendix
	Title    string // the page subtitle, e.g. "Steady State Convergence Plot"
	Setup    []KV   // Set-Up Parameters column
	Params   []KV   // Test Parameters column
	Blocks   []Block
	Landmark string // short id for tests ("iops-table")
	// Warning is printed in the header, e.g. "SS NOT ACHIEVED".
	Warning string
	// Flow lets the blocks run over as many sheets as they need, tables and
	// text split between them; otherwise the page is one sheet.
	Flow bool
}

// Block is a piece of a page body.
type Block interface {
	kind() string // "Plot", "Table" or "" (no caption number)
	caption() string
	text() string // the content as text, for the golden tests
}

// Paragraph is running text; Strong lines are drawn bold.
type Paragraph struct {
	Lines  []string
	Strong bool
	Mono   bool // fixed-width (job files, commands)
	Size   float64
	cont   bool // the rest of a paragraph split between sheets
}

func (Paragraph) kind() string    { return "" }
func (Paragraph) caption() string { return "" }
func (p Paragraph) text() string  { return strings.Join(p.Lines, "\n") }

// Table is a table with a header row.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]string
	Widths  []float64 // relative column widths; equal when nil
	Align   string    // one letter per column: L, C or R; right-aligned numbers by default
	Small   bool
	cont    bool // the rest of a table split between sheets
}

func (Table) kind() string      { return "Table" }
func (t Table) caption() string { return t.Caption }
func (t Table) text() string {
	var b strings.Builder
	b.WriteString(strings.Join(t.Head, " | "))
	for _, r := range t.Rows {
		b.WriteString("\n" + strings.Join(r, " | "))
	}
	return b.String()
}

// Matrix is a block size × R/W mix view that prints in black and white:
// cells shaded by value on a log scale, the value written in each.
type Matrix struct {
	Caption   string
	RowHead   string
	Rows      []string
	Cols      []string
	Values    [][]float64 // NaN where absent
	Unit      string
	Format    func(float64) string
	LowIsGood bool // latency: darker is slower either way; the legend says which is better
	// Ratio shades ratios to a reference instead: green where better, brown
	// where worse (LowIsGood says which way is better), white at 1.
	Ratio bool
	// LowIsGoodCol and LowIsGoodRow override LowIsGood per column or row
	// (tables of mixed metrics).
	LowIsGoodCol, LowIsGoodRow []bool
	// Corner is the top-left label; RowHead \ R/W when empty.
	Corner string
	// LabelWidth is the row-label column's width in mm; 24 when zero.
	LabelWidth float64
}

func (m Matrix) kind() string {
	if m.Ratio {
		return "Table"
	}
	return "Plot"
}
func (m Matrix) caption() string { return m.Caption }
func (m Matrix) text() string {
	var b strings.Builder
	b.WriteString(m.RowHead + " | " + strings.Join(m.Cols, " | ") + " (" + m.Unit + ")")
	for i, r := range m.Rows {
		b.WriteString("\n" + r)
		for _, v := range m.Values[i] {
			b.WriteString(" | " + m.Format(v))
		}
	}
	return b.String()
}

// Chart is a gonum plot with a text summary of what it shows.
type Chart struct {
	Caption string
	Plot    *plot.Plot
	Height  float64 // mm; 0 fills the page body
	Summary string  // series and their values, for the golden tests
	// LegendInside keeps gonum's legend placement, for plots with room for it.
	LegendInside bool
}

func (Chart) kind() string      { return "Plot" }
func (c Chart) caption() string { return c.Caption }
func (c Chart) text() string    { return c.Summary }

// Text renders the whole document as text: what the golden tests compare.
// Numbers appear as the report prints them.
func (d *Doc) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "REPORT %s, %d sections\n", d.Paper, len(d.Pages))
	fmt.Fprintf(&b, "run %s – %s, %s, %s %s, tested by %s, lab %s\n", d.Header.Start, d.Header.Finish, d.Header.Spec,
		d.Header.Vendor, d.Header.Model, d.Header.TestedBy, d.Header.Lab)
	for _, kv := range d.Header.Platform {
		fmt.Fprintf(&b, "platform %s: %s\n", kv.K, kv.V)
	}
	for _, kv := range d.Header.Device {
		fmt.Fprintf(&b, "device %s: %s\n", kv.K, kv.V)
	}
	captions := counters{}
	for i, p := range d.Pages {
		fmt.Fprintf(&b, "\n=== section %d of %d: %s – %s\n", i+1, len(d.Pages), pageTest(p), p.Title)
		if p.Warning != "" {
			fmt.Fprintf(&b, "warning: %s\n", p.Warning)
		}
		for _, kv := range p.Setup {
			fmt.Fprintf(&b, "setup %s: %s\n", kv.K, kv.V)
		}
		for _, kv := range p.Params {
			fmt.Fprintf(&b, "param %s: %s\n", kv.K, kv.V)
		}
		for _, bl := range p.Blocks {
			b.WriteString(bl.text())
			b.WriteString("\n")
			if c := captions.next(bl); c != "" {
				b.WriteString(c + "\n")
			}
		}
	}
	return b.String()
}

func pageTest(p *Page) string {
	if p.Test == "" {
		return "Report"
	}
	return p.Test + " Test"
}

// counters numbers captions: Plot 1, Plot 2, Table 1 …
type counters map[string]int

func (c counters) next(b Block) string {
	k := b.kind()
	if k == "" || b.caption() == "" {
		return ""
	}
	if t, ok := b.(Table); ok && t.cont {
		return fmt.Sprintf("%s %d – %s (continued)", k, c[k], b.caption())
	}
	c[k]++
	return fmt.Sprintf("%s %d – %s", k, c[k], b.caption())
}

// Number formats: enough digits to show differences, never rounded before a
// comparison (these are for display only). Measured values are written
// as pts's metrics write them, in every package alike.
var (
	fmtIOPS = pts.FormatIOPS
	fmtMBps = pts.FormatMBps
	fmtMs   = pts.FormatMs
)

// fmtNum writes a plain number readably: thousands grouped from 1,000 up,
// four significant digits below, as pts writes figures.
var fmtNum = pts.FormatNumber

// fmtFit writes a least-squares line as y = m·R + b.
func fmtFit(slope, intercept float64) string {
	sign := "+"
	if intercept < 0 {
		sign, intercept = "−", -intercept
	}
	return fmt.Sprintf("y = %s·R %s %s", strings.Replace(fmtNum(slope), "-", "−", 1), sign, fmtNum(intercept))
}

// fmtPct writes a CPU percentage with one decimal.
func fmtPct(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.1f", v)
}
