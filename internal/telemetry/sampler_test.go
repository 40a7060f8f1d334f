package telemetry

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fakeSource struct {
	name  string
	err   error
	take  time.Duration
	clock *time.Time
	reads *int
	r     Reading
}

func (f fakeSource) Name() string   { return f.name }
func (f fakeSource) Device() string { return "/dev/nvme0n1" }
func (f fakeSource) Where() string  { return f.name + " /dev/nvme0n1" }
func (f fakeSource) Read(context.Context) (Reading, error) {
	*f.reads++
	*f.clock = f.clock.Add(f.take)
	return f.r, f.err
}

// A source that fails lastingly, or answers slower than the budget, is
// asked no more and said once; one that fails for now is asked again.
func TestSampler(t *testing.T) {
	clock := time.Unix(0, 0)
	var nOK, nGone, nSlow, nFlaky int
	temp := Reading{Device: "/dev/nvme0n1", Sources: []string{SourceHwmon}, Temperature: known(41.0, SourceHwmon)}
	s := &Sampler{Now: func() time.Time { return clock }, Budget: time.Second, Devices: [][]Source{{
		fakeSource{name: SourceHwmon, clock: &clock, reads: &nOK, r: temp},
		fakeSource{name: SourceSmartctl, clock: &clock, reads: &nGone, err: &Error{Source: SourceSmartctl, Device: "/dev/nvme0n1", Err: ErrNoTool}},
		fakeSource{name: SourceNVMe, clock: &clock, reads: &nSlow, take: 3 * time.Second,
			r: Reading{Sources: []string{SourceNVMe}, MediaErrors: known(uint64(0), SourceNVMe)}},
		fakeSource{name: SourceOCP, clock: &clock, reads: &nFlaky, err: &Error{Source: SourceOCP, Device: "/dev/nvme0n1", Err: context.DeadlineExceeded}},
	}}}
	rs, notes, errs := s.Sample(context.Background())
	require.Len(t, rs, 1)
	assert.Equal(t, 41.0, rs[0].Temperature.Value)
	assert.True(t, rs[0].MediaErrors.Known(), "a slow source's reading is kept the time it answered")
	require.Len(t, notes, 2)
	assert.Contains(t, notes[0], "smartctl (smartctl /dev/nvme0n1) asked no more: smartctl on /dev/nvme0n1: tool not installed")
	assert.Contains(t, notes[1], "it took 3s, more than the 1s")
	assert.Len(t, errs, 1)

	rs, notes, _ = s.Sample(context.Background())
	assert.Empty(t, notes, "said once")
	assert.False(t, rs[0].MediaErrors.Known())
	assert.Equal(t, []int{2, 1, 1, 2}, []int{nOK, nGone, nSlow, nFlaky})
	assert.True(t, s.Active())
	assert.False(t, (*Sampler)(nil).Active())
	assert.False(t, (&Sampler{}).Active())
}
