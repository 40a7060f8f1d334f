package pdfreport

import (
	"image"
	"image/color"
	"math"

	"codeberg.org/go-pdf/fpdf"
	stdfnt "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// canvas draws gonum/plot output straight onto an fpdf page, so plots stay
// vector graphics in the report and use its embedded fonts. It is placed on
// a rectangle of the page (millimetres, top-left origin); inside it, vg's
// coordinates (points, bottom-left origin, y up) apply.
type canvas struct {
	pdf   *fpdf.Fpdf
	w, h  vg.Length
	stack []canvasState
}

type canvasState struct {
	width vg.Length
	color color.Color
}

const mmPerPt = 25.4 / 72

func mm(l vg.Length) float64 { return float64(l) * mmPerPt }

// newCanvas starts drawing in the page rectangle at x, y (top-left, mm) of
// w×h mm. end must be called when the drawing is done.
func newCanvas(pdf *fpdf.Fpdf, x, y, w, h float64) *canvas {
	c := &canvas{pdf: pdf, w: vg.Length(w / mmPerPt), h: vg.Length(h / mmPerPt),
		stack: []canvasState{{width: 1, color: color.Black}}}
	pdf.TransformBegin()
	pdf.TransformTranslate(x, y+h)
	pdf.TransformScale(100, -100, 0, 0)
	vg.Initialize(c)
	return c
}

func (c *canvas) end() {
	c.pdf.SetDashPattern(nil, 0)
	c.pdf.SetAlpha(1, "Normal")
	c.pdf.TransformEnd()
	// vg leaves its last colours set; the page's own text and rules are black.
	c.pdf.SetDrawColor(0, 0, 0)
	c.pdf.SetFillColor(255, 255, 255)
	c.pdf.SetTextColor(0, 0, 0)
	c.pdf.SetLineWidth(0.2)
}

func (c *canvas) Size() (vg.Length, vg.Length) { return c.w, c.h }

func (c *canvas) top() *canvasState { return &c.stack[len(c.stack)-1] }

func (c *canvas) SetLineWidth(w vg.Length) {
	c.top().width = w
	c.pdf.SetLineWidth(mm(w))
}

func (c *canvas) SetLineDash(pattern []vg.Length, offset vg.Length) {
	ds := make([]float64, len(pattern))
	for i, d := range pattern {
		ds[i] = mm(d)
	}
	c.pdf.SetDashPattern(ds, mm(offset))
}

func (c *canvas) SetColor(clr color.Color) {
	if clr == nil {
		clr = color.Black
	}
	c.top().color = clr
	r, g, b, a := clr.RGBA()
	if a == 0 {
		c.pdf.SetAlpha(0, "Normal")
		return
	}
	// Colours come premultiplied.
	r8, g8, b8 := int(r*255/a), int(g*255/a), int(b*255/a)
	c.pdf.SetDrawColor(r8, g8, b8)
	c.pdf.SetFillColor(r8, g8, b8)
	c.pdf.SetTextColor(r8, g8, b8)
	if a < 0xffff {
		c.pdf.SetAlpha(float64(a)/0xffff, "Normal")
	} else {
		c.pdf.SetAlpha(1, "Normal")
	}
}

func (c *canvas) Rotate(rad float64) { c.pdf.TransformRotate(-rad*180/math.Pi, 0, 0) }

func (c *canvas) Translate(pt vg.Point) { c.pdf.TransformTranslate(mm(pt.X), mm(pt.Y)) }

func (c *canvas) Scale(x, y float64) { c.pdf.TransformScale(x*100, y*100, 0, 0) }

func (c *canvas) Push() {
	c.stack = append(c.stack, *c.top())
	c.pdf.TransformBegin()
}

func (c *canvas) Pop() {
	c.pdf.TransformEnd()
	c.stack = c.stack[:len(c.stack)-1]
	s := c.top()
	c.pdf.SetLineWidth(mm(s.width))
	c.SetColor(s.color)
}

func (c *canvas) Stroke(p vg.Path) {
	if c.top().width > 0 {
		c.path(p, "D")
	}
}

func (c *canvas) Fill(p vg.Path) { c.path(p, "F") }

func (c *canvas) path(p vg.Path, style string) {
	var x0, y0 float64
	for _, comp := range p {
		switch comp.Type {
		case vg.MoveComp:
			x0, y0 = mm(comp.Pos.X), mm(comp.Pos.Y)
			c.pdf.MoveTo(x0, y0)
		case vg.LineComp:
			c.pdf.LineTo(mm(comp.Pos.X), mm(comp.Pos.Y))
		case vg.ArcComp:
			c.arc(comp)
		case vg.CurveComp:
			px, py := mm(comp.Pos.X), mm(comp.Pos.Y)
			switch len(comp.Control) {
			case 1:
				c.pdf.CurveTo(mm(comp.Control[0].X), mm(comp.Control[0].Y), px, py)
			case 2:
				c.pdf.CurveBezierCubicTo(mm(comp.Control[0].X), mm(comp.Control[0].Y),
					mm(comp.Control[1].X), mm(comp.Control[1].Y), px, py)
			}
		case vg.CloseComp:
			c.pdf.LineTo(x0, y0)
			c.pdf.ClosePath()
		}
	}
	c.pdf.DrawPath(style)
}

// arc approximates an arc with line segments: plot glyphs (circles) are the
// only arcs, and a few degrees per segment is far below what prints.
func (c *canvas) arc(comp vg.PathComp) {
	const steps = 24
	for i := 0; i <= steps; i++ {
		a := comp.Start + comp.Angle*float64(i)/steps
		x := comp.Pos.X + comp.Radius*vg.Length(math.Cos(a))
		y := comp.Pos.Y + comp.Radius*vg.Length(math.Sin(a))
		c.pdf.LineTo(mm(x), mm(y))
	}
}

func (c *canvas) FillString(f font.Face, pt vg.Point, text string) {
	if f.Font.Size == 0 {
		return
	}
	family, style := pdfFont(f.Font)
	c.pdf.SetFont(family, style, float64(f.Font.Size))
	c.Push()
	c.Translate(pt)
	c.Scale(1, -1)
	c.pdf.Text(0, 0, text)
	c.Pop()
}

// pdfFont maps a plot font to the report's embedded families.
func pdfFont(f font.Font) (family, style string) {
	family = fontSans
	if f.Variant == "Mono" {
		family = fontMono
	}
	if f.Weight == stdfnt.WeightBold {
		style += "B"
	}
	if f.Style == stdfnt.StyleItalic {
		style += "I"
	}
	return family, style
}

func (c *canvas) DrawImage(vg.Rectangle, image.Image) {
	// Report plots are vector only; no plotter here draws images.
}
