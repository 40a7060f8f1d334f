package pts

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/units"
)

// Rule is one of a test's rules in words for people: when a stage stops,
// what a tracking variable is, how a figure is derived or an operating
// point chosen. The words sit in the test's file beside the code that
// applies the rule, and are the only description of it: the report's
// captions and readings appendix, `ptsrun plan` and docs/tests print them,
// so that no description can drift from what the code does.
type Rule struct {
	Name string // "write cliff"
	// Words is the rule; With, when set, writes it with a run's values
	// (its parameters, its steady-state criteria) instead.
	Words string
	With  func(c Config) string
}

// Text is the rule as a run of c applies it.
func (r Rule) Text(c Config) string {
	if r.With != nil {
		return r.With(c)
	}
	return r.Words
}

// RuleText is a rule with its words as a run applies it.
type RuleText struct{ Name, Text string }

// RulesOf are a test's rules as a run of c applies them, in the order the
// test gives them; a rule the run does not apply (WSAT's steady state
// without --wsat-ss) has no words and is left out.
func (t *TestDef) RulesOf(c Config) []RuleText {
	var out []RuleText
	for _, r := range t.Rules {
		if text := r.Text(c); text != "" {
			out = append(out, RuleText{r.Name, text})
		}
	}
	return out
}

// only is rule r where on says the run applies it, else a rule of no words.
func only(r Rule, on func(c Config) bool) Rule {
	return Rule{Name: r.Name, With: func(c Config) string {
		if on(c) {
			return r.Text(c)
		}
		return ""
	}}
}

// SteadyStateRule is PTS 2.0.2 §2.1.24's steady state, as steadystate
// checks it after each complete round.
var SteadyStateRule = Rule{Name: "steady state", With: func(c Config) string {
	ss := c.SS
	return fmt.Sprintf("after each complete round from round %d, the last %d rounds of every tracking variable are steady when "+
		"their range (largest minus smallest) is at most %g %% of their average and the least-squares line through them changes "+
		"by at most %g %% of it across the window; every tracking variable must be steady in the same window", ss.Window, ss.Window,
		100*ss.MaxRange, 100*ss.MaxSlope)
}}

// WindowRule is when a stage of rounds stops and what its results are
// (PTS 2.0.2 §2.1.13).
var WindowRule = Rule{Name: "measurement window", With: func(c Config) string {
	return fmt.Sprintf("a stage stops at its first steady window or at the round limit (%d rounds); its measurement window is then its "+
		"last %d rounds, and each cell's result the average over them (a stage that did not reach steady state is flagged SS NOT ACHIEVED)",
		c.MaxRounds, c.SS.Window)
}}

// durWords writes a duration parameter for a rule: "30m", "24h".
func durWords(c Config, flag string) string {
	d, err := time.ParseDuration(strings.TrimSpace(c.Param(flag)))
	if err != nil {
		return c.Param(flag)
	}
	return ShortDuration(d)
}

// loopWords writes the block sizes and R/W mixes a run of c does of a
// test's matrix: a quick look's (Config.BlockSizes, Mixes), without the
// sizes its targets cannot take: "100/0, 65/35, 0/100" and "8, 4, 0.5 KiB".
func loopWords(c Config, sizes []int64, mixes []int) (string, string) {
	var ss, ms []string
	for _, bs := range sizes {
		if c.Runnable(bs) && (len(c.BlockSizes) == 0 || slices.Contains(c.BlockSizes, bs)) {
			ss = append(ss, strings.TrimSuffix(units.FormatSize(bs), " KiB"))
		}
	}
	for _, m := range mixes {
		if len(c.Mixes) == 0 || slices.Contains(c.Mixes, m) {
			ms = append(ms, MixLabel(m))
		}
	}
	return strings.Join(ms, ", "), strings.Join(ss, ", ") + " KiB"
}
