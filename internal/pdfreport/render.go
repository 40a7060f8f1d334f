package pdfreport

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"codeberg.org/go-fonts/liberation/liberationmonoregular"
	"codeberg.org/go-fonts/liberation/liberationsansbold"
	"codeberg.org/go-fonts/liberation/liberationsansitalic"
	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"codeberg.org/go-pdf/fpdf"
)

// Embedded font families.
const (
	fontSans = "LiberationSans"
	fontMono = "LiberationMono"
)

// Page geometry in millimetres.
const (
	margin     = 10.0
	headerH    = 58.0 // the SNIA header band
	captionH   = 6.0
	blockGap   = 4.0
	footerH    = 5.0
	headerFont = 6.2
	bodyFont   = 8.5
)

type renderer struct {
	pdf       *fpdf.Fpdf
	doc       *Doc
	w, h      float64 // page size
	page      int
	captions  counters
	createdAt time.Time
	sheets    []sheet
}

// Render writes the PDF. created is the run's own time, the only date in it.
func (d *Doc) Render(w io.Writer, created time.Time) error {
	size := "A4"
	if strings.EqualFold(d.Paper, "letter") {
		size = "Letter"
	}
	pdf := fpdf.New("P", "mm", size, "")
	pdf.SetCreationDate(created)
	pdf.SetModificationDate(created)
	pdf.SetCatalogSort(true)
	pdf.SetProducer(producer, true)
	pdf.SetCreator(producer, true)
	pdf.SetTitle("SNIA SSS PTS report: "+d.Header.Vendor+" "+d.Header.Model, true)
	pdf.SetAutoPageBreak(false, margin)
	pdf.SetMargins(margin, margin, margin)
	pdf.AddUTF8FontFromBytes(fontSans, "", liberationsansregular.TTF)
	pdf.AddUTF8FontFromBytes(fontSans, "B", liberationsansbold.TTF)
	pdf.AddUTF8FontFromBytes(fontSans, "I", liberationsansitalic.TTF)
	pdf.AddUTF8FontFromBytes(fontSans, "BI", liberationsansbold.TTF)
	pdf.AddUTF8FontFromBytes(fontMono, "", liberationmonoregular.TTF)
	pw, ph := pdf.GetPageSize()
	r := &renderer{pdf: pdf, doc: d, w: pw, h: ph, captions: counters{}, createdAt: created}
	r.sheets = r.layout(d.Pages)
	for i, sh := range r.sheets {
		r.page = i + 1
		pdf.AddPage()
		r.header(sh.page)
		r.body(sh.blocks)
		r.footer()
		if err := pdf.Error(); err != nil {
			return fmt.Errorf("report page %d (%s): %w", i+1, sh.page.Title, err)
		}
	}
	return pdf.Output(w)
}

// producer is what a PDF of ptsrun's names as its producer and creator.
const producer = "ptsrun"

// producerEntry is the producer as fpdf writes it into the document
// information (UTF-16BE with its byte-order mark).
var producerEntry = func() []byte {
	b := []byte("/Producer (\xfe\xff")
	for _, r := range producer {
		b = append(b, byte(r>>8), byte(r))
	}
	return append(b, ')')
}()

// Produced reports whether pdf is one that ptsrun rendered: a PDF whose
// document information names ptsrun as its producer. ptsrun replaces an
// existing report or comparison only when it is (device.CheckOutput).
func Produced(pdf []byte) bool {
	return bytes.HasPrefix(pdf, []byte("%PDF-")) && bytes.Contains(pdf, producerEntry)
}

// sheet is one printed page: a page's header and the blocks that fit.
type sheet struct {
	page   *Page
	blocks []Block
}

// Flowed charts that would take a share of the page get this height.
const flowChartH = 95.0

func (r *renderer) bodyTop() float64    { return margin + headerH + 2 }
func (r *renderer) bodyBottom() float64 { return r.h - margin - footerH - 1 }

// layout cuts flowing pages into sheets: blocks are placed while they fit,
// tables and paragraphs are split where the sheet ends, anything else moves
// whole to the next sheet.
func (r *renderer) layout(pages []*Page) []sheet {
	var out []sheet
	width := r.w - 2*margin
	avail := r.bodyBottom() - r.bodyTop()
	for _, p := range pages {
		if !p.Flow {
			out = append(out, sheet{page: p, blocks: p.Blocks})
			continue
		}
		queue := append([]Block(nil), p.Blocks...)
		var cur []Block
		used := 0.0
		flush := func() {
			out = append(out, sheet{page: p, blocks: cur})
			cur, used = nil, 0
		}
		for len(queue) > 0 {
			b := queue[0]
			need := r.blockHeight(b, width)
			if len(cur) > 0 {
				need += blockGap
			}
			if used+need <= avail {
				cur, used, queue = append(cur, b), used+need, queue[1:]
				continue
			}
			room := avail - used
			if len(cur) > 0 {
				room -= blockGap
			}
			if head, rest, ok := r.split(b, width, room); ok {
				cur = append(cur, head)
				queue[0] = rest
				flush()
				continue
			}
			if len(cur) == 0 { // taller than a sheet and not splittable: it gets one alone
				cur, queue = append(cur, b), queue[1:]
				flush()
				continue
			}
			flush()
		}
		if len(cur) > 0 || len(out) == 0 || out[len(out)-1].page != p {
			flush()
		}
	}
	return out
}

// blockHeight is what a block takes on a flowing sheet, caption included.
func (r *renderer) blockHeight(b Block, width float64) float64 {
	h := r.height(b, width)
	if h < 0 {
		h = flowChartH
	}
	if b.caption() != "" {
		h += captionH
	}
	return h
}

// split cuts a table or paragraph so that its head fits in room mm; ok is
// false when nothing useful fits (fewer than three rows or lines).
func (r *renderer) split(b Block, width, room float64) (head, rest Block, ok bool) {
	switch b := b.(type) {
	case Table:
		if b.caption() != "" {
			room -= captionH
		}
		n := int(room/r.rowH(b)) - 1 // the header row repeats
		if n < 3 || n >= len(b.Rows) {
			return nil, nil, false
		}
		h, t := b, b
		h.Rows, t.Rows, t.cont = b.Rows[:n], b.Rows[n:], true
		return h, t, true
	case Paragraph:
		size := r.setParagraphFont(b)
		used, n := 0.0, 0
		for _, l := range b.Lines {
			lh := float64(max(1, len(r.pdf.SplitText(l, width)))) * size * 0.46
			if used+lh > room {
				break
			}
			used += lh
			n++
		}
		if n < 3 || n >= len(b.Lines) {
			return nil, nil, false
		}
		h, t := b, b
		h.Lines, t.Lines, t.cont = b.Lines[:n], b.Lines[n:], true
		return h, t, true
	}
	return nil, nil, false
}

func (r *renderer) font(style string, size float64) { r.pdf.SetFont(fontSans, style, size) }

// header draws the SNIA page header: the title band and the four columns.
func (r *renderer) header(p *Page) {
	pdf, h := r.pdf, r.doc.Header
	x, y := margin, margin
	width := r.w - 2*margin
	pdf.SetDrawColor(0, 0, 0)
	pdf.SetLineWidth(0.3)
	pdf.SetFillColor(230, 230, 230)
	pdf.Rect(x, y, width, 15, "FD")
	side := 46.0
	// Left: run dates.
	r.font("", headerFont)
	pdf.SetTextColor(0, 0, 0)
	pdf.SetXY(x+1.5, y+1.5)
	pdf.MultiCell(side-2, 3, "Test Run Date:\nStart: "+h.Start+"\nFinish: "+h.Finish, "", "L", false)
	// Centre: test and page title.
	r.font("B", 11)
	title := r.doc.Kind
	if title == "" {
		title = "Report"
	}
	switch p.Test {
	case "":
	case "Custom":
		title = "Custom Workloads – " + title + " Page"
	default:
		title = p.Test + " Test – " + title + " Page"
	}
	pdf.SetXY(x+side, y+2)
	pdf.CellFormat(width-2*side, 5, title, "", 0, "C", false, 0, "")
	// A long subtitle is set smaller, then cut, so that it never runs
	// into the dates and the page number.
	room := width - 2*side - 2
	size := 8.5
	for r.font("", size); size > 6.5 && pdf.GetStringWidth(p.Title) > room; r.font("", size) {
		size -= 0.5
	}
	pdf.SetXY(x+side, y+8)
	pdf.CellFormat(width-2*side, 4, r.fit(p.Title, room), "", 0, "C", false, 0, "")
	// Right: specification, revision, page.
	r.font("", headerFont)
	pdf.SetXY(x+width-side, y+1.5)
	pdf.MultiCell(side-1.5, 3, "SNIA SSS TWG: Solid State Storage\nPerformance Test Specification (PTS)\nRev. "+h.Spec+"\n", "", "R", false)
	r.font("B", 7.5)
	pdf.SetXY(x+width-side, y+11)
	pdf.CellFormat(side-1.5, 3, fmt.Sprintf("Page %d of %d", r.page, len(r.sheets)), "", 0, "R", false, 0, "")
	// The vendor line.
	y += 15
	pdf.Rect(x, y, width, 5, "D")
	r.font("", 7)
	pdf.SetXY(x+1.5, y+0.8)
	pdf.CellFormat(width-3, 3.5, fmt.Sprintf("Vendor: %s     Model: %s     Tested by: %s     Lab: %s", h.Vendor, h.Model, h.TestedBy, h.Lab), "", 0, "L", false, 0, "")
	if p.Warning != "" {
		r.font("B", 8)
		pdf.SetTextColor(190, 0, 0)
		pdf.SetXY(x+1.5, y+0.7)
		pdf.CellFormat(width-3, 3.5, p.Warning, "", 0, "R", false, 0, "")
		pdf.SetTextColor(0, 0, 0)
	}
	// The four columns.
	y += 5
	colW := width / 4
	cols := []struct {
		title string
		rows  []KV
	}{{"Test Platform", h.Platform}, {"Device Under Test", h.Device}, {"Set-Up Parameters", p.Setup}, {"Test Parameters", p.Params}}
	boxH := headerH - 20 - 2
	for i, c := range cols {
		cx := x + float64(i)*colW
		pdf.SetFillColor(230, 230, 230)
		pdf.Rect(cx, y, colW, 4, "FD")
		r.font("B", 6.8)
		pdf.SetXY(cx, y+0.5)
		pdf.CellFormat(colW, 3, c.title, "", 0, "C", false, 0, "")
		pdf.Rect(cx, y+4, colW, boxH-4, "D")
		// A column that does not fit (a target set: a value per target)
		// is set smaller rather than cut; only past the smallest size do
		// long values end in "…".
		avail := boxH - 5.5
		fs, maxLines := headerFont, 2
		// Every value whole, at the largest size that holds it (a long
		// stimulus wraps to more lines); else cut at two or three lines.
		whole := false
		for size := headerFont; size >= minHeaderFont-1e-9 && !whole; size -= 0.3 {
			if r.kvHeight(colW-2.4, c.rows, size, headerMaxLines) <= avail {
				fs, maxLines, whole = size, headerMaxLines, true
			}
		}
		for size := headerFont; size >= minHeaderFont-1e-9 && !whole; size -= 0.3 {
			fs, maxLines = size, 2
			if size < headerFont {
				maxLines = 3
			}
			if r.kvHeight(colW-2.4, c.rows, size, maxLines) <= avail {
				break
			}
		}
		yy := y + 5
		lineH := kvLineH * fs / headerFont
		for _, kv := range c.rows {
			lines := int((y + boxH - 0.5 - yy) / lineH)
			if lines < 1 {
				break
			}
			yy = r.kv(cx+1.2, yy, colW-2.4, kv, min(lines, maxLines), fs)
		}
	}
}

const (
	kvLineH        = 2.9
	minHeaderFont  = 4.7
	headerMaxLines = 6
)

// kvHeight is the height the rows take in a header column at font size fs.
func (r *renderer) kvHeight(w float64, rows []KV, fs float64, maxLines int) float64 {
	h := 0.0
	for _, kv := range rows {
		r.font("B", fs)
		kw := r.pdf.GetStringWidth(kv.K+": ") + 0.3
		r.font("", fs)
		n := len(r.pdf.SplitText(kv.V, w-kw))
		h += float64(max(1, min(n, maxLines))) * kvLineH * fs / headerFont
	}
	return h
}

// kv writes a "key: value" row in a header column at font size fs, the key
// bold, and returns the next row's position. Long values wrap to maxLines,
// then are cut.
func (r *renderer) kv(x, y, w float64, kv KV, maxLines int, fs float64) float64 {
	pdf := r.pdf
	lineH := kvLineH * fs / headerFont
	r.font("B", fs)
	kw := pdf.GetStringWidth(kv.K+": ") + 0.3
	pdf.SetXY(x, y)
	pdf.CellFormat(kw, lineH, kv.K+":", "", 0, "L", false, 0, "")
	r.font("", fs)
	lines := pdf.SplitText(kv.V, w-kw)
	if len(lines) == 0 {
		lines = []string{""}
	}
	if len(lines) > maxLines {
		lines = lines[:maxLines]
		lines[maxLines-1] = r.fit(strings.TrimRight(lines[maxLines-1], " ")+"…", w-kw)
	}
	for i, l := range lines {
		pdf.SetXY(x+kw, y+float64(i)*lineH)
		pdf.CellFormat(w-kw, lineH, l, "", 0, "L", false, 0, "")
	}
	return y + float64(len(lines))*lineH
}

func (r *renderer) footer() {
	pdf := r.pdf
	r.font("I", 6)
	pdf.SetTextColor(90, 90, 90)
	pdf.SetXY(margin, r.h-margin-footerH+1)
	footer := r.doc.Footer
	if footer == "" {
		footer = "ptsrun — SNIA SSS PTS report; rebuild it with `ptsrun report DIR` from the run's run.json and journal.jsonl"
	}
	pdf.CellFormat(r.w-2*margin, 3, footer, "T", 0, "C", false, 0, "")
	pdf.SetTextColor(0, 0, 0)
}

// body lays the blocks out down the page; blocks without a height share
// what is left.
func (r *renderer) body(blocks []Block) {
	top, bottom := r.bodyTop(), r.bodyBottom()
	x, width := margin, r.w-2*margin
	fixed, flex := 0.0, 0
	heights := make([]float64, len(blocks))
	for i, b := range blocks {
		heights[i] = r.height(b, width)
		if heights[i] < 0 {
			flex++
		} else {
			fixed += heights[i]
		}
		if b.caption() != "" {
			fixed += captionH
		}
	}
	fixed += blockGap * float64(len(blocks)-1)
	share := 0.0
	if flex > 0 {
		share = math.Max(30, (bottom-top-fixed)/float64(flex))
	}
	y := top
	for i, b := range blocks {
		h := heights[i]
		if h < 0 {
			h = share
		}
		r.draw(b, x, y, width, h)
		y += h
		if c := r.captions.next(b); c != "" {
			r.font("B", 8)
			r.pdf.SetTextColor(0, 0, 0)
			r.pdf.SetXY(x, y+0.8)
			r.pdf.CellFormat(width, 4, c, "", 0, "C", false, 0, "")
			y += captionH
		}
		y += blockGap
	}
}

// height is a block's height in mm; −1 when it takes a share of the rest.
func (r *renderer) height(b Block, width float64) float64 {
	switch b := b.(type) {
	case Paragraph:
		size := r.setParagraphFont(b)
		n := 0
		for _, l := range b.Lines {
			n += max(1, len(r.pdf.SplitText(l, width)))
		}
		return float64(n) * size * 0.46
	case Table:
		return float64(len(b.Rows)+1) * r.rowH(b)
	case Matrix:
		return float64(len(b.Rows)+1)*7 + 8
	case Chart:
		if b.Height > 0 {
			return b.Height
		}
		return -1
	}
	return 0
}

// setParagraphFont sets a paragraph's font and returns its size.
func (r *renderer) setParagraphFont(b Paragraph) float64 {
	size := b.Size
	if size == 0 {
		size = bodyFont
	}
	switch {
	case b.Mono:
		r.pdf.SetFont(fontMono, "", size)
	case b.Strong:
		r.font("B", size)
	default:
		r.font("", size)
	}
	return size
}

func (r *renderer) rowH(t Table) float64 {
	if t.Small {
		return 4
	}
	return 5.2
}
