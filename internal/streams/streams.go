package streams

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/units"
)

// SequentialRule is the reading of "sequential" that Characterise applies.
const SequentialRule = "an I/O is sequential when it starts where the previous I/O of the same direction and transfer size on the same device ended; otherwise it is random (the first of its direction and size on a device is random)"

// Method says what the characterisation follows, in the words every output uses.
const Method = "after the SNIA RWSW method"

// Stream is one I/O stream: access, transfer size and direction.
type Stream struct {
	Sequential bool        `json:"sequential"`
	Size       int64       `json:"size"`
	Dir        capture.Dir `json:"-"`
}

// Label is the stream as tables write it: "RND 4KiB read".
func (s Stream) Label() string {
	a := "RND"
	if s.Sequential {
		a = "SEQ"
	}
	return fmt.Sprintf("%s %s %s", a, units.SizeLabel(s.Size), s.Dir)
}

// Options are a characterisation's choices.
type Options struct {
	Step time.Duration // the length of a step; 0 is DefaultStep
	Top  int           // how many streams the top share and the steps' columns count; 0 is DefaultTop
}

const (
	DefaultStep = 5 * time.Minute
	DefaultTop  = 10
	// WorkloadCover is the share of the I/Os the applied workload's
	// streams cover, at most WorkloadStreams of them.
	WorkloadCover   = 90.0
	WorkloadStreams = 12
	// MaxSteps is the most steps a report has.
	MaxSteps = 10000
)

// StreamShare is a stream and its share of the I/Os.
type StreamShare struct {
	Stream     string  `json:"stream"`
	Access     string  `json:"access"` // "random" or "sequential"
	Dir        string  `json:"dir"`
	Size       int64   `json:"size"`
	IOs        int     `json:"ios"`
	Share      float64 `json:"share_pct"`
	Cumulative float64 `json:"cumulative_pct"`
	stream     Stream
}

// Step is one step of the capture's time.
type Step struct {
	Start float64  `json:"start_s"` // from the capture's first I/O
	End   float64  `json:"end_s"`
	IOs   int      `json:"ios"`
	IOPS  *float64 `json:"iops"`
	// DemandIntensity is the mean number of I/Os outstanding in the step,
	// from their starts and completions; nil when the capture has none.
	DemandIntensity *float64 `json:"demand_intensity"`
	// Shares are the step's shares of the top streams, in the order of
	// Report.Streams; Other is the rest.
	Shares []float64 `json:"shares_pct"`
	Other  float64   `json:"other_pct"`
}

// Totals are the capture's.
type Totals struct {
	IOs             int            `json:"ios"`
	ReadIOs         int            `json:"read_ios"`
	WriteIOs        int            `json:"write_ios"`
	Bytes           int64          `json:"bytes"`
	ReadBytes       int64          `json:"read_bytes"`
	WriteBytes      int64          `json:"write_bytes"`
	Duration        float64        `json:"duration_s"`
	IOPS            *float64       `json:"iops"`
	ReadPct         float64        `json:"read_pct"`
	SequentialPct   float64        `json:"sequential_pct"`
	DemandIntensity *float64       `json:"demand_intensity"`
	DemandSource    string         `json:"demand_intensity_source"`
	Streams         int            `json:"streams"`
	Dropped         map[string]int `json:"dropped,omitempty"`
}

// Workload is the applied test workload: the top streams covering
// WorkloadCover of the I/Os, at most WorkloadStreams, renormalised.
type Workload struct {
	Covered float64         `json:"covered_pct"`
	Streams []WorkloadShare `json:"streams"`
}

// WorkloadShare is a stream of the applied workload.
type WorkloadShare struct {
	Stream       string  `json:"stream"`
	Access       string  `json:"access"`
	Dir          string  `json:"dir"`
	Size         int64   `json:"size"`
	Share        float64 `json:"share_pct"`         // of the workload, renormalised
	CaptureShare float64 `json:"capture_share_pct"` // of the capture's I/Os
}

// Report is a capture's characterisation.
type Report struct {
	Method         string                `json:"method"`
	SequentialRule string                `json:"sequential_rule"`
	Format         capture.Format        `json:"format"`
	Devices        []capture.DeviceCount `json:"devices"`
	Device         string                `json:"device"` // the one characterised, or "all"
	Timed          bool                  `json:"timed"`
	Step           float64               `json:"step_s"`
	Totals         Totals                `json:"totals"`
	// Streams are every stream, most I/Os first.
	Streams  []StreamShare `json:"streams"`
	Top      int           `json:"top_n"`
	TopShare float64       `json:"top_share_pct"`
	Steps    []Step        `json:"steps"`
	Workload Workload      `json:"workload"`
	// Coarse is a coarse capture's report (/proc/diskstats): its steps'
	// mix and intensity, in place of streams.
	Coarse *CoarseReport `json:"coarse,omitempty"`
}

// Characterise makes the report of c's I/Os; devices are the capture's
// devices before one was chosen, device the one chosen ("all" for all).
func Characterise(c *capture.Capture, devices []capture.DeviceCount, device string, opt Options) (*Report, error) {
	if opt.Step == 0 {
		opt.Step = DefaultStep
	}
	if opt.Top == 0 {
		opt.Top = DefaultTop
	}
	if opt.Step < 0 || opt.Top < 0 {
		return nil, errors.New("the step and the number of top streams must be positive")
	}
	if c.Coarse != nil {
		return characteriseCoarse(c, devices, opt)
	}
	if len(c.IOs) == 0 {
		return nil, errors.New("the capture holds no reads or writes")
	}
	if device == "" {
		device = "all"
	}
	r := &Report{Method: Method, SequentialRule: SequentialRule, Format: c.Format, Devices: devices, Device: device,
		Timed: c.Timed, Step: opt.Step.Seconds()}
	// Each I/O's stream.
	type key struct {
		dev  string
		dir  capture.Dir
		size int64
	}
	ends := map[key]int64{}
	of := make([]Stream, len(c.IOs))
	counts := map[Stream]int{}
	t := &r.Totals
	completed := true
	first, last := c.IOs[0].Start, c.IOs[0].Start
	seq := 0
	for i, io := range c.IOs {
		k := key{io.Device, io.Dir, io.Size}
		end, seen := ends[k]
		s := Stream{Sequential: seen && end == io.Offset, Size: io.Size, Dir: io.Dir}
		ends[k] = io.Offset + io.Size
		of[i] = s
		counts[s]++
		if s.Sequential {
			seq++
		}
		t.IOs++
		t.Bytes += io.Size
		if io.Dir == capture.Read {
			t.ReadIOs++
			t.ReadBytes += io.Size
		} else {
			t.WriteIOs++
			t.WriteBytes += io.Size
		}
		completed = completed && io.Completed
		last = max(last, io.Start)
		if io.Completed {
			last = max(last, io.Done)
		}
	}
	t.Dropped = c.Dropped
	t.ReadPct = pct(t.ReadIOs, t.IOs)
	t.SequentialPct = pct(seq, t.IOs)
	t.Streams = len(counts)
	span := last - first
	t.Duration = span.Seconds()
	if c.Timed && span > 0 {
		t.IOPS = ptr(float64(t.IOs) / span.Seconds())
	}
	// Streams, most I/Os first; ties by label.
	for s, n := range counts {
		r.Streams = append(r.Streams, StreamShare{Stream: s.Label(), Access: access(s), Dir: s.Dir.String(), Size: s.Size, IOs: n, Share: pct(n, t.IOs), stream: s})
	}
	slices.SortFunc(r.Streams, func(a, b StreamShare) int {
		return cmp.Or(cmp.Compare(b.IOs, a.IOs), cmp.Compare(a.Stream, b.Stream))
	})
	cum := 0
	rank := map[Stream]int{}
	for i := range r.Streams {
		cum += r.Streams[i].IOs
		r.Streams[i].Cumulative = pct(cum, t.IOs)
		rank[r.Streams[i].stream] = i
	}
	r.Top = min(opt.Top, len(r.Streams))
	r.TopShare = r.Streams[r.Top-1].Cumulative
	// Steps.
	nsteps := 1
	if c.Timed && span > 0 {
		if span/opt.Step >= MaxSteps {
			return nil, fmt.Errorf("%.0f s of capture make more than %d steps of %s: choose a longer step", span.Seconds(), MaxSteps, opt.Step)
		}
		nsteps = int(span/opt.Step) + 1
	}
	steps := make([]Step, nsteps)
	counted := make([][]int, nsteps)
	busy := make([]time.Duration, nsteps) // the time of I/Os outstanding in each step
	stepOf := func(at time.Duration) int {
		if nsteps == 1 {
			return 0
		}
		return min(int((at-first)/opt.Step), nsteps-1)
	}
	for i := range steps {
		counted[i] = make([]int, r.Top)
	}
	for i, io := range c.IOs {
		n := stepOf(io.Start)
		steps[n].IOs++
		if k := rank[of[i]]; k < r.Top {
			counted[n][k]++
		}
		if completed {
			for m := n; m < nsteps; m++ {
				lo, hi := first+time.Duration(m)*opt.Step, first+time.Duration(m+1)*opt.Step
				if nsteps == 1 {
					lo, hi = first, last
				}
				o := min(hi, io.Done) - max(lo, io.Start)
				if o > 0 {
					busy[m] += o
				}
				if io.Done <= hi {
					break
				}
			}
		}
	}
	var total time.Duration
	for m := range steps {
		s := &steps[m]
		lo := time.Duration(m) * opt.Step
		hi := min(lo+opt.Step, span)
		if nsteps == 1 {
			lo, hi = 0, span
		}
		s.Start, s.End = lo.Seconds(), hi.Seconds()
		s.Shares = make([]float64, r.Top)
		n := 0
		for k, v := range counted[m] {
			s.Shares[k] = pct(v, s.IOs)
			n += v
		}
		s.Other = pct(s.IOs-n, s.IOs)
		if c.Timed && hi > lo {
			s.IOPS = ptr(float64(s.IOs) / (hi - lo).Seconds())
			if completed {
				s.DemandIntensity = ptr(float64(busy[m]) / float64(hi-lo))
			}
		}
		total += busy[m]
	}
	r.Steps = steps
	switch {
	case !c.Timed:
		t.DemandSource = "the capture has no times"
	case !completed:
		t.DemandSource = "the capture has no completions, and IOPS × latency needs the latency"
	case span > 0:
		t.DemandIntensity = ptr(float64(total) / float64(span))
		t.DemandSource = "from completions: the time each I/O was outstanding, start to completion, over the time; IOPS × mean latency"
	}
	// The applied workload.
	w := &r.Workload
	n := 0
	for _, s := range r.Streams {
		if len(w.Streams) == WorkloadStreams || pct(n, t.IOs) >= WorkloadCover {
			break
		}
		n += s.IOs
		w.Streams = append(w.Streams, WorkloadShare{Stream: s.Stream, Access: s.Access, Dir: s.Dir, Size: s.Size, CaptureShare: s.Share})
	}
	w.Covered = pct(n, t.IOs)
	for i := range w.Streams {
		w.Streams[i].Share = w.Streams[i].CaptureShare / w.Covered * 100
	}
	return r, nil
}

func access(s Stream) string {
	if s.Sequential {
		return "sequential"
	}
	return "random"
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

func ptr(v float64) *float64 { return &v }
