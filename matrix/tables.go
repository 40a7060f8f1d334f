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

	"github.com/ptsrun/ptsrun/pts"
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
func MixLabel(read int) string { return fmt.Sprintf("%d/%d", read, 100-read) }

// SizeLabel writes a block size the way tables and imports read it: "0.5KiB", "4KiB".
func SizeLabel(b int64) string {
	if b%1024 == 0 {
		return fmt.Sprintf("%dKiB", b/1024)
	}
	return fmt.Sprintf("%gKiB", float64(b)/1024)
}

// Find returns a test's result, or nil.
func (r *Results) Find(test string) *TestResult {
	for i := range r.Tests {
		if r.Tests[i].Test == test {
			return &r.Tests[i]
		}
	}
	return nil
}

// Tables derives every table of the results, in report order.
func (r *Results) Tables() []Table {
	var out []Table
	if t := r.Find("iops"); t != nil && len(t.Stages) > 0 {
		s := t.Stages[0]
		out = append(out, matrixTable("iops", "IOPS", "IOPS", s.Cells, pts.IOPSBlockSizes, pts.IOPSMixes,
			func(c CellResult) float64 { return c.IOPS }))
		out = append(out, trackingTable(s))
	}
	if t := r.Find("tp"); t != nil && len(t.Stages) > 0 {
		tb := Table{Name: "tp", Title: "Throughput", Unit: "MB/s", RowHead: "bs"}
		for _, m := range pts.TPMixes {
			tb.Cols = append(tb.Cols, MixLabel(m))
		}
		// A row per block size of the profile, empty where a quick look
		// left its stage out, then any other stage's (imports).
		var sizes []int64
		if p, err := pts.LookupProfile(r.Profile); err == nil {
			sizes = slices.Clone(p.TPBlocks)
		}
		for _, s := range t.Stages {
			if len(s.Cells) > 0 && !slices.Contains(sizes, s.Cells[0].BlockSize) {
				sizes = append(sizes, s.Cells[0].BlockSize)
			}
		}
		for _, bs := range sizes {
			row := make([]float64, len(pts.TPMixes))
			for i, m := range pts.TPMixes {
				row[i] = math.NaN()
				for _, s := range t.Stages {
					for _, c := range s.Cells {
						if c.BlockSize == bs && c.ReadPct == m && c.Present() {
							row[i] = c.MBps
						}
					}
				}
			}
			tb.Rows = append(tb.Rows, SizeLabel(bs))
			tb.RowBytes = append(tb.RowBytes, bs)
			tb.Values = append(tb.Values, row)
		}
		out = append(out, tb)
		for _, s := range t.Stages {
			out = append(out, trackingTable(s))
		}
	}
	if t := r.Find("lat"); t != nil && len(t.Stages) > 0 {
		s := t.Stages[0]
		for _, spec := range []struct {
			name, title, unit, aggregate string
			v                            func(CellResult) float64
		}{
			{"lat_mean_ms", "Average response time", "ms", "I/O-weighted mean over the measurement window",
				func(c CellResult) float64 { return c.LatMeanMs }},
			{"lat_p99_999_ms", "99.999 % response time", "ms", "from the measurement window's merged latency histograms",
				func(c CellResult) float64 { return c.LatP99999Ms }},
			{"lat_max_ms", "Maximum response time", "ms", "the maximum over the measurement window",
				func(c CellResult) float64 { return c.LatMaxMs }},
			// The figure other PTS tools report as MRT (pts-spec.md A6).
			{"lat_max_mean_ms", "Mean of each round's maximum response time", "ms", "as other PTS tools report MRT",
				func(c CellResult) float64 { return c.LatMaxMeanMs }},
			{"lat_iops", "IOPS at TC1/QD1", "IOPS", "mean over the measurement window",
				func(c CellResult) float64 { return c.IOPS }},
		} {
			t := matrixTable(spec.name, spec.title, spec.unit, s.Cells, pts.LATBlockSizes, pts.LATMixes, spec.v)
			t.Aggregate = spec.aggregate
			out = append(out, t)
		}
		out = append(out, trackingTable(s))
	}
	if t := r.Find("custom"); t != nil && len(t.Stages) > 0 {
		out = append(out, customTable(t.Stages[0]))
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

// customTable lists workloads that are not PTS cells, one row each.
func customTable(s StageResult) Table {
	t := Table{Name: "custom", Title: "Custom workloads", RowHead: "workload",
		Cols: []string{"iops", "mbps", "lat_mean_ms", "lat_p99_999_ms", "lat_max_ms"}}
	for _, c := range s.Cells {
		if !c.Present() {
			continue
		}
		row := make([]float64, len(t.Cols))
		for i, m := range t.Cols {
			row[i], _ = c.Value(m)
		}
		t.Rows = append(t.Rows, c.Key)
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
					tb.Rows = append(tb.Rows, s.ID+":"+c.Key)
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
func (r *Results) Save(dir string) error {
	tdir := filepath.Join(dir, "tables")
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
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return pts.WriteFileAtomic(filepath.Join(dir, ResultsFile), append(b, '\n'))
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
		return res, ri, err
	}
	recs, cut, err := pts.LoadJournal(dir)
	if err != nil {
		return nil, ri, err
	}
	return Build(ri, recs, cut), ri, nil
}
