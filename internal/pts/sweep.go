package pts

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// DemandSweep is the procedure of the demand-intensity tests (DIRTH, ECW):
// rounds of a between-round pre-write and the test stimulus at every TC
// (outer) × QD (inner) until the highest load's IOPS are steady (the
// sweep's stage), then the MaxIOPS, MidIOPS and MinIOPS operating points
// chosen from its window by a rule (PickPoints), each a stage of its own:
// a pre-write and a histogram run at the point's TC/QD, a time series
// whose TC/QD the runner fills in when it gets to it (Stage.Point). A
// point chosen is journaled with its stage's start and read from there
// after; its histogram run's figures are its stage's summary's.
type DemandSweep struct{}

func (DemandSweep) Kind() Kind { return KindDemandSweep }

func (DemandSweep) Tables() []TableShape { return []TableShape{ShapeGrid, ShapePoints} }

// The parts of a demand-intensity test: its stages, by what each is to it.
type SweepPart int

const (
	PartPreconditioning SweepPart = iota // rounds to steady state before the sweep
	PartSweep                            // the TC × QD rounds
	PartPoint                            // an operating point's pre-write and histogram run
)

// PartOf is what stage s is to its demand-intensity test.
func PartOf(s Stage) SweepPart {
	switch {
	case s.Procedure().Kind() != KindDemandSweep:
		return PartPreconditioning
	case s.Point != nil:
		return PartPoint
	}
	return PartSweep
}

func (DemandSweep) check(s Stage) error {
	if s.Point != nil {
		return checkTimeline(s)
	}
	return Rounds{}.check(s)
}

// begin chooses an operating point's TC/QD from the sweep's rounds, as
// the journal holds them; a point the journal says its stage began at
// cannot have changed for the same rounds.
func (DemandSweep) begin(s *Stage, stages []Stage, prior *State, window int) (*Stage, *OperatingPoint, error) {
	if s.Point == nil {
		return s, nil, nil
	}
	at, pt, err := ResolvePoint(*s, stages, prior.Stages, window)
	if err != nil {
		return nil, nil, err
	}
	at.Title = fmt.Sprintf("%s (TC%d/QD%d)", s.Title, pt.TC, pt.QD)
	if ss := prior.Stages[s.ID]; ss != nil && ss.Point != nil && (ss.Point.TC != pt.TC || ss.Point.QD != pt.QD) {
		return nil, nil, fmt.Errorf("%s began at TC%d/QD%d, and the rounds before it now give TC%d/QD%d", s.Title, ss.Point.TC, ss.Point.QD, pt.TC, pt.QD)
	}
	return &at, &pt, nil
}

func (DemandSweep) resume(s *Stage, ss *StageState) (Record, *StageState) {
	switch {
	case s.Point == nil:
		return Rounds{}.resume(s, ss)
	case len(ss.Samples) > 0:
		// An operating point's histogram run measures the drive its
		// pre-write leaves: after the rest a kill gave it, the pre-write
		// runs again and the samples before the kill are discarded.
		return Record{Type: RecResume, Stage: s.ID,
			Message: "restarts from its pre-write: the histogram run measures the drive the pre-write leaves, not one that rested"}, &StageState{Started: true, Point: ss.Point}
	}
	return Timeline{}.resume(s, ss)
}

func (DemandSweep) measure(ctx context.Context, r *Runner, s *Stage, ss *StageState) error {
	if s.Point != nil {
		return r.runTimeline(ctx, s, ss)
	}
	return r.runRounds(ctx, s, ss)
}

// AsRan is an operating point's stage at its point.
func (DemandSweep) AsRan(s Stage, p *OperatingPoint) Stage {
	if s.Point == nil || p == nil {
		return s
	}
	return s.AtPoint(p.TC, p.QD)
}

// Outcome: the sweep's rounds, or a point's time series at the point its
// stage's start journaled, with its histogram run in figures.
func (DemandSweep) Outcome(in OutcomeInput) Outcome {
	s := in.Stage
	if s.Point == nil {
		return Rounds{}.Outcome(in)
	}
	ss := in.State.Stages[s.ID]
	// A journal from before the point was journaled: the same choice the
	// runner made, from the same rounds.
	p := ss.Point
	if from := in.State.Stages[s.Point.From]; p == nil && from != nil && from.Ended {
		if _, q, err := ResolvePoint(*s, in.Stages, in.State.Stages, in.Config.SS.Window); err == nil {
			p = &q
		}
	}
	title := s.Title
	if p != nil {
		title = fmt.Sprintf("%s (TC%d/QD%d)", s.Title, p.TC, p.QD)
		at := s.AtPoint(p.TC, p.QD)
		in.Stage = &at
	}
	o := Timeline{}.Outcome(in)
	o.Title = title
	if p != nil {
		q := *p // the journal's record stays as journaled
		q.Run = PointRunOf(o.Summary)
		o.Point = &q
	}
	return o
}

func (DemandSweep) Estimate(s Stage, c Costs) Estimate {
	if s.Point != nil {
		return Timeline{}.Estimate(s, c)
	}
	return Rounds{}.Estimate(s, c)
}

func (DemandSweep) Plan(s Stage, e Estimate, in PlanInput) []string {
	if s.Point == nil {
		return Rounds{}.Plan(s, e, in)
	}
	return append([]string{fmt.Sprintf("TC/QD: the %s point, chosen when %s ends: %s", PointLabel(s.Point.Point), in.title(s.Point.From),
		s.Point.Describe())}, Timeline{}.Plan(s, e, in)...)
}

func (DemandSweep) About(s Stage) string {
	if s.Point != nil {
		return Timeline{}.About(s)
	}
	return ""
}

// Progress: the sweep's rounds, or a point's time series.
func (DemandSweep) Progress(r Record, p Position) Progress {
	if p.Stage.Point != nil {
		return Timeline{}.Progress(r, p)
	}
	return Rounds{}.Progress(r, p)
}

// View words the sweep as rounds and a point as the time series its
// results are.
func (DemandSweep) View(st StageStatus) StageView {
	if st.Series {
		return Timeline{}.View(st)
	}
	return Rounds{}.View(st)
}

// Resumed: a point's series starts again from its pre-write.
func (DemandSweep) Resumed(s Stage, rec Record, gap string) string {
	switch {
	case s.Point == nil:
		return Rounds{}.Resumed(s, rec, gap)
	case rec.Cell != nil:
		return Timeline{}.Resumed(s, rec, gap)
	}
	return s.Title + " was restarted from its pre-write (the samples before the interruption are discarded)."
}

// AtPoint is a stage at an operating point: its segments at tc/qd.
func (s Stage) AtPoint(tc, qd int) Stage {
	s.Timeline = slices.Clone(s.Timeline)
	for i := range s.Timeline {
		s.Timeline[i].Workload.TC, s.Timeline[i].Workload.QD = tc, qd
	}
	return s
}

// cellFigures are a demand-variation cell's IOPS and ART over some rounds.
type cellFigures struct {
	tc, qd     int
	iops, art  float64 // art in ms
	index, ord int
}

// PickPoints chooses the operating points from a demand-variation stage's
// rounds (ss: its complete rounds and, once ended, its window): MaxIOPS is
// the cell of highest IOPS among those whose ART is below the ceiling;
// MinIOPS the lowest TC and QD (TC1/QD1); MidIOPS the cell under the
// ceiling whose IOPS is closest to their mean. Each cell's IOPS is the mean
// of the rounds' and its ART the mean response time of all their I/Os, as
// the tables compute them. Ties go to the smaller total outstanding I/O.
func PickPoints(dv Stage, ss *StageState, window int, ref PointRef) ([]OperatingPoint, error) {
	if ss == nil || ss.Rounds() == 0 {
		return nil, fmt.Errorf("%s has no complete round to choose the operating points from", dv.Title)
	}
	first, last := max(1, ss.Rounds()-window+1), ss.Rounds()
	if ss.Ended && len(ss.Window) == 2 && ss.Window[1] >= 1 && ss.Window[1] <= ss.Rounds() {
		first, last = max(1, ss.Window[0]), ss.Window[1]
	}
	if ref.Pick == PickLast {
		first = last
	}
	var cells []cellFigures
	for _, c := range dv.Cells {
		if c.PreWrite {
			continue
		}
		var iops, lat float64
		var ios int64
		var k int
		for r := first; r <= last; r++ {
			m := ss.Cells[r-1][c.Index]
			if m == nil {
				continue
			}
			t := m.Counts()
			if ref.Writes() {
				t = m.Write
			}
			iops += t.IOPS(m.Elapsed)
			lat += t.LatSumNs
			ios += t.IOs
			k++
		}
		f := cellFigures{tc: c.Workload.TC, qd: c.Workload.QD, art: math.Inf(1), index: c.Index, ord: len(cells)}
		if k > 0 {
			f.iops = iops / float64(k)
		}
		if ios > 0 {
			f.art = lat / float64(ios) / 1e6
		}
		// A cell without I/O (the drive stalled) stays: its IOPS are 0 and
		// its ART infinite, above any ceiling.
		cells = append(cells, f)
	}
	if len(cells) == 0 {
		return nil, fmt.Errorf("%s has no TC × QD cell", dv.Title)
	}
	rounds := fmt.Sprintf("rounds %d–%d (the measurement window), each cell's average", first, last)
	if first == last {
		rounds = fmt.Sprintf("round %d, the last of the measurement window", last)
	}
	ceiling := fmt.Sprintf("%s ms", strconv.FormatFloat(ref.CeilingMs, 'g', -1, 64))
	toio := func(c cellFigures) int { return c.tc * c.qd }
	point := func(p string, c cellFigures, rule string) OperatingPoint {
		return OperatingPoint{Point: p, TC: c.tc, QD: c.qd, IOPS: c.iops, ARTMs: c.art, Rule: rule + "; from " + rounds, Rounds: [2]int{first, last},
			Writes: ref.Writes()}
	}
	// MinIOPS: the lowest TC and QD of the loops.
	low := cells[0]
	for _, c := range cells {
		if c.tc < low.tc || c.tc == low.tc && c.qd < low.qd {
			low = c
		}
	}
	minPt := point(PointMin, low, fmt.Sprintf("the lowest TC and QD, TC%d/QD%d", low.tc, low.qd))
	var under []cellFigures
	for _, c := range cells {
		if c.art < ref.CeilingMs {
			under = append(under, c)
		}
	}
	var maxPt OperatingPoint
	if len(under) == 0 {
		maxPt = point(PointMax, low, fmt.Sprintf("no cell's ART is below the %s ceiling: MinIOPS stands in", ceiling))
		under = []cellFigures{low}
	} else {
		best := under[0]
		for _, c := range under[1:] {
			if c.iops > best.iops || c.iops == best.iops && toio(c) < toio(best) {
				best = c
			}
		}
		maxPt = point(PointMax, best, fmt.Sprintf("the highest IOPS of the %d cells whose ART is below the %s ceiling", len(under), ceiling))
	}
	target := (maxPt.IOPS + minPt.IOPS) / 2
	mid := under[0]
	for _, c := range under[1:] {
		d, e := math.Abs(c.iops-target), math.Abs(mid.iops-target)
		if d < e || d == e && toio(c) < toio(mid) {
			mid = c
		}
	}
	midPt := point(PointMid, mid, fmt.Sprintf("the cell below the %s ceiling whose IOPS is closest to the mean of MaxIOPS and MinIOPS (%s IOPS)", ceiling, FormatIOPS(target)))
	return []OperatingPoint{maxPt, midPt, minPt}, nil
}

// ResolvePoint is stage s at its operating point, chosen from the stage it
// names in stages and that stage's state.
func ResolvePoint(s Stage, stages []Stage, states map[string]*StageState, window int) (Stage, OperatingPoint, error) {
	if s.Point == nil {
		return s, OperatingPoint{}, nil
	}
	i := slices.IndexFunc(stages, func(x Stage) bool { return x.ID == s.Point.From })
	if i < 0 {
		return s, OperatingPoint{}, fmt.Errorf("%s: the stage %s it is chosen from is not in the run", s.Title, s.Point.From)
	}
	pts, err := PickPoints(stages[i], states[s.Point.From], window, *s.Point)
	if err != nil {
		return s, OperatingPoint{}, fmt.Errorf("%s: %w", s.Title, err)
	}
	for _, p := range pts {
		if p.Point == s.Point.Point {
			return s.AtPoint(p.TC, p.QD), p, nil
		}
	}
	return s, OperatingPoint{}, fmt.Errorf("%s: no operating point %q", s.Title, s.Point.Point)
}
