package pdfreport

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// The report words the verdict the runner journaled on a window
// (matrix.StageResult.Judged): it never judges a window again.
func TestWindowCheckWordsTheJournaledVerdict(t *testing.T) {
	crit := steadystate.Default()
	assert.Equal(t, "–", windowCheck(crit, 0, nil, nil, 5), "nothing tracked")
	assert.Equal(t, "(4 of 5 rounds)", windowCheck(crit, 1, nil, nil, 4))
	assert.Equal(t, "steady", windowCheck(crit, 1, &steadystate.Joint{Steady: true}, nil, 5), "as journaled")
	wobbly := &steadystate.Joint{Verdicts: []steadystate.Verdict{{Average: 10, Range: 3, SlopeOK: true}, {Average: 10, RangeOK: true, SlopeExcursion: 2}}}
	assert.Equal(t, "a: range 30.0 % > 20 %; b: slope 20.0 % > 10 %", windowCheck(crit, 2, wobbly, []string{"a", "b"}, 5))
}
