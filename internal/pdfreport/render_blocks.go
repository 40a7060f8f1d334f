package pdfreport

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// draw draws a block's body at x, y: the layout in render.go has found
// its place and room.
func (r *renderer) draw(b Block, x, y, w, h float64) {
	switch b := b.(type) {
	case Paragraph:
		size := r.setParagraphFont(b)
		r.pdf.SetXY(x, y)
		for _, l := range b.Lines {
			r.pdf.SetX(x)
			r.pdf.MultiCell(w, size*0.46, l, "", "L", false)
		}
	case Table:
		r.table(b, x, y, w)
	case Matrix:
		r.matrix(b, x, y, w)
	case Chart:
		r.chart(b, x, y, w, h)
	}
}

func (r *renderer) table(t Table, x, y, w float64) {
	pdf := r.pdf
	n := len(t.Head)
	widths := make([]float64, n)
	total := 0.0
	for i := range widths {
		widths[i] = 1
		if i < len(t.Widths) {
			widths[i] = t.Widths[i]
		}
		total += widths[i]
	}
	for i := range widths {
		widths[i] *= w / total
	}
	rh := r.rowH(t)
	size := 7.5
	if t.Small {
		size = 6.3
	}
	align := func(i int) string {
		if i < len(t.Align) {
			return string(t.Align[i])
		}
		if i == 0 {
			return "L"
		}
		return "R"
	}
	pdf.SetFillColor(225, 225, 225)
	r.font("B", size)
	xx := x
	for i, h := range t.Head {
		pdf.SetXY(xx, y)
		pdf.CellFormat(widths[i], rh, r.fit(h, widths[i]-1.5), "1", 0, "C", true, 0, "")
		xx += widths[i]
	}
	r.font("", size)
	for ri, row := range t.Rows {
		xx = x
		yy := y + float64(ri+1)*rh
		shade := ri%2 == 1
		pdf.SetFillColor(245, 245, 245)
		for i := 0; i < n; i++ {
			cell := ""
			if i < len(row) {
				cell = row[i]
			}
			pdf.SetXY(xx, yy)
			pdf.CellFormat(widths[i], rh, r.fit(cell, widths[i]-1.5), "1", 0, align(i), shade, 0, "")
			xx += widths[i]
		}
	}
}

// fit cuts text that would overflow its cell.
func (r *renderer) fit(s string, w float64) string {
	if r.pdf.GetStringWidth(s) <= w {
		return s
	}
	rs := []rune(s)
	for len(rs) > 1 && r.pdf.GetStringWidth(string(rs)+"…") > w {
		rs = rs[:len(rs)-1]
	}
	return string(rs) + "…"
}

// matrix draws a shaded block size × mix matrix: grey levels on a log scale
// of the values, the values printed in each cell, a legend below.
func (r *renderer) matrix(m Matrix, x, y, w float64) {
	pdf := r.pdf
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range m.Values {
		for _, v := range row {
			if v > 0 && !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	// The shade spans at least a factor of ten, so that values a few per
	// cent apart do not look worlds apart.
	slo, shi := lo, hi
	if hi < 10*lo {
		mid := math.Sqrt(lo * hi)
		slo, shi = mid/math.Sqrt(10), mid*math.Sqrt(10)
	}
	level := func(v float64) float64 {
		if !(v > 0) || shi <= slo {
			return 0.5
		}
		return (math.Log(v) - math.Log(slo)) / (math.Log(shi) - math.Log(slo))
	}
	labelW := 24.0
	if m.LabelWidth > 0 {
		labelW = m.LabelWidth
	}
	cw := (w - labelW) / float64(len(m.Cols))
	ch := 7.0
	r.font("B", 7.5)
	pdf.SetFillColor(225, 225, 225)
	pdf.SetXY(x, y)
	corner := m.Corner
	if corner == "" {
		corner = m.RowHead + " \\ R/W"
	}
	pdf.CellFormat(labelW, ch, r.fit(corner, labelW-1), "1", 0, "C", true, 0, "")
	for j, c := range m.Cols {
		pdf.SetXY(x+labelW+float64(j)*cw, y)
		pdf.CellFormat(cw, ch, c, "1", 0, "C", true, 0, "")
	}
	for i, rl := range m.Rows {
		yy := y + float64(i+1)*ch
		r.font("B", 7.5)
		pdf.SetFillColor(225, 225, 225)
		pdf.SetXY(x, yy)
		pdf.CellFormat(labelW, ch, rl, "1", 0, "C", true, 0, "")
		for j := range m.Cols {
			v := m.Values[i][j]
			if m.Ratio {
				low := m.LowIsGood
				if j < len(m.LowIsGoodCol) {
					low = m.LowIsGoodCol[j]
				}
				if i < len(m.LowIsGoodRow) {
					low = m.LowIsGoodRow[i]
				}
				rr, gg, bb, dark := ratioShade(v, low)
				pdf.SetFillColor(rr, gg, bb)
				if dark {
					pdf.SetTextColor(255, 255, 255)
				} else {
					pdf.SetTextColor(0, 0, 0)
				}
			} else {
				g := 250 - int(level(v)*170) // light for low values, dark for high
				if math.IsNaN(v) {
					g = 255
				}
				pdf.SetFillColor(g, g, g)
				if g < 150 {
					pdf.SetTextColor(255, 255, 255)
				} else {
					pdf.SetTextColor(0, 0, 0)
				}
			}
			r.font("", 7.5)
			pdf.SetXY(x+labelW+float64(j)*cw, yy)
			pdf.CellFormat(cw, ch, m.Format(v), "1", 0, "C", true, 0, "")
		}
		pdf.SetTextColor(0, 0, 0)
	}
	r.font("I", 6.5)
	pdf.SetXY(x, y+float64(len(m.Rows)+1)*ch+1)
	better := "higher is better"
	if m.LowIsGood {
		better = "lower is better"
	}
	legend := fmt.Sprintf("Shade: darker = larger %s (log scale over at least a factor of 10; values %s … %s); %s.", m.Unit, m.Format(lo), m.Format(hi), better)
	if m.Ratio {
		if len(m.LowIsGoodCol)+len(m.LowIsGoodRow) > 0 {
			better = "more IOPS and MB/s, less response time"
		}
		legend = "Ratio to the reference: green where better, brown where worse (" + better +
			"); the deeper the shade, the larger the difference (full at 2× either way)."
	}
	pdf.CellFormat(w, 4, legend, "", 0, "L", false, 0, "")
}

// ratioShade colours a ratio to a reference: white at 1, towards green
// where better and brown where worse, full strength at a factor of 2. The
// two hues differ in lightness too, so a grey print still tells them apart
// by the legend and the printed value.
func ratioShade(v float64, lowIsGood bool) (r, g, b int, dark bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 255, 255, 255, false
	}
	x := math.Log2(v)
	if lowIsGood {
		x = -x
	}
	t := math.Min(math.Abs(x), 1)
	mix := func(a, z int) int { return int(math.Round(float64(a) + (float64(z)-float64(a))*t)) }
	if x >= 0 { // better: green
		return mix(255, 46), mix(255, 139), mix(255, 87), t > 0.6
	}
	return mix(255, 150), mix(255, 90), mix(255, 40), t > 0.6 // worse: brown
}

// chart draws a plot with its legend in a column to the right of the data,
// where it cannot cover a line.
func (r *renderer) chart(b Chart, x, y, w, h float64) {
	c := newCanvas(r.pdf, x, y, w, h)
	defer c.end()
	// gonum/plot panics on data it cannot draw (a log axis without a
	// positive value); one such plot must not cost the whole report.
	defer func() {
		if p := recover(); p != nil {
			c.end()
			r.pdf.SetDrawColor(150, 150, 150)
			r.pdf.Rect(x, y, w, h, "D")
			r.font("I", 8)
			r.pdf.SetXY(x, y+h/2-2)
			r.pdf.CellFormat(w, 4, fmt.Sprintf("This plot could not be drawn from these results (%v).", p), "", 0, "C", false, 0, "")
			c = newCanvas(r.pdf, x, y, w, h) // balanced by the deferred end
		}
	}()
	dc := draw.New(c)
	p := b.Plot
	leg := p.Legend
	legW := leg.Rectangle(dc).Size().X + vg.Points(4)
	if legW <= vg.Points(4) || b.LegendInside {
		defer fitTitle(p, dc.Max.X-dc.Min.X)()
		p.Draw(dc)
		return
	}
	gap := vg.Points(6)
	defer fitTitle(p, dc.Max.X-dc.Min.X-legW-gap)()
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	p.Draw(draw.Crop(dc, 0, -(legW + gap), 0, 0))
	// Align the legend's top with the data area's, below the title.
	titleH := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	leg.Top, leg.Left = true, true
	leg.Padding = vg.Points(2.5)
	leg.Draw(draw.Crop(dc, dc.Max.X-legW, 0, 0, -titleH-vg.Points(4)))
}

// fitTitle sets a plot's title smaller when it is wider than the plot,
// and on two lines when that is not enough, so that it is never cut; the
// returned function puts the title back.
func fitTitle(p *plot.Plot, width vg.Length) func() {
	t := &p.Title
	size, text := t.TextStyle.Font.Size, t.Text
	shrink := func(min vg.Length) {
		for t.TextStyle.Font.Size > min && t.TextStyle.Width(t.Text) > width {
			t.TextStyle.Font.Size -= vg.Points(0.5)
		}
	}
	shrink(vg.Points(8))
	if t.TextStyle.Width(t.Text) > width && !strings.Contains(t.Text, "\n") {
		// Break at the space nearest the middle.
		mid, at := len(t.Text)/2, -1
		for i, r := range t.Text {
			if r == ' ' && (at < 0 || abs(i-mid) < abs(at-mid)) {
				at = i
			}
		}
		if at > 0 {
			t.Text = t.Text[:at] + "\n" + t.Text[at+1:]
		}
	}
	shrink(vg.Points(7))
	return func() { t.TextStyle.Font.Size, t.Text = size, text }
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
