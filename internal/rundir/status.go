package rundir

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// The states of a run `ptsrun status` reads.
const (
	StateRunning  = "running"  // a process on this host holds the run's lock
	StateStopped  = "stopped"  // nobody holds it and the journal has not ended
	StateFinished = "finished" // the journal has ended
	StateUnknown  = "unknown"  // the lock was taken on another host: cannot be checked here
)

// Status is where a run stands, as `ptsrun status` reads it from its
// directory: read only, from any host that sees it.
type Status struct {
	Type    string `json:"type"` // "status"
	Dir     string `json:"dir"`
	Tests   string `json:"tests"`
	Targets string `json:"targets"`
	State   string `json:"state"`
	// Process says who runs it, in words; Host and PID those of the lock.
	Process string `json:"process"`
	Host    string `json:"host,omitempty"`
	PID     int    `json:"pid,omitempty"`
	// LastRecord is the journal's last record's time, AgeS how long ago
	// (of this host's clock).
	LastRecord time.Time `json:"last_record,omitzero"`
	AgeS       float64   `json:"last_record_age_s"`
	Stage      *StageNow `json:"stage,omitempty"`
	// Tracking is the stage's steady-state window so far.
	Tracking []TrackingNow `json:"tracking,omitempty"`
	// The run's time left as its progress said it at the last record.
	RunLeftS    float64  `json:"run_left_s"`
	RunLeftMaxS float64  `json:"run_left_max_s"`
	Left        string   `json:"left"`
	Last        *Figures `json:"last,omitempty"`
	Temperature string   `json:"temperature"`
	Resume      string   `json:"resume,omitempty"`
	Verdict     string   `json:"verdict,omitempty"`
}

// StageNow is the stage a run is in.
type StageNow struct {
	Index int    `json:"index"` // from 1
	Of    int    `json:"of"`
	ID    string `json:"id"`
	Title string `json:"title"`
	Round int    `json:"round,omitempty"`
	Cell  int    `json:"cell,omitempty"` // cells (or samples) done
	// Progress is the last measurement's progress in its procedure's words.
	Progress string `json:"progress,omitempty"`
}

// TrackingNow is a tracking variable's window so far: its last value and,
// with a full window, the steady-state rule's range and slope excursion
// against their limits (steadystate, as the runner journaled it).
type TrackingNow struct {
	Name   string  `json:"name"`
	Unit   string  `json:"unit"`
	Last   string  `json:"last"`
	Rounds int     `json:"rounds"`
	Window int     `json:"window"`
	Judged bool    `json:"judged"` // the window is full: the rest is the rule's verdict
	RangeP float64 `json:"range_pct,omitempty"`
	MaxRP  float64 `json:"max_range_pct,omitempty"`
	SlopeP float64 `json:"slope_excursion_pct,omitempty"`
	MaxSP  float64 `json:"max_slope_excursion_pct,omitempty"`
	Steady bool    `json:"steady"`
	Reason string  `json:"reason,omitempty"`
}

// Figures are the last cell's or sample's figures.
type Figures struct {
	Key       string    `json:"key"`
	Time      time.Time `json:"time"`
	IOPS      float64   `json:"iops"`
	MBps      float64   `json:"mbps"`
	LatMeanMs float64   `json:"lat_mean_ms"`
	LatMaxMs  float64   `json:"lat_max_ms"`
}

// NoTemperature is what status says of the drive's temperature when the
// journal has no reading of it; the journal's reason follows.
const NoTemperature = "not available"

// lastTemperature is the last temperature the journal has, of each target
// that reported one, with when it was read; else "not available" and why.
func lastTemperature(recs []pts.Record) string {
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.Type != pts.RecTelemetry || r.Telemetry == nil {
			continue
		}
		var temps []string
		for _, rd := range r.Telemetry.Readings {
			if c, ok := rd.Temperature.Get(); ok {
				temps = append(temps, fmt.Sprintf("%.1f °C", c))
			}
		}
		if len(temps) > 0 {
			return fmt.Sprintf("%s at %s (%s)", strings.Join(temps, ", "), r.Time.UTC().Format("15:04:05"), strings.Join(r.Telemetry.Readings[0].Sources, ", "))
		}
	}
	if why := pts.TelemetryUnavailable(recs); why != "" {
		return NoTemperature + ": " + why
	}
	return NoTemperature
}

// ReadStatus reads where the run in dir stands. It writes nothing: run.json
// and the journal are read, the lock tested (ReadLock), the results built
// in memory; the costs of the time left are those the run had (Checked.Costs
// of its configuration, without the safety gate) when its targets can be
// checked here, else those its run.json gives.
func ReadStatus(ctx context.Context, dir string) (Status, error) {
	ri, err := pts.LoadRunInfo(dir)
	if err != nil {
		return Status{}, err
	}
	if ri.Workload || ri.Imported {
		return Status{}, fmt.Errorf("%s holds a workload or imported results, not a PTS run: `ptsrun report %s` shows it", dir, dir)
	}
	// A PTS run's records without their series, which status does not
	// read: a long run's journal is mostly per-second latency.
	recs, cut, err := pts.LoadJournalOf(dir, pts.ScanOptions{Series: pts.NoSeries})
	if err != nil {
		return Status{}, err
	}
	st := Status{Type: "status", Dir: dir, Tests: pts.JoinTests(ri.Config.Tests, ","), Temperature: NoTemperature}
	for i, t := range ri.Config.Targets {
		if i > 0 {
			st.Targets += ","
		}
		st.Targets += t
	}
	st.Temperature = lastTemperature(recs)
	state := pts.Replay(ri.Stages, recs)
	if len(recs) > 0 {
		st.LastRecord = state.Last.Time
		st.AgeS = max(0, time.Since(state.Last.Time).Round(time.Second).Seconds())
	}
	lock := ReadLock(dir)
	if lock.Info != nil {
		st.Host, st.PID = lock.Info.Host, lock.Info.PID
	}
	var checked *Checked
	if c, err := CheckRun(ctx, ri.Config, false); err == nil {
		checked = &c
	}
	switch {
	case state.Ended:
		st.State, st.Process = StateFinished, "finished"
		res := matrix.Build(ri, recs, cut)
		st.Verdict = res.Verdict
	case lock.Held:
		st.State, st.Process = StateRunning, fmt.Sprintf("running on %s, pid %d", st.Host, st.PID)
	case !lock.Checked:
		st.State = StateUnknown
		st.Process = lock.Why
		if lock.Info != nil {
			st.Process = fmt.Sprintf("started on %s, pid %d: whether it still runs cannot be checked from this host; its last journal record is %s old",
				st.Host, st.PID, pts.FormatETA(time.Duration(st.AgeS)*time.Second))
		}
	default:
		st.State, st.Process = StateStopped, "stopped: no process holds the run's lock"
	}
	if st.State == StateStopped || st.State == StateUnknown {
		if checked != nil {
			st.Resume = ResumeCommand(dir, checked.Targets)
		} else {
			st.Resume = "ptsrun resume " + shellWord(dir) + " --destroy-data TARGET … (on the host that has its targets)"
		}
	}
	costs := pts.CostsOf(ri)
	if checked != nil {
		costs = checked.Costs(ctx)
	}
	pos, ok := pts.PositionOf(ri, costs, recs)
	if !ok {
		e := pts.EstimateRun(ri.Stages, costs)
		pos.RunLeftMin, pos.RunLeftMax = e.Min, e.Max
	}
	if state.Ended {
		pos.RunLeftMin, pos.RunLeftMax = 0, 0
	}
	st.RunLeftS, st.RunLeftMaxS = pos.RunLeftMin.Seconds(), pos.RunLeftMax.Seconds()
	st.Left = pos.RunLeftWords()
	if ok && pos.Stage != nil && !state.Ended {
		st.Stage = &StageNow{Index: pos.StageIndex + 1, Of: pos.Stages, ID: pos.Stage.ID, Title: pos.Stage.Title, Round: pos.Round, Cell: pos.Cell}
		st.Tracking = tracking(ri, pos.Stage, state.Stages[pos.Stage.ID])
	}
	if last := lastMeasured(recs); last != nil {
		m := last.Measurement
		t := m.Counts()
		st.Last = &Figures{Key: last.Key.String(), Time: last.Time, IOPS: m.IOPS(), MBps: m.MBps(),
			LatMeanMs: t.MeanLatNs() / 1e6, LatMaxMs: float64(t.LatMaxNs) / 1e6}
		if st.Stage != nil && last.Stage == st.Stage.ID {
			lp, _ := pts.PositionOf(ri, costs, recs[:last.index+1])
			if lp.Stage != nil {
				st.Stage.Progress = lp.Stage.Procedure().Progress(last.Record, lp).Status
			}
		}
	}
	return st, nil
}

type indexed struct {
	pts.Record
	index int
}

// lastMeasured is the journal's last cell or sample.
func lastMeasured(recs []pts.Record) *indexed {
	for i := len(recs) - 1; i >= 0; i-- {
		if r := recs[i]; (r.Type == pts.RecCell || r.Type == pts.RecSample) && r.Measurement != nil {
			return &indexed{r, i}
		}
	}
	return nil
}

// tracking is stage s's window so far: each tracking variable's last
// value, and the verdict the runner journaled of its last full window.
func tracking(ri pts.RunInfo, s *pts.Stage, ss *pts.StageState) []TrackingNow {
	if ss == nil || len(s.Tracking) == 0 {
		return nil
	}
	window := ri.Config.SS.Window
	var out []TrackingNow
	for v, tv := range s.Tracking {
		tn := TrackingNow{Name: tv.Name, Unit: tv.Metric.Unit(), Window: window, Last: "none yet"}
		if v < len(ss.Tracking) && len(ss.Tracking[v]) > 0 {
			vals := ss.Tracking[v]
			tn.Rounds, tn.Last = len(vals), tv.Metric.Format(vals[len(vals)-1])
		}
		if j := ss.Judged[ss.Rounds()]; j != nil && v < len(j.Verdicts) {
			vd := j.Verdicts[v]
			if vd.Average != 0 {
				tn.Judged = true
				tn.RangeP, tn.MaxRP = 100*vd.Range/vd.Average, 100*vd.MaxRange/vd.Average
				tn.SlopeP, tn.MaxSP = 100*vd.SlopeExcursion/vd.Average, 100*vd.MaxSlopeExcursion/vd.Average
				tn.Steady, tn.Reason = vd.Steady, vd.Reason
			}
		}
		out = append(out, tn)
	}
	return out
}
