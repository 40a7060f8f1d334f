package pdfreport

import (
	"fmt"
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// A workload's time series on its page: IOPS, MB/s and each direction's
// response times (mean, 99 %, 99.9 %, maximum) in every interval, and
// each target's IOPS, the ramp shaded.

// timeAxis is how a series' intervals are placed on a plot: in seconds,
// or minutes for a long run, at each interval's end.
type timeAxis struct {
	unit  float64 // seconds per unit
	label string
}

func axisFor(in []matrix.Interval) timeAxis {
	if len(in) > 0 && in[len(in)-1].StartS+in[len(in)-1].Seconds > 600 {
		return timeAxis{unit: 60, label: "Minute"}
	}
	return timeAxis{unit: 1, label: "Second"}
}

func (a timeAxis) x(in matrix.Interval) float64 { return (in.StartS + in.Seconds) / a.unit }

// rampEnd is when the last ramp interval ends, in seconds; 0 without one.
func rampEnd(in []matrix.Interval) float64 {
	end := 0.0
	for _, i := range in {
		if i.Ramp {
			end = i.StartS + i.Seconds
		}
	}
	return end
}

// lastSeries is the series of a recorded workload's (last) round.
func lastSeries(c *matrix.CellResult) []matrix.Interval {
	if len(c.PerRound) == 0 {
		return nil
	}
	return c.PerRound[len(c.PerRound)-1].Series
}

// dirSeries is one figure of each direction that did I/O, per interval: a
// gap (NaN) where a direction did none.
func dirSeries(in []matrix.Interval, a timeAxis, f func(*matrix.IntervalDir) (float64, bool)) []series {
	read, write := series{name: "read"}, series{name: "write"}
	var anyRead, anyWrite bool
	for _, i := range in {
		x := a.x(i)
		for _, d := range []struct {
			s   *series
			dir *matrix.IntervalDir
			any *bool
		}{{&read, i.Read, &anyRead}, {&write, i.Write, &anyWrite}} {
			y, ok := 0.0, true
			if d.dir != nil {
				y, ok = f(d.dir)
			}
			if !ok {
				y = math.NaN()
			}
			d.s.xs, d.s.ys = append(d.s.xs, x), append(d.s.ys, y)
			*d.any = *d.any || d.dir != nil
		}
	}
	var out []series
	if anyRead {
		out = append(out, read)
	}
	if anyWrite {
		out = append(out, write)
	}
	return out
}

// latSeries is one direction's mean, 99 %, 99.9 % and maximum response
// time per interval, in ms; none when the direction did no I/O. of says
// what the percentiles are of when an engine knows only completion
// latency per interval (fio's histogram logs).
func latSeries(in []matrix.Interval, a timeAxis, read bool) (ss []series, of string) {
	names := []string{"average", "99 %", "99.9 %", "maximum"}
	ss = make([]series, len(names))
	for k := range ss {
		ss[k].name = names[k]
	}
	seen, pct := false, false
	for _, i := range in {
		d := i.Write
		if read {
			d = i.Read
		}
		x := a.x(i)
		vals := []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
		if d != nil {
			seen = true
			if d.MeanMs != nil {
				vals[0] = *d.MeanMs
			}
			if d.P99Ms != nil {
				pct = true
				vals[1], vals[2], vals[3] = *d.P99Ms, *d.P999Ms, *d.MaxMs
				if d.Of != "" {
					of = d.Of
				}
			}
		}
		for k := range ss {
			ss[k].xs, ss[k].ys = append(ss[k].xs, x), append(ss[k].ys, vals[k])
		}
	}
	if !seen {
		return nil, ""
	}
	if !pct {
		ss = ss[:1]
		if allNaN(ss[0].ys) {
			return nil, "" // no latency per interval at all
		}
	}
	if of != "" {
		for k := 1; k < len(ss); k++ {
			ss[k].name += " (completion)"
		}
	}
	return ss, of
}

// targetSeries is each target's IOPS per interval, reads and writes.
func targetSeries(in []matrix.Interval, a timeAxis) []series {
	var out []series
	idx := map[string]int{}
	for _, i := range in {
		for _, t := range i.Targets {
			k, ok := idx[t.Target]
			if !ok {
				k = len(out)
				idx[t.Target] = k
				out = append(out, series{name: t.Target})
			}
			v := 0.0
			for _, d := range []*matrix.IntervalDir{t.Read, t.Write} {
				if d != nil {
					v += d.IOPS
				}
			}
			out[k].xs, out[k].ys = append(out[k].xs, a.x(i)), append(out[k].ys, v)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// intervalPlot is a figure per interval over a workload's run, the ramp
// (up to rampEnd seconds) shaded: the warm-up, which the results leave out.
func intervalPlot(title, ylabel string, ss []series, a timeAxis, rampEnd float64, logY bool) *plot.Plot {
	p := newPlot(title, a.label, ylabel)
	p.X.Tick.Marker = numTicks{}
	lo, hi := seriesRange(ss)
	if lo <= 0 {
		logY = false
	}
	if rampEnd > 0 && hi > 0 {
		bottom, top := 0.0, hi*1.08
		if logY {
			bottom, top = lo/1.5, hi*1.5
		}
		band, err := plotter.NewPolygon(plotter.XYs{{X: 0, Y: bottom}, {X: rampEnd / a.unit, Y: bottom},
			{X: rampEnd / a.unit, Y: top}, {X: 0, Y: top}})
		if err == nil {
			band.Color = color.Gray{225}
			band.LineStyle.Width = 0
			p.Add(band)
			p.Legend.Add(fmt.Sprintf("ramp, the first %s: not in the results", pts.ShortDuration(time.Duration(rampEnd*float64(time.Second)))), band)
		}
	}
	addLines(p, thinSeries(ss, maxSecondsBuckets), logY)
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{}
	} else {
		p.Y.Min = 0
		headroom(p, ss)
	}
	if _, xhi := seriesRangeX(ss); xhi > 0 {
		p.X.Min, p.X.Max = 0, xhi*1.02
	}
	return p
}

// seriesCharts are a recorded workload's time-series charts: name titles
// the plots, of says whose intervals they are ("the workload", "group 1")
// and csv the file that holds them.
func seriesCharts(name, of, csv string, w engine.Workload, in []matrix.Interval) []Block {
	if len(in) == 0 {
		return nil
	}
	a := axisFor(in)
	ramp := rampEnd(in)
	every := "every " + pts.ShortDuration(w.SeriesInterval())
	if w.SeriesInterval() == time.Second {
		every = "every second"
	}
	note := ""
	if ramp > 0 {
		note = "; the ramp shaded"
	}
	thin := func(ss []series) []series { return thinSeries(ss, maxSecondsBuckets) }
	var out []Block
	if iops := dirSeries(in, a, func(d *matrix.IntervalDir) (float64, bool) { return d.IOPS, true }); len(iops) > 0 {
		out = append(out, Chart{Caption: "IOPS in " + every + " of " + of + " (" + csv + ")" + note,
			Plot: intervalPlot(name+": IOPS, "+every, "IOPS", iops, a, ramp, false), Summary: summarize(thin(iops), fmtIOPS)})
	}
	if mb := dirSeries(in, a, func(d *matrix.IntervalDir) (float64, bool) { return d.MBps, true }); len(mb) > 0 {
		out = append(out, Chart{Caption: "MB/s in " + every + " of " + of + note,
			Plot: intervalPlot(name+": MB/s, "+every, "MB/s", mb, a, ramp, false), Summary: summarize(thin(mb), fmtMBps)})
	}
	for _, read := range []bool{true, false} {
		dir := "Write"
		if read {
			dir = "Read"
		}
		lat, latOf := latSeries(in, a, read)
		if len(lat) == 0 {
			continue
		}
		caption := dir + " response times in " + every + " of " + of + ": average"
		switch {
		case len(lat) == 1:
			caption += " (the engine measured no percentiles per interval)"
		case latOf == engine.LatCompletion:
			caption += "; 99 %, 99.9 % and maximum of completion latency (fio's histogram logs)"
		default:
			caption += ", 99 %, 99.9 % and maximum"
		}
		logY := spansDecade(lat)
		if logY {
			caption += "; log scale"
		}
		out = append(out, Chart{Caption: caption + note,
			Plot:    intervalPlot(name+": "+dir+" response time, "+every, "Response time (ms)", lat, a, ramp, logY),
			Summary: summarize(thin(lat), fmtMs)})
	}
	if ts := targetSeries(in, a); len(ts) > 0 {
		out = append(out, Chart{Caption: "Each target's IOPS in " + every + " of " + of + note,
			Plot: intervalPlot(name+": IOPS per target, "+every, "IOPS", ts, a, ramp, false), Summary: summarize(thin(ts), fmtIOPS)})
	}
	return out
}

func allNaN(ys []float64) bool {
	for _, y := range ys {
		if !math.IsNaN(y) {
			return false
		}
	}
	return true
}
