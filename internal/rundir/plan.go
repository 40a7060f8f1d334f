package rundir

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/precondition"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/targets"
)

// planStage is one stage of the plan with its time budget, as plan
// --json writes it (never read back: the pts.Stage it embeds would read
// only its own fields).
type planStage struct {
	pts.Stage
	PurgeMethod     string        `json:"purge_method"`
	PurgeErases     []string      `json:"purge_erases,omitempty"`  // a controller-wide purge: every namespace it erases
	PurgeRefused    string        `json:"purge_refused,omitempty"` // why the purge would be refused`
	WIPCBytes       int64         `json:"wipc_bytes"`
	WIPCTime        time.Duration `json:"wipc_time_ns"`
	RoundTime       time.Duration `json:"round_time_ns"`
	MinRounds       int           `json:"min_rounds"`
	MaxRoundsTime   time.Duration `json:"max_time_ns"`
	MinRoundsTime   time.Duration `json:"min_time_ns"`
	WIPCSpeedSource string        `json:"wipc_speed_source"`
	estimate        pts.Estimate
}

// WritePlan writes what run would do with c, as text or as one JSON
// document, refusals included, and runs nothing. After writing all of it,
// it returns what run would refuse (wrapping device.ErrUnsafe; the plan
// has said it), so that plan exits as run would, apart from an error
// that kept it from being written.
func (c Checked) WritePlan(ctx context.Context, w io.Writer, asJSON bool) (refusal, err error) {
	run := c
	cfg, p, tp, method := run.Config, run.Profile, run.Targets, run.Purge
	// Each stage's time is its procedure's estimate, at the costs of
	// these targets: run counts its time left from the same.
	est := run.Estimate(ctx)
	costs := est.Costs
	wide := ""
	ch, ok, wideErr := tp.WidePurge(ctx, method, cfg.DestroyData)
	switch {
	case !ok:
	case wideErr != nil:
		wide = "REFUSED: " + wideErr.Error()
	case len(ch.Erased) > 0:
		wide = fmt.Sprintf("%s, controller-wide: erases %s", ch.Method, strings.Join(ch.Erased, ", "))
	default:
		wide = ch.Method + ", the targets' namespaces only"
	}
	var stages []planStage
	built := cfg.Stages(p)
	for i, s := range built {
		e := est.Stages[i]
		ps := planStage{Stage: s, PurgeMethod: method, WIPCBytes: e.WIPCBytes, WIPCTime: e.WIPCTime, RoundTime: e.RoundTime,
			MinRounds: e.MinRounds, MinRoundsTime: e.Min, MaxRoundsTime: e.Max, WIPCSpeedSource: costs.SeqSource, estimate: e}
		if !s.Purge {
			ps.PurgeMethod = ""
		} else if ok {
			ps.PurgeErases = ch.Erased
			if wideErr != nil {
				ps.PurgeRefused = wideErr.Error()
			}
		}
		stages = append(stages, ps)
	}
	subset := matrix.SubsetDeviations(cfg, p)
	rules := map[pts.TestID][]pts.RuleText{}
	for _, id := range cfg.Tests {
		rules[id] = pts.Def(id).RulesOf(cfg)
	}
	readings := pts.ReadingsOf(cfg)
	verdicts, verr := tp.Verdicts(cfg.DestroyData)
	if verr != nil {
		return nil, verr
	}
	// A plan runs nothing, but says what run would refuse, and exits as
	// run would (4) after saying all of it.
	var refused error
	for _, v := range verdicts {
		if len(v.Refused) > 0 {
			refused = fmt.Errorf("%w: %s: %s", device.ErrUnsafe, v.Target, strings.Join(v.Refused, "; "))
		}
	}
	if wideErr != nil {
		refused = fmt.Errorf("%w: %v", device.ErrUnsafe, wideErr)
	}
	if asJSON {
		doc := map[string]any{"config": cfg, "profile": p, "stages": stages, "targets": verdicts,
			"eta_min_ns": est.Min, "eta_max_ns": est.Max, "rules": rules, "readings": readings}
		if len(subset) > 0 {
			doc["subset"] = subset
		}
		b, merr := json.MarshalIndent(doc, "", "  ")
		if merr != nil {
			return nil, merr
		}
		if _, err = fmt.Fprintln(w, string(b)); err != nil {
			return nil, err
		}
		return refused, nil
	}
	fmt.Fprintf(w, "Plan: %s on %s, %s profile (%s), %s, seed %d\n", pts.JoinTests(cfg.Tests, ", "),
		strings.Join(append(slices.Clone(cfg.Targets), cfg.FioServers...), ", "), p.Short, p.WriteCacheLabel(), cfg.Engine, cfg.Seed)
	fmt.Fprintf(w, "Steady state: %d-round window, range ≤ %g %%, slope excursion ≤ %g %%; round limit %d\n\n",
		cfg.SS.Window, cfg.SS.MaxRange*100, cfg.SS.MaxSlope*100, cfg.MaxRounds)
	if len(subset) > 0 {
		fmt.Fprintln(w, "Quick look, not the PTS (the report lists it as a deviation):")
		for _, d := range subset {
			fmt.Fprintf(w, "  %s\n", d.Text)
		}
		fmt.Fprintln(w)
	}
	for i, s := range stages {
		fmt.Fprintf(w, "%d. %s\n", i+1, s.Title)
		if s.Purge {
			fmt.Fprintf(w, "   purge: %s", s.PurgeMethod)
			if tp.Kind == targets.Remote && s.PurgeMethod != precondition.None {
				fmt.Fprintf(w, " (%s)", precondition.RemoteAbout(s.PurgeMethod))
			}
			fmt.Fprintln(w)
			if wide != "" {
				fmt.Fprintf(w, "          %s\n", wide)
			}
		}
		if s.Precondition != nil {
			fmt.Fprintf(w, "   WIPC: %s, %g × the active range", s.Precondition.String(), s.Precondition.Passes)
			if s.WIPCBytes > 0 {
				fmt.Fprintf(w, " = %.1f GB, about %s at %.0f MB/s (%s)", float64(s.WIPCBytes)/1e9, pts.FormatETA(s.WIPCTime), costs.SeqMBps, costs.SeqSource)
			}
			fmt.Fprintln(w)
		}
		// The rest of the stage, in its procedure's words.
		for _, line := range s.Procedure().Plan(s.Stage, s.estimate, pts.PlanInput{Stages: built, SetCapacity: costs.SetCapacity}) {
			fmt.Fprintf(w, "   %s\n", line)
		}
		fmt.Fprintln(w)
	}
	printRules(w, cfg, p, rules, readings)
	fmt.Fprintf(w, "ETA: %s to %s of device time\n", pts.FormatETA(est.Min), pts.FormatETA(est.Max))
	if costs.PerRound > 0 {
		fmt.Fprintf(w, "(with fio servers each round also waits about %v for fio's client/server start-up and %v between cells; included)\n",
			costs.PerRound, costs.PerCell)
	}
	if len(verdicts) > 0 {
		fmt.Fprintln(w, "\nTargets:")
		for _, v := range verdicts {
			fmt.Fprintf(w, "  %s: %s\n", v.Target, v.Verdict)
		}
	}
	if tp.Engine == targets.Fio {
		for _, s := range stages {
			if len(s.Cells) == 0 {
				continue
			}
			wl := s.Cells[0].Workload
			wl.Seed = pts.CellSeed(cfg.Seed, s.ID, 1, 0)
			fmt.Fprintf(w, "\nfio job file of %s, round 1, cell 1 (%s); every cell has its own in DIR/fio:\n", s.Title, s.Cells[0].Key)
			for _, job := range tp.JobFiles(wl) {
				if job.Host != "local" {
					fmt.Fprintf(w, "--- for %s\n", job.Host)
				}
				fmt.Fprint(w, job.Text)
			}
		}
	}
	return refused, nil
}

// printRules writes each test's rules, as its description holds them, and
// the readings of the PTS the run rests on: what the report's appendix
// prints in full.
func printRules(w io.Writer, cfg pts.Config, p pts.Profile, rules map[pts.TestID][]pts.RuleText, readings []pts.Reading) {
	fmt.Fprintln(w, "Rules:")
	for _, id := range cfg.Tests {
		fmt.Fprintf(w, "  %s:\n", pts.Def(id).Name)
		for _, r := range rules[id] {
			fmt.Fprintf(w, "    - %s: %s\n", r.Name, r.Text)
		}
	}
	fmt.Fprintf(w, "\nReadings of the PTS this run rests on (the report's appendix %s prints each with the other harnesses' readings):\n",
		pts.ReadingsAppendix)
	for _, r := range readings {
		fmt.Fprintf(w, "  - %s: %s (%s); another reading: %s", r.Topic, r.Ours, r.Source, r.ChooseWords())
		if in := r.InRun(cfg, p); in != "" {
			fmt.Fprintf(w, "; this run: %s", in)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}
