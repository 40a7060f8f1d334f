package pts

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/precondition"
)

// positions keeps every position the runner gave its observer.
type positions struct{ pos []Position }

func (o *positions) Observe(_ Record, p Position) { o.pos = append(o.pos, p) }

// TestPositionOfIsTheRunnersPosition: the journal at every record of a
// run stopped and resumed (two processes, two runners), replayed, gives
// the position the runner gave its observer then: the stage, round and
// cell, the round's, stage's and run's time left. The preconditioning's
// pace is the runner's wall clock, which the journal has only piece by
// piece: its records and those that keep its estimate are left out.
func TestPositionOfIsTheRunnersPosition(t *testing.T) {
	t.Parallel() // simulated runs, CPU-bound: beside the others
	enginetest.Long(t, "two simulated runs, interrupted and resumed, and 50 positions each replayed from the journal")
	for _, c := range []struct {
		name  string
		tests []TestID
		stop  int
	}{
		{"rounds", []TestID{IOPS, LAT}, 2*precondition.WIPCChunksPerPass + 3*56 + 10},
		{"timeline", []TestID{HIR}, 2*precondition.WIPCChunksPerPass + 8*56 + 40},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSetup(t, "enterprise", func(cfg *Config) { cfg.Tests = c.tests })
			ctx, cancel := context.WithCancel(context.Background())
			h := &hooked{Engine: s.eng, cancelAt: c.stop, cancel: cancel}
			obs := &positions{}
			r, j := s.runner(t, h)
			r.Observer = obs
			require.ErrorIs(t, r.Run(ctx, nil), ErrInterrupted)
			require.NoError(t, j.Close())
			require.NoError(t, s.eng.Close())
			prior := Replay(s.info.Stages, s.records(t))
			s.open(t)
			r2, _ := s.runner(t, s.eng)
			r2.Observer = obs
			require.NoError(t, r2.Run(context.Background(), prior))
			require.NoError(t, s.eng.Close())

			recs := s.records(t)
			o := -1 // the observed position of record k
			_, ok := PositionOf(s.info, CostsOf(s.info), recs[:1])
			assert.False(t, ok, "the start record is of no stage")
			wipc, compared := false, 0
			stride := max(1, len(recs)/50)
			for k, rec := range recs {
				if rec.Type == RecWriteCache && rec.WriteCache.Restore {
					continue // journaled as the runner stops, shown to no observer
				}
				o++
				switch rec.Type {
				case RecPrecondChunk:
					wipc = true
				case RecStart, RecStageStart, RecRoundStart, RecCell, RecSample, RecRoundEnd:
					wipc = wipc && rec.Type != RecRoundStart && rec.Type != RecCell && rec.Type != RecSample && rec.Type != RecStart
				}
				if wipc || rec.Type == RecPrecondition || k == 0 || k%stride != 0 && k != len(recs)-1 {
					continue // each replays every record before it: about 50 of them, spread out
				}
				got, ok := PositionOf(s.info, CostsOf(s.info), recs[:k+1])
				require.Less(t, o, len(obs.pos))
				want := obs.pos[o]
				assert.True(t, ok, "record %d (%s)", k, rec.Type)
				got.Stage, want.Stage = nil, nil
				got.Written, got.Capacity = want.Written, want.Capacity // a timeline's bytes: its progress words', not the time left
				switch rec.Type {
				case RecCell, RecSample, RecRoundStart, RecRoundEnd:
				default: // where a record of no measurement is, the records before it say
					got.Round, got.Cell = want.Round, want.Cell
				}
				if !assert.Equal(t, want, got, "record %d (%s %s round %d)", k, rec.Type, rec.Stage, rec.Round) {
					return
				}
				compared++
			}
			assert.Equal(t, len(obs.pos)-1, o, "every position compared or skipped")
			assert.Greater(t, compared, 20)
		})
	}
}
