package golden

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

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
					row = append(row, matrix.FormatValue(t.Ratio(i, ri, ci)))
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
		for i := 1; i < len(h.Values); i++ {
			row = append(row, matrix.FormatValue(h.Ratio(i)))
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
