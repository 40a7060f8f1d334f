package pts

import (
	"encoding/json"
	"math"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// The samples of a time series and a test's summary of them: what a
// timeline's outcome holds, as results keep them.

// Sample is the figures of one step of a timeline stage, as results keep
// them and a test's summary reads them.
type Sample struct {
	Step    int     `json:"step"`
	Segment int     `json:"segment"`
	Group   int     `json:"group"`
	Run     int     `json:"run,omitempty"`
	Start   float64 `json:"start_s"` // seconds since the stage's first step began, idle included
	Seconds float64 `json:"seconds"` // the step's length
	Idle    bool    `json:"idle,omitempty"`
	IOPS    float64 `json:"iops"`
	MBps    float64 `json:"mbps"`
	// Written is the bytes written since the stage began (TGBW in bytes:
	// the report shows GB, 10^9 bytes).
	Written     int64   `json:"written_bytes"`
	LatMeanMs   float64 `json:"lat_mean_ms"`
	LatP99999Ms float64 `json:"lat_p99_999_ms"`
	LatMaxMs    float64 `json:"lat_max_ms"`
}

// Minute is when a sample ends, in minutes since the stage began.
func (s Sample) Minute() float64 { return (s.Start + s.Seconds) / 60 }

// Earlier is what a timeline's summary may read of a stage of its test
// that ran before it: its steady-state verdict and the average of its
// measurement window, per tracking variable (HIR's baseline is its
// preconditioning's steady state).
type Earlier struct {
	Stage         string
	Steady        bool
	WindowAverage []float64
}

// SummaryInput is what a timeline test's summary reads: the stage, its
// samples, what the test's earlier stages found, and the response-time
// histogram of the stage's histogram segments (or of its last hour).
type SummaryInput struct {
	Config  Config // the run's: its parameters
	Stage   Stage
	Samples []Sample
	Earlier []Earlier
	Hist    *engine.Histogram // nil: no I/O in it
}

// Summary is a test's reading of its timeline: a small table and the
// figures it derives (XSR's recovery time), with how they are defined.
type Summary struct {
	Title string      `json:"title"`
	Head  []string    `json:"head"`
	Rows  [][]float64 `json:"rows"` // NaN where a value is absent
	Units []string    `json:"units"`
	// Figures are single values derived from the samples, by name.
	Figures []Figure `json:"figures,omitempty"`
}

// Figure is one derived value, with its unit and definition.
type Figure struct {
	Name       string  `json:"name"`
	Value      float64 `json:"value"` // NaN: not reached
	Unit       string  `json:"unit"`
	Definition string  `json:"definition"`
}

// Format writes the figure's value as every page, table and terminal line
// prints it, without its unit: IOPS, MB/s and ms as their metrics do, any
// other at four significant digits; "not reached" when it was not.
func (f Figure) Format() string {
	switch {
	case math.IsNaN(f.Value):
		return "not reached"
	case f.Unit == "IOPS":
		return FormatIOPS(f.Value)
	case f.Unit == "MB/s":
		return FormatMBps(f.Value)
	case f.Unit == "ms":
		return FormatMs(f.Value)
	}
	return FormatNumber(f.Value)
}

// String is the figure with its unit: "14 min", or "not reached".
func (f Figure) String() string {
	if math.IsNaN(f.Value) {
		return f.Format()
	}
	return f.Format() + " " + f.Unit
}

// JSON has no NaN: a figure a sample or summary does not have (an idle
// step's IOPS, a recovery never reached) is written null and read back NaN.

func optional(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

type sampleJSON struct {
	Step        int      `json:"step"`
	Segment     int      `json:"segment"`
	Group       int      `json:"group"`
	Run         int      `json:"run,omitempty"`
	Start       float64  `json:"start_s"`
	Seconds     float64  `json:"seconds"`
	Idle        bool     `json:"idle,omitempty"`
	IOPS        *float64 `json:"iops"`
	MBps        *float64 `json:"mbps"`
	Written     int64    `json:"written_bytes"`
	LatMeanMs   *float64 `json:"lat_mean_ms"`
	LatP99999Ms *float64 `json:"lat_p99_999_ms"`
	LatMaxMs    *float64 `json:"lat_max_ms"`
}

// MarshalJSON writes absent figures as null.
func (s Sample) MarshalJSON() ([]byte, error) {
	return json.Marshal(sampleJSON{Step: s.Step, Segment: s.Segment, Group: s.Group, Run: s.Run, Start: s.Start,
		Seconds: s.Seconds, Idle: s.Idle, IOPS: optional(s.IOPS), MBps: optional(s.MBps), Written: s.Written,
		LatMeanMs: optional(s.LatMeanMs), LatP99999Ms: optional(s.LatP99999Ms), LatMaxMs: optional(s.LatMaxMs)})
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *Sample) UnmarshalJSON(b []byte) error {
	var j sampleJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Sample{Step: j.Step, Segment: j.Segment, Group: j.Group, Run: j.Run, Start: j.Start, Seconds: j.Seconds,
		Idle: j.Idle, IOPS: orNaN(j.IOPS), MBps: orNaN(j.MBps), Written: j.Written, LatMeanMs: orNaN(j.LatMeanMs),
		LatP99999Ms: orNaN(j.LatP99999Ms), LatMaxMs: orNaN(j.LatMaxMs)}
	return nil
}

type summaryJSON struct {
	Title   string       `json:"title"`
	Head    []string     `json:"head"`
	Rows    [][]*float64 `json:"rows"`
	Units   []string     `json:"units"`
	Figures []figureJSON `json:"figures,omitempty"`
}

type figureJSON struct {
	Name       string   `json:"name"`
	Value      *float64 `json:"value"`
	Unit       string   `json:"unit"`
	Definition string   `json:"definition"`
}

// MarshalJSON writes absent values as null.
func (s Summary) MarshalJSON() ([]byte, error) {
	j := summaryJSON{Title: s.Title, Head: s.Head, Units: s.Units, Rows: [][]*float64{}}
	for _, r := range s.Rows {
		row := make([]*float64, len(r))
		for i, v := range r {
			row[i] = optional(v)
		}
		j.Rows = append(j.Rows, row)
	}
	for _, f := range s.Figures {
		j.Figures = append(j.Figures, figureJSON{Name: f.Name, Value: optional(f.Value), Unit: f.Unit, Definition: f.Definition})
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *Summary) UnmarshalJSON(b []byte) error {
	var j summaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Summary{Title: j.Title, Head: j.Head, Units: j.Units}
	for _, r := range j.Rows {
		row := make([]float64, len(r))
		for i, v := range r {
			row[i] = orNaN(v)
		}
		s.Rows = append(s.Rows, row)
	}
	for _, f := range j.Figures {
		s.Figures = append(s.Figures, Figure{Name: f.Name, Value: orNaN(f.Value), Unit: f.Unit, Definition: f.Definition})
	}
	return nil
}
