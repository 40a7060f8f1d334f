package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"unicode/utf8"

	"github.com/ptsrun/ptsrun/internal/rundir"
)

// printSummary writes sum on stdout, as JSON or in words: the run's
// result, which `run > log` keeps; the progress before it is stderr's.
func printSummary(stdout io.Writer, sum rundir.Summary, asJSON bool) {
	if asJSON {
		b, _ := json.Marshal(sum) // strings, booleans and integers only: cannot fail
		fmt.Fprintln(stdout, string(b))
		return
	}
	w := stdout
	fmt.Fprintf(w, "Run %s: %s\n", sum.Dir, sum.Verdict)
	if sum.Scope != "" {
		fmt.Fprintf(w, "  Scope: %s\n", sum.Scope)
	}
	for _, d := range sum.DeviationTexts() {
		fmt.Fprintf(w, "  - %s\n", d)
	}
	titleWidth := 22
	for _, s := range sum.Stages {
		titleWidth = max(titleWidth, utf8.RuneCountInString(s.Title)+1)
	}
	for _, s := range sum.Stages {
		fmt.Fprintf(w, "%-*s %s\n", titleWidth, s.Title+":", s.State)
	}
	width := 0
	for _, h := range sum.Headline {
		width = max(width, utf8.RuneCountInString(h.Name))
	}
	for _, h := range sum.Headline {
		fmt.Fprintf(w, "  %-*s  %s\n", width, h.Name, h.Value)
	}
	fmt.Fprintf(w, "Results: %s, tables in %s, report %s\n", sum.Files.Results, filepath.Join(sum.Dir, rundir.TablesDir), sum.Files.Report)
}
