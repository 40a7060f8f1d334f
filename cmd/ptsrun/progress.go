package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/pts"
)

// progress shows a run's progress on stderr: one updating line on a terminal,
// plain lines otherwise; with --json, events as JSON lines on stdout.
type progress struct {
	w       io.Writer
	out     io.Writer
	json    bool
	tty     bool
	lastLen int
	last    time.Time
	width   int // the terminal's columns, 0 when unknown
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && fileIsTerminal(f)
}

func newProgress(stderr, stdout io.Writer, asJSON bool) *progress {
	p := &progress{w: stderr, out: stdout, json: asJSON, tty: isTerminal(stderr)}
	if f, ok := stderr.(*os.File); ok && p.tty {
		p.width = terminalWidth(f)
	}
	return p
}

// status shows msg as the terminal's status line, in place of the last.
func (p *progress) status(msg string) {
	msg = p.fit(msg)
	n := len([]rune(msg))
	fmt.Fprintf(p.w, "\r%s%s", msg, strings.Repeat(" ", max(p.lastLen-n, 0)))
	p.lastLen = n
}

// fit cuts a status line to the terminal's width: a line that wraps
// cannot be overwritten in place.
func (p *progress) fit(msg string) string {
	r := []rune(msg)
	if p.width <= 1 || len(r) < p.width {
		return msg
	}
	return string(r[:p.width-2]) + "…"
}

func (p *progress) begin(ri pts.RunInfo, dir string) {
	if p.json {
		return
	}
	targets := append(append([]string(nil), ri.Config.Targets...), ri.Config.FioServers...)
	fmt.Fprintf(p.w, "ptsrun %s: %s on %s (%s, %s profile) → %s\n", version, pts.JoinTests(ri.Config.Tests, ","),
		strings.Join(targets, ","), ri.Engine, ri.Profile.Short, dir)
}

func (p *progress) finish() {
	if p.tty && p.lastLen > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.lastLen))
		p.lastLen = 0
	}
}

// note shows a progress line from a long step (a purge): on a terminal as
// the status line, otherwise at most every ten seconds.
func (p *progress) note(msg string) {
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
func (p *progress) line(format string, a ...any) {
	p.finish()
	fmt.Fprintf(p.w, format+"\n", a...)
}

func (p *progress) Observe(r pts.Record, pos pts.Position) {
	if p.json {
		p.event(r)
		return
	}
	stage := ""
	if pos.Stage != nil {
		stage = fmt.Sprintf("[%d/%d] %s", pos.StageIndex+1, pos.Stages, pos.Stage.Title)
	}
	switch r.Type {
	case pts.RecStageStart:
		p.line("%s: started", stage)
	case pts.RecResume:
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
	case pts.RecSample:
		// A time series: TGBW and the time left, on a terminal every
		// sample, otherwise every tenth of the series when it takes real time.
		done, n := *r.Cell+1, pos.Steps
		left := short(pos.RoundLeft) + " left"
		if pos.AtMost {
			left = "at most " + left // the fills or steady state may come first
		}
		msg := fmt.Sprintf("%s: %s %d/%d steps, TGBW %.1f GB", stage, bar(done, n, 20), done, n, float64(pos.Written)/1e9)
		if pos.Capacity > 0 {
			msg += fmt.Sprintf(" (%.2f drive fills)", float64(pos.Written)/float64(pos.Capacity))
		}
		if m := r.Measurement; m != nil && r.Workload != nil && !r.Workload.Idle && m.Elapsed > 0 {
			msg += fmt.Sprintf(", %.0f IOPS", m.IOPS())
		}
		msg += ", " + left
		switch {
		case p.tty:
			p.status(msg)
		case r.WallNs >= int64(time.Second) && (done*10/n != (done-1)*10/n):
			p.line("%s", msg)
		}
	case pts.RecPrecondChunk:
		n := 1
		fmt.Sscanf(r.Message[strings.IndexByte(r.Message, '/')+1:], "%d", &n)
		done := *r.Cell + 1
		msg := fmt.Sprintf("%s: preconditioning %s %d/%d (%.0f %%), ETA %s", stage, bar(done, n, 20), done, n,
			100*float64(done)/float64(n), short(pos.RoundLeft))
		switch {
		case p.tty:
			p.status(msg)
		case r.WallNs >= int64(time.Second) && (done*10/n != (done-1)*10/n):
			p.line("%s", msg) // every tenth, when it takes real time
		}
	case pts.RecPrecondition:
		m := r.Measurement
		p.line("%s: preconditioned: %s, %.1f GB in %s device time (%.0f MB/s)", stage, r.Workload.String(),
			float64(m.Write.Bytes)/1e9, short(m.Elapsed), m.Write.MBps(m.Elapsed))
	case pts.RecCell:
		msg := fmt.Sprintf("%s round %d cell %d/%d %s: %.0f IOPS %.1f MB/s %.3f ms | round %s, stage %s–%s",
			stage, r.Round, pos.Cell, len(pos.Stage.Cells), r.Key, r.Measurement.IOPS(), r.Measurement.MBps(),
			r.Measurement.Counts().MeanLatNs()/1e6, short(pos.RoundLeft), short(pos.StageLeftMin), short(pos.StageLeftMax))
		switch {
		case p.tty:
			if time.Since(p.last) < 100*time.Millisecond {
				return
			}
			p.last = time.Now()
			msg = fmt.Sprintf("%s r%d %s %d/%d %s %.0f IOPS | round %s, stage %s–%s", stage, r.Round,
				bar(pos.Cell, len(pos.Stage.Cells), 20), pos.Cell, len(pos.Stage.Cells), r.Key, r.Measurement.IOPS(),
				short(pos.RoundLeft), short(pos.StageLeftMin), short(pos.StageLeftMax))
			if len(msg) > 160 {
				msg = msg[:160]
			}
			p.status(msg)
		case r.WallNs >= int64(time.Second):
			p.line("%s", msg)
		}
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
	case pts.RecInterrupted:
		p.line("%s: interrupted at round %d cell %d", stage, r.Round, *r.Cell+1)
	case pts.RecError:
		p.line("%s: error: %s", stage, r.Error)
	}
}

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
// per-second series.
func (p *progress) event(r pts.Record) {
	ev := map[string]any{"type": r.Type, "time": r.Time}
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
