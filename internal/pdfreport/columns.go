package pdfreport

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/units"
)

// setup is the Set-Up Parameters column of a stage's pages.
func (b *builder) setup(s matrix.StageResult) []KV {
	if s.Published() {
		return []KV{{"Source", b.ri.Source}, {"Values", "one per cell, as published"}, {"Rounds", "none: no steady-state verdict"},
			{"Purge, PC", "not known"}}
	}
	kv := []KV{{"Data pattern", b.dataPattern("RND, incompressible")}, {"PC AR", b.pcActiveRange()}}
	if b.ri.NotRecorded(pts.UnrecordedPurge) {
		kv = append(kv, KV{"Purge", notRecorded})
	}
	if s.Purge != nil {
		p := s.Purge.Method
		if !s.Purge.Compliant && !s.Purge.Skipped {
			p += " (NOT a PTS purge)"
		}
		kv = append(kv, KV{"Purge", p})
	}
	if pc := s.Precondition; pc != nil {
		w := pc.Workload
		kv = append(kv, KV{"Pre-condition 1", fmt.Sprintf("%s %s W, %gX capacity", pts.AccessLabel(w.Access), units.FormatSize(w.BlockSize), w.Passes)},
			KV{"TOIO – TC/QD", fmt.Sprintf("%d – TC %d/QD %d", w.TC*w.QD, w.TC, w.QD)},
			KV{"Duration", fmt.Sprintf("%s, %.1f GB at %s MB/s", durationLabel(pc.Seconds), float64(pc.Bytes)/1e9, fmtMBps(pc.MBps))})
	}
	v := b.view(s)
	switch {
	case v.OwnRounds && b.ri.NotRecorded(pts.UnrecordedPrecondition):
		kv = append(kv, KV{"Pre-condition", notRecorded})
	case v.OwnRounds:
		kv = append(kv, KV{"Pre-condition 2", s.Title + " loop (WDPC)"})
	case s.Precondition != nil:
	case s.Purge != nil:
		kv = append(kv, KV{"Pre-condition", "none: from the purged state"})
	default:
		kv = append(kv, KV{"Pre-condition", b.before(s)})
	}
	if b.ri.Imported {
		kv = append([]KV{{"Imported", b.ri.Source}}, kv...)
	}
	return append(kv, KV{"Notes", v.Note})
}

// before says what state a stage that is neither purged nor
// preconditioned starts from: the one the stage before it left (HIR's
// wait states follow its preconditioning).
func (b *builder) before(s matrix.StageResult) string {
	for i, st := range b.ri.Stages {
		if st.ID == s.ID && i > 0 && b.ri.Stages[i-1].Test == st.Test {
			return "the drive as " + b.ri.Stages[i-1].Title + " left it"
		}
	}
	return "none"
}

func durationLabel(sec float64) string {
	d := time.Duration(sec * float64(time.Second)).Round(time.Second)
	return d.String()
}

func ssRounds(s matrix.StageResult) string {
	if s.Rounds == 0 {
		return "none"
	}
	r := fmt.Sprintf("%d – %d", s.Window[0], s.Window[1])
	if !s.Steady {
		r += " (NOT ACHIEVED)"
	}
	return r
}

// params is the Test Parameters column.
func (b *builder) params(s matrix.StageResult, stimulus, mixes, sizes string) []KV {
	cfg := b.ri.Config
	td := pts.Def(b.testOf(s))
	if td == nil {
		td = &pts.TestDef{}
	}
	var capacity int64
	for _, t := range b.ri.Targets {
		capacity += t.CapacityBytes
	}
	var c matrix.CellResult
	if len(s.Cells) > 0 {
		c = s.Cells[0]
	}
	// The active range the stage's cells ran with (tests have their own).
	ar := cfg.ActiveRangeOf(td.ID)
	cellTime := fmt.Sprintf("%v per cell", time.Duration(cfg.CellTime))
	if st := b.stageDef(s); len(st.Cells) > 0 {
		ar = st.Cells[0].Workload.ActiveRange
		cellTime = cellTimes(st.Cells)
	}
	amount := fmt.Sprintf("%g %% (%s)", ar, device.FormatCapacity(int64(float64(capacity)*ar/100)))
	if b.ri.ActiveRangeNotRecorded(s.ID) {
		amount = notRecorded
	}
	kv := []KV{
		{"Data pattern", b.dataPattern("RND")},
		{"AR & amount", amount},
		{"Test stimulus", stimulus},
		{td.LoopLabel(pts.LoopMix), mixes},
		{td.LoopLabel(pts.LoopBlockSize), sizes},
		{"TOIO – TC/QD", fmt.Sprintf("%d – TC %d/QD %d", c.TC*c.QD, c.TC, c.QD)},
		{"Cell time", cellTime},
		{"SS rounds", ssRounds(s)},
	}
	if len(td.Loops) > 0 && td.Loops[0] == pts.LoopBlockSize {
		kv[3], kv[4] = kv[4], kv[3] // the outer loop first
	}
	if s.Published() {
		kv = kv[2:5] // the matrix only: no load, time or rounds are known
	}
	return kv
}

// cellTimes says how long the stage's cells run: one time for all, or
// each when they differ (HIR's rounds are a long cell and a tracked one).
func cellTimes(cells []pts.Cell) string {
	var each []string
	var round time.Duration
	for _, c := range cells {
		round += c.Workload.Duration
		if d := c.Workload.Duration.String(); !slices.Contains(each, d) {
			each = append(each, d)
		}
	}
	if len(each) == 1 {
		return each[0] + " per cell"
	}
	return fmt.Sprintf("%v per round: cells of %s", round, strings.Join(each, " and "))
}

func mixList(m []int) string {
	var s []string
	for _, x := range m {
		s = append(s, matrix.MixLabel(x))
	}
	return strings.Join(s, ", ")
}

func sizeList(sz []int64) string {
	var s []string
	for _, x := range sz {
		s = append(s, strings.TrimSuffix(units.FormatSize(x), " KiB"))
	}
	return strings.Join(s, ", ") + " KiB"
}

// runSetup and runParams fill the header columns of pages that belong to
// the run rather than to one test.
func (b *builder) runSetup() []KV {
	cfg := b.ri.Config
	if b.ri.Imported && b.ri.Profile.Short == "" {
		return []KV{{"Imported", b.ri.Source}, {"Purge, PC", "not known"}}
	}
	if b.ri.Workload {
		by := "ptsrun workload"
		if b.opt.Fio != nil {
			by = "ptsrun fio"
		}
		return []KV{{"Recorded by", by}, {"Purge, PC", "none (outside the PTS)"}, {"Write cache", cacheLabel(b.res.WriteCache)}}
	}
	return []KV{{"Profile", b.ri.Profile.Short + " (" + b.ri.Profile.Name + ")"}, {"Write cache", cacheLabel(b.res.WriteCache)},
		{"Purge", b.purgeLabel()}, {"PC AR", b.pcActiveRange()}, {"Seed", b.seedLabel()},
		{"SS rule", fmt.Sprintf("%d rounds, range ≤ %g %%, slope ≤ %g %%", cfg.SS.Window, cfg.SS.MaxRange*100, cfg.SS.MaxSlope*100)},
		{"Round limit", fmt.Sprint(cfg.MaxRounds)}}
}

func (b *builder) runParams() []KV {
	cfg := b.ri.Config
	if b.opt.Fio != nil {
		return b.fioParams()
	}
	if b.ri.Workload && len(b.ri.Stages) == 1 && len(b.ri.Stages[0].Cells) == 1 {
		w := b.ri.Stages[0].Cells[0].Workload
		d := w.Duration.String()
		if w.Ramp > 0 {
			d += " (ramp " + w.Ramp.String() + ")"
		}
		return []KV{{"Workload", w.String()}, {"Duration", d}, {"Targets", fmt.Sprint(len(b.ri.Targets))}}
	}
	if b.ri.Workload && len(b.ri.Stages) == 1 {
		// Several workloads (presets) one after the other.
		var names []string
		var total time.Duration
		for _, c := range b.ri.Stages[0].Cells {
			names = append(names, c.Key.String())
			total += c.Workload.Duration
		}
		return []KV{{"Workloads", strings.Join(names, ", ")}, {"Duration", total.String() + " in all"},
			{"Targets", fmt.Sprint(len(b.ri.Targets))}, {"Complete", yesNo(b.res.Complete)}}
	}
	if b.ri.Imported && b.ri.Profile.Short == "" {
		var tests []string
		for _, t := range b.res.Tests {
			tests = append(tests, string(t.Test))
		}
		return []KV{{"Tests", strings.Join(tests, ", ")}, {"Complete", yesNo(b.res.Complete)}}
	}
	return []KV{{"Tests", pts.JoinTests(cfg.Tests, ", ")}, {"Cell time", time.Duration(cfg.CellTime).String()},
		{"AR", b.activeRanges()}, {"IOPS TC/QD", fmt.Sprintf("%d/%d", cfg.TC, cfg.QD)},
		{"Targets", fmt.Sprint(len(b.ri.Targets))}, {"Complete", yesNo(b.res.Complete)}}
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// testOf is the test a stage belongs to.
func (b *builder) testOf(s matrix.StageResult) pts.TestID {
	for _, t := range b.res.Tests {
		for _, x := range t.Stages {
			if x.ID == s.ID {
				return t.Test
			}
		}
	}
	return ""
}

// activeRanges names each test's active range and the preconditioning's.
func (b *builder) activeRanges() string {
	var parts []string
	for _, td := range pts.Tests {
		for _, st := range b.ri.Stages {
			if st.Test != td.ID {
				continue
			}
			if b.ri.ActiveRangeNotRecorded(st.ID) {
				parts = append(parts, strings.ToUpper(string(td.ID))+" "+notRecorded)
				break
			}
			if ws := st.Workloads(); len(ws) > 0 {
				parts = append(parts, fmt.Sprintf("%s %g %%", strings.ToUpper(string(td.ID)), ws[0].ActiveRange))
				break
			}
		}
	}
	return strings.Join(append(parts, "PC "+b.pcActiveRange()), ", ")
}

// stageDef is the definition of a stage as it ran: as the run planned it
// (run.json), at the operating point it ran at, if any (a stage at a
// point is planned at the highest TC/QD); an empty one for a stage the
// run does not have.
func (b *builder) stageDef(s matrix.StageResult) pts.Stage {
	for _, st := range b.ri.Stages {
		if st.ID == s.ID {
			return st.Procedure().AsRan(st, s.Point)
		}
	}
	return pts.Stage{}
}

// timelineParams is the Test Parameters column of a timeline stage: its
// segments, load and sampling instead of loops and rounds.
func (b *builder) timelineParams(s matrix.StageResult) []KV {
	st := b.stageDef(s)
	if len(st.Timeline) == 0 {
		return nil
	}
	w := st.Timeline[0].Workload
	var segs, every []string
	for _, g := range st.Timeline {
		seg := fmt.Sprintf("%s for %v", g.Workload, g.Workload.Duration)
		switch runs := st.Runs(g); {
		case runs.Rounds:
			seg = fmt.Sprintf("up to %d rounds of %s for %v", runs.Times, g.Workload, g.Workload.Duration)
		case runs.Idle > 0:
			seg = fmt.Sprintf("%d × (%s for %v, %v idle)", runs.Times, g.Workload, g.Workload.Duration, runs.Idle)
		case runs.Times > 1:
			seg = fmt.Sprintf("%d × %s for %v", runs.Times, g.Workload, g.Workload.Duration)
		}
		segs = append(segs, seg)
		if iv := "every " + time.Duration(g.Interval).String(); !slices.Contains(every, iv) {
			every = append(every, iv)
		}
	}
	// A long list of segments is in appendix A; the column has room for
	// the first few.
	if len(segs) > 3 {
		segs = append(segs[:2], fmt.Sprintf("%d more (appendix A)", len(segs)-2))
	}
	stimulus := strings.Join(segs, "; then ")
	if st.Stimulus != "" {
		stimulus = st.Stimulus
	}
	// What ran, and what could have: a fills rule or steady state may
	// end the series before its segments do.
	var ran float64
	for _, x := range s.Samples {
		ran += x.Seconds
	}
	duration := durationLabel(ran)
	if nominal := st.TimelineTime(); time.Duration(ran*float64(time.Second)) < nominal-time.Second {
		duration += fmt.Sprintf(" (at most %s)", durationLabel(nominal.Seconds()))
	}
	kv := []KV{
		{"Data pattern", "RND"},
		{"AR & amount", fmt.Sprintf("%g %% (%s)", w.ActiveRange, device.FormatCapacity(int64(float64(s.Capacity)*w.ActiveRange/100)))},
		{"Test stimulus", stimulus},
		{"TOIO – TC/QD", fmt.Sprintf("%d – TC %d/QD %d", w.TC*w.QD, w.TC, w.QD)},
		{"Sampling", strings.Join(every, " or ")},
		{"Duration", duration},
	}
	if s.EndedBy != "" {
		kv = append(kv, KV{"Ended", s.EndedBy})
	}
	return kv
}

// stimulusLabel names a workload without its load: "RND 8 KiB 65/35",
// "RND composite 40/60, 3 LBA zones".
func stimulusLabel(w engine.Workload) string {
	s := shortStimulus(w)
	if len(w.BlockSplit) > 0 && len(w.Zones) > 0 {
		s += fmt.Sprintf(", %d LBA zones", len(w.Zones))
	}
	return s
}

// shortStimulus is stimulusLabel for narrow columns: "RND composite
// 40/60", its zones left to the pages.
func shortStimulus(w engine.Workload) string {
	if len(w.Streams) > 0 {
		return fmt.Sprintf("MIX of %d streams %s", len(w.Streams), pts.MixLabel(w.ReadPct))
	}
	if len(w.BlockSplit) == 0 {
		return pts.KeyOf(w).Label()
	}
	return fmt.Sprintf("%s composite %s", pts.AccessLabel(w.Access), pts.MixLabel(w.ReadPct))
}
