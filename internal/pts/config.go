package pts

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/cpuidle"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/steadystate"
)

// Duration is a time.Duration that reads and writes as "60s" in JSON.
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// The engines a run can drive its targets with, as Config.Engine names
// them (the engine package's names); RunInfo.Engine describes the one
// that ran ("native io_uring").
const (
	EngineNative = engine.Native
	EngineFio    = engine.Fio
	EngineSim    = engine.Sim
)

// Config is what a run was asked to do, after defaults. It is stored in run.json.
type Config struct {
	Tests     []TestID `json:"tests"`
	Profile   string   `json:"profile"`
	Engine    string   `json:"engine"` // EngineNative, EngineFio or EngineSim
	Targets   []string `json:"targets"`
	TC        int      `json:"tc"` // IOPS test
	QD        int      `json:"qd"`
	CellTime  Duration `json:"cell_time"`
	MaxRounds int      `json:"max_rounds"`
	// NoTelemetry: the drives' temperature and health are not read
	// between cells (--no-telemetry); a resumed run keeps it.
	NoTelemetry bool `json:"no_telemetry,omitempty"`
	// ActiveRange is the IOPS test's active range; TPActiveRange and
	// LATActiveRange are the throughput and latency tests' (0 in an older
	// run.json: ActiveRange was every test's).
	ActiveRange    float64 `json:"active_range_pct"`
	TPActiveRange  float64 `json:"tp_active_range_pct,omitempty"`
	LATActiveRange float64 `json:"lat_active_range_pct,omitempty"`
	// TimelineActiveRange overrides the active range of the tests that
	// have their own (TestDef.ActiveRange: WSAT, HIR, XSR, the whole device
	// in PTS 2.0.2 §10–12); --active-range sets it. 0: theirs.
	TimelineActiveRange float64 `json:"timeline_active_range_pct,omitempty"`
	// PCActiveRange is the active range of the workload-independent
	// preconditioning (PTS "PC AR"): the whole device unless set.
	PCActiveRange float64              `json:"pc_active_range_pct"`
	Purge         string               `json:"purge"`
	DestroyData   []string             `json:"destroy_data,omitempty"`
	FioServers    []string             `json:"fio_servers,omitempty"`
	Seed          uint64               `json:"seed"`
	SS            steadystate.Criteria `json:"steady_state"`
	// MinBlock is the largest logical block size of the targets, when above
	// 512 bytes (a 4Kn drive): cells of smaller blocks cannot be done on
	// them, so they are left out, and the results say so.
	MinBlock int64 `json:"min_block_bytes,omitempty"`
	// Poll is the native engine's completion polling as it was given: ""
	// or "auto", "off", or how long a thread polls before it sleeps
	// ("100us"). engine.ParsePoll reads it into the typed engine.Poll the
	// rest uses.
	Poll string `json:"poll,omitempty"`
	// CPUIdle is how quick to wake the host's idle CPUs are kept while
	// the run measures, as it was given (--cpu-idle): "" or "shallow",
	// "host", or the longest wake-up allowed ("20us"); cpuidle.Parse
	// reads it.
	CPUIdle string `json:"cpu_idle,omitempty"`
	// Params are the tests' own parameters by flag name ("xsr-groups"),
	// as the user gave them; each test's definition declares, defaults and
	// checks its own (TestDef.Params).
	Params map[string]string `json:"params,omitempty"`
	// BlockSizes and Mixes (read %) pick a subset of the tests' matrices
	// for a quick look (--block-sizes, --mixes), in loop order; empty runs
	// the whole matrix. Throughput runs a stage per chosen block size of its
	// own. Not the PTS: the results say what was left out.
	BlockSizes []int64 `json:"block_sizes_bytes,omitempty"`
	Mixes      []int   `json:"mixes_read_pct,omitempty"`
	// RWSW is the applied test workload of the capture the rwsw test
	// runs (--capture), read once when the run started.
	RWSW *Applied `json:"rwsw,omitempty"`
}

// PollDuration reads Poll (engine.ParsePoll) the way the native engine
// takes it: 0 lets the engine choose, negative never polls.
func (c Config) PollDuration() (time.Duration, error) {
	p, err := engine.ParsePoll(c.Poll)
	return p.Duration(), err
}

// Runnable says whether blocks of bs bytes can be done on the targets.
func (c Config) Runnable(bs int64) bool { return c.MinBlock <= 0 || bs%c.MinBlock == 0 }

// Limits on what a run may ask for.
const (
	MinCellTime  = time.Second
	MaxCellTime  = time.Hour
	MaxMaxRounds = 1000
)

// DefaultConfig is a PTS-conforming enterprise run of IOPS, throughput and latency.
func DefaultConfig() Config {
	return Config{
		Tests: []TestID{IOPS, TP, LAT}, Profile: "enterprise", Engine: EngineSim,
		CellTime: Duration(DefaultCellTime), MaxRounds: DefaultMaxRounds, Purge: "auto",
		Seed: 1, SS: steadystate.Default(),
	}
}

// Resolve fills profile defaults (TC, QD, active range) and checks every
// value; the error names the first bad one.
func (c *Config) Resolve() (Profile, error) {
	p, err := LookupProfile(c.Profile)
	if err != nil {
		return p, err
	}
	c.Profile = p.Name
	if _, err := c.PollDuration(); err != nil {
		return p, err
	}
	if _, err := cpuidle.Parse(c.CPUIdle); err != nil {
		return p, err
	}
	if len(c.Tests) == 0 {
		return p, fmt.Errorf("no test named")
	}
	for _, t := range c.Tests {
		if _, err := LookupTest(t); err != nil {
			return p, err
		}
	}
	if err := c.resolveParams(); err != nil {
		return p, err
	}
	if c.TC == 0 {
		c.TC = p.TC
	}
	if c.QD == 0 {
		c.QD = p.QD
	}
	if c.ActiveRange == 0 {
		c.ActiveRange = p.ActiveRange
	}
	if c.TPActiveRange == 0 {
		c.TPActiveRange = p.ActiveRangeOf("tp")
	}
	if c.LATActiveRange == 0 {
		c.LATActiveRange = p.ActiveRangeOf("lat")
	}
	if c.PCActiveRange == 0 {
		c.PCActiveRange = 100
	}
	switch {
	case c.TC < 1 || c.TC > engine.MaxTC:
		return p, Refused("tc", c.TC)
	case c.QD < 1 || c.QD > engine.MaxQD:
		return p, Refused("qd", c.QD)
	case time.Duration(c.CellTime) < MinCellTime || time.Duration(c.CellTime) > MaxCellTime:
		return p, Refused("cell-time", time.Duration(c.CellTime))
	case !(c.ActiveRange > 0 && c.ActiveRange <= 100):
		return p, Refused("active-range", c.ActiveRange)
	case !(c.TPActiveRange > 0 && c.TPActiveRange <= 100):
		return p, Refused("tp-active-range", c.TPActiveRange)
	case !(c.LATActiveRange > 0 && c.LATActiveRange <= 100):
		return p, Refused("lat-active-range", c.LATActiveRange)
	case !(c.PCActiveRange > 0 && c.PCActiveRange <= 100):
		return p, Refused("pc-active-range", c.PCActiveRange)
	}
	if err := c.SS.Validate(); err != nil {
		var ce *steadystate.CriterionError
		if errors.As(err, &ce) {
			return p, fmt.Errorf("--ss-%s %s: %s", ce.Name, ce.Value, ce.Want)
		}
		return p, err
	}
	if c.MaxRounds < c.SS.Window || c.MaxRounds > MaxMaxRounds {
		return p, fmt.Errorf("--max-rounds %d: the round limit is %d…%d, not below the %d-round window (--ss-window)",
			c.MaxRounds, c.SS.Window, MaxMaxRounds, c.SS.Window)
	}
	if err := c.resolveSubset(p); err != nil {
		return p, err
	}
	// The stages the tests build from these settings, checked by their
	// procedures before anything runs (a timeline's segments that sum to
	// nothing).
	for _, s := range c.Stages(p) {
		if err := checkStage(s); err != nil {
			return p, err
		}
	}
	return p, nil
}

// Refused is Resolve's refusal of a setting of the run, in the words of
// the flag that sets it (run's, whose settings resume reads from
// run.json): the flag, the value and what it takes. The command line
// refuses with it a 0 given where Config's 0 stands for the setting left
// out (LeftOut).
func Refused(flag string, v any) error {
	if f, ok := v.(float64); ok {
		v = strconv.FormatFloat(f, 'f', -1, 64) + "%"
	}
	var takes string
	switch flag {
	case "tc":
		takes = fmt.Sprintf("the IOPS test's thread count is 1…%d", engine.MaxTC)
	case "qd":
		takes = fmt.Sprintf("the IOPS test's queue depth per thread is 1…%d", engine.MaxQD)
	case "cell-time":
		takes = fmt.Sprintf("a cell lasts %v…%v", MinCellTime, MaxCellTime)
	default: // the active ranges
		takes = "an active range is a percentage above 0 and at most 100"
	}
	if left := LeftOut(flag); left != "" {
		takes += fmt.Sprintf("; left out, --%s is %s", flag, left)
	}
	return fmt.Errorf("--%s %v: %s", flag, v, takes)
}

// LeftOut says what a setting of the run is when its flag is left out,
// where Config's 0 stands for it: for --tc, "the profile's: E 4, C 2".
// The command line's help gives it as the flag's default.
func LeftOut(flag string) string {
	each := func(v func(Profile) float64) string {
		var s []string
		for _, p := range Profiles {
			s = append(s, fmt.Sprintf("%s %g", strings.TrimPrefix(p.Short, "PTS-"), v(p)))
		}
		return "the profile's: " + strings.Join(s, ", ")
	}
	switch flag {
	case "tc":
		return each(func(p Profile) float64 { return float64(p.TC) })
	case "qd":
		return each(func(p Profile) float64 { return float64(p.QD) })
	case "active-range":
		// The tests with an active range of their own, by value.
		var values []float64
		own := map[float64][]string{}
		for _, t := range Tests {
			if t.ActiveRange != 0 {
				if own[t.ActiveRange] == nil {
					values = append(values, t.ActiveRange)
				}
				own[t.ActiveRange] = append(own[t.ActiveRange], strings.ToUpper(string(t.ID)))
			}
		}
		s := each(func(p Profile) float64 { return p.ActiveRange })
		for _, v := range values {
			s += fmt.Sprintf("; %s %g", JoinAnd(own[v]), v)
		}
		return s
	case "tp-active-range", "lat-active-range":
		test := strings.TrimSuffix(flag, "-active-range")
		return "--active-range, else " + each(func(p Profile) float64 { return p.ActiveRangeOf(TestID(test)) })
	case "pc-active-range":
		return "100, the PTS's"
	}
	return ""
}

// Subset is the block sizes and mixes of a test that the run does, in loop
// order: the test's matrix, narrowed by BlockSizes and Mixes when set.
// Cells the targets cannot do (Runnable) are still in it.
func (c Config) Subset(test TestID, p Profile) ([]int64, []int) {
	sizes, mixes := TestMatrix(test, p)
	if len(c.BlockSizes) > 0 {
		sizes = slices.DeleteFunc(slices.Clone(sizes), func(bs int64) bool { return !slices.Contains(c.BlockSizes, bs) })
	}
	if len(c.Mixes) > 0 {
		mixes = slices.DeleteFunc(slices.Clone(mixes), func(m int) bool { return !slices.Contains(c.Mixes, m) })
	}
	return sizes, mixes
}

// resolveSubset puts BlockSizes and Mixes in loop order and refuses values
// outside the tests' matrices, and subsets without the tracking variables:
// without them no steady state can be judged, and nothing the run measured
// would mean what the PTS's numbers mean.
func (c *Config) resolveSubset(p Profile) error {
	if len(c.BlockSizes) == 0 && len(c.Mixes) == 0 {
		return nil
	}
	var names []string
	var sizes []int64
	var mixes []int
	for _, id := range c.Tests {
		td, _ := LookupTest(id)
		names = append(names, td.Name)
		s, m := TestMatrix(id, p)
		for _, bs := range s {
			if !slices.Contains(sizes, bs) {
				sizes = append(sizes, bs)
			}
		}
		for _, x := range m {
			if !slices.Contains(mixes, x) {
				mixes = append(mixes, x)
			}
		}
	}
	// Every matrix runs from the largest block and the most reads down.
	desc := func(a, b int64) int { return cmp.Compare(b, a) }
	slices.SortFunc(sizes, desc)
	slices.SortFunc(mixes, func(a, b int) int { return b - a })
	c.BlockSizes = slices.Compact(slices.SortedFunc(slices.Values(c.BlockSizes), desc))
	c.Mixes = slices.Compact(slices.SortedFunc(slices.Values(c.Mixes), func(a, b int) int { return b - a }))
	of := fmt.Sprintf("the %s test", JoinAnd(names))
	if len(names) > 1 {
		of += "s"
	}
	for _, bs := range c.BlockSizes {
		if !slices.Contains(sizes, bs) {
			return fmt.Errorf("--block-sizes %s: not a block size of %s; valid are %s", SizeFlag(bs), of, sizeFlags(sizes))
		}
	}
	for _, m := range c.Mixes {
		if !slices.Contains(mixes, m) {
			return fmt.Errorf("--mixes %s: not an R/W mix of %s; valid are %s", MixLabel(m), of, mixFlags(mixes))
		}
	}
	var missing []string
	var addSizes []int64
	var addMixes []int
	for _, id := range c.Tests {
		td := Def(id)
		s, m := c.Subset(id, p)
		var want []TrackingDef
		switch {
		case !td.StagePerBlockSize:
			want = td.Tracking(0)
		case len(s) == 0:
			// No stage at all: name the one to add.
			sizes, _ := td.Matrix(p)
			missing = append(missing, fmt.Sprintf("%s's %s (no %s block size: %s)", strings.ToLower(td.Name),
				td.Tracking(sizes[0])[0].Name, strings.ToLower(td.Name), sizeFlags(sizes)))
			addSizes = append(addSizes, sizes[0])
			want = td.Tracking(sizes[0])[:0]
		default:
			for _, bs := range s {
				want = append(want, td.Tracking(bs)...)
			}
		}
		for _, t := range want {
			hasSize, hasMix := slices.Contains(s, t.Key.BlockSize), slices.Contains(m, t.Key.ReadPct)
			if hasSize && hasMix {
				continue
			}
			missing = append(missing, t.Name)
			if !hasSize && !slices.Contains(addSizes, t.Key.BlockSize) {
				addSizes = append(addSizes, t.Key.BlockSize)
			}
			if !hasMix && !slices.Contains(addMixes, t.Key.ReadPct) {
				addMixes = append(addMixes, t.Key.ReadPct)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var add []string
	if len(addSizes) > 0 {
		slices.SortFunc(addSizes, desc)
		add = append(add, sizeFlags(addSizes)+" to --block-sizes")
	}
	if len(addMixes) > 0 {
		slices.SortFunc(addMixes, func(a, b int) int { return b - a })
		add = append(add, mixFlags(addMixes)+" to --mixes")
	}
	return fmt.Errorf("--block-sizes/--mixes leave out the tracking variables %s: steady state is judged on them; add %s",
		JoinAnd(missing), JoinAnd(add))
}

// Stages builds the stages of the configured tests, in run order.
func (c Config) Stages(p Profile) []Stage {
	var out []Stage
	for _, t := range c.Tests {
		sizes, mixes := c.Subset(t, p)
		out = append(out, Def(t).stages(c, p, sizes, mixes)...)
	}
	return out
}

func (c Config) wipc(bs int64) *engine.Workload {
	return &engine.Workload{Access: engine.Sequential, ReadPct: 0, BlockSize: bs, TC: WIPCTC, QD: WIPCQD,
		ActiveRange: c.PCActiveRange, Passes: WIPCPasses}
}

// ActiveRangeOf is the active range of a test's cells.
func (c Config) ActiveRangeOf(test TestID) float64 {
	switch {
	case test == TP && c.TPActiveRange > 0:
		return c.TPActiveRange
	case test == LAT && c.LATActiveRange > 0:
		return c.LATActiveRange
	}
	if td := Def(test); td != nil && td.ActiveRange > 0 {
		if c.TimelineActiveRange > 0 {
			return c.TimelineActiveRange
		}
		return td.ActiveRange
	}
	return c.ActiveRange
}

func (c Config) cell(test TestID, i int, acc engine.Access, read int, bs int64, tc, qd int) Cell {
	w := engine.Workload{Access: acc, ReadPct: read, BlockSize: bs, TC: tc, QD: qd,
		ActiveRange: c.ActiveRangeOf(test), Duration: time.Duration(c.CellTime)}
	return Cell{Index: i, Key: KeyOf(w), Workload: w}
}

// track finds the cells of a stage's tracking variables.
func (s Stage) track(defs []TrackingDef) []Tracking {
	var out []Tracking
	for _, t := range defs {
		out = append(out, Tracking{Name: t.Name, Cell: s.find(t.Key), Metric: t.Metric})
	}
	return out
}

// find is the index of the stage's cell of key k. The configuration was
// checked to hold every tracking cell (resolveSubset, Runnable), so a missing
// one is a bug.
func (s Stage) find(k CellKey) int {
	for _, c := range s.Cells {
		if c.Key == k {
			return c.Index
		}
	}
	panic(fmt.Sprintf("pts: stage %s has no cell %s", s.ID, k))
}

// CellSeed derives the seed of one cell of one round, so that a re-run of a
// round draws the same addresses.
func CellSeed(runSeed uint64, stage string, round, cell int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%d/%d", runSeed, stage, round, cell)
	return splitmix(h.Sum64())
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Param reads a test parameter: the value the user gave, else its default.
func (c Config) Param(flag string) string {
	if v, ok := c.Params[flag]; ok {
		return v
	}
	for _, t := range Tests {
		for _, p := range t.Params {
			if p.Flag == flag {
				return p.Default
			}
		}
	}
	return ""
}

// resolveParams checks the parameters of the tests the run does, and
// refuses one no test of the run declares.
func (c *Config) resolveParams() error {
	known := map[string]Param{}
	for _, t := range c.Tests {
		for _, p := range Def(t).Params {
			known[p.Flag] = p
		}
	}
	for flag, v := range c.Params {
		p, ok := known[flag]
		if !ok {
			return fmt.Errorf("--%s: not a parameter of %s", flag, JoinTests(c.Tests, ", "))
		}
		if p.Check != nil {
			if err := p.Check(v); err != nil {
				return fmt.Errorf("--%s %s: %w", flag, v, err)
			}
		}
	}
	for _, t := range c.Tests {
		if td := Def(t); td.CheckParams != nil {
			if err := td.CheckParams(*c); err != nil {
				return err
			}
		}
	}
	return nil
}
