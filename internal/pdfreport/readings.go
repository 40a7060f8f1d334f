package pdfreport

import (
	"fmt"
	"strings"

	"github.com/ptsrun/ptsrun/internal/pts"
)

// readings is the appendix the verdict names (pts.ReadingsAppendix): how
// this report reads PTS 2.0.2. First the rules each test of the run
// applied, in the words its description holds beside the code that applies
// them; then every reading of the PTS the run rests on, from the register
// (pts.Readings): ptsrun's reading and its source, the other open
// harnesses' readings, why ptsrun reads it so, the flag that chooses
// another, and how this run read it.
func (b *builder) readings() {
	c, p := b.ri.Config, b.ri.Profile
	var tests []*pts.TestDef
	for _, t := range b.res.Tests {
		if td := pts.Def(t.Test); td != nil && t.Test != pts.Custom {
			tests = append(tests, td)
		}
	}
	if len(tests) == 0 {
		return
	}
	blocks := []Block{Paragraph{Lines: []string{"The official text of PTS 2.0.2's test chapters could not be read when ptsrun was " +
		"written. Its rules are below as ptsrun applies them, in the words each test's description holds beside the code; every " +
		"value or rule that rests on a reading of the PTS rather than on quoted spec text follows, with where the reading comes " +
		"from, how the other open harnesses read it, why ptsrun reads it so and the flag that chooses another. The verdict on " +
		"page 1 is the verdict as read here."}}}
	if b.ri.Imported {
		// ptsrun's rules for running a test would read as what ran.
		blocks = append(blocks, Paragraph{Lines: []string{"These results were imported: ptsrun did not run them, so its rules for " +
			"running each test are not listed here (docs/tests has them); the readings below are those its verdict and figures rest on."}})
		tests = nil
	}
	for _, td := range tests {
		lines := []string{}
		for _, r := range td.RulesOf(c) {
			lines = append(lines, fmt.Sprintf("%s: %s.", upperFirst(r.Name), r.Text))
		}
		blocks = append(blocks, Paragraph{Lines: []string{fmt.Sprintf("%s (%s): its rules", td.Name, td.Reference())}, Strong: true},
			Paragraph{Lines: lines, Size: 7.5})
	}
	for i, r := range pts.ReadingsOf(c) {
		lines := []string{"ptsrun reads it as: " + r.Ours + ".", "Source: " + r.Source + "."}
		for _, a := range r.Others {
			lines = append(lines, fmt.Sprintf("%s: %s.", a.Harness, a.Reading))
		}
		this := "ptsrun's reading"
		if in := r.InRun(c, p); in != "" {
			this = in
		}
		lines = append(lines, "Why: "+r.Why+".", "Another reading: "+r.ChooseWords()+".", "This run: "+this+".")
		blocks = append(blocks, Paragraph{Lines: []string{fmt.Sprintf("%s.%d %s", pts.ReadingsAppendix, i+1, r.Topic)}, Strong: true},
			Paragraph{Lines: lines, Size: 7.5})
	}
	b.add(&Page{Title: "Appendix " + pts.ReadingsAppendix + ": How this report reads PTS 2.0.2", Landmark: "appendix-readings", Flow: true,
		Blocks: blocks})
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
