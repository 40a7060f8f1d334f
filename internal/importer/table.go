package importer

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/units"
)

// Table metrics `ptsrun import table` accepts.
const (
	TableIOPS  = "iops"
	TableMBps  = "mbps"
	TableLatMs = "lat_ms"
)

// PublishedTable is a block size × R/W mix matrix as published: one value
// per cell, NaN where the table has none.
type PublishedTable struct {
	Metric string
	Sizes  []int64 // rows, as in the file
	Mixes  []int   // columns: read percentages, as in the file
	Values [][]float64
}

// absentCell is how published tables mark a missing value.
func absentCell(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "-", "–", "—", "n/a", "na", "nan", "none", "absent":
		return true
	}
	return false
}

// ParseTable reads a published table: a header `bs` then one column per
// mix, a row per block size. name is for error messages.
func ParseTable(r io.Reader, name, metric string) (*PublishedTable, error) {
	switch metric {
	case TableIOPS, TableMBps, TableLatMs:
	default:
		return nil, fmt.Errorf("metric %q: want iops, mbps or lat_ms", metric)
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	t := &PublishedTable{Metric: metric}
	seenMix, seenSize := map[int]int{}, map[int64]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s: line %d: %v", name, pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if t.Mixes == nil {
			head := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(rec[0], "\ufeff")))
			if head != "bs" && head != "block size" && head != "blocksize" {
				return nil, fmt.Errorf("%s: line %d: the first column must be headed bs, not %q", name, line, rec[0])
			}
			if len(rec) < 2 {
				return nil, fmt.Errorf("%s: line %d: no mix columns after bs", name, line)
			}
			for i, h := range rec[1:] {
				m, err := pts.ParseMix(h)
				if err != nil {
					return nil, fmt.Errorf("%s: line %d, column %d: %w", name, line, i+2, err)
				}
				if j, dup := seenMix[m]; dup {
					return nil, fmt.Errorf("%s: line %d: mix %s appears in columns %d and %d", name, line, matrix.MixLabel(m), j, i+2)
				}
				seenMix[m] = i + 2
				t.Mixes = append(t.Mixes, m)
			}
			continue
		}
		if len(rec) > len(t.Mixes)+1 {
			return nil, fmt.Errorf("%s: line %d: %d values for %d mix columns", name, line, len(rec)-1, len(t.Mixes))
		}
		bs, err := units.ParseSize(rec[0])
		if err != nil {
			return nil, fmt.Errorf("%s: line %d, column 1: block %w", name, line, err)
		}
		if l, dup := seenSize[bs]; dup {
			return nil, fmt.Errorf("%s: line %d: block size %s is already on line %d", name, line, units.FormatSize(bs), l)
		}
		seenSize[bs] = line
		row := make([]float64, len(t.Mixes))
		for i := range row {
			row[i] = math.NaN()
			if i+1 >= len(rec) || absentCell(rec[i+1]) {
				continue
			}
			s := strings.NewReplacer(",", "", "_", "", " ", "").Replace(strings.TrimSpace(rec[i+1]))
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: line %d, column %d (%s, %s): %q is not a number", name, line, i+2,
					units.FormatSize(bs), matrix.MixLabel(t.Mixes[i]), rec[i+1])
			}
			if v < 0 {
				return nil, fmt.Errorf("%s: line %d, column %d: %v is negative", name, line, i+2, v)
			}
			row[i] = v
		}
		t.Sizes = append(t.Sizes, bs)
		t.Values = append(t.Values, row)
	}
	if t.Mixes == nil {
		return nil, fmt.Errorf("%s: empty: want a header bs,100/0,65/35,… and a row per block size", name)
	}
	if len(t.Sizes) == 0 {
		return nil, fmt.Errorf("%s: no block size rows under the header", name)
	}
	return t, nil
}

// Results turns a published table into results: IOPS and MB/s tables
// become the IOPS test (each derived from the other through the block size,
// which is exact), response times the latency test's average. Everything
// else is absent.
func (t *PublishedTable) Results(source, version string) *matrix.Results {
	td := pts.IOPSTest
	if t.Metric == TableLatMs {
		td = pts.LATTest
	}
	test, title, stageID := td.ID, td.Name, string(td.ID)
	st := matrix.StageResult{ID: stageID, Title: title, Complete: true, Tracking: []matrix.TrackingResult{}}
	idx := 0
	// Rows largest block first and columns most reads first, as the PTS
	// tables are.
	sizes := append([]int64(nil), t.Sizes...)
	sort.Slice(sizes, func(a, b int) bool { return sizes[a] > sizes[b] })
	mixes := append([]int(nil), t.Mixes...)
	sort.Sort(sort.Reverse(sort.IntSlice(mixes)))
	for _, m := range mixes {
		for _, bs := range sizes {
			v := t.value(bs, m)
			if math.IsNaN(v) {
				continue // absent, never zero
			}
			nan := math.NaN()
			c := matrix.CellResult{Index: idx, Key: pts.Key(engine.Random, bs, m),
				Access: engine.Random.String(), BlockSize: bs, ReadPct: m, Published: true,
				IOPS: nan, ReadIOPS: nan, WriteIOPS: nan, MBps: nan, ReadMBps: nan, WriteMBps: nan,
				LatMeanMs: nan, LatMaxMs: nan, LatMaxMeanMs: nan, LatP99Ms: nan, LatP9999Ms: nan, LatP99999Ms: nan,
				ReadLatMeanMs: nan, WriteLatMean: nan, PerRound: []matrix.RoundValue{}, AllRounds: []matrix.RoundValue{}}
			switch t.Metric {
			case TableIOPS:
				c.IOPS, c.MBps = v, v*float64(bs)/1e6
			case TableMBps:
				c.MBps, c.IOPS = v, v*1e6/float64(bs)
			case TableLatMs:
				c.LatMeanMs = v
				c.TC, c.QD = 1, 1
			}
			if t.Metric != TableLatMs {
				r := float64(m) / 100
				c.ReadIOPS, c.WriteIOPS = c.IOPS*r, c.IOPS*(1-r)
				c.ReadMBps, c.WriteMBps = c.MBps*r, c.MBps*(1-r)
			}
			st.Cells = append(st.Cells, c)
			idx++
		}
	}
	return &matrix.Results{Schema: matrix.Schema, Tool: "ptsrun", Version: version, Spec: "PTS " + pts.SpecRevision,
		Engine: "imported table", Complete: true, WriteCache: "unknown",
		Deviations: []matrix.Deviation{{Code: "imported", Text: "The results were imported (" + source + "): a published table, " +
			"one value per cell, without the rounds, steady-state check, purge and preconditioning the PTS requires."}},
		Tests: []matrix.TestResult{{Test: test, Name: title, Stages: []matrix.StageResult{st}}}}
}

func (t *PublishedTable) value(bs int64, mix int) float64 {
	for i, s := range t.Sizes {
		for j, m := range t.Mixes {
			if s == bs && m == mix {
				return t.Values[i][j]
			}
		}
	}
	return math.NaN()
}

// ImportTable reads the published table in file (ParseTable) of metric
// into the run.json and results of a run directory: name is the device's
// name in reports (the file's name when empty), version ptsrun's.
func ImportTable(file, metric, name, version string) (pts.RunInfo, *matrix.Results, error) {
	f, err := os.Open(file)
	if err != nil {
		return pts.RunInfo{}, nil, fmt.Errorf("table %s: %w", file, err)
	}
	defer f.Close()
	tb, err := ParseTable(f, file, metric)
	if err != nil {
		return pts.RunInfo{}, nil, err
	}
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	source := fmt.Sprintf("table %s, %s", file, tb.Metric)
	return tableRunInfo(name, source, version, time.Now().UTC()), tb.Results(source, version), nil
}

// tableRunInfo is the run.json of an imported table.
func tableRunInfo(name, source, version string, created time.Time) pts.RunInfo {
	return pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: version, Build: pts.ThisBuild(version), Spec: "PTS " + pts.SpecRevision,
		Created: created, Imported: true, Source: source, Engine: "imported table",
		Targets: []device.Identity{{Spec: "imported", Kind: "imported", Model: name}}}
}
