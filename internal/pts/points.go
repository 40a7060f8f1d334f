package pts

import (
	"encoding/json"
	"fmt"
	"math"
)

// A demand-intensity test's operating points, with their two
// measurements: the figures each was chosen by, and its histogram run.

// OperatingPoint is one point PickPoints chose: its TC/QD and the figures
// it was chosen by, and once its stage has run, its histogram run's. The
// two are two measurements of the point, each under its own name
// everywhere they are printed: "as chosen" (IOPS, ARTMs: the demand
// variation's rounds Rounds) and "histogram run" (Run).
type OperatingPoint struct {
	Point string  `json:"point"` // max, mid, min
	TC    int     `json:"tc"`
	QD    int     `json:"qd"`
	IOPS  float64 `json:"iops"`   // as chosen
	ARTMs float64 `json:"art_ms"` // as chosen
	// Rule is how the point was chosen, in words, with what the choice met
	// ("no cell under the ceiling: …").
	Rule string `json:"rule"`
	// Rounds are the demand-variation rounds the figures are of.
	Rounds [2]int `json:"rounds"`
	// Writes says IOPS and ARTMs are the writes' (--X-io writes).
	Writes bool `json:"writes_only,omitempty"`
	// Run is the point's histogram run in figures (PointRunOf); nil until
	// its stage has samples of it. The journal's record of a choice has
	// none: results add it.
	Run *PointRun `json:"histogram_run,omitempty"`
}

// ChosenFrom names the rounds the point's figures as chosen are of:
// "round 5" or "rounds 1–5".
func (p OperatingPoint) ChosenFrom() string {
	if p.Rounds[0] == p.Rounds[1] {
		return fmt.Sprintf("round %d", p.Rounds[1])
	}
	return fmt.Sprintf("rounds %d–%d", p.Rounds[0], p.Rounds[1])
}

// ChosenFigures writes the point's figures as chosen, as every page, table
// and terminal line prints them: "181,859 IOPS, ART 0.704 ms".
func (p OperatingPoint) ChosenFigures() string {
	if p.Writes {
		return fmt.Sprintf("%s write IOPS, write ART %s ms", FormatIOPS(p.IOPS), FormatMs(p.ARTMs))
	}
	return fmt.Sprintf("%s IOPS, ART %s ms", FormatIOPS(p.IOPS), FormatMs(p.ARTMs))
}

// ChosenWords is ChosenFigures with where they are from: "181,859 IOPS,
// ART 0.704 ms as chosen (round 5)".
func (p OperatingPoint) ChosenWords() string {
	return fmt.Sprintf("%s as chosen (%s)", p.ChosenFigures(), p.ChosenFrom())
}

// Words writes both of the point's measurements, side by side: as chosen,
// and its histogram run once run.
func (p OperatingPoint) Words() string {
	if p.Run == nil {
		return p.ChosenWords() + "; no histogram run"
	}
	return fmt.Sprintf("%s; histogram run %s, 99.999 %% %s ms, MRT %s ms", p.ChosenWords(), p.Run.Figures(),
		FormatMs(p.Run.P99999Ms), FormatMs(p.Run.MRTMs))
}

// Figures writes the run's IOPS and mean response time as ChosenFigures
// writes the point's as chosen: "179,561 IOPS, ART 0.713 ms".
func (r PointRun) Figures() string {
	return fmt.Sprintf("%s IOPS, ART %s ms", FormatIOPS(r.IOPS), FormatMs(r.ARTMs))
}

// PointRun is an operating point's histogram run in figures: the run of
// the test stimulus at the point's TC/QD after its pre-write (NaN: the run
// has no such value).
type PointRun struct {
	IOPS     float64 `json:"iops"`
	ARTMs    float64 `json:"art_ms"`
	P99999Ms float64 `json:"p99_999_ms"` // of the run's merged histogram
	MRTMs    float64 `json:"mrt_ms"`
}

type pointRunJSON struct {
	IOPS     *float64 `json:"iops"`
	ARTMs    *float64 `json:"art_ms"`
	P99999Ms *float64 `json:"p99_999_ms"`
	MRTMs    *float64 `json:"mrt_ms"`
}

// MarshalJSON writes absent values as null.
func (r PointRun) MarshalJSON() ([]byte, error) {
	return json.Marshal(pointRunJSON{optional(r.IOPS), optional(r.ARTMs), optional(r.P99999Ms), optional(r.MRTMs)})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *PointRun) UnmarshalJSON(b []byte) error {
	var j pointRunJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = PointRun{orNaN(j.IOPS), orNaN(j.ARTMs), orNaN(j.P99999Ms), orNaN(j.MRTMs)}
	return nil
}

// PointRunOf is an operating point's histogram run as its stage's summary
// (demandSummary) figured it; nil when the summary has no histogram run.
func PointRunOf(sum *Summary) *PointRun {
	if sum == nil {
		return nil
	}
	r := PointRun{IOPS: math.NaN(), ARTMs: math.NaN(), P99999Ms: math.NaN(), MRTMs: math.NaN()}
	found := false
	for _, f := range sum.Figures {
		switch f.Name {
		case FigHistIOPS:
			r.IOPS, found = f.Value, true
		case FigHistART:
			r.ARTMs = f.Value
		case FigHistP99999:
			r.P99999Ms = f.Value
		case FigHistMRT:
			r.MRTMs = f.Value
		}
	}
	if !found {
		return nil
	}
	return &r
}

// The figures of an operating point's histogram run, by name.
const (
	FigHistIOPS   = "histogram run IOPS"
	FigHistART    = "histogram run ART"
	FigHistP99999 = "histogram run 99.999 %"
	FigHistMRT    = "histogram run MRT"
)
