package sim

import (
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// steady preconditions a drive as the PTS does for a random workload: the
// sequential fill twice, then random writes of bs until three capacities
// are written.
func steady(t *testing.T, e *Engine, bs int64, zones []engine.Zone) {
	t.Helper()
	m := e.drives[0].t.Model
	run(t, e, wipc(m))
	var written int64
	for i := 0; written < 3*m.UserBytes; i++ {
		w := rnd(0, bs, 32, 32, time.Minute, uint64(1000+i))
		w.Zones = zones
		written += run(t, e, w).Write.Bytes
	}
}

// Across the demand-intensity sweep (TC 1…32 × QD 1…32, RND 8 KiB 65/35,
// DIRTH's stimulus) on a drive in steady state, IOPS rise with the I/Os
// outstanding and level off, and IOPS × mean response time is TC × QD.
//
// Little's law holds here by construction, not by luck: the model sets the
// queueing delay to OIO/IOPS less the service latency, and sample makes
// each second's records average to exactly that (stratified, matched to
// their means, the queueing delay giving back what the tail events drawn
// took beyond their share). What remains is rounding every record to whole
// nanoseconds and the seconds where the tail drawn exceeds the queueing
// delay it is taken from; a 0.1 % tolerance holds that with room. A real
// drive under a closed-loop host (every thread keeps QD I/Os in flight)
// obeys the law too, within its ramp-up: the conformance suite allows 20 %
// there.
func TestDemandIntensity(t *testing.T) {
	t.Parallel() // simulated drives of its own, CPU-bound: beside the others
	tcs := []int{1, 2, 4, 8, 16, 32}
	for _, name := range []string{"enterprise", "client"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := open(t, name, "")
			steady(t, e, 8192, nil)
			noise := e.drives[0].t.Model.Noise
			byOIO := map[int][]float64{}
			var worst float64
			for _, tc := range tcs {
				for _, qd := range tcs {
					w := rnd(65, 8192, tc, qd, time.Minute, uint64(tc*100+qd))
					r := run(t, e, w)
					tot := r.Total()
					inFlight := r.IOPS() * tot.MeanLatNs() / 1e9
					rel := inFlight/float64(w.OIO()) - 1
					worst = max(worst, math.Abs(rel))
					assert.InDelta(t, 0, rel, 1e-3, "%s: IOPS %.0f × mean %.1f µs = %.3f I/Os in flight, not %d",
						w, r.IOPS(), tot.MeanLatNs()/1e3, inFlight, w.OIO())
					byOIO[w.OIO()] = append(byOIO[w.OIO()], r.IOPS())
				}
			}
			var oios []int
			for o := range byOIO {
				oios = append(oios, o)
			}
			sort.Ints(oios)
			mean := func(o int) float64 {
				var s float64
				for _, v := range byOIO[o] {
					s += v
				}
				return s / float64(len(byOIO[o]))
			}
			// Two runs scatter by √2 × the model's run-to-run noise; 5σ.
			slack := 5 * math.Sqrt2 * noise
			var line string
			for i, o := range oios {
				line += fmt.Sprintf(" %d:%.0f", o, mean(o))
				if i > 0 {
					assert.GreaterOrEqual(t, mean(o), mean(oios[i-1])*(1-slack), "%s: IOPS fall from OIO %d to %d", name, oios[i-1], o)
				}
			}
			t.Logf("%s: Little's law within %.4f %%; mean IOPS by OIO:%s", name, 100*worst, line)
			peak := mean(oios[len(oios)-1])
			assert.Greater(t, mean(2), 1.3*mean(1), "%s: a second I/O in flight raises IOPS", name)
			assert.Greater(t, peak, 3*mean(1), "%s: IOPS rise with the I/Os outstanding", name)
			// Level off: the last doublings of OIO add next to nothing.
			for _, o := range []int{256, 512} {
				assert.InEpsilon(t, peak, mean(o), slack, "%s: IOPS at OIO %d vs %d", name, o, oios[len(oios)-1])
			}
			require.Len(t, byOIO[1024], 1)
		})
	}
}

// ecwZones are the PTS-E composite workload's LBA groups (PTS 2.0.2 §13).
var ecwZones = []engine.Zone{{IOPercent: 50, RangePercent: 5}, {IOPercent: 30, RangePercent: 15}, {IOPercent: 20, RangePercent: 80}}

// Hot zones make garbage collection cheaper, as on a real drive: in steady
// state under the ECW zones (half the writes to 5 % of the range) fewer
// valid units are relocated per host write than under uniform random writes
// over the same range, and the drive sustains more write IOPS. Each
// workload is measured in its own steady state, after three capacities of
// itself.
func TestZonedWritesCollectCheaper(t *testing.T) {
	t.Parallel() // simulated drives of its own, CPU-bound: beside the others
	for _, name := range []string{"client", "enterprise"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			wa, iops := map[bool]float64{}, map[bool]float64{}
			for _, zoned := range []bool{false, true} {
				var zones []engine.Zone
				if zoned {
					zones = ecwZones
				}
				e := open(t, name, "")
				steady(t, e, 4096, zones)
				f := e.drives[0].d.f
				h0, r0 := f.hostUnits, f.relocated
				var sum float64
				const minutes = 10
				for i := 0; i < minutes; i++ {
					w := rnd(0, 4096, 4, 32, time.Minute, uint64(i))
					w.Zones = zones
					sum += run(t, e, w).IOPS()
				}
				wa[zoned] = 1 + float64(f.relocated-r0)/float64(f.hostUnits-h0)
				iops[zoned] = sum / minutes
			}
			t.Logf("%s: write amplification %.2f uniform, %.2f ECW zones; RND 4 KiB write IOPS %.0f uniform, %.0f ECW zones",
				name, wa[false], wa[true], iops[false], iops[true])
			assert.Less(t, wa[true], 0.95*wa[false], "%s: write amplification with hot zones", name)
			assert.Greater(t, iops[true], 1.05*iops[false], "%s: steady write IOPS with hot zones", name)
		})
	}
}
