package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/matrix"
)

// summarize prints the verdict and the headline numbers of a run.
func summarize(stderr, stdout io.Writer, res *matrix.Results, dir string, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(map[string]any{"type": "summary", "dir": dir, "conforming": res.Conforming,
			"complete": res.Complete, "deviations": res.Deviations, "headline": headline(res)})
		fmt.Fprintln(stdout, string(b))
		return
	}
	w := stderr
	verdict := "conforms to " + res.Spec
	if !res.Conforming {
		verdict = "does NOT conform to " + res.Spec
	}
	profile := res.Profile
	if profile == "" {
		profile = "no"
	}
	fmt.Fprintf(w, "\nRun %s: %s (%s profile)\n", dir, verdict, profile)
	for _, d := range res.Deviations {
		fmt.Fprintf(w, "  - %s\n", d.Text)
	}
	for _, t := range res.Tests {
		for _, s := range t.Stages {
			state := fmt.Sprintf("steady state at round %d, window %d–%d", s.SSRound, s.Window[0], s.Window[1])
			if !s.Steady {
				state = fmt.Sprintf("steady state NOT reached in %d rounds, window %d–%d", s.Rounds, s.Window[0], s.Window[1])
			}
			switch {
			case s.Published():
				state = "published values, one per cell: no rounds, no steady-state verdict"
			case !s.Started:
				state = "not run"
			case s.Rounds == 0 && s.Error != "":
				state = "stopped by an error before its first round"
			case s.Rounds == 0:
				state = "no complete round"
			case !s.Complete && s.Error != "":
				state = fmt.Sprintf("stopped by an error after %d round(s), not steady", s.Rounds)
			case !s.Complete:
				state = fmt.Sprintf("unfinished after %d round(s), not steady yet (ptsrun resume continues it)", s.Rounds)
			case t.Test == "custom":
				state = fmt.Sprintf("%d round(s) of workloads outside the PTS: no steady-state verdict", s.Rounds)
			}
			fmt.Fprintf(w, "%-22s %s\n", s.Title+":", state)
		}
	}
	for _, h := range headline(res) {
		fmt.Fprintf(w, "  %-34s %s\n", h.Name, h.Value)
	}
	fmt.Fprintf(w, "Results: %s, tables in %s, report %s\n", filepath.Join(dir, "results.json"), filepath.Join(dir, "tables"),
		filepath.Join(dir, "report.pdf"))
}

type headlineValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// headline picks the numbers people quote.
func headline(res *matrix.Results) []headlineValue {
	var out []headlineValue
	find := func(test, key string) *matrix.CellResult {
		t := res.Find(test)
		if t == nil {
			return nil
		}
		for _, s := range t.Stages {
			for i := range s.Cells {
				if s.Cells[i].Key == key && s.Cells[i].Present() {
					return &s.Cells[i]
				}
			}
		}
		return nil
	}
	for _, k := range []struct{ key, name string }{
		{"rnd-4k-100/0", "IOPS RND 4 KiB read"}, {"rnd-4k-0/100", "IOPS RND 4 KiB write"},
		{"rnd-4k-65/35", "IOPS RND 4 KiB 65/35"},
	} {
		if c := find("iops", k.key); c != nil {
			out = append(out, headlineValue{k.name, fmt.Sprintf("%.0f IOPS", c.IOPS)})
		}
	}
	if t := res.Find("tp"); t != nil {
		for _, s := range t.Stages {
			for _, c := range s.Cells {
				dir := "read"
				if c.ReadPct == 0 {
					dir = "write"
				}
				if c.Present() {
					out = append(out, headlineValue{"SEQ " + engine.FormatSize(c.BlockSize) + " " + dir,
						fmt.Sprintf("%.0f MB/s", c.MBps)})
				}
			}
		}
	}
	for _, k := range []struct{ key, name string }{
		{"rnd-4k-100/0", "RND 4 KiB read QD1"}, {"rnd-4k-0/100", "RND 4 KiB write QD1"},
	} {
		if c := find("lat", k.key); c != nil {
			out = append(out, headlineValue{k.name + " mean/99.999%/max",
				fmt.Sprintf("%.3f / %.3f / %.3f ms", c.LatMeanMs, c.LatP99999Ms, c.LatMaxMs)})
		}
	}
	return out
}
