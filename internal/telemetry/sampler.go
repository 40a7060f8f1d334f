package telemetry

import (
	"context"
	"fmt"
	"time"
)

// DefaultBudget is how long one source may take to answer before a
// Sampler asks it no more: SMART commands are I/O to the drive under test,
// and a run reads them between its cells.
const DefaultBudget = 2 * time.Second

// Sampler reads the sources of a set of devices again and again, as a
// run does between its cells: a source that fails lastingly (Lasting) or
// answers slower than the budget is asked no more, and the note that says
// so is given once.
type Sampler struct {
	// Devices are the sources of each device of the set, in order.
	Devices [][]Source
	// Budget is the longest one source may take (0: DefaultBudget); a
	// Read is cut at four times it.
	Budget time.Duration
	// Now is the clock the budget is measured on (time.Now when nil).
	Now func() time.Time

	dropped map[[2]int]bool
}

// Active reports whether any source is still asked.
func (s *Sampler) Active() bool {
	if s == nil {
		return false
	}
	for i, srcs := range s.Devices {
		for j := range srcs {
			if !s.dropped[[2]int{i, j}] {
				return true
			}
		}
	}
	return false
}

// Sample reads every device's sources not dropped and merges each
// device's readings: one Reading per device, in order (Empty where no
// source answered). notes say, once each, the sources dropped now and
// why; errs are the failures that may pass (a source asked again next
// time).
func (s *Sampler) Sample(ctx context.Context) (readings []Reading, notes []string, errs []error) {
	budget := s.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	if s.dropped == nil {
		s.dropped = map[[2]int]bool{}
	}
	for i, srcs := range s.Devices {
		var rs []Reading
		dev := ""
		for j, src := range srcs {
			if dev == "" {
				dev = src.Device()
			}
			key := [2]int{i, j}
			if s.dropped[key] {
				continue
			}
			rctx, cancel := context.WithTimeout(ctx, 4*budget)
			start := now()
			r, err := src.Read(rctx)
			took := now().Sub(start)
			cancel()
			switch {
			case err != nil && Lasting(err):
				s.dropped[key] = true
				notes = append(notes, fmt.Sprintf("%s (%s) asked no more: %v", src.Name(), src.Where(), err))
				continue
			case took > budget:
				s.dropped[key] = true
				notes = append(notes, fmt.Sprintf("%s (%s) asked no more: it took %v, more than the %v a reading between cells may take",
					src.Name(), src.Where(), took.Round(time.Millisecond), budget))
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			rs = append(rs, r)
		}
		r := Merge(rs...)
		if r.Device == "" {
			r.Device = dev
		}
		readings = append(readings, r)
	}
	return readings, notes, errs
}
