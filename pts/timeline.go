package pts

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/engine"
)

// Segment is a stretch of a timeline stage: one stimulus run for its
// workload's duration and sampled every Interval (one journal record per
// sample), possibly repeated with idle time after each run. Tests that
// follow one stimulus over time (WSAT, HIR, XSR) are made of these instead
// of rounds of cells.
type Segment struct {
	Name     string          `json:"name"`  // "access group 1: SEQ 1024 KiB W"
	Group    int             `json:"group"` // the report's grouping (XSR access group, HIR wait state)
	Workload engine.Workload `json:"workload"`
	Interval Duration        `json:"interval"` // one sample per interval; the last of a run may be shorter
	// Repeat runs the segment this many times (0 and 1: once), each run
	// followed by IdleAfter of no I/O at all (HIR's wait states).
	Repeat    int      `json:"repeat,omitempty"`
	IdleAfter Duration `json:"idle_after,omitempty"`
	// Histogram says the segment's samples merge into the stage's
	// response-time histogram (a demand-intensity operating point's
	// histogram run); without such a segment it is the last hour's.
	Histogram bool `json:"histogram,omitempty"`
}

// Step is one journaled step of a timeline stage: an interval of I/O, or an
// idle period.
type Step struct {
	Segment  int             // index into the stage's timeline
	Run      int             // repetition of the segment, from 0
	Idle     bool            // no I/O for Workload.Duration
	Workload engine.Workload // Duration is the step's
}

// Steps lays a timeline stage out as the steps it runs, in order: a
// resumed stage continues at the first step its journal lacks.
func (s Stage) Steps() []Step {
	var out []Step
	for gi, g := range s.Timeline {
		iv := time.Duration(g.Interval)
		for run := 0; run < max(1, g.Repeat); run++ {
			for left := g.Workload.Duration; left > 0; left -= iv {
				w := g.Workload
				w.Duration = left
				if iv > 0 && iv < left {
					w.Duration = iv
				}
				out = append(out, Step{Segment: gi, Run: run, Workload: w})
			}
			if g.IdleAfter > 0 {
				out = append(out, Step{Segment: gi, Run: run, Idle: true,
					Workload: engine.Workload{Idle: true, Duration: time.Duration(g.IdleAfter)}})
			}
		}
	}
	return out
}

// A timeline stage with Tracking is in rounds, judged for steady state as
// it runs (WSAT's optional steady-state method): its one segment repeats,
// Repeat being the round limit, each run is a round, and each tracking
// variable's Cell is the step of the run it tracks (the check minute). The
// stage stops at its first steady window.

// RoundSteps is the number of steps in a round of a timeline in rounds, 0
// for any other stage.
func (s Stage) RoundSteps() int {
	if !s.IsTimeline() || len(s.Tracking) == 0 || len(s.Timeline) != 1 {
		return 0
	}
	return len(s.Steps()) / max(1, s.Timeline[0].Repeat)
}

// TimelineTracking is the tracking values of every complete round of a
// timeline in rounds, out[v][r] variable v in round r+1, read from its
// samples: what the runner judges and results show come from one place.
func (s Stage) TimelineTracking(samples []*engine.Measurement) [][]float64 {
	n := s.RoundSteps()
	if n == 0 {
		return nil
	}
	out := make([][]float64, len(s.Tracking))
	for r := 0; (r+1)*n <= len(samples); r++ {
		for v, t := range s.Tracking {
			if m := samples[r*n+t.Cell]; m != nil {
				out[v] = append(out[v], t.Metric.Value(*m))
			}
		}
	}
	return out
}

// ShortDuration writes a duration without its zero tail: 8h, 30m, 1h30m,
// 5s.
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// TimelineTime is the nominal length of a timeline stage, idle included.
func (s Stage) TimelineTime() time.Duration {
	var d time.Duration
	for _, st := range s.Steps() {
		d += st.Workload.Duration
	}
	return d
}

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

// checkTimeline checks a timeline stage's segments before anything runs.
func checkTimeline(s Stage) error {
	var total time.Duration
	for _, g := range s.Timeline {
		if g.Interval <= 0 {
			return fmt.Errorf("%s: %s has no sampling interval", s.Title, g.Name)
		}
		if g.Workload.Duration < 0 || g.IdleAfter < 0 || g.Repeat < 0 {
			return fmt.Errorf("%s: %s has a negative duration or repeat count", s.Title, g.Name)
		}
		total += g.Workload.Duration
	}
	if total <= 0 {
		return fmt.Errorf("%s: its segments' durations sum to 0", s.Title)
	}
	if len(s.Tracking) > 0 {
		if len(s.Timeline) != 1 || s.Timeline[0].Repeat < 1 {
			return fmt.Errorf("%s: a timeline in rounds has one segment, repeated", s.Title)
		}
		for _, t := range s.Tracking {
			if t.Cell < 0 || t.Cell >= s.RoundSteps() {
				return fmt.Errorf("%s: %s tracks step %d of a round of %d", s.Title, t.Name, t.Cell+1, s.RoundSteps())
			}
		}
	}
	return nil
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
