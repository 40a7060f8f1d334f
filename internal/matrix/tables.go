package matrix

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/jsonfmt"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/units"
)

// Table is a block size × R/W mix matrix (or a per-round series).
type Table struct {
	Name  string // file name without .csv
	Title string // human title
	// Aggregate says how a cell's value is made from the measurement
	// window's rounds ("maximum over the window"), for captions.
	Aggregate string
	Unit      string      // IOPS, MB/s, ms
	RowHead   string      // header of the label column
	Cols      []string    // column labels: R/W mixes "65/35", or series names
	Rows      []string    // row labels: block sizes "0.5KiB", or rounds
	RowBytes  []int64     // block size of each row (0 for non-size rows)
	Values    [][]float64 // Values[row][col]; NaN where there is no value
}

// MixLabel writes a read percentage as "R/W".
func MixLabel(read int) string { return pts.MixLabel(read) }

// SizeLabel writes a block size the way tables and imports read it: "0.5KiB", "4KiB".
func SizeLabel(b int64) string { return units.SizeLabel(b) }

// Find returns a test's result, or nil.
func (r *Results) Find(test pts.TestID) *TestResult {
	for i := range r.Tests {
		if r.Tests[i].Test == test {
			return &r.Tests[i]
		}
	}
	return nil
}

// Tables derives every table of the results, in report order: for each
// test, the tables its definition lists, then each stage's tracking
// variables per round.
func (r *Results) Tables() []Table {
	var out []Table
	for _, t := range r.Tests {
		td := pts.Def(t.Test)
		if td == nil || len(t.Stages) == 0 {
			continue
		}
		var cells []CellResult
		for _, s := range t.Stages {
			cells = append(cells, s.Cells...)
		}
		// A row and column for every block size and mix of the matrix,
		// empty where a quick look left it out. Imported results may have
		// no profile: throughput's rows are then its stages'.
		var sizes []int64
		var mixes []int
		if td.Matrix != nil {
			p, _ := pts.LookupProfile(r.Profile)
			sizes, mixes = td.Matrix(p)
		}
		// Each table is of a shape its stages' procedures make
		// (pts.Procedure.Tables): the one place a shape becomes rows.
		for _, def := range td.Tables {
			switch def.Shape {
			case pts.ShapeGrid, pts.ShapePoints:
				if tb, ok := demandTable(def, t); ok {
					out = append(out, tb)
				}
			case pts.ShapeSamples, pts.ShapeSummary, pts.ShapeFigures:
				for _, st := range t.Stages {
					if tb, ok := timelineTable(def, st); ok {
						out = append(out, tb)
					}
				}
			case pts.ShapeCells:
				tb := cellTable(def, cells)
				tb.Aggregate = def.Aggregate
				out = append(out, tb)
			default:
				tb := matrixTable(def.Name, def.Title, def.Metric.Unit(), cells, sizes, mixes,
					func(c CellResult) float64 { v, _ := c.Value(def.Metric); return v })
				tb.Aggregate = def.Aggregate
				out = append(out, tb)
			}
		}
		for _, s := range t.Stages {
			if len(s.Tracking) > 0 {
				out = append(out, trackingTable(s))
			}
		}
	}
	return out
}

func matrixTable(name, title, unit string, cells []CellResult, sizes []int64, mixes []int, v func(CellResult) float64) Table {
	t := Table{Name: name, Title: title, Unit: unit, RowHead: "bs"}
	// Imported results may hold block sizes and mixes the PTS does not
	// use; they get rows and columns too, in the PTS's order (largest block,
	// most reads first).
	sizes, mixes = slices.Clone(sizes), slices.Clone(mixes)
	for _, c := range cells {
		if !slices.Contains(sizes, c.BlockSize) {
			sizes = append(sizes, c.BlockSize)
		}
		if !slices.Contains(mixes, c.ReadPct) {
			mixes = append(mixes, c.ReadPct)
		}
	}
	slices.SortFunc(sizes, func(a, b int64) int { return cmp.Compare(b, a) })
	slices.SortFunc(mixes, func(a, b int) int { return cmp.Compare(b, a) })
	for _, m := range mixes {
		t.Cols = append(t.Cols, MixLabel(m))
	}
	for _, bs := range sizes {
		row := make([]float64, len(mixes))
		for i, m := range mixes {
			row[i] = math.NaN()
			for _, c := range cells {
				if c.BlockSize == bs && c.ReadPct == m && c.Present() {
					row[i] = v(c)
				}
			}
		}
		t.Rows = append(t.Rows, SizeLabel(bs))
		t.RowBytes = append(t.RowBytes, bs)
		t.Values = append(t.Values, row)
	}
	return t
}

func trackingTable(s StageResult) Table {
	t := Table{Name: strings.ReplaceAll(s.ID, "/", "_") + "_tracking", Title: s.Title + " tracking variables per round",
		RowHead: "round"}
	n := 0
	for _, tr := range s.Tracking {
		t.Cols = append(t.Cols, tr.Name+" ("+tr.Unit+")")
		n = max(n, len(tr.Values))
	}
	for r := 0; r < n; r++ {
		row := make([]float64, len(s.Tracking))
		for v, tr := range s.Tracking {
			row[v] = math.NaN()
			if r < len(tr.Values) {
				row[v] = tr.Values[r]
			}
		}
		t.Rows = append(t.Rows, strconv.Itoa(r+1))
		t.RowBytes = append(t.RowBytes, 0)
		t.Values = append(t.Values, row)
	}
	return t
}

// timelineTable is a timeline stage's table of a definition: a row per
// sample, or its summary's rows. ok is false when the stage has none.
func timelineTable(def pts.TableDef, s StageResult) (Table, bool) {
	if !s.Timeline {
		return Table{}, false
	}
	if def.Shape == pts.ShapeFigures {
		if s.Summary == nil || len(s.Summary.Figures) == 0 {
			return Table{}, false
		}
		t := Table{Name: def.Name, Title: def.Title, RowHead: "figure (unit)", Cols: []string{"value"}}
		for _, f := range s.Summary.Figures {
			t.Rows = append(t.Rows, fmt.Sprintf("%s (%s)", f.Name, f.Unit))
			t.RowBytes = append(t.RowBytes, 0)
			t.Values = append(t.Values, []float64{f.Value})
		}
		return t, true
	}
	if def.Shape == pts.ShapeSummary {
		if s.Summary == nil {
			return Table{}, false
		}
		t := Table{Name: def.Name, Title: def.Title, RowHead: s.Summary.Head[0]}
		t.Cols = append(t.Cols, s.Summary.Head[1:]...)
		for _, r := range s.Summary.Rows {
			t.Rows = append(t.Rows, FormatValue(r[0]))
			t.RowBytes = append(t.RowBytes, 0)
			t.Values = append(t.Values, r[1:])
		}
		return t, true
	}
	t := Table{Name: def.Name, Title: def.Title, RowHead: "step", Cols: def.SampleColumns}
	for _, smp := range s.Samples {
		row := make([]float64, len(def.SampleColumns))
		for i, c := range def.SampleColumns {
			row[i] = sampleColumn(smp, c, s.Capacity)
		}
		t.Rows = append(t.Rows, strconv.Itoa(smp.Step+1))
		t.RowBytes = append(t.RowBytes, 0)
		t.Values = append(t.Values, row)
	}
	return t, true
}

// sampleColumn is one column of a sample's row.
func sampleColumn(s pts.Sample, col string, capacity int64) float64 {
	switch col {
	case pts.ColMinute:
		return s.Minute()
	case pts.ColGroup:
		return float64(s.Group)
	case pts.ColIdle:
		if s.Idle {
			return 1
		}
		return 0
	case pts.ColTGBW:
		return float64(s.Written) / 1e9
	case pts.ColFills:
		if capacity <= 0 {
			return math.NaN()
		}
		return float64(s.Written) / float64(capacity)
	case pts.ColIOPS:
		return s.IOPS
	case pts.ColMBps:
		return s.MBps
	case pts.ColLatMean:
		return s.LatMeanMs
	case pts.ColP99999:
		return s.LatP99999Ms
	case pts.ColLatMax:
		return s.LatMaxMs
	}
	return math.NaN()
}

// cellTable lists a test's cells one row each (workloads outside the PTS),
// a column per metric.
func cellTable(def pts.TableDef, cells []CellResult) Table {
	t := Table{Name: def.Name, Title: def.Title, RowHead: "workload"}
	for _, m := range def.Columns {
		t.Cols = append(t.Cols, string(m))
	}
	for _, c := range cells {
		if !c.Present() {
			continue
		}
		row := make([]float64, len(def.Columns))
		for i, m := range def.Columns {
			row[i], _ = c.Value(m)
		}
		t.Rows = append(t.Rows, c.Key.String())
		t.RowBytes = append(t.RowBytes, c.BlockSize)
		t.Values = append(t.Values, row)
	}
	return t
}

// FormatValue writes a number at full precision; absent values are empty.
func FormatValue(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// WriteCSV writes the table with its row labels.
func (t Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{t.RowHead}, t.Cols...)); err != nil {
		return err
	}
	for i, row := range t.Values {
		rec := []string{t.Rows[i]}
		for _, v := range row {
			rec = append(rec, FormatValue(v))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// TargetName labels one target of a set in per-target tables: its name,
// as HOST:PORT=TARGET (the --fio-server form) when a fio server loaded it.
func (t TargetCell) TargetName() string {
	if t.Host != "" && t.Host != "local" && !strings.HasPrefix(t.Target, t.Host) {
		return t.Host + "=" + t.Target
	}
	return t.Target
}

// TargetTables are the per-target values of a run on several targets at
// once (the LUNs of an array, the hosts of a fio client/server run): one row
// per cell of every stage, one column per target. None for one target.
func (r *Results) TargetTables() []Table {
	var names []string
	for _, t := range r.Tests {
		for _, s := range t.Stages {
			for _, c := range s.Cells {
				for _, tc := range c.Targets {
					if n := tc.TargetName(); !slices.Contains(names, n) {
						names = append(names, n)
					}
				}
			}
		}
	}
	if len(names) < 2 {
		return nil
	}
	mk := func(name, title, unit string, v func(TargetCell) float64) Table {
		tb := Table{Name: name, Title: title, Unit: unit, RowHead: "cell", Cols: names}
		for _, t := range r.Tests {
			for _, s := range t.Stages {
				for _, c := range s.Cells {
					if len(c.Targets) == 0 {
						continue
					}
					row := make([]float64, len(names))
					for i := range row {
						row[i] = math.NaN()
					}
					for _, tc := range c.Targets {
						row[slices.Index(names, tc.TargetName())] = v(tc)
					}
					tb.Rows = append(tb.Rows, s.ID+":"+c.Key.String())
					tb.RowBytes = append(tb.RowBytes, 0)
					tb.Values = append(tb.Values, row)
				}
			}
		}
		return tb
	}
	out := []Table{
		mk("targets_iops", "IOPS per target", "IOPS", func(t TargetCell) float64 { return t.IOPS }),
		mk("targets_mbps", "MB/s per target", "MB/s", func(t TargetCell) float64 { return t.MBps }),
		mk("targets_lat_mean_ms", "Average response time per target", "ms", func(t TargetCell) float64 { return t.LatMeanMs }),
		mk("targets_lat_max_ms", "Maximum response time per target", "ms", func(t TargetCell) float64 { return t.LatMaxMs }),
	}
	if unit := r.targetCPUUnit(); unit != "" {
		out = append(out, mk("targets_cpu_pct", "Host CPU per target (user + system)", unit, func(t TargetCell) float64 {
			if t.CPU == nil {
				return math.NaN()
			}
			return t.CPU.Pct()
		}))
	}
	return out
}

// targetCPUUnit is the unit of the per-target CPU figures, "" when no
// target has any.
func (r *Results) targetCPUUnit() string {
	for _, t := range r.Tests {
		for _, s := range t.Stages {
			for _, c := range s.Cells {
				for _, tc := range c.Targets {
					if tc.CPU != nil {
						return tc.CPU.Unit()
					}
				}
			}
		}
	}
	return ""
}

func (r *Results) allTables() []Table { return append(r.Tables(), r.TargetTables()...) }

// TableFiles are the names of the CSV files Save writes into DIR/tables.
func (r *Results) TableFiles() []string {
	var out []string
	for _, t := range r.allTables() {
		out = append(out, t.Name+".csv")
	}
	return out
}

// Save writes results.json and tables/*.csv into dir, each file atomically.
// DIR/tables must be a directory of the run's own, not a link elsewhere:
// Save removes the CSVs there that it did not write.
func (r *Results) Save(dir string) error {
	tdir := filepath.Join(dir, "tables")
	if st, err := os.Lstat(tdir); err == nil && !st.IsDir() {
		return fmt.Errorf("%w: %s is not a directory of the run's own (%v): ptsrun writes its tables, and removes stale ones, only there",
			device.ErrUnsafe, tdir, st.Mode().Type())
	}
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		return fmt.Errorf("tables directory %s: %w", tdir, err)
	}
	var names []string
	for _, t := range r.allTables() {
		var b bytes.Buffer
		if err := t.WriteCSV(&b); err != nil {
			return err
		}
		name := t.Name + ".csv"
		names = append(names, name)
		if err := pts.WriteFileAtomic(filepath.Join(tdir, name), b.Bytes()); err != nil {
			return err
		}
	}
	// Tables of an earlier build that this one no longer has would mislead.
	old, _ := filepath.Glob(filepath.Join(tdir, "*.csv"))
	for _, p := range old {
		if !slices.Contains(names, filepath.Base(p)) {
			os.Remove(p)
		}
	}
	b, err := jsonfmt.Marshal(r)
	if err != nil {
		return err
	}
	return pts.WriteFileAtomic(filepath.Join(dir, ResultsFile), b)
}

// ResultsFile is the name of the results in a run directory.
const ResultsFile = "results.json"

// ReadResults reads a results.json file, checking that it is one.
func ReadResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("results %s: %w", path, err)
	}
	var res Results
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&res); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n")) + 1
			return nil, fmt.Errorf("results %s: line %d: %w", path, line, err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("results %s: truncated: the JSON ends at line %d before it is complete", path, bytes.Count(b, []byte("\n"))+1)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("results %s: field %s: %w", path, te.Field, err)
		}
		return nil, fmt.Errorf("results %s: %w", path, err)
	}
	if res.Schema != Schema || res.Tool != "ptsrun" {
		return nil, fmt.Errorf("results %s: not a ptsrun results file of schema %d (tool %q, schema %d)", path, Schema, res.Tool, res.Schema)
	}
	return &res, nil
}

// Load rebuilds the results of the run in dir from run.json and the journal.
func Load(dir string) (*Results, pts.RunInfo, error) {
	ri, err := pts.LoadRunInfo(dir)
	if err != nil {
		return nil, ri, err
	}
	if _, err := os.Stat(filepath.Join(dir, pts.JournalFile)); ri.Imported && errors.Is(err, os.ErrNotExist) {
		// A published table: its results are the data, there is no journal.
		res, err := ReadResults(filepath.Join(dir, ResultsFile))
		if err == nil {
			res.kinds(ri)
		}
		return res, ri, err
	}
	// The series of the stages that do not read theirs (every PTS
	// stage: workloads outside the PTS have them in their results) are
	// not read.
	custom := map[string]bool{}
	for _, s := range ri.Stages {
		custom[s.ID] = s.Test == pts.Custom
	}
	st, err := pts.ReplayDir(dir, ri.Stages, pts.ScanOptions{Series: func(stage string) bool { return custom[stage] }})
	if err != nil {
		return nil, ri, err
	}
	return BuildState(ri, st), ri, nil
}

// kinds gives results read from results.json, which does not record them,
// the procedures of the run's stages.
func (r *Results) kinds(ri pts.RunInfo) {
	for i := range r.Tests {
		for j := range r.Tests[i].Stages {
			s := &r.Tests[i].Stages[j]
			s.Kind = stageOf(ri, s.ID).Procedure().Kind()
		}
	}
}

// demandTable is a demand-intensity test's table of a definition: a
// metric over its TC (rows) × QD (columns) cells, in loop order, or its
// operating points. ok is false when the test has no such cells.
func demandTable(def pts.TableDef, t TestResult) (Table, bool) {
	if def.Shape == pts.ShapePoints {
		return pointsTable(def, t)
	}
	// The demand-variation stage: the one with between-round pre-writes.
	var cells []CellResult
	for _, s := range t.Stages {
		if slices.ContainsFunc(s.Cells, func(c CellResult) bool { return c.PreWrite }) {
			cells = slices.DeleteFunc(slices.Clone(s.Cells), func(c CellResult) bool { return c.PreWrite })
			break
		}
	}
	if len(cells) == 0 {
		return Table{}, false
	}
	tb := Table{Name: def.Name, Title: def.Title, Aggregate: def.Aggregate, Unit: def.Metric.Unit(), RowHead: "TC \\ QD"}
	var tcs, qds []int
	for _, c := range cells {
		if !slices.Contains(tcs, c.TC) {
			tcs = append(tcs, c.TC)
		}
		if !slices.Contains(qds, c.QD) {
			qds = append(qds, c.QD)
		}
	}
	for _, qd := range qds {
		tb.Cols = append(tb.Cols, strconv.Itoa(qd))
	}
	for _, tc := range tcs {
		row := make([]float64, len(qds))
		for i, qd := range qds {
			row[i] = math.NaN()
			for _, c := range cells {
				if c.TC == tc && c.QD == qd && c.Present() {
					row[i], _ = c.Value(def.Metric)
				}
			}
		}
		tb.Rows = append(tb.Rows, strconv.Itoa(tc))
		tb.RowBytes = append(tb.RowBytes, 0)
		tb.Values = append(tb.Values, row)
	}
	return tb, true
}

// PointColumns are the columns of a demand-intensity test's operating
// points table.
var PointColumns = []string{"tc", "qd", "chosen_iops", "chosen_art_ms", "histogram_iops", "histogram_art_ms", "histogram_p99_999_ms", "histogram_mrt_ms"}

func pointsTable(def pts.TableDef, t TestResult) (Table, bool) {
	tb := Table{Name: def.Name, Title: def.Title, RowHead: "point", Cols: PointColumns}
	for _, s := range t.Stages {
		p := s.Point
		if p == nil {
			continue
		}
		// The point's two measurements as pts figured them, each its own
		// columns: as chosen, and in its histogram run.
		row := []float64{float64(p.TC), float64(p.QD), p.IOPS, p.ARTMs, math.NaN(), math.NaN(), math.NaN(), math.NaN()}
		if r := p.Run; r != nil {
			row[4], row[5], row[6], row[7] = r.IOPS, r.ARTMs, r.P99999Ms, r.MRTMs
		}
		tb.Rows = append(tb.Rows, pts.PointLabel(p.Point))
		tb.RowBytes = append(tb.RowBytes, 0)
		tb.Values = append(tb.Values, row)
	}
	return tb, len(tb.Rows) > 0
}
