package pdfreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/ptsrun/ptsrun/internal/units"
	"gonum.org/v1/plot"
)

// The axes' tick markers: linear axes at round steps, log axes at powers
// of ten, block sizes and loop values where the data are.

// numTicks are linear ticks at round values, labelled readably (225,000
// rather than 225000.00): every niceStep from the axis's first multiple of
// it. gonum's default ticks can start off the step (40, 120, 200 minutes;
// 0.5, 2, 3.5 drive fills) and leave the top of a plot unlabelled.
type numTicks struct{}

func (numTicks) Ticks(min, max float64) []plot.Tick {
	step := niceStep(min, max)
	if step == 0 {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	var t []plot.Tick
	for k := math.Ceil(min/step - 1e-9); k*step <= max+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0 // not −0
		}
		t = append(t, plot.Tick{Value: v, Label: fmtNum(v)})
	}
	return t
}

// niceStep is the step between an axis's labelled ticks over [min, max]:
// 1, 2, 2.5 or 5 times a power of ten, at most 7 steps across; 0 for an
// empty range.
func niceStep(min, max float64) float64 {
	span := max - min
	if !(span > 0) || math.IsInf(span, 0) {
		return 0
	}
	mag := math.Pow(10, math.Floor(math.Log10(span/7)))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if span/(m*mag) <= 7+1e-9 {
			return m * mag
		}
	}
	return 10 * mag
}

// niceTop is the top of a linear axis from 0 that shows hi: the first tick
// at or above it, so that the highest value sits under a labelled grid line.
func niceTop(hi float64) float64 {
	step := niceStep(0, hi)
	if step == 0 {
		return hi
	}
	return math.Ceil(hi/step-1e-9) * step
}

// roundTicks labels whole rounds only.
type roundTicks struct{}

func (roundTicks) Ticks(min, max float64) []plot.Tick {
	var t []plot.Tick
	step := math.Max(1, math.Ceil((max-min)/12))
	for r := math.Ceil(min); r <= max; r += step {
		t = append(t, plot.Tick{Value: r, Label: fmt.Sprintf("%.0f", r)})
	}
	return t
}

// decadeTicks marks powers of ten with compact labels (1k, 10k, 1M) and the
// 2 and 5 between them unlabelled.
type decadeTicks struct{}

func (decadeTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	var t []plot.Tick
	// Over a few decades the 2s and 5s are labelled too, so that an axis
	// never shows a single number.
	few := math.Log10(max/min) <= 3.2
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		d := math.Pow(10, e)
		for _, m := range []float64{1, 2, 5} {
			v := d * m
			if v < min*0.999 || v > max*1.001 {
				continue
			}
			label := ""
			if m == 1 || few {
				label = compact(v)
			}
			t = append(t, plot.Tick{Value: v, Label: label})
		}
	}
	labelled := 0
	for _, x := range t {
		if x.Label != "" {
			labelled++
		}
	}
	if labelled < 2 {
		// Within one decade: label two round values inside the range.
		for i, v := range []float64{min, max} {
			r := roundTo2(v, i == 0)
			t = append(t, plot.Tick{Value: r, Label: compact(r)})
		}
	}
	return t
}

// roundTo2 rounds to two significant digits, up or down: a round value
// inside the range that starts or ends at v.
func roundTo2(v float64, up bool) float64 {
	e := math.Pow(10, math.Floor(math.Log10(v))-1)
	if up {
		return math.Ceil(v/e) * e
	}
	return math.Floor(v/e) * e
}

func compact(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%gG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%gk", v/1e3)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.6f", v), "0"), ".")
}

// sizeTicks label block sizes the PTS way.
type sizeTicks struct{ sizes []int64 }

func (s sizeTicks) Ticks(min, max float64) []plot.Tick {
	var t []plot.Tick
	for _, b := range s.sizes {
		kib := float64(b) / 1024
		if kib >= min*0.999 && kib <= max*1.001 {
			t = append(t, plot.Tick{Value: kib, Label: strings.TrimSuffix(units.FormatSize(b), " KiB")})
		}
	}
	return t
}

// valueTicks label the values given that fall on the axis, and no others:
// a loop's queue depths, powers of two of outstanding I/O.
type valueTicks []float64

func (v valueTicks) Ticks(min, max float64) []plot.Tick {
	var t []plot.Tick
	for _, x := range v {
		if x >= min*0.999 && x <= max*1.001 {
			t = append(t, plot.Tick{Value: x, Label: fmtNum(x)})
		}
	}
	return t
}
