package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// A timeline's progress is its procedure's words after the stage's name:
// on a terminal the status line with a bar; in a log a line at least once
// a period of the records' clock (and at each tenth that took real time),
// so that a long test does not look hung.
func TestTimelineProgress(t *testing.T) {
	c := pts.DefaultConfig()
	c.Targets, c.Tests = []string{"sim"}, []pts.TestID{pts.WSAT}
	p, err := c.Resolve()
	require.NoError(t, err)
	wsat := c.Stages(p)[0]
	steps := wsat.Steps()
	m := engine.Measurement{Elapsed: time.Minute}
	m.Write.IOs, m.Write.Bytes = 6_000_000, 800e9
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sample := func(k int) (pts.Record, pts.Position) {
		left := time.Duration(len(steps)-k-1) * time.Minute
		return pts.Record{Type: pts.RecSample, Stage: "wsat", Cell: &k, Workload: &steps[k].Workload, Measurement: &m,
				Time: start.Add(time.Duration(k+1) * 20 * time.Second)},
			pts.Position{Stage: &wsat, Stages: 1, Written: 800e9, Capacity: 3_200_631_791_616, Steps: len(steps), Step: steps[k],
				AtMost: true, RoundLeft: left, StageLeftMin: left, StageLeftMax: left, RunLeftMin: left, RunLeftMax: left}
	}

	var buf bytes.Buffer
	pr := &Display{w: &buf, tty: true}
	pr.Observe(sample(9))
	assert.Equal(t, "\r[1/1] Write Saturation: [....................] sample 10/1440, TGBW 800.0 GB (0.25 drive fills), 100000 IOPS, "+
		"stage at most 23h50m left, run at most 23h50m left", buf.String())

	for _, tc := range []struct {
		name  string
		every time.Duration
		lines int
	}{
		{"a line a minute", time.Minute, 10}, // 30 samples of 20 s: one a minute from the stage's start
		{"a short period", time.Nanosecond, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			pr := &Display{w: &buf, every: tc.every}
			pr.Observe(pts.Record{Type: pts.RecStageStart, Stage: "wsat", Time: start}, pts.Position{Stage: &wsat, Stages: 1})
			for k := range 30 {
				pr.Observe(sample(k))
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			assert.Len(t, lines, 1+tc.lines, buf.String())
			assert.Equal(t, "[1/1] Write Saturation: sample 30/1440, TGBW 800.0 GB (0.25 drive fills), 100000 IOPS, "+
				"stage at most 23h30m left, run at most 23h30m left", lines[len(lines)-1], "no bar in a log")
		})
	}
}
