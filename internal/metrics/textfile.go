package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// Flag is the command line's flag that names the textfile, Usage its help.
const (
	Flag  = "metrics-textfile"
	Usage = "write the metrics (IOPS, MB/s, response time, round, steady-state distance, time left) to this file at every record, " +
		"atomically, in Prometheus's text format for node_exporter's textfile collector (docs/metrics.md); replaces only a textfile ptsrun wrote"
)

// labels are every measurement's: the run (its directory's base name),
// the test, the stage and the target (the targets, comma-separated).
var labels = []string{"run", "test", "stage", "target"}

// Textfile writes a run's or a workload's metrics to one file. Its
// methods are safe to call from several goroutines (a workload's
// intervals come from the engine's).
type Textfile struct {
	path  string
	build pts.Build
	warn  io.Writer

	mu       sync.Mutex
	reg      *prometheus.Registry
	names    []string
	info     *prometheus.GaugeVec
	iops     *prometheus.GaugeVec
	bytesPS  *prometheus.GaugeVec
	latMean  *prometheus.GaugeVec
	round    *prometheus.GaugeVec
	sample   *prometheus.GaugeVec
	rangeR   *prometheus.GaugeVec
	slopeR   *prometheus.GaugeVec
	steady   *prometheus.GaugeVec
	leftMin  *prometheus.GaugeVec
	leftMax  *prometheus.GaugeVec
	drive    driveGauges
	run      string // the run's label
	target   string
	test     string // the last stage's test and stage
	stage    string
	warned   bool // a write failed and the warning was given
	stopped  bool // the path was refused: nothing more is written
	workload workloadState
}

// workloadState is where a workload command is: the workload whose
// intervals come, and the time of those after it.
type workloadState struct {
	label string
	w     engine.Workload
	after time.Duration
	last  time.Time // the last interval's write, of the wall clock
}

// Open is the textfile at path for a command of ptsrun version, which
// writes nothing until the run or workload begins; nil without a path.
// path is refused, naming the flag and the path, unless ptsrun may write
// its output there (device.CheckOutput: absent, or a textfile ptsrun
// wrote). A write that fails later is said once on warn.
func Open(path, version string, warn io.Writer) (*Textfile, error) {
	if path == "" {
		return nil, nil
	}
	abs, err := device.AbsPath(path)
	if err == nil {
		err = device.CheckOutput(abs, false, Ours)
	}
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %w", Flag, path, err)
	}
	return newTextfile(abs, pts.ThisBuild(version), warn), nil
}

// newTextfile is the textfile at path, its metrics registered.
func newTextfile(path string, build pts.Build, warn io.Writer) *Textfile {
	t := &Textfile{path: path, build: build, warn: warn, reg: prometheus.NewRegistry()}
	register := func(name, help string, labels []string) *prometheus.GaugeVec {
		g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
		t.reg.MustRegister(g)
		t.names = append(t.names, name)
		return g
	}
	gauge := func(name, help string, extra ...string) *prometheus.GaugeVec {
		return register(name, help, slices.Concat(labels, extra))
	}
	t.info = register("ptsrun_run_info",
		"The ptsrun binary writing this file: always 1, its version, commit (empty when go build did not stamp one) and Go release in the labels.",
		[]string{"run", "version", "commit", "go"})
	t.iops = gauge("ptsrun_iops", "IOPS (read + write) of the last cell, sample or interval measured.")
	t.bytesPS = gauge("ptsrun_throughput_bytes_per_second", "Throughput (read + write, bytes per second) of the last cell, sample or interval measured.")
	t.latMean = gauge("ptsrun_response_time_mean_seconds", "Mean response time of the I/Os of the last cell, sample or interval measured.")
	t.round = gauge("ptsrun_round", "The stage's round: of the last cell measured, or the last round ended.")
	t.sample = gauge("ptsrun_sample", "The number (from 1) of the last sample of a test over time, or of the last interval of a workload.")
	t.rangeR = gauge("ptsrun_steady_state_range_ratio",
		"A tracking variable's range over the last steady-state window as a fraction of the range allowed (at most 1 is within the limit).", "variable")
	t.slopeR = gauge("ptsrun_steady_state_slope_excursion_ratio",
		"A tracking variable's slope excursion over the last steady-state window as a fraction of the excursion allowed (at most 1 is within the limit).", "variable")
	t.steady = gauge("ptsrun_steady_state", "1 when the stage's last full window was steady (or the stage ended steady), 0 when not.")
	t.leftMin = gauge("ptsrun_time_left_min_seconds", "Time left of the run if every stage to come is steady as early as it can be (the progress's estimate), of the stage running.")
	t.leftMax = gauge("ptsrun_time_left_max_seconds", "Time left of the run if every stage to come runs to its round limit (the progress's estimate), of the stage running.")
	t.drive = newDriveGauges(func(name, help string) *prometheus.GaugeVec { return register(name, help, driveLabels) })
	return t
}

// Names are the names of the metrics a textfile may hold.
func Names() []string {
	out := newTextfile("", pts.Build{}, io.Discard).names
	slices.Sort(out)
	return out
}

// Ours says data is a textfile ptsrun wrote: every line a HELP or TYPE
// comment of a ptsrun_ metric, or a sample of one.
func Ours(data []byte) bool {
	if len(bytes.TrimSpace(data)) == 0 {
		return false
	}
	for line := range strings.SplitSeq(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !strings.HasPrefix(line, "ptsrun_") && !strings.HasPrefix(line, "# HELP ptsrun_") && !strings.HasPrefix(line, "# TYPE ptsrun_") {
			return false
		}
	}
	return true
}

// begin labels what follows with its run and targets, and writes the
// run's information.
func (t *Textfile) begin(run string, targets []string) {
	t.run, t.target = run, strings.Join(targets, ",")
	t.info.Reset()
	t.info.WithLabelValues(run, t.build.Version, t.build.Commit, t.build.Go).Set(1)
	t.write()
}

// of are the labels of a measurement of stage s of test.
func (t *Textfile) of(test, stage string) prometheus.Labels {
	return prometheus.Labels{"run": t.run, "test": test, "stage": stage, "target": t.target}
}

// measured sets the last measurement's figures.
func (t *Textfile) measured(l prometheus.Labels, iops, bytesPS, latMeanS float64) {
	t.iops.With(l).Set(iops)
	t.bytesPS.With(l).Set(bytesPS)
	t.latMean.With(l).Set(latMeanS)
}

// left sets the run's time left: one series, of the stage running.
func (t *Textfile) left(l prometheus.Labels, lo, hi time.Duration) {
	t.leftMin.Reset()
	t.leftMax.Reset()
	t.leftMin.With(l).Set(lo.Seconds())
	t.leftMax.With(l).Set(hi.Seconds())
}

// write writes the file atomically (prometheus.WriteToTextfile: a
// temporary file beside it, renamed over it), after checking again that
// the path is still one ptsrun may write. A refusal stops the writes; any
// failure is said once.
func (t *Textfile) write() {
	if t.stopped {
		return
	}
	err := device.CheckOutput(t.path, false, Ours)
	if err != nil {
		t.stopped = true
	} else {
		err = prometheus.WriteToTextfile(t.path, t.reg)
	}
	if err != nil && !t.warned {
		t.warned = true
		what := "metrics are written again at the next record"
		if t.stopped || errors.Is(err, device.ErrUnsafe) {
			what = "no more metrics are written"
		}
		fmt.Fprintf(t.warn, "ptsrun: --%s %s: %v; %s\n", Flag, t.path, err, what)
	}
}

// runName is a run directory's label.
func runName(dir string) string { return filepath.Base(dir) }
