package pdfreport

import (
	"fmt"
	"strings"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/telemetry"
)

// The drives' health through a test, one page per stage that has
// telemetry: the temperature under the IOPS of a timeline, or per round,
// the health table before and after, the write amplification, and the
// health deviations in the stage's measurement window.

// healthPages adds a test's stages' health pages.
func (b *builder) healthPages(td *pts.TestDef, stages []matrix.StageResult) {
	for _, s := range stages {
		h := s.Health
		if h == nil || len(h.After) == 0 {
			continue
		}
		b.stage(s)
		var blocks []Block
		if c, ok := tempChart(s); ok {
			if s.Timeline {
				if iops, ok := iopsChart(s); ok {
					blocks = append(blocks, iops)
				}
			}
			blocks = append(blocks, c)
		}
		for i, after := range h.After {
			var before telemetry.Reading
			if i < len(h.Before) {
				before = h.Before[i]
			}
			wa := 0.0
			if i < len(h.WriteAmplification) {
				wa = h.WriteAmplification[i]
			}
			caption := "Drive health before and after " + s.Title
			if len(h.After) > 1 {
				caption += ": " + after.Device
			}
			blocks = append(blocks, Table{Caption: caption, Head: []string{"Figure", "Before", "After"},
				Widths: []float64{2.4, 1.6, 1.6}, Align: "LRR", Small: true, Rows: healthRows(before, after, wa)})
			if i == 1 && len(h.After) > 2 {
				blocks = append(blocks, Paragraph{Lines: []string{fmt.Sprintf("%d more targets: in results.json.", len(h.After)-2)}})
				break
			}
		}
		var lines []string
		for _, d := range b.res.HealthDeviations {
			if d.Stage == s.ID {
				lines = append(lines, "HEALTH: "+d.Text)
			}
		}
		if len(lines) == 0 {
			lines = append(lines, "No thermal-management transition, critical warning or new media error in the measurement window.")
		}
		blocks = append(blocks, Paragraph{Lines: lines, Strong: len(b.res.HealthDeviations) > 0 && !strings.HasPrefix(lines[0], "No ")})
		when := "after each round"
		if s.Timeline {
			when = "after each sample"
		}
		b.add(&Page{Test: td.Name, Title: "Drive Temperature and Health: " + s.Title, Setup: b.setup(s), Params: []KV{
			{"Readings", fmt.Sprintf("%d, %s, between cells", len(h.Temps), when)}}, Landmark: "health", Blocks: blocks})
	}
}

// tempChart is the hottest target's temperature at each sample (against
// minutes) or after each round, with the drive's warning temperature.
func tempChart(s matrix.StageResult) (Chart, bool) {
	h := s.Health
	if len(h.Temps) == 0 {
		return Chart{}, false
	}
	t := series{name: "temperature"}
	for _, p := range h.Temps {
		x := float64(p.Round)
		if s.Timeline {
			x = p.Minute
			if x == 0 {
				x = float64(p.Sample)
			}
		}
		t.xs, t.ys = append(t.xs, x), append(t.ys, p.Celsius)
	}
	ss := []series{t}
	lo, hi := minOf(t.ys), maxOf(t.ys)
	if w, ok := warningTemp(h.After); ok {
		ss = append(ss, series{name: "warning (WCTEMP)", xs: []float64{t.xs[0], t.xs[len(t.xs)-1]}, ys: []float64{w, w}})
		hi = max(hi, w)
	}
	var c Chart
	if s.Timeline {
		p := timePlot("Drive temperature", "°C", ss, false)
		p.Y.Min, p.Y.Max = lo-5, hi+5
		c = Chart{Caption: "Drive temperature at each sample (the hottest target), °C", Plot: p, Height: 56}
	} else {
		p := convergencePlot("Drive temperature per round", "°C", ss, s.Window, false)
		p.Y.Min, p.Y.Max = lo-5, hi+5
		c = Chart{Caption: "Drive temperature after each round (the hottest target), °C; the measurement window marked", Plot: p, Height: 56}
	}
	c.Summary = summarize(ss[:1], func(v float64) string { return fmt.Sprintf("%.1f °C", v) })
	return c, true
}

// iopsChart is a timeline's IOPS per sample, for the temperature under it.
func iopsChart(s matrix.StageResult) (Chart, bool) {
	one := series{name: "IOPS"}
	for _, smp := range s.Samples {
		if !smp.Idle {
			one.xs, one.ys = append(one.xs, smp.Minute()), append(one.ys, smp.IOPS)
		}
	}
	if len(one.xs) == 0 {
		return Chart{}, false
	}
	ss := []series{one}
	return Chart{Caption: "IOPS per interval", Plot: timePlot("IOPS vs time", "IOPS", ss, false), Height: 56, Summary: summarize(ss, fmtIOPS)}, true
}

func warningTemp(rs []telemetry.Reading) (float64, bool) {
	for _, r := range rs {
		if w, ok := r.WarningTemp.Get(); ok {
			return w, true
		}
	}
	return 0, false
}

// healthRows are the health table's rows: each figure before and after,
// "not available" where the drive does not say it (never 0).
func healthRows(before, after telemetry.Reading, wa float64) [][]string {
	na := "not available"
	f64 := func(f telemetry.Field[float64], unit string) string {
		if v, ok := f.Get(); ok {
			return fmt.Sprintf("%.1f %s", v, unit)
		}
		return na
	}
	u := func(f telemetry.Field[uint64], unit string) string {
		if v, ok := f.Get(); ok {
			return strings.TrimSpace(fmt.Sprintf("%s %s", groupDigits(v), unit))
		}
		return na
	}
	bytes := func(f telemetry.Field[uint64]) string {
		if v, ok := f.Get(); ok {
			if v == 0 {
				return "0 B"
			}
			return decimal(int64(v))
		}
		return na
	}
	warn := func(r telemetry.Reading) string {
		if w, ok := r.CriticalWarning.Get(); ok {
			return w.String()
		}
		return na
	}
	sum := func(r telemetry.Reading, a, b telemetry.Field[uint64], unit string) string {
		x, ok1 := a.Get()
		y, ok2 := b.Get()
		if !ok1 && !ok2 {
			return na
		}
		return strings.TrimSpace(groupDigits(x+y) + " " + unit)
	}
	row := func(name string, f func(telemetry.Reading) string) []string {
		return []string{name, f(before), f(after)}
	}
	rows := [][]string{
		row("Temperature", func(r telemetry.Reading) string { return f64(r.Temperature, "°C") }),
		row("Critical warning", warn),
		row("Thermal-management transitions", func(r telemetry.Reading) string {
			return sum(r, r.ThermalMgmt1Transitions, r.ThermalMgmt2Transitions, "")
		}),
		row("Time in thermal management", func(r telemetry.Reading) string {
			return sum(r, r.ThermalMgmt1Seconds, r.ThermalMgmt2Seconds, "s")
		}),
		row("Time at or above WCTEMP", func(r telemetry.Reading) string { return u(r.WarningTempMinutes, "min") }),
		row("Media and data integrity errors", func(r telemetry.Reading) string { return u(r.MediaErrors, "") }),
		row("Error log entries", func(r telemetry.Reading) string { return u(r.ErrorLogEntries, "") }),
		row("Percentage used", func(r telemetry.Reading) string { return u(r.PercentUsed, "%") }),
		row("Available spare", func(r telemetry.Reading) string { return u(r.AvailableSpare, "%") }),
		row("Host bytes written", func(r telemetry.Reading) string { return bytes(r.BytesWritten) }),
		row("NAND bytes written", func(r telemetry.Reading) string { return bytes(r.NANDBytesWritten) }),
	}
	w := na
	if wa > 0 {
		w = fmt.Sprintf("%.2f", wa)
	}
	rows = append(rows, []string{"Write amplification of the stage's measurement (NAND ÷ host bytes)", "", w})
	return rows
}

// groupDigits writes a count as the report writes counts (grouped).
func groupDigits(n uint64) string { return pts.FormatIOPS(float64(n)) }
