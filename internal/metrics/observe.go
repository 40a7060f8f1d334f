package metrics

import (
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// Observer is what observes a PTS run (rundir.Observer's methods):
// Textfile is one, and so is the progress display.
type Observer interface {
	pts.Observer
	Begin(ri pts.RunInfo, dir string)
	Note(msg string)
	Finish()
}

// Progress is what is shown a workload's intervals (custom.Progress's
// methods): Textfile is one, and so is the command line's status line.
type Progress interface {
	Running(label string, w engine.Workload)
	Interval(i int, s engine.Second)
	Done()
}

// Tee is o and, when there is one, the textfile t: each told of the run
// in turn, o first.
func Tee(o Observer, t *Textfile) Observer {
	if t == nil {
		return o
	}
	return tee{o, t}
}

type tee struct{ a, b Observer }

func (x tee) Observe(r pts.Record, p pts.Position) { x.a.Observe(r, p); x.b.Observe(r, p) }
func (x tee) Begin(ri pts.RunInfo, dir string)     { x.a.Begin(ri, dir); x.b.Begin(ri, dir) }
func (x tee) Note(msg string)                      { x.a.Note(msg); x.b.Note(msg) }
func (x tee) Finish()                              { x.a.Finish(); x.b.Finish() }

// TeeProgress is p and, when there is one, the textfile t.
func TeeProgress(p Progress, t *Textfile) Progress {
	if t == nil {
		return p
	}
	return teeProgress{p, t}
}

type teeProgress struct{ a, b Progress }

func (x teeProgress) Running(label string, w engine.Workload) {
	x.a.Running(label, w)
	x.b.Running(label, w)
}
func (x teeProgress) Interval(i int, s engine.Second) { x.a.Interval(i, s); x.b.Interval(i, s) }
func (x teeProgress) Done()                           { x.a.Done(); x.b.Done() }

// Begin labels the run's metrics with its directory's base name and its
// targets, and writes the run's information.
func (t *Textfile) Begin(ri pts.RunInfo, dir string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.begin(runName(dir), append(append([]string(nil), ri.Config.Targets...), ri.Config.FioServers...))
}

// Note is a long step's progress: nothing to write.
func (t *Textfile) Note(string) {}

// Finish writes the file a last time.
func (t *Textfile) Finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.write()
}

// Observe writes a journal record's figures: a cell's or a sample's
// IOPS, throughput, mean response time and round or sample number, a
// round's steady-state distance, a stage's end, and with every record the
// run's time left as the progress estimates it.
func (t *Textfile) Observe(r pts.Record, pos pts.Position) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if pos.Stage != nil {
		t.test, t.stage = string(pos.Stage.Test), pos.Stage.ID
	}
	// A record of no stage (the write cache's) is the last stage's.
	test, stage := t.test, t.stage
	l := t.of(test, stage)
	t.left(l, pos.RunLeftMin, pos.RunLeftMax)
	switch {
	case (r.Type == pts.RecCell || r.Type == pts.RecSample) && r.Measurement != nil:
		m := r.Measurement
		c := m.Counts()
		t.measured(l, m.IOPS(), m.MBps()*1e6, c.MeanLatNs()/1e9)
		if r.Type == pts.RecSample && r.Cell != nil {
			t.sample.With(l).Set(float64(*r.Cell + 1))
		} else if r.Round > 0 {
			t.round.With(l).Set(float64(r.Round))
		}
	case r.Type == pts.RecRoundEnd:
		if r.Round > 0 {
			t.round.With(l).Set(float64(r.Round))
		}
		if v := r.Verdict; v != nil {
			t.steady.With(l).Set(b2f(v.Steady))
			for i, vd := range v.Verdicts {
				name := ""
				if pos.Stage != nil && i < len(pos.Stage.Tracking) {
					name = pos.Stage.Tracking[i].Name
				}
				vl := t.of(test, stage)
				vl["variable"] = name
				if vd.MaxRange > 0 {
					t.rangeR.With(vl).Set(vd.Range / vd.MaxRange)
				}
				if vd.MaxSlopeExcursion > 0 {
					t.slopeR.With(vl).Set(vd.SlopeExcursion / vd.MaxSlopeExcursion)
				}
			}
		}
	case r.Type == pts.RecStageEnd && r.Steady != nil:
		t.steady.With(l).Set(b2f(*r.Steady))
	case r.Type == pts.RecTelemetry && r.Telemetry != nil:
		t.drive.set(t.run, r.Telemetry.Readings)
	}
	t.write()
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// BeginWorkloads labels a workload command's metrics with its run (the
// base name of its directory, "workload" without one), and its targets;
// total is the time of all its workloads.
func (t *Textfile) BeginWorkloads(dir string, targets []string, total time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	run := "workload"
	if dir != "" {
		run = runName(dir)
	}
	t.workload.after = total
	t.begin(run, targets)
}

// Running is the workload whose intervals come next.
func (t *Textfile) Running(label string, w engine.Workload) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.workload.label, t.workload.w = label, w
	t.workload.after = max(0, t.workload.after-w.Duration)
}

// Interval writes one of a workload's intervals: its IOPS, throughput,
// mean response time and number, and the time left of the command. The
// file is written at most ten times a second of the wall clock (the
// simulated drive reports a workload's intervals at once), and at Done.
func (t *Textfile) Interval(i int, s engine.Second) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.workload.w
	iv := w.SeriesInterval()
	sec := iv.Seconds()
	if rest := w.Duration - time.Duration(i)*iv; w.Duration > 0 && rest > 0 && rest < iv {
		sec = rest.Seconds() // the last interval, cut short
	}
	l := t.of("workload", t.workload.label)
	t.measured(l, float64(s.ReadIOs+s.WriteIOs)/sec, float64(s.ReadBytes+s.WriteBytes)/sec, s.LatMeanNs/1e9)
	t.sample.With(l).Set(float64(i + 1))
	left := t.workload.after + max(0, w.Duration-time.Duration(i+1)*iv)
	t.left(l, left, left)
	if time.Since(t.workload.last) >= 100*time.Millisecond {
		t.workload.last = time.Now()
		t.write()
	}
}

// Done writes the file once the workload shown has ended.
func (t *Textfile) Done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.write()
}
