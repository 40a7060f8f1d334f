package pts

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

func write(acc engine.Access, bs int64, d time.Duration) engine.Workload {
	return engine.Workload{Access: acc, BlockSize: bs, TC: 1, QD: 32, ActiveRange: 100, Duration: d}
}

func TestSteps(t *testing.T) {
	s := Stage{ID: "x", Timeline: []Segment{
		{Name: "a", Workload: write(engine.Sequential, MiB, 150*time.Second), Interval: Duration(time.Minute)},
		{Name: "b", Group: 1, Workload: write(engine.Random, 4*KiB, 5*time.Second), Interval: Duration(5 * time.Second),
			Repeat: 3, IdleAfter: Duration(10 * time.Second)},
	}}
	var got []string
	for _, st := range s.Steps() {
		got = append(got, st.Workload.String()[:min(9, len(st.Workload.String()))]+" "+st.Workload.Duration.String())
	}
	assert.Equal(t, []string{"SEQ 1024  1m0s", "SEQ 1024  1m0s", "SEQ 1024  30s",
		"RND 4 KiB 5s", "idle 10s 10s", "RND 4 KiB 5s", "idle 10s 10s", "RND 4 KiB 5s", "idle 10s 10s"}, got)
	assert.Equal(t, 150*time.Second+3*15*time.Second, s.TimelineTime())
	assert.ErrorContains(t, checkTimeline(Stage{Title: "T", Timeline: []Segment{{Name: "g", Interval: Duration(time.Minute)}}}),
		"durations sum to 0")
}

// A timeline stage journals a sample per step, stops at its fills, and a
// resumed one continues its time series where it stopped.
func TestTimelineStage(t *testing.T) {
	s := newSetup(t, "client", func(c *Config) { c.Tests = []TestID{LAT} })
	st := Stage{Kind: KindTimeline, ID: "tl", Test: "tl", Title: "Timeline", Purge: true, Timeline: []Segment{
		{Name: "seq", Workload: write(engine.Sequential, MiB, 10*time.Minute), Interval: Duration(time.Minute)},
		{Name: "bursts", Group: 1, Workload: write(engine.Random, 4*KiB, 5*time.Second), Interval: Duration(5 * time.Second),
			Repeat: 4, IdleAfter: Duration(20 * time.Second)},
	}}
	s.info.Stages = []Stage{st}
	require.NoError(t, WriteRunInfo(s.dir, s.info))
	ctx, cancel := context.WithCancel(context.Background())
	h := &hooked{Engine: s.eng, cancelAt: 4, cancel: cancel}
	r, j := s.runner(t, h)
	require.ErrorIs(t, r.Run(ctx, nil), ErrInterrupted)
	require.NoError(t, j.Close())
	require.NoError(t, s.eng.Close())
	prior := Replay(s.info.Stages, s.records(t))
	require.Len(t, prior.Stages["tl"].Samples, 4)

	s.open(t)
	r2, _ := s.runner(t, s.eng)
	require.NoError(t, r2.Run(context.Background(), prior))
	require.NoError(t, s.eng.Close())
	recs := s.records(t)
	final := Replay(s.info.Stages, recs)
	ss := final.Stages["tl"]
	require.True(t, ss.Ended)
	steps := st.Steps()
	require.Len(t, ss.Samples, len(steps), "every step once: the resumed stage did not repeat any")
	purges := 0
	for _, rec := range recs {
		if rec.Type == RecPurge {
			purges++
		}
	}
	assert.Equal(t, 1, purges, "a resumed timeline is not purged again")
	for k, m := range ss.Samples {
		assert.Equal(t, steps[k].Workload.Duration, m.Elapsed, "step %d", k)
		if steps[k].Idle {
			assert.Zero(t, m.Write.IOs, "idle means no I/O")
		} else {
			assert.Positive(t, m.Write.IOs, "step %d", k)
		}
	}
	require.Len(t, final.Resumes, 1)
	assert.Equal(t, 4, *final.Resumes[0].Cell)
	require.Len(t, final.ResumeGaps, 1)

	// Fills: the stage ends once it has written that much.
	s = newSetup(t, "client", func(c *Config) { c.Tests = []TestID{LAT} })
	st.StopFills = 0.001 // about 1 GB of the 1 TB drive
	s.info.Stages = []Stage{st}
	require.NoError(t, WriteRunInfo(s.dir, s.info))
	r, _ = s.runner(t, s.eng)
	require.NoError(t, r.Run(context.Background(), nil))
	recs = s.records(t)
	ss = Replay(s.info.Stages, recs).Stages["tl"]
	require.True(t, ss.Ended)
	assert.Less(t, len(ss.Samples), 3, "a minute of sequential writes is more than 0.001 fills")
	assert.Contains(t, recs[len(recs)-2].Message+recs[len(recs)-1].Message, "0.001 × the capacity was written")
}
