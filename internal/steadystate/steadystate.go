package steadystate

import (
	"fmt"
	"math"
)

// PTS 2.0.2 defaults.
const (
	DefaultWindow   = 5
	DefaultMaxRange = 0.20
	DefaultMaxSlope = 0.10
)

// Criteria are the limits of the rule. The zero value is not valid; use Default.
type Criteria struct {
	Window   int     `json:"window"`    // rounds in the measurement window
	MaxRange float64 `json:"max_range"` // allowed max−min as a fraction of the window average
	MaxSlope float64 `json:"max_slope"` // allowed |slope|×(Window−1) as a fraction of the average
}

// Default returns the PTS 2.0.2 criteria: window 5, range 20 %, slope 10 %.
func Default() Criteria {
	return Criteria{Window: DefaultWindow, MaxRange: DefaultMaxRange, MaxSlope: DefaultMaxSlope}
}

// Validate reports criteria that cannot be applied, as a CriterionError.
func (c Criteria) Validate() error {
	bad := func(name string, v any, want string) error {
		return &CriterionError{Name: name, Value: fmt.Sprint(v), Want: want}
	}
	switch {
	case c.Window < 2:
		return bad("window", c.Window, "the steady-state window is at least 2 rounds")
	case math.IsNaN(c.MaxRange) || c.MaxRange <= 0 || math.IsInf(c.MaxRange, 0):
		return bad("max-range", c.MaxRange, "the steady-state max range is a positive fraction of the window average, such as 0.20")
	case math.IsNaN(c.MaxSlope) || c.MaxSlope <= 0 || math.IsInf(c.MaxSlope, 0):
		return bad("max-slope", c.MaxSlope, "the steady-state max slope excursion is a positive fraction of the window average, such as 0.10")
	}
	return nil
}

// A CriterionError is a criterion Validate refuses: which (window,
// max-range, max-slope), its value, and what it takes, so that a command
// line can name its flag.
type CriterionError struct{ Name, Value, Want string }

func (e *CriterionError) Error() string { return e.Want + ", got " + e.Value }

// Verdict is the rule applied to one window of one tracking variable.
type Verdict struct {
	FirstRound int       `json:"first_round"` // first round of the window (1-based)
	LastRound  int       `json:"last_round"`  // last round of the window
	Values     []float64 `json:"values"`      // the window's values, oldest first

	Average           float64 `json:"avg"`
	Range             float64 `json:"range"`     // max − min
	MaxRange          float64 `json:"max_range"` // allowed range: MaxRange × avg
	Slope             float64 `json:"slope"`     // least-squares m in y = m·R + b, R the round number
	Intercept         float64 `json:"intercept"` // b
	SlopeExcursion    float64 `json:"slope_excursion"`
	MaxSlopeExcursion float64 `json:"max_slope_excursion"`

	RangeOK bool   `json:"range_ok"`
	SlopeOK bool   `json:"slope_ok"`
	Steady  bool   `json:"steady"`
	Reason  string `json:"reason,omitempty"` // why it is not steady; empty when steady
}

// CheckWindow applies the rule to values measured in consecutive rounds
// firstRound, firstRound+1, … . len(values) must equal the window length.
func (c Criteria) CheckWindow(firstRound int, values []float64) Verdict {
	v := Verdict{FirstRound: firstRound, LastRound: firstRound + len(values) - 1,
		Values: append([]float64(nil), values...)}
	if err := c.Validate(); err != nil {
		v.Reason = err.Error()
		return v
	}
	if len(values) < c.Window {
		v.Reason = fmt.Sprintf("only %d of the %d rounds a window needs", len(values), c.Window)
		return v
	}
	if len(values) > c.Window {
		v.Reason = fmt.Sprintf("%d values given for a window of %d rounds", len(values), c.Window)
		return v
	}
	for i, y := range values {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			v.Reason = fmt.Sprintf("round %d has no finite value (%v)", firstRound+i, y)
			return v
		}
	}

	n := float64(len(values))
	var sumX, sumY, sumXY, sumXX float64
	lo, hi := values[0], values[0]
	for i, y := range values {
		x := float64(firstRound + i)
		sumX += x
		sumY += y
		sumXY += x * y
		sumXX += x * x
		lo = math.Min(lo, y)
		hi = math.Max(hi, y)
	}
	v.Average = sumY / n
	v.Range = hi - lo
	// Centred form of the least-squares slope: exact for integer rounds and free
	// of the cancellation the raw-sum formula suffers with large round numbers.
	xMean := sumX / n
	var sxy, sxx float64
	for i, y := range values {
		dx := float64(firstRound+i) - xMean
		sxy += dx * (y - v.Average)
		sxx += dx * dx
	}
	v.Slope = sxy / sxx
	v.Intercept = v.Average - v.Slope*xMean
	v.SlopeExcursion = math.Abs(v.Slope) * (n - 1)
	v.MaxRange = c.MaxRange * v.Average
	v.MaxSlopeExcursion = c.MaxSlope * v.Average

	if !(v.Average > 0) {
		v.Reason = fmt.Sprintf("window average %g is not positive", v.Average)
		return v
	}
	v.RangeOK = v.Range <= v.MaxRange
	v.SlopeOK = v.SlopeExcursion <= v.MaxSlopeExcursion
	v.Steady = v.RangeOK && v.SlopeOK
	switch {
	case !v.RangeOK && !v.SlopeOK:
		v.Reason = fmt.Sprintf("range %g exceeds %g and slope excursion %g exceeds %g",
			v.Range, v.MaxRange, v.SlopeExcursion, v.MaxSlopeExcursion)
	case !v.RangeOK:
		v.Reason = fmt.Sprintf("range %g exceeds %g", v.Range, v.MaxRange)
	case !v.SlopeOK:
		v.Reason = fmt.Sprintf("slope excursion %g exceeds %g", v.SlopeExcursion, v.MaxSlopeExcursion)
	}
	return v
}

// CheckAt applies the rule to the window ending at round (1-based) of a series
// whose first value is round 1.
func (c Criteria) CheckAt(series []float64, round int) Verdict {
	first := round - c.Window + 1
	if c.Window < 1 || first < 1 || round > len(series) {
		if round > len(series) {
			round = len(series)
		}
		lo := max(first, 1)
		var vals []float64
		if round >= lo {
			vals = series[lo-1 : round]
		}
		v := Verdict{FirstRound: lo, LastRound: round, Values: append([]float64(nil), vals...)}
		if err := c.Validate(); err != nil {
			v.Reason = err.Error()
		} else {
			v.Reason = fmt.Sprintf("only %d of the %d rounds a window needs", len(vals), c.Window)
		}
		return v
	}
	return c.CheckWindow(first, series[first-1:round])
}

// Last applies the rule to the last window of a series whose first value is round 1.
func (c Criteria) Last(series []float64) Verdict { return c.CheckAt(series, len(series)) }

// Scan returns the first round at which the window ending there is steady, and
// that window's verdict. When no window is steady it returns 0 and the verdict
// of the last window.
func (c Criteria) Scan(series []float64) (int, Verdict) {
	for r := c.Window; r <= len(series); r++ {
		if v := c.CheckAt(series, r); v.Steady {
			return r, v
		}
	}
	return 0, c.Last(series)
}

// Series is one named tracking variable, one value per round from round 1.
type Series struct {
	Name   string
	Values []float64
}

// Joint is the rule applied to several tracking variables in the same window.
type Joint struct {
	Round    int       `json:"round"` // last round of the window
	Steady   bool      `json:"steady"`
	Verdicts []Verdict `json:"verdicts"` // one per variable, in the order given
	Reason   string    `json:"reason,omitempty"`
}

// CheckAllAt applies the rule to every variable's window ending at round; the
// result is steady only when every variable is.
func (c Criteria) CheckAllAt(vars []Series, round int) Joint {
	j := Joint{Round: round, Steady: len(vars) > 0}
	if len(vars) == 0 {
		j.Reason = "no tracking variable"
		return j
	}
	for _, s := range vars {
		v := c.CheckAt(s.Values, round)
		j.Verdicts = append(j.Verdicts, v)
		if !v.Steady {
			j.Steady = false
			if j.Reason == "" {
				j.Reason = s.Name + ": " + v.Reason
			} else {
				j.Reason += "; " + s.Name + ": " + v.Reason
			}
		}
	}
	return j
}

// ScanAll returns the first round at which all variables are steady in the same
// window, or 0 and the joint verdict of the last common round.
func (c Criteria) ScanAll(vars []Series) (int, Joint) {
	n := -1
	for _, s := range vars {
		if n < 0 || len(s.Values) < n {
			n = len(s.Values)
		}
	}
	for r := c.Window; r <= n; r++ {
		if j := c.CheckAllAt(vars, r); j.Steady {
			return r, j
		}
	}
	return 0, c.CheckAllAt(vars, max(n, 0))
}
