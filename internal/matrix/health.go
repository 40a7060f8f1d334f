package matrix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/telemetry"
)

// Telemetry is what results.json says of the drives' telemetry over the
// run: the sources read, or why there were none ("not available").
type Telemetry struct {
	Sources     []string `json:"sources,omitempty"`
	Unavailable string   `json:"unavailable,omitempty"`
	// Notes are the journal's word on sources asked no more.
	Notes []string `json:"notes,omitempty"`
}

// Source is the sources in words, "not available" without any.
func (t *Telemetry) Source() string {
	if t == nil || len(t.Sources) == 0 {
		return "not available"
	}
	return strings.Join(t.Sources, ", ")
}

// StageHealth is one stage's telemetry: the drives before and after it
// (one reading per target), the hottest target's temperature at each
// round or sample, and the write amplification of its rounds or samples
// where the drives count their NAND writes.
type StageHealth struct {
	Before []telemetry.Reading `json:"before,omitempty"`
	After  []telemetry.Reading `json:"after,omitempty"`
	Temps  []TempPoint         `json:"temperatures,omitempty"`
	// WriteAmplification is NAND bytes ÷ host bytes written from the
	// reading after the stage's preconditioning (its purge, its start) to
	// the last, of each target in order; 0 where not known.
	WriteAmplification []float64 `json:"write_amplification,omitempty"`
}

// TempPoint is the hottest target's temperature after a round or a
// timeline sample, and whether a target was throttling then.
type TempPoint struct {
	Round     int     `json:"round,omitempty"`
	Sample    int     `json:"sample,omitempty"` // 1-based
	Minute    float64 `json:"minute,omitempty"` // a sample's end, minutes since the stage began
	Celsius   float64 `json:"celsius"`
	Throttled bool    `json:"throttled,omitempty"`
}

// HealthDeviation is a drive's health going wrong in a measurement
// window: the stage, the kind (thermal, critical_warning, media_errors),
// the cells (rounds or samples) it happened in, in words.
type HealthDeviation struct {
	Code  string   `json:"code"`
	Stage string   `json:"stage"`
	Text  string   `json:"text"`
	Cells []string `json:"cells"`
}

// Health deviation codes.
const (
	HealthThermal         = "thermal"
	HealthCriticalWarning = "critical_warning"
	HealthMediaErrors     = "media_errors"
)

// withTelemetry adds the journal's telemetry to the results: the run's
// sources, each stage's health and temperatures, and the deviations.
// A journal without telemetry records (older than them, or of a run not
// asked to read any) leaves Telemetry nil: "not available".
func withTelemetry(recs []pts.Record, res *Results) {
	tel := &Telemetry{}
	byStage := map[string][]pts.Record{}
	any := false
	for _, r := range recs {
		t := r.Telemetry
		if r.Type != pts.RecTelemetry || t == nil {
			continue
		}
		any = true
		tel.Notes = append(tel.Notes, t.Notes...)
		for _, rd := range t.Readings {
			for _, s := range rd.Sources {
				if !slices.Contains(tel.Sources, s) {
					tel.Sources = append(tel.Sources, s)
				}
			}
		}
		if len(t.Readings) > 0 && r.Stage != "" {
			byStage[r.Stage] = append(byStage[r.Stage], r)
		}
	}
	if !any {
		return
	}
	if len(tel.Sources) == 0 {
		tel.Unavailable = pts.TelemetryUnavailable(recs)
	}
	res.Telemetry = tel
	for ti := range res.Tests {
		for si := range res.Tests[ti].Stages {
			sr := &res.Tests[ti].Stages[si]
			if rs := byStage[sr.ID]; len(rs) > 0 {
				sr.Health = stageHealth(sr, rs)
				res.HealthDeviations = append(res.HealthDeviations, healthDeviations(sr, rs)...)
			}
		}
	}
}

func stageHealth(sr *StageResult, rs []pts.Record) *StageHealth {
	h := &StageHealth{Before: rs[0].Telemetry.Readings, After: rs[len(rs)-1].Telemetry.Readings}
	from := rs[0].Telemetry.Readings
	points := map[[2]int]TempPoint{}
	var order [][2]int
	for i, r := range rs {
		t := r.Telemetry
		switch t.At {
		case pts.AtPrecond, pts.AtPurge:
			from = t.Readings
		case pts.AtRound, pts.AtSample:
			c, ok := hottest(t.Readings)
			if !ok {
				continue
			}
			p := TempPoint{Celsius: c, Throttled: i > 0 && throttled(rs[i-1].Telemetry.Readings, t.Readings)}
			key := [2]int{r.Round, 0}
			if t.At == pts.AtSample && r.Cell != nil {
				p.Sample = *r.Cell + 1
				key = [2]int{0, p.Sample}
				if *r.Cell < len(sr.Samples) {
					p.Minute = sr.Samples[*r.Cell].Minute()
				}
			} else {
				p.Round = r.Round
			}
			if _, seen := points[key]; !seen {
				order = append(order, key)
			}
			points[key] = p // a step re-run on resume: its last reading
		}
	}
	for _, k := range order {
		h.Temps = append(h.Temps, points[k])
	}
	known := false
	for i, after := range h.After {
		wa := 0.0
		if i < len(from) {
			if v, ok := telemetry.WriteAmplification(from[i], after); ok {
				wa, known = v, true
			}
		}
		h.WriteAmplification = append(h.WriteAmplification, wa)
	}
	if !known {
		h.WriteAmplification = nil
	}
	return h
}

// hottest is the highest known temperature of the readings.
func hottest(rs []telemetry.Reading) (float64, bool) {
	var out float64
	ok := false
	for _, r := range rs {
		if c, k := r.Temperature.Get(); k && (!ok || c > out) {
			out, ok = c, true
		}
	}
	return out, ok
}

func thermalCount(r telemetry.Reading) (n, secs uint64, ok bool) {
	a, ok1 := r.ThermalMgmt1Transitions.Get()
	b, ok2 := r.ThermalMgmt2Transitions.Get()
	c, _ := r.ThermalMgmt1Seconds.Get()
	d, _ := r.ThermalMgmt2Seconds.Get()
	e, ok3 := r.ThrottlingEvents.Get()
	return a + b + e, c + d, ok1 || ok2 || ok3
}

// throttled says a target went into or stayed in thermal management
// between two readings.
func throttled(prev, cur []telemetry.Reading) bool {
	for k := range min(len(prev), len(cur)) {
		n0, s0, ok0 := thermalCount(prev[k])
		n1, s1, ok1 := thermalCount(cur[k])
		if ok0 && ok1 && (n1 > n0 || s1 > s0) {
			return true
		}
	}
	return false
}

// healthDeviations compares each reading of the stage's measurement
// window (a round of its window, every sample of a timeline) with the one
// before it.
func healthDeviations(sr *StageResult, rs []pts.Record) []HealthDeviation {
	type found struct {
		cells       []string
		count, secs uint64
		warnings    []string
		media       uint64
		devices     []string
	}
	var th, cw, me found
	for i := 1; i < len(rs); i++ {
		r := rs[i]
		t := r.Telemetry
		var cell string
		switch {
		case t.At == pts.AtSample && r.Cell != nil:
			cell = fmt.Sprintf("sample %d", *r.Cell+1)
		case t.At == pts.AtRound:
			if sr.Window[1] > 0 && (r.Round < sr.Window[0] || r.Round > sr.Window[1]) {
				continue
			}
			cell = fmt.Sprintf("round %d", r.Round)
		default:
			continue
		}
		prev := rs[i-1].Telemetry.Readings
		for k, cur := range t.Readings {
			if k >= len(prev) {
				continue
			}
			n0, s0, ok0 := thermalCount(prev[k])
			n1, s1, ok1 := thermalCount(cur)
			if ok0 && ok1 && (n1 > n0 || s1 > s0) {
				th.cells = appendNew(th.cells, cell)
				th.count += n1 - min(n1, n0)
				th.secs += s1 - min(s1, s0)
				th.devices = appendNew(th.devices, cur.Device)
			}
			if w, ok := cur.CriticalWarning.Get(); ok && w.Raw != 0 {
				cw.cells = appendNew(cw.cells, cell)
				cw.warnings = appendNew(cw.warnings, w.String())
				cw.devices = appendNew(cw.devices, cur.Device)
			}
			m0, ok0 := prev[k].MediaErrors.Get()
			m1, ok1 := cur.MediaErrors.Get()
			if ok0 && ok1 && m1 > m0 {
				me.cells = appendNew(me.cells, cell)
				me.media += m1 - m0
				me.devices = appendNew(me.devices, cur.Device)
			}
		}
	}
	var out []HealthDeviation
	add := func(code string, f found, what string) {
		if len(f.cells) == 0 {
			return
		}
		where := cellList(f.cells)
		if strings.HasPrefix(f.cells[0], "round") {
			where += fmt.Sprintf(" (%s each)", plural(roundCells(sr), "cell"))
		}
		out = append(out, HealthDeviation{Code: code, Stage: sr.ID, Cells: f.cells,
			Text: fmt.Sprintf("%s: %s on %s in the measurement window: %s.", sr.Title, what,
				strings.Join(f.devices, ", "), where)})
	}
	thermal := fmt.Sprintf("throttled by thermal management for %d s", th.secs)
	if th.count > 0 {
		thermal = fmt.Sprintf("%s into thermal management, throttled for %d s", plural(int(th.count), "transition"), th.secs)
	}
	add(HealthThermal, th, thermal)
	add(HealthCriticalWarning, cw, "critical warning "+strings.Join(cw.warnings, "; "))
	add(HealthMediaErrors, me, fmt.Sprintf("%s more", plural(int(me.media), "media or data integrity error")))
	return out
}

func roundCells(sr *StageResult) int {
	n := 0
	for _, c := range sr.Cells {
		if !c.PreWrite {
			n++
		}
	}
	return n
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// cellList names the rounds or samples ("round 3", "sample 7"), runs of
// them as ranges: "rounds 3–5, 8", "samples 1–30".
func cellList(cells []string) string {
	kind := ""
	var nums []int
	for _, c := range cells {
		var k string
		var n int
		if _, err := fmt.Sscanf(c, "%s %d", &k, &n); err != nil || kind != "" && k != kind {
			return strings.Join(cells, ", ")
		}
		kind = k
		nums = append(nums, n)
	}
	var parts []string
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", nums[i], nums[j]))
		} else {
			parts = append(parts, fmt.Sprint(nums[i]))
		}
		i = j + 1
	}
	if len(cells) > 1 {
		kind += "s"
	}
	return kind + " " + strings.Join(parts, ", ")
}
