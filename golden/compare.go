package golden

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/pdfreport"
	"github.com/ptsrun/ptsrun/pts"
)

// Comparison is several runs lined up against the first.
type Comparison struct {
	Runs      []*Run
	Tables    []pdfreport.ComparedTable
	Headlines []pdfreport.ComparedHeadline
	// HeatMap is the runs' workloads outside the PTS (presets, vdbench
	// runs, fio job groups) as ratios to the reference; nil without any.
	HeatMap *pdfreport.ComparedHeatMap
}

// quoteSuffix names a metric after the cell in a comparison's headline:
// "RND 4 KiB read average ms".
func quoteSuffix(m pts.Metric) string {
	switch m {
	case pts.MetricLatMean:
		return "average ms"
	case pts.MetricLatMax:
		return "maximum ms"
	case pts.MetricLatP99999:
		return "99.999 % ms"
	}
	return m.Unit()
}

// Compare lines the runs up: every table any run has, rows and columns the
// union of theirs, NaN where a run has no value; and the headline cells.
// Every run must share a test with the reference.
func Compare(runs []*Run) (*Comparison, error) {
	if len(runs) < 2 {
		return nil, fmt.Errorf("compare needs at least two runs")
	}
	ref := runs[0]
	for _, r := range runs[1:] {
		common := false
		for _, t := range r.Results.Tests {
			common = common || ref.Results.Find(t.Test) != nil
		}
		if !common {
			return nil, fmt.Errorf("%s and the reference %s: %w (reference: %s; run: %s)", r.Path, ref.Path, ErrNothingInCommon,
				testNames(ref.Results), testNames(r.Results))
		}
	}
	c := &Comparison{Runs: runs}
	perRun := make([]map[string]matrix.Table, len(runs))
	var names []string
	for i, r := range runs {
		perRun[i] = map[string]matrix.Table{}
		for _, t := range r.Results.Tables() {
			if strings.HasSuffix(t.Name, "_tracking") {
				continue
			}
			perRun[i][t.Name] = t
			if !slices.Contains(names, t.Name) {
				names = append(names, t.Name)
			}
		}
	}
	for _, name := range names {
		c.Tables = append(c.Tables, unionTable(name, perRun))
	}
	c.HeatMap = heatMap(c.Tables)
	// The brief headlines of any run: the numbers reviews quote. Workloads
	// outside the PTS (imported, or recorded by `ptsrun workload`) are what
	// such runs are about: theirs are headline cells too, matched by
	// workload.
	// A headline the test chose as it ran (DIRTH's MaxIOPS) is matched by
	// its label: each run's own point, wherever its TC/QD.
	type quoted struct {
		test   pts.TestID
		key    pts.CellKey
		metric pts.Metric
		label  string
	}
	var heads []quoted
	for _, r := range runs {
		for _, h := range r.Results.Headlines() {
			if !h.Brief {
				continue
			}
			for _, m := range h.Metrics {
				q := quoted{h.Test, h.Key, m, h.Label}
				if h.Label != "" {
					q.key = pts.CellKey{}
				}
				if !slices.Contains(heads, q) {
					heads = append(heads, q)
				}
			}
		}
	}
	for _, h := range heads {
		label := h.key.Words()
		switch {
		case h.label != "":
			label = h.label
		case h.test == pts.Custom:
			label = h.key.String()
		}
		hl := pdfreport.ComparedHeadline{Label: label + " " + quoteSuffix(h.metric), Metric: h.metric}
		any := false
		for _, r := range runs {
			v := math.NaN()
			cell := r.Results.Cell(h.test, h.key)
			if h.label != "" {
				cell = nil
				for _, rh := range r.Results.Headlines() {
					if rh.Test == h.test && rh.Label == h.label {
						cell = rh.Cell
					}
				}
			}
			if cell != nil {
				if x, ok := cell.Value(h.metric); ok {
					v, any = x, true
				}
			}
			hl.Values = append(hl.Values, v)
		}
		if any {
			c.Headlines = append(c.Headlines, hl)
		}
	}
	return c, nil
}

// unionTable aligns one table of every run on the union of their rows and
// columns.
func unionTable(name string, perRun []map[string]matrix.Table) pdfreport.ComparedTable {
	td, def, _ := pts.LookupTable(name)
	out := pdfreport.ComparedTable{Name: name}
	if td != nil {
		out.Test = td.ID
	}
	type rowKey struct {
		label string
		bytes int64
	}
	var rows []rowKey
	var cols []string
	for _, m := range perRun {
		t, ok := m[name]
		if !ok {
			continue
		}
		if out.Title == "" {
			out.Title, out.Unit, out.RowHead = t.Title, t.Unit, t.RowHead
		}
		for i, r := range t.Rows {
			k := rowKey{r, t.RowBytes[i]}
			if !slices.Contains(rows, k) {
				rows = append(rows, k)
			}
		}
		for _, c := range t.Cols {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	if name != "custom" {
		// Block-size rows largest first, as the PTS tables.
		slices.SortStableFunc(rows, func(a, b rowKey) int { return int(b.bytes>>9) - int(a.bytes>>9) })
	}
	for _, r := range rows {
		label := r.label
		if r.bytes > 0 && name != "custom" {
			label = engine.FormatSize(r.bytes)
		}
		out.Rows = append(out.Rows, label)
		out.RowBytes = append(out.RowBytes, r.bytes)
	}
	out.Cols = cols
	for _, c := range cols {
		m := def.Metric
		if len(def.Columns) > 0 {
			m = pts.Metric(c) // a column per metric
		}
		out.ColMetric = append(out.ColMetric, m)
	}
	if out.RowHead == "bs" {
		out.RowHead = "Block size"
	}
	for _, m := range perRun {
		vals := make([][]float64, len(rows))
		t, ok := m[name]
		for ri, r := range rows {
			vals[ri] = make([]float64, len(cols))
			for ci, c := range cols {
				vals[ri][ci] = math.NaN()
				if !ok {
					continue
				}
				for tr, label := range t.Rows {
					if label != r.label || t.RowBytes[tr] != r.bytes {
						continue
					}
					for tc, col := range t.Cols {
						if col == c {
							vals[ri][ci] = t.Values[tr][tc]
						}
					}
				}
			}
		}
		out.Values = append(out.Values, vals)
	}
	return out
}

// heatMap is the ratio heat-map of the custom workloads' table (a row per
// workload, a column per metric): run ÷ reference for every run after the
// reference, and each metric's geometric mean over the workloads both runs
// have. nil without custom workloads.
func heatMap(tables []pdfreport.ComparedTable) *pdfreport.ComparedHeatMap {
	var t *pdfreport.ComparedTable
	for i := range tables {
		if tables[i].Name == "custom" {
			t = &tables[i]
		}
	}
	if t == nil || len(t.Rows) == 0 || len(t.Values) < 2 {
		return nil
	}
	hm := &pdfreport.ComparedHeatMap{Workloads: t.Rows, Metrics: t.ColMetric}
	for i := 1; i < len(t.Values); i++ {
		ratios := make([][]float64, len(t.Rows))
		logSum := make([]float64, len(t.Cols))
		n := make([]int, len(t.Cols))
		for r := range t.Rows {
			ratios[r] = make([]float64, len(t.Cols))
			for c := range t.Cols {
				v := t.Values[i][r][c] / t.Values[0][r][c]
				if v > 0 && !math.IsInf(v, 0) {
					logSum[c] += math.Log(v)
					n[c]++
				} else {
					v = math.NaN()
				}
				ratios[r][c] = v
			}
		}
		mean := make([]float64, len(t.Cols))
		for c := range mean {
			mean[c] = math.NaN()
			if n[c] > 0 {
				mean[c] = math.Exp(logSum[c] / float64(n[c]))
			}
		}
		hm.Ratios = append(hm.Ratios, ratios)
		hm.Mean = append(hm.Mean, mean)
	}
	return hm
}

// csvFile is one CSV of a comparison: its name, header and rows. The
// first fixed fields of the header are the same in every comparison
// (the rest name the runs): that is how a CSV of ptsrun's is known.
type csvFile struct {
	name  string
	head  []string
	rows  [][]string
	fixed int
}

// WriteCSV writes one CSV per table: a row per cell with every run's value
// and every run's ratio to the reference (empty where absent); and the
// heat-map as the page shows it, a row per workload and a column per run
// and metric, the geometric means last. Nothing is written unless every
// file may be (CheckCSV).
func (c *Comparison) WriteCSV(dir string, force bool) error {
	if err := c.CheckCSV(dir, force); err != nil {
		return err
	}
	if _, err := device.MakeDir(dir); err != nil {
		return fmt.Errorf("comparison tables %s: %w", dir, err)
	}
	for _, f := range c.csvFiles() {
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		_ = w.Write(f.head)
		_ = w.WriteAll(f.rows)
		if err := w.Error(); err != nil {
			return err
		}
		if err := pts.WriteFileAtomic(filepath.Join(dir, f.name), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// CheckCSV refuses, before anything is written, a table directory that is
// not a directory of its own (a device node, a file, a symbolic link),
// or one another user could change (device.CheckDir), and a table that
// would replace a file ptsrun did not write: one whose
// header does not begin as this table's does, with a ratio column, unless
// force (device.CheckOutput). The error wraps device.ErrUnsafe.
func (c *Comparison) CheckCSV(dir string, force bool) error {
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return device.CheckDir(dir)
	case err != nil:
		return fmt.Errorf("comparison tables %s: %w", dir, err)
	case !st.IsDir():
		return fmt.Errorf("%w: refusing to write the comparison tables into %s: it is not a directory (%v); name a directory", device.ErrUnsafe, dir, st.Mode().Type())
	}
	if err := device.CheckDir(dir); err != nil {
		return err
	}
	for _, f := range c.csvFiles() {
		if err := device.CheckOutput(filepath.Join(dir, f.name), force, f.ours); err != nil {
			return err
		}
	}
	return nil
}

// ours reports whether data is this table as a comparison writes it.
func (f csvFile) ours(data []byte) bool {
	head, err := csv.NewReader(bytes.NewReader(data)).Read()
	if err != nil || len(head) <= f.fixed || !slices.Equal(head[:f.fixed], f.head[:f.fixed]) {
		return false
	}
	return slices.ContainsFunc(head[f.fixed:], func(h string) bool { return strings.Contains(h, " / ") })
}

// csvFiles are the comparison's CSVs, in the order CSVFiles names them.
func (c *Comparison) csvFiles() []csvFile {
	var out []csvFile
	write := func(name string, head []string, rows [][]string, fixed int) {
		out = append(out, csvFile{name: name, head: head, rows: rows, fixed: fixed})
	}
	var names []string
	for _, r := range c.Runs {
		names = append(names, r.Name)
	}
	for _, t := range c.Tables {
		head := []string{t.RowHead, "column"}
		head = append(head, names...)
		for _, n := range names[1:] {
			head = append(head, n+" / "+names[0])
		}
		var rows [][]string
		for ri, rl := range t.Rows {
			for ci, cl := range t.Cols {
				row := []string{rl, cl}
				for i := range c.Runs {
					row = append(row, matrix.FormatValue(t.Values[i][ri][ci]))
				}
				for i := 1; i < len(c.Runs); i++ {
					row = append(row, matrix.FormatValue(t.Values[i][ri][ci]/t.Values[0][ri][ci]))
				}
				rows = append(rows, row)
			}
		}
		write(compareCSV(t.Name), head, rows, 2)
	}
	if hm := c.HeatMap; hm != nil {
		head := []string{"workload"}
		for _, n := range names[1:] {
			for _, m := range hm.Metrics {
				head = append(head, n+" / "+names[0]+" "+string(m))
			}
		}
		var rows [][]string
		for r, w := range hm.Workloads {
			row := []string{w}
			for i := range hm.Ratios {
				for _, v := range hm.Ratios[i][r] {
					row = append(row, matrix.FormatValue(v))
				}
			}
			rows = append(rows, row)
		}
		mean := []string{"geometric mean"}
		for i := range hm.Mean {
			for _, v := range hm.Mean[i] {
				mean = append(mean, matrix.FormatValue(v))
			}
		}
		write(compareCSV("heatmap"), head, append(rows, mean), 1)
	}
	head := append([]string{"headline"}, names...)
	for _, n := range names[1:] {
		head = append(head, n+" / "+names[0])
	}
	var rows [][]string
	for _, h := range c.Headlines {
		row := []string{h.Label}
		for _, v := range h.Values {
			row = append(row, matrix.FormatValue(v))
		}
		for _, v := range h.Values[1:] {
			row = append(row, matrix.FormatValue(v/h.Values[0]))
		}
		rows = append(rows, row)
	}
	write(compareCSV("headlines"), head, rows, 1)
	return out
}

func compareCSV(table string) string { return "compare_" + table + ".csv" }

// CSVFiles are the names of the files WriteCSV writes.
func (c *Comparison) CSVFiles() []string {
	var out []string
	for _, f := range c.csvFiles() {
		out = append(out, f.name)
	}
	return out
}

// ComparisonSummary is a comparison for scripts (compare --json): the runs,
// the reference first, and every headline cell with each run's value and
// ratio to the reference; null where a run has no value.
type ComparisonSummary struct {
	Runs      []ComparedRunSummary `json:"runs"`
	Headlines []HeadlineSummary    `json:"headlines"`
	HeatMap   *HeatMapSummary      `json:"heatmap,omitempty"`
}

// HeatMapSummary is the ratio heat-map of the runs' workloads outside the
// PTS: run ÷ reference per workload and metric, for each run after the
// reference; null where either has no value.
type HeatMapSummary struct {
	Workloads     []string       `json:"workloads"`
	Metrics       []pts.Metric   `json:"metrics"`
	Ratios        [][][]*float64 `json:"ratios"`         // [run after the reference][workload][metric]
	GeometricMean [][]*float64   `json:"geometric_mean"` // [run after the reference][metric]
}

// ComparedRunSummary is one run of a comparison.
type ComparedRunSummary struct {
	Name       string `json:"name"`
	Path       string `json:"path"`
	Profile    string `json:"profile"`
	Conforming bool   `json:"conforming"`
}

// HeadlineSummary is one headline cell across the runs.
type HeadlineSummary struct {
	Label         string     `json:"label"`
	Metric        pts.Metric `json:"metric"`
	Unit          string     `json:"unit"`
	LowerIsBetter bool       `json:"lower_is_better"`
	Values        []*float64 `json:"values"` // per run
	Ratios        []*float64 `json:"ratios"` // run ÷ reference, per run after the reference
}

// Summary is the comparison for scripts.
func (c *Comparison) Summary() ComparisonSummary {
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil // JSON has no NaN: absent
		}
		return &v
	}
	out := ComparisonSummary{Runs: []ComparedRunSummary{}, Headlines: []HeadlineSummary{}}
	for _, r := range c.Runs {
		out.Runs = append(out.Runs, ComparedRunSummary{Name: r.Name, Path: r.Path, Profile: r.Results.Profile, Conforming: r.Results.Conforming})
	}
	for _, h := range c.Headlines {
		hs := HeadlineSummary{Label: h.Label, Metric: h.Metric, Unit: h.Metric.Unit(), LowerIsBetter: h.Metric.LowerIsBetter(),
			Values: []*float64{}, Ratios: []*float64{}}
		for i, v := range h.Values {
			hs.Values = append(hs.Values, num(v))
			if i > 0 {
				hs.Ratios = append(hs.Ratios, num(v/h.Values[0]))
			}
		}
		out.Headlines = append(out.Headlines, hs)
	}
	if hm := c.HeatMap; hm != nil {
		h := &HeatMapSummary{Workloads: hm.Workloads, Metrics: hm.Metrics}
		nums := func(vs []float64) []*float64 {
			out := []*float64{}
			for _, v := range vs {
				out = append(out, num(v))
			}
			return out
		}
		for i := range hm.Ratios {
			var rows [][]*float64
			for _, r := range hm.Ratios[i] {
				rows = append(rows, nums(r))
			}
			h.Ratios = append(h.Ratios, rows)
			h.GeometricMean = append(h.GeometricMean, nums(hm.Mean[i]))
		}
		out.HeatMap = h
	}
	return out
}

// PDF is the comparison for pdfreport.
func (c *Comparison) PDF(paper string) pdfreport.Comparison {
	out := pdfreport.Comparison{Paper: paper, Tables: c.Tables, Headlines: c.Headlines, HeatMap: c.HeatMap}
	for _, r := range c.Runs {
		out.Runs = append(out.Runs, pdfreport.ComparedRun{Name: r.Name, Info: r.Info, Results: r.Results})
	}
	return out
}

// PrintSummary writes the headline cells of every run, with ratios.
func (c *Comparison) PrintSummary(w io.Writer) {
	width := 28
	for _, h := range c.Headlines {
		width = max(width, len([]rune(h.Label)))
	}
	fmt.Fprintf(w, "%-*s", width, "headline")
	for i, r := range c.Runs {
		fmt.Fprintf(w, " %16s", clip(fmt.Sprintf("%c %s", 'A'+i, r.Name), 16))
	}
	for i := 1; i < len(c.Runs); i++ {
		fmt.Fprintf(w, " %8s", fmt.Sprintf("%c/A", 'A'+i))
	}
	fmt.Fprintln(w)
	for _, h := range c.Headlines {
		fmt.Fprintf(w, "%-*s", width, h.Label)
		for _, v := range h.Values {
			fmt.Fprintf(w, " %16s", FormatValue(h.Metric, v))
		}
		for _, v := range h.Values[1:] {
			r := v / h.Values[0]
			s := "–"
			if !math.IsNaN(r) && !math.IsInf(r, 0) {
				s = fmt.Sprintf("%.3f", r)
			}
			fmt.Fprintf(w, " %8s", s)
		}
		fmt.Fprintln(w)
	}
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
