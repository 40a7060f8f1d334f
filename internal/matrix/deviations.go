package matrix

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/steadystate"
	"github.com/ptsrun/ptsrun/internal/units"
)

// The compliance verdict's deviations: every way a run departs from PTS
// 2.0.2, in plain words, each stage's in its procedure's.

// stageActiveRange is the active range the cells of a test's stages ran
// with; ok is false when the test has no cells in the run.
func stageActiveRange(ri pts.RunInfo, test pts.TestID) (float64, bool) {
	for _, s := range ri.Stages {
		if s.Test == test && len(s.Cells) > 0 {
			return s.Cells[0].Workload.ActiveRange, true
		}
	}
	return 0, false
}

// rangeNotRecorded says that imported results do not record the active
// range of a stage of the test.
func rangeNotRecorded(ri pts.RunInfo, test pts.TestID) bool {
	for _, s := range ri.Stages {
		if s.Test == test && ri.ActiveRangeNotRecorded(s.ID) {
			return true
		}
	}
	return false
}

// SubsetDeviations say what a quick look (--block-sizes, --mixes) left out
// of each test's matrix, one line per test that lost anything; plan shows
// them before the run.
func SubsetDeviations(cfg pts.Config, p pts.Profile) []Deviation {
	var out []Deviation
	for _, td := range pts.Tests {
		if !slices.Contains(cfg.Tests, td.ID) {
			continue
		}
		allSizes, allMixes := pts.TestMatrix(td.ID, p)
		sizes, mixes := cfg.Subset(td.ID, p)
		var goneSizes []string
		for _, bs := range allSizes {
			if !slices.Contains(sizes, bs) {
				goneSizes = append(goneSizes, strings.TrimSuffix(units.FormatSize(bs), " KiB"))
			}
		}
		var goneMixes []string
		for _, m := range allMixes {
			if !slices.Contains(mixes, m) {
				goneMixes = append(goneMixes, MixLabel(m))
			}
		}
		if len(goneSizes)+len(goneMixes) == 0 {
			continue
		}
		run := 0
		for _, bs := range sizes {
			if cfg.Runnable(bs) {
				run += len(mixes)
			}
		}
		var gone, flags []string
		if len(goneSizes) > 0 {
			flags = append(flags, "--block-sizes")
			what := "block size"
			if td.ID == "tp" {
				what = "the stage of block size" // its purge and preconditioning go with it
			}
			if len(goneSizes) > 1 {
				what += "s"
			}
			gone = append(gone, what+" "+pts.JoinAnd(goneSizes)+" KiB")
		}
		if len(goneMixes) > 0 {
			flags = append(flags, "--mixes")
			what := "R/W mix"
			if len(goneMixes) > 1 {
				what += "es"
			}
			gone = append(gone, what+" "+pts.JoinAnd(goneMixes))
		}
		out = append(out, Deviation{Code: "subset", Text: fmt.Sprintf("%s: a quick look at %d of the matrix's %d cells (%s); left out: %s.",
			td.Name, run, len(allSizes)*len(allMixes), strings.Join(flags, ", "), strings.Join(gone, "; "))})
	}
	return out
}

// purgeDev is a deviation of one kind and text, and the stages it touched.
type purgeDev struct {
	code, text string
	stages     []string
}

// cacheSatisfies reports whether a write-cache record ends in the state the
// profile asks for; a drive without a volatile cache satisfies WCD.
func cacheSatisfies(w *pts.WriteCacheResult) bool {
	return w.After == label(w.Requested) || w.After == pts.NoWriteCache && !w.Requested
}

// deviations lists every departure from PTS 2.0.2, in plain words.
func deviations(ri pts.RunInfo, st *pts.State, res *Results) []Deviation {
	var out []Deviation
	add := func(code, format string, a ...any) {
		d := Deviation{Code: code, Text: fmt.Sprintf(format, a...)}
		if !slices.Contains(out, d) { // a resumed run meets the same failure again: say it once
			out = append(out, d)
		}
	}
	cfg := ri.Config
	if ri.Imported {
		add("imported", "The results were imported (%s): ptsrun did not run these workloads, nor the purge and "+
			"preconditioning the PTS requires, and cannot vouch for how they were measured.", ri.Source)
		if ri.Import != nil {
			// What the source itself shows departing from the profile.
			for _, d := range ri.Import.Departures {
				add("imported_departure", "%s", d)
			}
		}
	}
	if ri.Config.Engine == engine.Sim || strings.HasPrefix(ri.Engine, engine.Sim) {
		add("simulated", "The device is ptsrun's simulated SSD: the results describe a model, not hardware.")
	}
	if ri.Workload {
		// Nothing of the PTS was asked for: the rest does not apply.
		if files, ok := strings.CutPrefix(ri.Source, "ptsrun fio: "); ok && len(ri.Stages) == 1 {
			add("workload", "The fio job files %s ran as written with `ptsrun fio`, outside the PTS: no purge, no preconditioning, "+
				"no steady state; each of their %d reporting groups is a cell.", files, len(ri.Stages[0].Cells))
			return out
		}
		if n := len(ri.Stages[0].Cells); len(ri.Stages) == 1 && n > 1 {
			add("workload", "%d workloads run one after the other with `ptsrun workload`, outside the PTS: no purge, no preconditioning, no steady state.", n)
			return out
		}
		add("workload", "One workload run with `ptsrun workload`, outside the PTS: no purge, no preconditioning, "+
			"one measurement of %v, no steady state.", time.Duration(cfg.CellTime))
		return out
	}
	if ct := time.Duration(cfg.CellTime); ct != pts.DefaultCellTime {
		add("cell_time", "Each cell ran %v instead of the PTS's %v.", ct, pts.DefaultCellTime)
	}
	// Each test's active range against the profile's, from the cells as
	// they ran; above is a departure as much as below.
	for _, td := range pts.Tests {
		ar, ok := stageActiveRange(ri, td.ID)
		want := ri.Profile.ActiveRangeOf(td.ID)
		switch {
		case !ok || ar == want || rangeNotRecorded(ri, td.ID):
			// An import that does not record it says so itself.
		case ar < want:
			add("active_range", "%s: the active range was %g %%, below the %s profile's %g %%.", td.Name, ar, ri.Profile.Short, want)
		default:
			add("active_range", "%s: the active range was %g %%, above the %s profile's %g %%.", td.Name, ar, ri.Profile.Short, want)
		}
	}
	// A test's own parameters set otherwise than their defaults; another
	// harness's reading of the PTS is not a deviation: the readings
	// appendix says which the run read.
	for _, t := range pts.Tests {
		for _, p := range t.Params {
			v, ok := cfg.Params[p.Flag]
			if _, another := p.Another(v); ok && v != p.Default && !p.Method && !another && slices.Contains(cfg.Tests, t.ID) {
				add("param", "%s: --%s %s instead of %s.", t.Name, p.Flag, v, p.Default)
			}
		}
	}
	for _, t := range pts.Tests {
		if t.Departures != nil && slices.Contains(cfg.Tests, t.ID) {
			for _, d := range t.Departures(cfg) {
				add("test", "%s", d)
			}
		}
	}
	if pc := cfg.PCActiveRange; pc > 0 && pc != 100 {
		add("pc_active_range", "The workload-independent preconditioning covered %g %% of the device, not all of it.", pc)
	}
	out = append(out, SubsetDeviations(cfg, ri.Profile)...)
	// Of the block sizes asked for, those the targets cannot do.
	var left []string
	var planned []int64
	for _, t := range cfg.Tests {
		sizes, _ := cfg.Subset(t, ri.Profile)
		planned = append(planned, sizes...)
	}
	for _, bs := range planned {
		if l := units.FormatSize(bs); !cfg.Runnable(bs) && !slices.Contains(left, l) {
			left = append(left, l)
		}
	}
	if len(left) > 0 {
		add("block_sizes", "The %s cells were left out: the target's logical block size is %d bytes, and no I/O can be smaller.",
			pts.JoinAnd(left), cfg.MinBlock)
	}
	def := steadystate.Default()
	if cfg.SS != def {
		add("ss_criteria", "Steady state was judged on a %d-round window, range ≤ %g %%, slope excursion ≤ %g %% instead of the PTS's 5 rounds, 20 %%, 10 %%.",
			cfg.SS.Window, cfg.SS.MaxRange*100, cfg.SS.MaxSlope*100)
	}
	if cfg.MaxRounds < pts.DefaultMaxRounds {
		add("max_rounds", "The round limit was %d instead of the PTS's %d.", cfg.MaxRounds, pts.DefaultMaxRounds)
	}
	// One line per kind of purge deviation, naming every stage it touched.
	var purges []*purgeDev
	addPurge := func(code, text, stage string) {
		for _, p := range purges {
			if p.code == code && p.text == text {
				p.stages = append(p.stages, stage)
				return
			}
		}
		purges = append(purges, &purgeDev{code, text, []string{stage}})
	}
	for _, s := range ri.Stages {
		if !s.Purge {
			continue
		}
		p := st.Purges[s.ID]
		switch {
		case p == nil || p.Purge == nil:
			if st.Stages[s.ID].Started {
				addPurge("purge_missing", "no purge is recorded.", s.Title)
			}
		case p.Purge.Skipped:
			addPurge("purge_none", "the device was not purged (--purge none).", s.Title)
		case !p.Purge.Compliant:
			addPurge("purge_substitute", fmt.Sprintf("the device was prepared with %s, a substitute that is not a PTS purge.", p.Purge.Method), s.Title)
		}
	}
	for _, p := range purges {
		add(p.code, "%s: %s", pts.JoinAnd(p.stages), p.text)
	}
	// The setting at the start, then each stage's checks: one line per
	// reason, naming the stages where a check found the cache wrong and
	// could not put it right.
	var first string
	var checks []*purgeDev
	for _, wc := range st.WriteCache {
		w := wc.WriteCache
		if w == nil || w.Restore || cacheSatisfies(w) {
			continue
		}
		why := w.Error
		switch {
		case w.After == pts.NoWriteCache:
			why = "the drive has no volatile write cache"
		case why == "":
			why = "state after setting: " + w.After
		}
		want := strings.ToUpper(label(w.Requested)[:1]) + label(w.Requested)[1:]
		if w.Check == "" {
			first = why
			add("write_cache", "The write cache could not be set to %s as the %s profile asks (%s).", want, ri.Profile.Short, why)
			continue
		}
		if first != "" {
			continue // the setting at the start failed already, which says it all
		}
		text := fmt.Sprintf("the write cache was %s %s and could not be set back to %s (%s).", w.Before, w.Check, want, why)
		found := false
		for _, c := range checks {
			if c.text == text {
				c.stages, found = append(c.stages, stageTitle(ri, wc.Stage)), true
			}
		}
		if !found {
			checks = append(checks, &purgeDev{"write_cache", text, []string{stageTitle(ri, wc.Stage)}})
		}
	}
	for _, c := range checks {
		add(c.code, "%s: %s", pts.JoinAnd(slices.Compact(c.stages)), c.text)
	}
	// Each stage's, in its procedure's words.
	for _, t := range res.Tests {
		for _, s := range t.Stages {
			if v := s.View(t.Test); v.Deviation != "" {
				add(v.Code, "%s", v.Deviation)
			}
		}
	}
	for _, e := range st.Errors {
		why := strings.TrimSuffix(e.Error, ".")
		switch s := res.stage(e.Stage); {
		case s != nil && s.Complete:
			// The run went on after it (resume): say that it happened.
			add("error_resumed", "%s: an error stopped the run, which was then resumed: %s.", s.Title, why)
		case s == nil && !st.Ended:
			add("error", "The run was stopped by an error: %s.", why)
		}
	}
	for i, r := range st.Resumes {
		gap := "a gap ptsrun did not time"
		if i < len(st.ResumeGaps) {
			gap = st.ResumeGaps[i].Round(time.Second).String()
		}
		s := stageOf(ri, r.Stage)
		add("resumed", "The run was interrupted and resumed: %s", s.Procedure().Resumed(s, r, gap))
	}
	if len(st.Resumes) == 0 && len(st.Interrupts) > 0 {
		add("interrupted", "The run was interrupted and has not been resumed.")
	}
	if st.Cut {
		add("journal_cut", "The journal's last line was cut short (the process was killed); that record is ignored.")
	}
	return out
}
