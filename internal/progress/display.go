package progress

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/pts"
)

// Display shows a run's progress on stderr: one updating line on a
// terminal, plain lines otherwise; with --json, events as JSON lines on
// stdout. It is the observer of a PTS run (rundir.Observer).
type Display struct {
	version string // ptsrun's, on the run's first line
	w       io.Writer
	out     io.Writer
	json    bool
	tty     bool
	lastLen int
	printed bool // a lasting line since the last Finish
	last    time.Time
	width   int // the terminal's columns, 0 when unknown
	// A log's lines of a time series: at least one every period (0: a
	// minute), of the records' times, the last shown at shown.
	every time.Duration
	shown time.Time
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && fileIsTerminal(f)
}

// New is the display of a command of ptsrun version: progress on stderr,
// --json's events (asJSON) on stdout; off a terminal a time series prints
// a line at least every period (0: a minute).
func New(stderr, stdout io.Writer, asJSON bool, version string, every time.Duration) *Display {
	p := &Display{version: version, w: stderr, out: stdout, json: asJSON, tty: isTerminal(stderr), every: every}
	if f, ok := stderr.(*os.File); ok && p.tty {
		p.width = terminalWidth(f)
	}
	return p
}

// status shows msg as the terminal's status line, in place of the last.
func (p *Display) status(msg string) {
	msg = p.fit(msg)
	n := len([]rune(msg))
	fmt.Fprintf(p.w, "\r%s%s", msg, strings.Repeat(" ", max(p.lastLen-n, 0)))
	p.lastLen = n
}

// fit cuts a status line to the terminal's width: a line that wraps
// cannot be overwritten in place.
func (p *Display) fit(msg string) string {
	r := []rune(msg)
	if p.width <= 1 || len(r) < p.width {
		return msg
	}
	return string(r[:p.width-2]) + "…"
}

// Begin shows the run's first line: what runs, where, into which directory.
func (p *Display) Begin(ri pts.RunInfo, dir string) {
	if p.json {
		return
	}
	targets := append(append([]string(nil), ri.Config.Targets...), ri.Config.FioServers...)
	fmt.Fprintf(p.w, "ptsrun %s: %s on %s (%s, %s profile) → %s\n", p.version, pts.JoinTests(ri.Config.Tests, ","),
		strings.Join(targets, ","), ri.Engine, ri.Profile.Short, dir)
	if w := ri.Host.CPUIdle.Warning(); w != "" {
		fmt.Fprintf(p.w, "ptsrun: %s\n", w)
	}
}

// Finish clears the status line, and leaves an empty line after the
// progress lines: the summary that follows goes to stdout, which on a
// terminal is the same screen, and in a log file starts on its first line.
func (p *Display) Finish() {
	p.clear()
	if p.printed {
		fmt.Fprintln(p.w)
		p.printed = false
	}
}

// clear clears the status line on a terminal.
func (p *Display) clear() {
	if p.tty && p.lastLen > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.lastLen))
		p.lastLen = 0
	}
}

// Note shows a progress line from a long step (a purge): on a terminal as
// the status line, otherwise at most every ten seconds.
func (p *Display) Note(msg string) {
	if p.json {
		return
	}
	if p.tty {
		p.status(msg)
		return
	}
	if time.Since(p.last) >= 10*time.Second {
		p.last = time.Now()
		fmt.Fprintln(p.w, msg)
	}
}

// short writes a time to come as plan and the progress lines do.
func short(d time.Duration) string { return pts.FormatETA(d) }

// line prints a lasting line (clearing the bar first on a terminal).
func (p *Display) line(format string, a ...any) {
	p.clear()
	p.printed = true
	// A line ending in an empty part (a purge nothing verified) ends at
	// its last word.
	fmt.Fprintln(p.w, strings.TrimRight(fmt.Sprintf(format, a...), " "))
}

// Observe shows a journal record at its place in the run.
func (p *Display) Observe(r pts.Record, pos pts.Position) {
	if p.json {
		p.event(r, pos)
		return
	}
	stage := ""
	if pos.Stage != nil {
		stage = fmt.Sprintf("[%d/%d] %s", pos.StageIndex+1, pos.Stages, pos.Stage.Title)
	}
	switch r.Type {
	case pts.RecStageStart:
		p.shown = r.Time
		p.line("%s: started", stage)
	case pts.RecResume:
		p.shown = r.Time
		p.line("%s: resumed: %s", stage, r.Message)
	case pts.RecPurge:
		switch {
		case r.Purge.Skipped:
			p.line("%s: NOT purged (%s)", stage, r.Purge.Note)
		case !r.Purge.Compliant:
			p.line("%s: prepared by %s in %s, a substitute, NOT a PTS purge. %s", stage, r.Purge.Method, short(r.Purge.Duration), r.Purge.Verified)
		default:
			p.line("%s: purged by %s in %s. %s", stage, r.Purge.Method, short(r.Purge.Duration), r.Purge.Verified)
		}
	case pts.RecWriteCache:
		wc := r.WriteCache
		switch {
		case wc.Restore:
			p.line("write cache restored: %s", wc.After)
		case wc.Check != "" && wc.Before == wc.After && wc.Error == "":
			// A check that found the cache as set: nothing to say.
		case wc.Check != "":
			p.line("%s: write cache %s %s, now %s (wanted %s)%s", stage, wc.Before, wc.Check, wc.After, label(wc.Requested), errSuffix(wc.Error))
		default:
			p.line("write cache: %s before, %s now (wanted %s)%s", wc.Before, wc.After, label(wc.Requested), errSuffix(wc.Error))
		}
	case pts.RecSample, pts.RecCell:
		p.measured(stage, r, pos)
	case pts.RecPrecondChunk:
		n := 1
		fmt.Sscanf(r.Message[strings.IndexByte(r.Message, '/')+1:], "%d", &n)
		done := *r.Cell + 1
		msg := fmt.Sprintf("%s: preconditioning %s %d/%d (%.0f %%), %s left, stage %s, %s", stage, bar(done, n, 20), done, n,
			100*float64(done)/float64(n), short(pos.RoundLeft), pts.FormatLeft(pos.StageLeftMin, pos.StageLeftMax, false), pos.RunLeftWords())
		switch {
		case p.tty:
			p.status(msg)
		case r.WallNs >= int64(time.Second) && tenth(done, n):
			p.line("%s", msg) // every tenth, when it takes real time
		}
	case pts.RecPrecondition:
		m := r.Measurement
		p.line("%s: preconditioned: %s, %.1f GB in %s device time (%.0f MB/s)", stage, r.Workload.String(),
			float64(m.Write.Bytes)/1e9, short(m.Elapsed), m.Write.MBps(m.Elapsed))
	case pts.RecRoundEnd:
		var vals []string
		for i, v := range r.Tracking {
			// As the report writes the metric: its digits and its unit.
			m := pos.Stage.Tracking[i].Metric
			vals = append(vals, fmt.Sprintf("%s %s %s", pos.Stage.Tracking[i].Name, m.Format(v), m.Unit()))
		}
		verdict := ""
		if r.Verdict != nil {
			verdict = ", not steady"
			if r.Verdict.Steady {
				verdict = ", STEADY"
			}
		}
		p.line("%s round %d: %s%s", stage, r.Round, strings.Join(vals, "; "), verdict)
	case pts.RecStageEnd:
		if *r.Steady {
			p.line("%s: steady state at round %d (window %d–%d)", stage, r.SSRound, r.Window[0], r.Window[1])
		} else {
			p.line("%s: %s", stage, r.Message)
		}
	case pts.RecTelemetry:
		// Said once each: no telemetry, a source asked no more.
		if t := r.Telemetry; t != nil && t.Unavailable != "" {
			p.line("telemetry (temperature, health): not available: %s", t.Unavailable)
		} else if t != nil {
			for _, n := range t.Notes {
				p.line("telemetry: %s", n)
			}
		}
	case pts.RecInterrupted:
		p.line("%s: interrupted at round %d cell %d", stage, r.Round, *r.Cell+1)
	case pts.RecError:
		p.line("%s: error: %s", stage, r.Error)
	}
}

// measured shows a cell's or a sample's progress in its procedure's
// words: on a terminal as the status line, at most ten times a second; in
// a log, a cell's line when the cell took real time, and a time series'
// at each tenth of it that took real time and at least once a period of
// the run's clock (the records' times), so that a 24-hour test does not
// look hung.
func (p *Display) measured(stage string, r pts.Record, pos pts.Position) {
	w := pos.Stage.Procedure().Progress(r, pos)
	if p.tty {
		if time.Since(p.last) < 100*time.Millisecond {
			return
		}
		p.last = time.Now()
		p.status(fmt.Sprintf("%s: %s %s", stage, bar(w.Done, w.Of, 20), w.Status))
		return
	}
	took := r.WallNs >= int64(time.Second)
	if !w.Series && took || w.Series && (took && tenth(w.Done, w.Of) || r.Time.Sub(p.shown) >= p.period()) {
		p.shown = r.Time
		p.line("%s: %s", stage, w.Line)
	}
}

// period is how often a log shows a time series at least.
func (p *Display) period() time.Duration {
	if p.every > 0 {
		return p.every
	}
	return time.Minute
}

// tenth says done of total ends a tenth of it.
func tenth(done, total int) bool { return total > 0 && done*10/total != (done-1)*10/total }

// bar draws done of total as a text bar of width characters.
func bar(done, total, width int) string {
	if total <= 0 {
		return ""
	}
	n := min(width, done*width/total)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

func errSuffix(e string) string {
	if e == "" {
		return ""
	}
	return " (" + e + ")"
}

func label(enabled bool) string {
	if enabled {
		return "enabled"
	}
	return "disabled"
}

// event prints a compact JSON event: the record without histograms and
// per-second series, with the run's time left (run_left_s if every stage
// to come is steady as early as it can be, run_left_max_s at every limit).
func (p *Display) event(r pts.Record, pos pts.Position) {
	ev := map[string]any{"type": r.Type, "time": r.Time,
		"run_left_s": pos.RunLeftMin.Round(time.Millisecond).Seconds(), "run_left_max_s": pos.RunLeftMax.Round(time.Millisecond).Seconds()}
	if r.Stage != "" {
		ev["stage"] = r.Stage
	}
	if r.Round > 0 {
		ev["round"] = r.Round
	}
	if r.Cell != nil {
		ev["cell"] = *r.Cell
	}
	if !r.Key.IsZero() {
		ev["key"] = r.Key
	}
	if m := r.Measurement; m != nil {
		t := m.Counts()
		ev["iops"], ev["mbps"] = m.IOPS(), m.MBps()
		ev["lat_mean_ms"], ev["lat_max_ms"] = t.MeanLatNs()/1e6, float64(t.LatMaxNs)/1e6
		ev["elapsed_s"] = m.Elapsed.Seconds()
	}
	if r.Telemetry != nil {
		ev["telemetry"] = r.Telemetry.Whole() // readings in full, not the journal's compact form
	}
	for k, v := range map[string]any{"purge": r.Purge, "write_cache": r.WriteCache, "verdict": r.Verdict} {
		switch x := v.(type) {
		case nil:
		default:
			if !isNilPtr(x) {
				ev[k] = x
			}
		}
	}
	if r.Tracking != nil {
		ev["tracking"] = r.Tracking
	}
	if r.Steady != nil {
		ev["steady"], ev["ss_round"], ev["window"] = *r.Steady, r.SSRound, r.Window
	}
	if r.Message != "" {
		ev["message"] = r.Message
	}
	if r.Error != "" {
		ev["error"] = r.Error
	}
	b, _ := json.Marshal(ev)
	fmt.Fprintln(p.out, string(b))
}

func isNilPtr(v any) bool {
	switch x := v.(type) {
	case interface{ IsZero() bool }:
		return x.IsZero()
	}
	b, _ := json.Marshal(v)
	return string(b) == "null"
}
