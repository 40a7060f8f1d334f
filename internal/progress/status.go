package progress

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/rundir"
)

// WriteStatus writes where a run stands (`ptsrun status`): a few lines
// of words, or with asJSON the one JSON document.
func WriteStatus(w io.Writer, st rundir.Status, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(st) // numbers, strings and times only: cannot fail
		fmt.Fprintln(w, string(b))
		return
	}
	fmt.Fprintf(w, "Run %s: %s on %s\n", st.Dir, st.Tests, st.Targets)
	fmt.Fprintf(w, "  Process:     %s\n", st.Process)
	if !st.LastRecord.IsZero() {
		fmt.Fprintf(w, "  Last record: %s (%s ago)\n", st.LastRecord.Local().Format("2006-01-02 15:04:05"), short(secs(st.AgeS)))
	}
	if s := st.Stage; s != nil {
		line := fmt.Sprintf("[%d/%d] %s", s.Index, s.Of, s.Title)
		if s.Round > 0 {
			line += fmt.Sprintf(", round %d", s.Round)
		}
		fmt.Fprintf(w, "  Stage:       %s\n", line)
		if s.Progress != "" {
			fmt.Fprintf(w, "  Progress:    %s\n", s.Progress)
		}
	}
	for _, t := range st.Tracking {
		fmt.Fprintf(w, "  Tracking:    %s\n", trackingWords(t))
	}
	if st.State != rundir.StateFinished {
		fmt.Fprintf(w, "  Time left:   %s (as estimated at the last record)\n", strings.TrimPrefix(st.Left, "run "))
	}
	if l := st.Last; l != nil {
		fmt.Fprintf(w, "  Last figures: %s: %.0f IOPS, %.1f MB/s, mean %.3f ms, max %.3f ms\n", l.Key, l.IOPS, l.MBps, l.LatMeanMs, l.LatMaxMs)
	}
	fmt.Fprintf(w, "  Temperature: %s\n", st.Temperature)
	if st.Resume != "" {
		fmt.Fprintf(w, "  To resume:   %s\n", st.Resume)
	}
	if st.Verdict != "" {
		fmt.Fprintf(w, "  Verdict:     %s\n", st.Verdict)
	}
}

// trackingWords says how close a tracking variable is to steady state.
func trackingWords(t rundir.TrackingNow) string {
	s := fmt.Sprintf("%s %s %s", t.Name, t.Last, t.Unit)
	if !t.Judged {
		return s + fmt.Sprintf(" (window %d of %d rounds)", min(t.Rounds, t.Window), t.Window)
	}
	verdict := "not steady"
	if t.Steady {
		verdict = "steady"
	}
	return s + fmt.Sprintf(", window: range %.1f %% (limit %.1f %%), slope excursion %.1f %% (limit %.1f %%): %s",
		t.RangeP, t.MaxRP, t.SlopeP, t.MaxSP, verdict)
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
