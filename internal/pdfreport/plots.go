package pdfreport

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

func init() {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
}

// Series styles that stay apart in black and white: grey levels, dashes and
// glyph shapes change together.
var (
	seriesColors = []color.Color{
		color.RGBA{0, 0, 0, 255}, color.RGBA{31, 91, 168, 255}, color.RGBA{196, 62, 32, 255},
		color.RGBA{38, 134, 56, 255}, color.RGBA{120, 60, 160, 255}, color.RGBA{150, 110, 20, 255},
		color.RGBA{0, 130, 140, 255}, color.RGBA{110, 110, 110, 255},
	}
	seriesDashes = [][]vg.Length{nil, {vg.Points(4), vg.Points(2)}, {vg.Points(1), vg.Points(1.5)},
		{vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)}, nil, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3)}, {vg.Points(1), vg.Points(3)}}
	seriesGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{},
		draw.CrossGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
)

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(8.5)
		a.Tick.Label.Font.Size = vg.Points(7.5)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(7.5)
	p.Y.Tick.Marker = numTicks{}
	p.Legend.Top = true
	g := plotter.NewGrid()
	g.Horizontal.Color = color.Gray{215}
	g.Vertical.Color = color.Gray{215}
	p.Add(g)
	return p
}

type series struct {
	name string
	xs   []float64
	ys   []float64
	// points draws marks without a line: samples between which there was
	// something else (idle time, another series' samples).
	points bool
}

func (s series) summary(f func(float64) string) string {
	var parts []string
	for i := range s.xs {
		parts = append(parts, f(s.ys[i]))
	}
	return s.name + ": " + strings.Join(parts, " ")
}

// addLines draws each series as a line with marks; on a log axis (logY)
// values ≤ 0 have no place and are left out. A NaN breaks the line: the
// stretches either side of it are one series, drawn apart.
func addLines(p *plot.Plot, ss []series, logY bool) {
	for i, s := range ss {
		var stretches []plotter.XYs
		var cur plotter.XYs
		for j := range s.xs {
			y := s.ys[j]
			if math.IsNaN(y) {
				if len(cur) > 0 {
					stretches, cur = append(stretches, cur), nil
				}
				continue
			}
			if !math.IsInf(y, 0) && (!logY || y > 0) {
				cur = append(cur, plotter.XY{X: s.xs[j], Y: y})
			}
		}
		if len(cur) > 0 {
			stretches = append(stretches, cur)
		}
		k := i % len(seriesColors)
		var legend []plot.Thumbnailer
		for _, pts := range stretches {
			if s.points {
				sc, err := plotter.NewScatter(pts)
				if err != nil {
					continue
				}
				sc.Color, sc.Shape, sc.Radius = seriesColors[k], seriesGlyphs[k], vg.Points(1.2)
				p.Add(sc)
				legend = []plot.Thumbnailer{sc}
				continue
			}
			l, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				continue
			}
			l.Color, l.Dashes, l.Width = seriesColors[k], seriesDashes[k], vg.Points(1)
			sc.Color, sc.Shape, sc.Radius = seriesColors[k], seriesGlyphs[k], vg.Points(2)
			p.Add(l, sc)
			legend = []plot.Thumbnailer{l, sc}
		}
		if legend != nil {
			p.Legend.Add(s.name, legend...)
		}
	}
}

// convergencePlot shows tracking values per round, the measurement window
// shaded.
func convergencePlot(title, ylabel string, ss []series, window [2]int, logY bool) *plot.Plot {
	p := newPlot(title, "Round", ylabel)
	if lo, _ := seriesRange(ss); lo <= 0 {
		logY = false // nothing positive to put on a log axis
	}
	p.X.Tick.Marker = roundTicks{}
	if window[1] >= window[0] && window[0] > 0 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range ss {
			for _, y := range s.ys {
				if y > 0 || !logY {
					lo, hi = math.Min(lo, y), math.Max(hi, y)
				}
			}
		}
		if !math.IsInf(lo, 0) {
			if logY {
				lo, hi = lo/1.5, hi*1.5
			} else {
				lo, hi = math.Min(0, lo), hi*1.1
			}
			band, err := plotter.NewPolygon(plotter.XYs{{X: float64(window[0]) - 0.3, Y: lo},
				{X: float64(window[1]) + 0.3, Y: lo}, {X: float64(window[1]) + 0.3, Y: hi}, {X: float64(window[0]) - 0.3, Y: hi}})
			if err == nil {
				band.Color = color.Gray{238}
				band.LineStyle.Width = 0
				p.Add(band)
				p.Legend.Add(fmt.Sprintf("window, rounds %d–%d", window[0], window[1]), band)
			}
		}
	}
	addLines(p, ss, logY)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{}
	} else {
		p.Y.Min = 0
	}
	p.X.Min, p.X.Max = 0.5, math.Max(float64(window[1])+0.5, 5.5)
	return p
}

// maxSecondsBuckets bounds the points a per-second plot draws: an hour's
// 3600 seconds, or a day's, would be a solid band of marks on a page and
// take seconds to draw.
const maxSecondsBuckets = 300

// thinSeries keeps a long series' envelope in at most buckets × 2 points:
// each bucket of consecutive samples gives its lowest and highest value,
// in the order they came, so peaks and dips stay on the plot. A bucket of
// nothing but NaN keeps one NaN, which still breaks the line.
func thinSeries(ss []series, buckets int) []series {
	out := make([]series, len(ss))
	for i, s := range ss {
		out[i] = s
		n := len(s.xs)
		if n <= 2*buckets {
			continue
		}
		out[i].xs, out[i].ys = nil, nil
		for b := 0; b < buckets; b++ {
			lo, hi := b*n/buckets, (b+1)*n/buckets
			imin, imax := -1, -1
			for j := lo; j < hi; j++ {
				if math.IsNaN(s.ys[j]) {
					continue
				}
				if imin < 0 || s.ys[j] < s.ys[imin] {
					imin = j
				}
				if imax < 0 || s.ys[j] > s.ys[imax] {
					imax = j
				}
			}
			switch {
			case imin < 0:
				out[i].xs, out[i].ys = append(out[i].xs, s.xs[lo]), append(out[i].ys, math.NaN())
			case imin == imax:
				out[i].xs, out[i].ys = append(out[i].xs, s.xs[imin]), append(out[i].ys, s.ys[imin])
			default:
				a, c := min(imin, imax), max(imin, imax)
				out[i].xs, out[i].ys = append(out[i].xs, s.xs[a], s.xs[c]), append(out[i].ys, s.ys[a], s.ys[c])
			}
		}
	}
	return out
}

// windowPlot is the steady-state measurement-window plot: the values, the
// average, 110 % and 90 % of it, and the least-squares line.
func windowPlot(name, unit string, v steadystate.Verdict, c steadystate.Criteria) *plot.Plot {
	ylabel := unit
	if unit == "ms" {
		ylabel = "Response time (ms)"
	}
	p := newPlot(name+": steady-state measurement window", "Round", ylabel)
	p.X.Tick.Marker = roundTicks{}
	x0, x1 := float64(v.FirstRound), float64(v.LastRound)
	hline := func(label string, y float64, dashes []vg.Length, c color.Color) {
		l, err := plotter.NewLine(plotter.XYs{{X: x0 - 0.2, Y: y}, {X: x1 + 0.2, Y: y}})
		if err != nil {
			return
		}
		l.Color, l.Dashes, l.Width = c, dashes, vg.Points(1)
		p.Add(l)
		p.Legend.Add(label, l)
	}
	hline(fmt.Sprintf("average %s", fmtValue(unit, v.Average)), v.Average, nil, color.Gray{60})
	// The band is the allowed range centred on the average: 110 % and 90 %
	// under the PTS rule.
	half := c.MaxRange / 2
	hline(fmt.Sprintf("%.4g %% of average", 100*(1+half)), (1+half)*v.Average, []vg.Length{vg.Points(4), vg.Points(2)}, color.Gray{120})
	hline(fmt.Sprintf("%.4g %% of average", 100*(1-half)), (1-half)*v.Average, []vg.Length{vg.Points(4), vg.Points(2)}, color.Gray{120})
	fit, err := plotter.NewLine(plotter.XYs{{X: x0, Y: v.Slope*x0 + v.Intercept}, {X: x1, Y: v.Slope*x1 + v.Intercept}})
	if err == nil {
		fit.Color, fit.Width, fit.Dashes = color.RGBA{196, 62, 32, 255}, vg.Points(1.2), []vg.Length{vg.Points(1), vg.Points(1.5)}
		p.Add(fit)
		p.Legend.Add("least squares: "+fmtFit(v.Slope, v.Intercept), fit)
	}
	pts := plotter.XYs{}
	for i, y := range v.Values {
		pts = append(pts, plotter.XY{X: x0 + float64(i), Y: y})
	}
	if sc, err := plotter.NewScatter(pts); err == nil {
		sc.Shape, sc.Radius, sc.Color = draw.CircleGlyph{}, vg.Points(3), color.Black
		p.Add(sc)
		p.Legend.Add(name, sc)
	}
	p.X.Min, p.X.Max = x0-0.5, x1+0.5
	lo := math.Min((1-half)*v.Average, minOf(v.Values))
	hi := math.Max((1+half)*v.Average, maxOf(v.Values))
	pad := math.Max((hi-lo)*0.25, 0.02*v.Average)
	p.Y.Min, p.Y.Max = math.Max(0, lo-pad), hi+pad
	return p
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = math.Min(m, x)
	}
	return m
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

func fmtValue(unit string, v float64) string {
	switch unit {
	case "IOPS":
		return fmtIOPS(v) + " IOPS"
	case "MB/s":
		return fmtMBps(v) + " MB/s"
	}
	return fmtMs(v) + " " + unit
}

// logLogPlot is the 2D IOPS plot: IOPS (log) against block size (log, KiB),
// one line per R/W mix.
func logLogPlot(title, ylabel string, sizes []int64, ss []series) *plot.Plot {
	p := newPlot(title, "Block size (KiB)", ylabel)
	lo, hi := seriesRange(ss)
	addLines(p, ss, lo > 0)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks{sizes}
	if len(sizes) > 0 {
		p.X.Min, p.X.Max = float64(slices.Min(sizes))/1024/1.2, float64(slices.Max(sizes))/1024*1.2
	}
	if lo > 0 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{}
		p.Y.Min, p.Y.Max = lo/1.4, hi*1.4
	}
	return p
}

// seriesRange is the smallest positive and the largest value plotted.
func seriesRange(ss []series) (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, s := range ss {
		for _, y := range s.ys {
			if y > 0 && !math.IsInf(y, 0) {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 0
	}
	return lo, hi
}

// decades widens [lo, hi] to whole powers of ten.
func decades(lo, hi float64) (float64, float64) {
	return math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
}

// barPlot draws groups of bars: one group per label, one bar per series.
func barPlot(title, ylabel string, groups []string, ss []series) *plot.Plot {
	return barPlotX(title, "Block size", ylabel, groups, ss)
}

// barPlotX is barPlot with any x-axis label: bars of one group side by
// side, one grey per series from dark to light.
func barPlotX(title, xlabel, ylabel string, groups []string, ss []series) *plot.Plot {
	p := newPlot(title, xlabel, ylabel)
	w := vg.Points(math.Min(28, 72/float64(max(len(ss), 1))))
	for i, s := range ss {
		vals := make(plotter.Values, len(s.ys))
		for j, y := range s.ys {
			if math.IsNaN(y) {
				y = 0
			}
			vals[j] = y
		}
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			continue
		}
		b.Color = color.Gray{uint8(60 + 150*float64(i)/math.Max(1, float64(len(ss)-1)))}
		b.LineStyle.Width = vg.Points(0.5)
		b.Offset = vg.Length(float64(i)-float64(len(ss)-1)/2) * w
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.NominalX(groups...)
	p.Y.Min = 0
	if _, hi := seriesRange(ss); hi > 0 {
		p.Y.Max = niceTop(hi * 1.02) // a labelled grid line above the tallest bar
	}
	return p
}

// histogramPlots are the response-time histogram (I/Os per latency bin, both
// axes log) and its confidence-level curve (the share of I/Os at or under a
// latency, on a nines scale) with marks at 99, 99.9, 99.99 and 99.999 %.
func histogramPlots(title string, h *engine.Histogram) (*plot.Plot, *plot.Plot, string) {
	bins := h.Bins()
	type bin struct{ lo, hi, n float64 }
	// Regroup HdrHistogram's fine bins into 20 per decade.
	grouped := map[int]*bin{}
	var keys []int
	var total float64
	for _, b := range bins {
		msLo := float64(b.LowNs) / 1e6
		k := int(math.Floor(math.Log10(math.Max(msLo, 1e-6)) * 20))
		g := grouped[k]
		if g == nil {
			g = &bin{lo: math.Pow(10, float64(k)/20), hi: math.Pow(10, float64(k+1)/20)}
			grouped[k] = g
			keys = append(keys, k)
		}
		g.n += float64(b.Count)
		total += float64(b.Count)
	}
	sort.Ints(keys)
	hist := newPlot(title+": response-time histogram", "Response time (ms)", "I/Os per bin")
	steps := plotter.XYs{}
	for _, k := range keys {
		g := grouped[k]
		steps = append(steps, plotter.XY{X: g.lo, Y: 0.8}, plotter.XY{X: g.lo, Y: g.n}, plotter.XY{X: g.hi, Y: g.n}, plotter.XY{X: g.hi, Y: 0.8})
	}
	if l, err := plotter.NewLine(steps); err == nil {
		l.Color, l.Width = color.Black, vg.Points(0.8)
		l.FillColor = color.Gray{170}
		hist.Add(l)
	}
	hist.X.Scale, hist.Y.Scale = plot.LogScale{}, plot.LogScale{}
	hist.X.Tick.Marker, hist.Y.Tick.Marker = decadeTicks{}, decadeTicks{}
	hist.Y.Min = 0.8
	var xlo, xhi float64
	if len(keys) > 0 {
		xlo, xhi = decades(grouped[keys[0]].lo, grouped[keys[len(keys)-1]].hi)
		hist.X.Min, hist.X.Max = xlo, xhi
	}

	clp := newPlot(title+": confidence level", "Response time (ms)", "I/Os at or under (confidence level)")
	// The nines axis goes as far as the I/O count can resolve (one I/O in
	// 10^7 needs 10^7 I/Os), at least to 99.999 %.
	top := math.Max(5, math.Min(7, math.Ceil(math.Log10(math.Max(total, 1)))))
	nines := func(f float64) float64 { return math.Min(top, -math.Log10(math.Max(1-f, 1e-9))) }
	curve := plotter.XYs{}
	var cum float64
	for _, k := range keys {
		g := grouped[k]
		cum += g.n
		curve = append(curve, plotter.XY{X: g.hi, Y: nines(cum / total)})
	}
	if l, err := plotter.NewLine(curve); err == nil {
		l.Color, l.Width = color.Black, vg.Points(1.2)
		clp.Add(l)
		clp.Legend.Add("cumulative share of I/Os", l)
	}
	var marks []string
	for i, q := range []float64{99, 99.9, 99.99, 99.999} {
		v := float64(h.Percentile(q)) / 1e6
		y := nines(q / 100)
		if l, err := plotter.NewLine(plotter.XYs{{X: curve[0].X, Y: y}, {X: v, Y: y}, {X: v, Y: 0}}); err == nil {
			l.Color, l.Dashes, l.Width = seriesColors[i+1], []vg.Length{vg.Points(3), vg.Points(2)}, vg.Points(0.8)
			clp.Add(l)
			clp.Legend.Add(fmt.Sprintf("%g %%: %s ms", q, fmtMs(v)), l)
		}
		marks = append(marks, fmt.Sprintf("%g%%=%s ms", q, fmtMs(v)))
	}
	clp.X.Scale = plot.LogScale{}
	clp.X.Tick.Marker = decadeTicks{}
	if xlo > 0 {
		clp.X.Min, clp.X.Max = xlo, xhi
	}
	clp.Y.Min, clp.Y.Max = 0, top
	var ticks []plot.Tick
	for n := 0.0; n <= top; n++ {
		label := "0 %"
		if n > 0 {
			label = strconv.FormatFloat(100-100*math.Pow(10, -n), 'f', int(n)-2, 64) + " %"
			if n == 1 {
				label = "90 %"
			}
		}
		ticks = append(ticks, plot.Tick{Value: n, Label: label})
	}
	clp.Y.Tick.Marker = plot.ConstantTicks(ticks)
	clp.Legend.Top, clp.Legend.Left = false, false
	summary := fmt.Sprintf("%d I/Os in %d bins; %s", int64(total), len(keys), strings.Join(marks, ", "))
	return hist, clp, summary
}

// timePlot is a timeline's figure per sample against the minute it ended.
func timePlot(title, ylabel string, ss []series, logY bool) *plot.Plot {
	return linePlot(title, "Minute", ylabel, ss, logY)
}

// linePlot is y against x as lines, from 0 or on a log scale.
func linePlot(title, xlabel, ylabel string, ss []series, logY bool) *plot.Plot {
	p := newPlot(title, xlabel, ylabel)
	p.X.Tick.Marker = numTicks{}
	if lo, _ := seriesRange(ss); lo <= 0 {
		logY = false
	}
	// A long series (a day of minutes) is drawn as its envelope, on the
	// axes of all its points.
	addLines(p, thinSeries(ss, maxSecondsBuckets), logY)
	spanAll(p, ss, logY)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{}
	} else {
		p.Y.Min = 0
	}
	return p
}

// spanAll widens p's axes to every point of ss that addLines would draw,
// as if it had drawn them all: an envelope may leave out a series' first
// or last minute, which the axes still reach.
func spanAll(p *plot.Plot, ss []series, logY bool) {
	for _, s := range ss {
		for j := range s.xs {
			x, y := s.xs[j], s.ys[j]
			if math.IsNaN(y) || math.IsInf(y, 0) || logY && y <= 0 {
				continue
			}
			p.X.Min, p.X.Max = math.Min(p.X.Min, x), math.Max(p.X.Max, x)
			p.Y.Min, p.Y.Max = math.Min(p.Y.Min, y), math.Max(p.Y.Max, y)
		}
	}
}

// spansDecade says the series' positive values span a factor of ten or
// more: a log axis shows the small ones.
func spansDecade(ss []series) bool {
	lo, hi := seriesRange(ss)
	return lo > 0 && hi >= 10*lo
}

// logXPlot is y against x with x on a log scale, ticked at the values
// given (every x must be above zero); y from 0, or on a log scale.
func logXPlot(title, xlabel, ylabel string, ss []series, ticks []float64, logY bool) *plot.Plot {
	p := newPlot(title, xlabel, ylabel)
	lo, hi := seriesRange(ss)
	if lo <= 0 {
		logY = false
	}
	addLines(p, ss, logY)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = valueTicks(ticks)
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, x := range s.xs {
			if x > 0 {
				xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			}
		}
	}
	if xlo <= xhi {
		p.X.Min, p.X.Max = xlo/1.25, xhi*1.25
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{}
		p.Y.Min, p.Y.Max = lo/1.3, hi*1.3
	} else {
		p.Y.Min = 0
		headroom(p, ss)
	}
	return p
}

// headroom lifts a linear y axis a little above the highest value, so
// that no mark sits on the plot's edge.
func headroom(p *plot.Plot, ss []series) {
	if _, hi := seriesRange(ss); hi > 0 {
		p.Y.Max = math.Max(p.Y.Max, niceTop(hi*1.04))
	}
}

// hLine draws a level across [x0, x1] with a legend entry: a limit, a
// ceiling.
func hLine(p *plot.Plot, label string, y, x0, x1 float64, c color.Color) {
	l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	if err != nil {
		return
	}
	l.Color, l.Width, l.Dashes = c, vg.Points(1.2), []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(l)
	p.Legend.Add(label, l)
}

// mark is one point a plot singles out, with a label beside it.
type mark struct {
	legend string
	x, y   float64
}

// addMarks draws marks as large glyphs, each shape and colour its own, named
// in the legend: a label beside a mark would lie over the curves it sits on.
func addMarks(p *plot.Plot, marks []mark) {
	shapes := []draw.GlyphDrawer{draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CircleGlyph{}}
	colors := []color.Color{color.RGBA{170, 20, 20, 255}, color.RGBA{200, 110, 0, 255}, color.RGBA{20, 110, 40, 255}}
	for i, m := range marks {
		if math.IsNaN(m.x) || math.IsNaN(m.y) {
			continue
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: m.x, Y: m.y}})
		if err != nil {
			continue
		}
		sc.Shape, sc.Radius, sc.Color = shapes[i%len(shapes)], vg.Points(4), colors[i%len(colors)]
		p.Add(sc)
		p.Legend.Add(m.legend, sc)
	}
}
