package steadystate

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ReadSeries reads a series of per-round values as `ptsrun ss` takes them:
// numbers, one per line (blank lines and # comments skipped), or the
// column named column of a CSV file with a header. An error names the
// input line.
func ReadSeries(r io.Reader, column string) ([]float64, error) {
	var vals []float64
	parse := func(s string, line int) error {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("line %d: %q is not a finite number", line, s)
		}
		vals = append(vals, v)
		return nil
	}
	if column == "" {
		sc := bufio.NewScanner(r)
		n := 0
		for sc.Scan() {
			n++
			t := strings.TrimSpace(sc.Text())
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if err := parse(t, n); err != nil {
				return nil, err
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	} else {
		cr := csv.NewReader(r)
		cr.FieldsPerRecord = -1
		head, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("empty CSV: no header")
		}
		if err != nil {
			return nil, err
		}
		col := -1
		for i, h := range head {
			if strings.TrimSpace(h) == column {
				col = i
			}
		}
		if col < 0 {
			return nil, fmt.Errorf("line 1: no column %q (columns: %s)", column, strings.Join(head, ", "))
		}
		for {
			rec, err := cr.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			line, _ := cr.FieldPos(0)
			if err != nil {
				return nil, err
			}
			if col >= len(rec) {
				return nil, fmt.Errorf("line %d: no value in column %q", line, column)
			}
			if err := parse(rec[col], line); err != nil {
				return nil, err
			}
		}
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("no values")
	}
	return vals, nil
}

// Analysis is the verdict of a series' last window as `ptsrun ss` gives
// it, with the first round at which a window is steady.
type Analysis struct {
	Steady            bool      `json:"steady"`
	FirstSteadyRound  *int      `json:"first_steady_round"`
	Window            [2]int    `json:"window"`
	Values            []float64 `json:"values"`
	Avg               float64   `json:"avg"`
	Range             float64   `json:"range"`
	MaxRange          float64   `json:"max_range"`
	Slope             float64   `json:"slope"`
	Intercept         float64   `json:"intercept"`
	SlopeExcursion    float64   `json:"slope_excursion"`
	MaxSlopeExcursion float64   `json:"max_slope_excursion"`
	RangeOK           bool      `json:"range_ok"`
	SlopeOK           bool      `json:"slope_ok"`
	Reason            string    `json:"reason,omitempty"`
	Rounds            int       `json:"rounds"`
}

// Analyze judges the last window of vals, and finds the first steady one.
func (c Criteria) Analyze(vals []float64) Analysis {
	first, _ := c.Scan(vals)
	v := c.Last(vals)
	out := Analysis{Steady: v.Steady, Window: [2]int{v.FirstRound, v.LastRound}, Values: v.Values,
		Avg: v.Average, Range: v.Range, MaxRange: v.MaxRange, Slope: v.Slope, Intercept: v.Intercept,
		SlopeExcursion: v.SlopeExcursion, MaxSlopeExcursion: v.MaxSlopeExcursion, RangeOK: v.RangeOK,
		SlopeOK: v.SlopeOK, Reason: v.Reason, Rounds: len(vals)}
	if first > 0 {
		out.FirstSteadyRound = &first
	}
	return out
}

// Text is the analysis of vals for people: every round with the verdict
// of the window ending there, then the last window's figures.
func (c Criteria) Text(vals []float64) string {
	var w strings.Builder
	first, _ := c.Scan(vals)
	v := c.Last(vals)
	fmt.Fprintf(&w, "%5s  %14s  %s\n", "round", "value", "window ending here")
	for r := 1; r <= len(vals); r++ {
		mark := ""
		if r >= c.Window {
			if c.CheckAt(vals, r).Steady {
				mark = "steady"
			} else {
				mark = "not steady"
			}
		}
		fmt.Fprintf(&w, "%5d  %14.6g  %s\n", r, vals[r-1], mark)
	}
	fmt.Fprintf(&w, "\nLast window: rounds %d–%d\n", v.FirstRound, v.LastRound)
	if v.Reason != "" && !v.RangeOK && !v.SlopeOK && v.Average == 0 && v.Range == 0 {
		fmt.Fprintf(&w, "  cannot judge: %s\n", v.Reason)
	} else {
		fmt.Fprintf(&w, "  average              %.6g\n", v.Average)
		fmt.Fprintf(&w, "  range (max−min)      %.6g   allowed %.6g (%g %%)  %s\n", v.Range, v.MaxRange, c.MaxRange*100, okStr(v.RangeOK))
		fmt.Fprintf(&w, "  slope excursion      %.6g   allowed %.6g (%g %%)  %s\n", v.SlopeExcursion, v.MaxSlopeExcursion, c.MaxSlope*100, okStr(v.SlopeOK))
		fmt.Fprintf(&w, "  least squares        y = %.6g·R %+.6g\n", v.Slope, v.Intercept)
	}
	switch {
	case v.Steady:
		fmt.Fprintf(&w, "STEADY over rounds %d–%d", v.FirstRound, v.LastRound)
	default:
		fmt.Fprintf(&w, "NOT STEADY: %s", v.Reason)
	}
	if first > 0 {
		fmt.Fprintf(&w, "; first steady at round %d (window %d–%d)\n", first, first-c.Window+1, first)
	} else {
		fmt.Fprintln(&w, "; no window is steady")
	}
	return w.String()
}

func okStr(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}
