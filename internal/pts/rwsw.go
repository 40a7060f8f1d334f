package pts

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// RWSW is the applied test workload of a capture run as a PTS-style test,
// after the SNIA RWSW method (Real World Storage Workload, a Technical
// Position of 2018 whose test chapters could not be read here: every
// choice below that rests on no verified text is a reading, Readings).
const RWSW TestID = "rwsw"

// Applied is a capture's applied test workload as a run takes it: read
// once, when the run starts (package streams characterises the capture),
// and recorded in run.json, so that a resumed run never reads the capture
// again. SHA256 is the capture file's, which a resume given the capture
// checks (CheckCapture).
type Applied struct {
	Capture string `json:"capture"` // the file as the user named it
	SHA256  string `json:"sha256"`
	Format  string `json:"format"`
	Device  string `json:"device"` // the capture's device characterised, or "all"
	// Streams are the applied workload: the capture's top streams,
	// renormalised; CaptureShares each one's share of the capture's I/Os,
	// Covered their sum.
	Streams       []engine.Stream `json:"streams"`
	CaptureShares []float64       `json:"capture_shares_pct"`
	Covered       float64         `json:"covered_pct"`
	// SequentialRule is the rule the capture's I/Os were read by, in the
	// words of the characterisation that read them.
	SequentialRule string `json:"sequential_rule"`
	// OIO is the capture's dominant demand intensity, the median number
	// of I/Os outstanding over the time any was (OIOSource says how it
	// was found); TC and QD what the test runs it at (DemandOf).
	OIO       int    `json:"oio"`
	OIOSource string `json:"oio_source"`
	TC        int    `json:"tc"`
	QD        int    `json:"qd"`
	// Characterisation is the capture's report as `ptsrun streams --json`
	// prints it, which the report's stream map draws.
	Characterisation json.RawMessage `json:"characterisation,omitempty"`
}

// MaxQDPerThread is the deepest queue DemandOf gives a thread.
const MaxQDPerThread = 32

// DemandOf maps a number of outstanding I/Os to TC × QD: the fewest
// threads of at most MaxQDPerThread each, the queue depth the rest
// (rounded up: TC × QD ≥ oio). A reading (rwsw-demand).
func DemandOf(oio int) (tc, qd int) {
	oio = max(oio, 1)
	tc = (oio + MaxQDPerThread - 1) / MaxQDPerThread
	return tc, (oio + tc - 1) / tc
}

// Workload is the applied workload as the engines take it, without TC,
// QD, range and time.
func (a *Applied) Workload() engine.Workload { return engine.MixWorkload(a.Streams) }

// CheckCapture refuses a capture for a run whose applied workload was read
// from another file: the one recorded (by its sha256) is what the run's
// rounds so far measured.
func (a *Applied) CheckCapture(path, sha string) error {
	if a == nil || sha == a.SHA256 {
		return nil
	}
	return fmt.Errorf("--capture %s: its sha256 is %s, but this run's applied workload was read from %s, sha256 %s: "+
		"a resumed run goes on with the workload it started with (leave --capture out to resume, or start a new run in another directory)",
		path, sha, a.Capture, a.SHA256)
}

// check checks an applied workload as a run records it.
func (a *Applied) check() error {
	if len(a.Streams) == 0 {
		return errors.New("the applied workload has no streams")
	}
	if len(a.CaptureShares) != len(a.Streams) {
		return errors.New("the applied workload's capture shares are not one per stream")
	}
	if a.TC < 1 || a.QD < 1 || a.TC > engine.MaxTC || a.QD > engine.MaxQD {
		return fmt.Errorf("the applied workload's TC%d/QD%d is outside TC1…%d, QD1…%d", a.TC, a.QD, engine.MaxTC, engine.MaxQD)
	}
	w := a.Workload()
	w.TC, w.QD, w.ActiveRange, w.Duration = a.TC, a.QD, 100, time.Second
	return w.Validate(512)
}

// rwswDemand is the demand sweep of the applied workload.
var rwswDemand = &demand{
	test: RWSW, prefix: "rwsw", name: "RWSW",
	stimulus: func(c Config) (engine.Workload, engine.Workload, string, string) {
		if c.RWSW == nil {
			return engine.Workload{}, engine.Workload{}, "the applied workload", "its writes"
		}
		test := c.RWSW.Workload()
		pre := engine.MixWorkload(rwswWrites(c.RWSW.Streams))
		return test, pre, "the applied workload (" + test.String() + ")", "its writes (" + pre.String() + ")"
	},
}

// rwswWrites are the applied workload's write streams renormalised, its
// pre-write; a workload of reads only pre-writes its streams as writes
// (a reading, rwsw-prewrite).
func rwswWrites(in []engine.Stream) []engine.Stream {
	var out []engine.Stream
	var sum float64
	for _, s := range in {
		if !s.Read {
			out = append(out, s)
			sum += s.Percent
		}
	}
	if len(out) == 0 {
		for _, s := range in {
			s.Read = false
			out = append(out, s)
			sum += s.Percent
		}
	}
	for i := range out {
		out[i].Percent = out[i].Percent / sum * 100
	}
	return out
}

// RWSWTest runs a capture's applied test workload (Config.RWSW) after the
// SNIA RWSW method: purge, the PTS's workload-independent
// preconditioning, rounds of the workload at the capture's dominant
// demand intensity until the PTS steady state, then DIRTH's demand sweep
// over TC × QD with its operating points. It needs a capture, so --tests
// all leaves it out.
var RWSWTest = func() *TestDef {
	t := demandDef(rwswDemand, "after the SNIA RWSW method", 20, nil)
	t.Name = "RWSW applied workload"
	t.Input = "--capture"
	t.Params = slices.DeleteFunc(t.Params, func(p Param) bool { return strings.Contains(p.Flag, "-pc-") })
	t.CheckParams = func(c Config) error {
		if c.RWSW == nil {
			return errors.New("--tests rwsw needs a capture: --capture FILE (a fio iolog, blkparse or biosnoop output)")
		}
		if err := c.RWSW.check(); err != nil {
			return fmt.Errorf("the applied workload of %s: %w", c.RWSW.Capture, err)
		}
		return nil
	}
	t.Rules = append(rwswRules, demandRules(rwswDemand)[1:]...)
	t.stages = func(c Config, _ Profile, _ []int64, _ []int) []Stage {
		return append([]Stage{rwswSteady(c)}, demandSweepStages(rwswDemand, c)...)
	}
	return t
}()

// rwswSteady is the stage of rounds of the applied workload at the
// capture's demand intensity.
func rwswSteady(c Config) Stage {
	a := c.RWSW
	w := a.Workload()
	w.TC, w.QD, w.ActiveRange, w.Duration = a.TC, a.QD, c.ActiveRangeOf(RWSW), time.Duration(c.CellTime)
	return Stage{Kind: KindRounds, ID: "rwsw-ss", Test: RWSW, Title: "RWSW applied workload", Purge: true,
		Precondition: c.wipc(WIPCBlockSize), MaxRounds: c.MaxRounds,
		Cells:    []Cell{{Index: 0, Key: DemandKey(stemOf(w), a.TC, a.QD), Workload: w}},
		Tracking: []Tracking{{Name: fmt.Sprintf("IOPS of the applied workload at TC%d/QD%d", a.TC, a.QD), Cell: 0, Metric: MetricIOPS}}}
}

var rwswRules = []Rule{
	{Name: "method", Words: "after the SNIA RWSW method (the Real World Storage Workload test specification's method, whose test " +
		"chapters ptsrun could not verify): not a compliance claim"},
	{Name: "applied workload", With: func(c Config) string {
		if c.RWSW == nil {
			return "the capture's top streams covering at least 90 % of its I/Os (at most 12), renormalised to 100 %, each I/O's stream drawn by share from one queue, each sequential stream at its own position"
		}
		return fmt.Sprintf("%s's top %d streams, %s %% of its I/Os, renormalised: %s; each I/O's stream drawn by share from one queue, "+
			"each sequential stream at its own position", c.RWSW.Capture, len(c.RWSW.Streams), strconv.FormatFloat(round2(c.RWSW.Covered), 'f', -1, 64), c.RWSW.Workload().MixLabel())
	}},
	{Name: "demand intensity", With: func(c Config) string {
		if c.RWSW == nil {
			return "the capture's dominant outstanding I/O (the median number outstanding over the time any was), as TC × QD: " +
				"the fewest threads of at most 32 I/Os each"
		}
		return fmt.Sprintf("%d outstanding I/Os (%s), run as TC%d/QD%d", c.RWSW.OIO, c.RWSW.OIOSource, c.RWSW.TC, c.RWSW.QD)
	}},
	{Name: "preconditioning", Words: "purge, then twice the capacity of SEQ 128 KiB writes at TC1/QD32 (WIPC), then rounds of the " +
		"applied workload (WDPC), as the IOPS test"},
	{Name: "round", With: func(c Config) string {
		return fmt.Sprintf("the applied workload at the capture's demand intensity, %s", ShortDuration(time.Duration(c.CellTime)))
	}},
	{Name: "tracking variable", Words: "the IOPS of the applied workload (reads plus writes)"},
	WindowRule,
}

func round2(v float64) float64 { return float64(int(v*100+0.5)) / 100 }

func init() {
	register(RWSWTest)
	// The sweep is DIRTH's, and so are the readings of its loops, times,
	// ceiling and points, with rwsw's flags.
	for i := range Readings {
		r := &Readings[i]
		if !strings.HasPrefix(r.ID, "demand-") || r.ID == "demand-pc-track" {
			continue
		}
		r.Tests = append(r.Tests, RWSW)
		for _, f := range r.Flags {
			if rest, ok := strings.CutPrefix(f, "dirth-"); ok && !strings.HasPrefix(rest, "pc-") {
				r.Flags = append(r.Flags, "rwsw-"+rest)
			}
		}
	}
	Readings = append(Readings, rwswReadings...)
}

var rwswReadings = []Reading{
	{ID: "rwsw-method", Tests: []TestID{RWSW}, Topic: "The RWSW method",
		Ours: "capture, characterise into I/O streams (random or sequential, transfer size, direction) and demand intensity, " +
			"apply the top streams as a stimulus with the PTS's preconditioning and steady state, then a DIRTH demand sweep",
		Source: "what is known of the SNIA RWSW Performance Test Specification for Datacenter Storage (2018), whose test chapters could not be read here",
		Why:    "no open harness has it; the report says \"after the SNIA RWSW method\", never that it complies",
		Choose: flagNone + "the method is the test"},
	{ID: "rwsw-sequential", Tests: []TestID{RWSW}, Topic: "RWSW's sequential rule",
		Ours:   "an I/O is sequential when it starts where the previous I/O of the same direction and transfer size on the same device ended (the rule the report prints, as ptsrun streams applied it)",
		Source: "ptsrun's reading of an I/O stream",
		Why:    "a stream is a direction and a size: its own previous I/O is the one it continues",
		Choose: flagNone + "ptsrun streams states the rule it applies"},
	{ID: "rwsw-cover", Tests: []TestID{RWSW}, Topic: "RWSW's applied workload",
		Ours:   "the top streams covering at least 90 % of the I/Os, at most 12, renormalised to 100 %",
		Source: "summaries of the RWSW method (\"the dominant streams\")",
		Why:    "a few streams carry most of a real workload's I/Os; 12 keeps the stimulus one an engine can run",
		Choose: flagNone + "the applied workload is ptsrun streams'"},
	{ID: "rwsw-demand", Tests: []TestID{RWSW}, Topic: "RWSW's demand intensity",
		Ours: "the capture's dominant outstanding I/O, the median number outstanding over the time any was (from completions; " +
			"a capture without them, a fio iolog, is taken as 32), as the fewest threads of at most 32 each",
		Source: "ptsrun's reading of \"the dominant demand intensity\"",
		Why:    "half of the busy time asks less of the drive and half more; a mean is pulled by bursts, and the most frequent depth of a wide spread is one of them by chance",
		Choose: flagNone + "the sweep that follows measures every TC × QD of its loops"},
	{ID: "rwsw-prewrite", Tests: []TestID{RWSW}, Topic: "RWSW's pre-writes",
		Ours:   "the applied workload's write streams, renormalised; a workload of reads only pre-writes its streams as writes",
		Source: "DIRTH's pre-write, the stimulus's writes",
		Why:    "the sweep is DIRTH's, with the applied workload as its stimulus",
		Choose: flagNone + "the pre-write follows the workload"},
}
