package golden

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/engine/fio"
	"github.com/ptsrun/ptsrun/pts"
)

// FioOptions shape an import of fio output.
type FioOptions struct {
	Profile string // enterprise (default) or client: the profile the cells are filed under
	Name    string // the device's name in reports; the fio filename when empty
	Version string // ptsrun's version, for run.json
}

// FioWorkload is the workload a fio job ran, read from its options.
type FioWorkload struct {
	Workload engine.Workload
	// Custom is why the job is not a PTS cell, or "" when it is one.
	Custom string
	Label  string // what it ran, in fio's words, for custom workloads
}

// same says two jobs ran the same workload.
func (a FioWorkload) same(b FioWorkload) bool {
	x, y := a.Workload, b.Workload
	return a.Custom == b.Custom && a.Label == b.Label && x.Access == y.Access && x.ReadPct == y.ReadPct &&
		x.BlockSize == y.BlockSize && x.TC == y.TC && x.QD == y.QD
}

// fioJobWorkload reads rw, rwmixread/rwmixwrite, bs, numjobs and iodepth;
// job options override the global ones.
func fioJobWorkload(job fio.Job, global map[string]string) (FioWorkload, error) {
	opt := func(names ...string) string {
		for _, n := range names {
			if v, ok := job.Options[n]; ok {
				return v
			}
		}
		for _, n := range names {
			if v, ok := global[n]; ok {
				return v
			}
		}
		return ""
	}
	var fw FioWorkload
	w := engine.Workload{TC: 1, QD: 1, ActiveRange: 100}
	rw, _, _ := strings.Cut(strings.ToLower(opt("rw", "readwrite")), ":")
	if rw == "" {
		rw = "read" // fio's default
	}
	switch rw {
	case "read":
		w.Access, w.ReadPct = engine.Sequential, 100
	case "write":
		w.Access, w.ReadPct = engine.Sequential, 0
	case "randread":
		w.Access, w.ReadPct = engine.Random, 100
	case "randwrite":
		w.Access, w.ReadPct = engine.Random, 0
	case "rw", "readwrite", "randrw":
		w.Access = engine.Sequential
		if rw == "randrw" {
			w.Access = engine.Random
		}
		w.ReadPct = 50
		if s := opt("rwmixread"); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 || v > 100 {
				return fw, fmt.Errorf("job %s: rwmixread=%q is not a percentage", job.Name, s)
			}
			w.ReadPct = v
		} else if s := opt("rwmixwrite"); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 || v > 100 {
				return fw, fmt.Errorf("job %s: rwmixwrite=%q is not a percentage", job.Name, s)
			}
			w.ReadPct = 100 - v
		}
	default:
		fw.Custom = "rw=" + rw + " is not a read/write workload of the PTS"
	}
	bs := opt("bs", "blocksize")
	if bs == "" {
		bs = "4k" // fio's default
	}
	sizes := strings.Split(bs, ",")
	if len(sizes) > 1 && strings.TrimSpace(sizes[1]) != "" && strings.TrimSpace(sizes[1]) != strings.TrimSpace(sizes[0]) {
		fw.Custom = "different read and write block sizes (bs=" + bs + ")"
	}
	b, err := engine.ParseSize(sizes[0])
	if err != nil {
		return fw, fmt.Errorf("job %s: bs=%q: %w", job.Name, bs, err)
	}
	w.BlockSize = b
	if split := opt("bssplit"); split != "" {
		fw.Custom = "a block-size split (bssplit=" + split + ")"
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"numjobs", &w.TC}, {"iodepth", &w.QD}} {
		if s := opt(p.name); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 1 {
				return fw, fmt.Errorf("job %s: %s=%q is not a positive number", job.Name, p.name, s)
			}
			*p.dst = v
		}
	}
	fw.Workload = w
	acc := "RND"
	if w.Access == engine.Sequential {
		acc = "SEQ"
	}
	fw.Label = fmt.Sprintf("%s %s %d/%d TC%d/QD%d", acc, engine.FormatSize(b), w.ReadPct, 100-w.ReadPct, w.TC, w.QD)
	if fw.Custom != "" {
		fw.Label = fmt.Sprintf("rw=%s bs=%s numjobs=%d iodepth=%d", rw, bs, w.TC, w.QD)
		if split := opt("bssplit"); split != "" {
			fw.Label += " bssplit=" + split
		}
		if rw == "randrw" || rw == "rw" || rw == "readwrite" {
			fw.Label += fmt.Sprintf(" rwmixread=%d", w.ReadPct)
		}
	}
	return fw, nil
}

// FioJobWorkload is the workload of a fio job with options (its own and
// the global ones it inherits), read as ImportFio reads fio's output:
// rw, rwmixread/rwmixwrite, bs, numjobs, iodepth. label says what it ran in
// fio's words, custom why it is no PTS cell ("" when it is one).
func FioJobWorkload(name string, options map[string]string) (w engine.Workload, label, custom string, err error) {
	fw, err := fioJobWorkload(fio.Job{Name: name, Options: options}, nil)
	return fw.Workload, fw.Label, fw.Custom, err
}

// classify files a workload under a PTS test cell: the latency test's
// TC1/QD1 cells, the IOPS matrix, the throughput test's sequential 128 KiB
// and 1024 KiB cells; anything else is a custom workload.
func classify(fw FioWorkload) (test pts.TestID, stageID string) {
	w := fw.Workload
	if fw.Custom != "" {
		return pts.Custom, "custom"
	}
	if w.Access == engine.Random {
		if w.TC == 1 && w.QD == 1 && slices.Contains(pts.LATBlockSizes, w.BlockSize) && slices.Contains(pts.LATMixes, w.ReadPct) {
			return pts.LAT, "lat"
		}
		if slices.Contains(pts.IOPSBlockSizes, w.BlockSize) && slices.Contains(pts.IOPSMixes, w.ReadPct) {
			return pts.IOPS, "iops"
		}
		return pts.Custom, "custom"
	}
	if (w.ReadPct == 100 || w.ReadPct == 0) && (w.BlockSize == 1024*pts.KiB || w.BlockSize == 128*pts.KiB) {
		return pts.TP, "tp-" + engine.SizeKey(w.BlockSize)
	}
	return pts.Custom, "custom"
}

// fioResult is one cell's result in one fio output.
type fioResult struct {
	file    string
	order   int // the file's position on the command line
	time    time.Time
	fw      FioWorkload
	m       engine.Measurement
	targets []string // the fio filename options of its jobs
}

// ReadFio reads fio outputs (json or json+, local or client/server, fio
// 2.x and 3.x) into one result per workload per file. Jobs of the same
// workload in a file (numjobs without group_reporting, or the hosts of a
// client/server run) are added up into one cell.
func ReadFio(files []string) ([]fioResult, error) {
	var out []fioResult
	for order, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("fio output %s: %w", f, err)
		}
		o, err := fio.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("fio output %s: %w", f, err)
		}
		if len(o.Jobs) == 0 {
			return nil, fmt.Errorf("fio output %s: no jobs in it", f)
		}
		var here []fioResult
		for _, j := range o.Jobs {
			if j.Error != 0 {
				return nil, fmt.Errorf("fio output %s: job %s%s ended with error %d (%s): its numbers are not a result",
					f, j.Name, onHost(j), j.Error, syscall.Errno(j.Error).Error())
			}
			fw, err := fioJobWorkload(j, o.Global)
			if err != nil {
				return nil, fmt.Errorf("fio output %s: %w", f, err)
			}
			if j.Read.IOs+j.Write.IOs == 0 {
				return nil, fmt.Errorf("fio output %s: job %s%s did no I/O", f, j.Name, onHost(j))
			}
			r, w := j.Read.Stats(), j.Write.Stats()
			target := j.Options["filename"]
			if target == "" {
				target = o.Global["filename"]
			}
			k := -1
			for i := range here {
				if here[i].fw.same(fw) {
					k = i
				}
			}
			if k < 0 {
				here = append(here, fioResult{file: f, order: order, time: o.Time, fw: fw,
					m: engine.Measurement{Engine: "fio " + o.Version.String()}})
				k = len(here) - 1
			}
			if target != "" && !slices.Contains(here[k].targets, target) {
				here[k].targets = append(here[k].targets, target)
			}
			m := &here[k].m
			m.Read.Merge(r)
			m.Write.Merge(w)
			m.Elapsed = max(m.Elapsed, j.Elapsed())
			if o.ClientServer {
				m.Targets = append(m.Targets, engine.TargetStats{Target: target, Host: fmt.Sprintf("%s:%d", j.Host, j.Port), Read: r, Write: w})
			}
		}
		out = append(out, here...)
	}
	// Rounds follow the time fio wrote each output; files without a time
	// keep their command-line order.
	sort.SliceStable(out, func(a, b int) bool {
		ta, tb := out[a].time, out[b].time
		if !ta.IsZero() && !tb.IsZero() && !ta.Equal(tb) {
			return ta.Before(tb)
		}
		return out[a].order < out[b].order
	})
	return out, nil
}

func onHost(j fio.Job) string {
	if j.Host == "" {
		return ""
	}
	return fmt.Sprintf(" on %s:%d", j.Host, j.Port)
}

// ImportFio files fio results under PTS cells: the n-th result of a cell is
// its round n. It returns the run.json and the rounds WriteImported
// journals, and warnings for results left out.
func ImportFio(files []string, opt FioOptions) (pts.RunInfo, map[string][][]pts.ImportedCell, []string, error) {
	results, err := ReadFio(files)
	if err != nil {
		return pts.RunInfo{}, nil, nil, err
	}
	cfg := pts.DefaultConfig()
	cfg.Engine = "fio"
	if opt.Profile != "" {
		cfg.Profile = opt.Profile
	}
	// A cell time from what fio ran (the longest), for the header.
	var longest time.Duration
	var tests []pts.TestID
	targets := map[string]bool{}
	var targetList []string
	for _, r := range results {
		longest = max(longest, r.m.Elapsed)
		t, _ := classify(r.fw)
		if t != "custom" && !slices.Contains(tests, t) {
			tests = append(tests, t)
		}
		for _, t := range r.targets {
			if !targets[t] {
				targets[t] = true
				targetList = append(targetList, t)
			}
		}
	}
	var ordered []pts.TestID
	for _, t := range pts.Tests {
		if slices.Contains(tests, t.ID) {
			ordered = append(ordered, t.ID)
		}
	}
	cfg.Tests = ordered
	if len(cfg.Tests) == 0 {
		cfg.Tests = []pts.TestID{pts.IOPS} // validated below; only custom workloads remain
	}
	if longest > 0 {
		cfg.CellTime = pts.Duration(longest.Round(time.Second))
	}
	cfg.Targets = targetList
	if len(cfg.Targets) == 0 {
		cfg.Targets = []string{"unknown"}
	}
	prof, err := cfg.Resolve()
	if err != nil {
		return pts.RunInfo{}, nil, nil, err
	}
	if len(ordered) == 0 {
		cfg.Tests = nil
	}

	var stages []pts.Stage
	rounds := map[string][][]pts.ImportedCell{}
	var warnings []string
	// occurrences[stage][cell key] are a cell's results in time order.
	occ := map[string]map[pts.CellKey][]fioResult{}
	for _, r := range results {
		_, sid := classify(r.fw)
		key := pts.KeyOf(r.fw.Workload)
		if sid == "custom" {
			key = pts.Named(r.fw.Label)
		}
		if occ[sid] == nil {
			occ[sid] = map[pts.CellKey][]fioResult{}
		}
		occ[sid][key] = append(occ[sid][key], r)
	}
	for _, def := range cfg.Stages(prof) {
		got := occ[def.ID]
		if len(got) == 0 {
			continue
		}
		s := def
		s.Purge, s.Precondition, s.Cells, s.Tracking = false, nil, nil, nil
		remap := map[int]int{}
		for _, c := range def.Cells {
			rs := got[c.Key]
			if len(rs) == 0 {
				continue
			}
			remap[c.Index] = len(s.Cells)
			c.Index = len(s.Cells)
			c.Workload = rs[0].fw.Workload
			c.Workload.Duration = rs[0].m.Elapsed
			s.Cells = append(s.Cells, c)
		}
		for _, t := range def.Tracking {
			if i, ok := remap[t.Cell]; ok {
				t.Cell = i
				s.Tracking = append(s.Tracking, t)
			} else {
				warnings = append(warnings, fmt.Sprintf("%s: tracking variable %s is not among the imported cells: steady state cannot be judged",
					s.Title, t.Name))
			}
		}
		stages = append(stages, s)
		rounds[s.ID] = roundsOf(s, got, &warnings)
	}
	if cust := occ["custom"]; len(cust) > 0 {
		s := pts.Stage{ID: "custom", Test: "custom", Title: "Custom workloads", MaxRounds: cfg.MaxRounds}
		var keys []pts.CellKey
		for k := range cust {
			keys = append(keys, k)
		}
		// In the order they were first run.
		sort.SliceStable(keys, func(a, b int) bool {
			return firstIndex(results, cust[keys[a]][0]) < firstIndex(results, cust[keys[b]][0])
		})
		for _, k := range keys {
			rs := cust[k]
			w := rs[0].fw.Workload
			w.Duration = rs[0].m.Elapsed
			s.Cells = append(s.Cells, pts.Cell{Index: len(s.Cells), Key: k, Workload: w})
			warnings = append(warnings, fmt.Sprintf("%s: not a PTS cell (%s): filed as a custom workload", k, customWhy(rs[0].fw)))
		}
		stages = append(stages, s)
		rounds[s.ID] = roundsOf(s, cust, &warnings)
	}
	if len(stages) == 0 {
		return pts.RunInfo{}, nil, nil, fmt.Errorf("fio outputs %s: no results to import", strings.Join(files, ", "))
	}
	name := opt.Name
	if name == "" {
		name = strings.Join(targetList, ", ")
	}
	var ids []device.Identity
	for _, t := range targetList {
		ids = append(ids, device.Identity{Spec: t, Kind: "imported", Path: t, Model: name})
	}
	if len(ids) == 0 {
		ids = []device.Identity{{Spec: "imported", Kind: "imported", Model: name}}
	}
	created := time.Now().UTC()
	for _, r := range results {
		if !r.time.IsZero() {
			created = r.time
			break
		}
	}
	version := ""
	if len(results) > 0 {
		version = results[0].m.Engine
	}
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: opt.Version, Spec: "PTS " + pts.SpecRevision,
		Created: created, Config: cfg, Profile: prof, Stages: stages, Targets: ids, Imported: true,
		Engine: version + " (imported)", Source: fmt.Sprintf("fio output: %d file(s): %s", len(files), shortList(files)),
		Host: device.Host{Fio: strings.TrimPrefix(version, "fio ")}}
	return ri, rounds, warnings, nil
}

func customWhy(fw FioWorkload) string {
	if fw.Custom != "" {
		return fw.Custom
	}
	return "block size, mix or queue depth outside the PTS matrices"
}

func firstIndex(all []fioResult, r fioResult) int {
	for i := range all {
		if all[i].file == r.file && all[i].fw.same(r.fw) {
			return i
		}
	}
	return len(all)
}

// roundsOf makes a stage's rounds: round n holds every cell's n-th result.
// A cell with more results than another adds no round; that is warned.
func roundsOf(s pts.Stage, got map[pts.CellKey][]fioResult, warnings *[]string) [][]pts.ImportedCell {
	n := -1
	for _, c := range s.Cells {
		if k := len(got[c.Key]); n < 0 || k < n {
			n = k
		}
	}
	for _, c := range s.Cells {
		if k := len(got[c.Key]); k > n {
			*warnings = append(*warnings, fmt.Sprintf("%s %s: %d results, but other cells of the stage have %d: only the first %d form rounds",
				s.Title, c.Key, k, n, n))
		}
	}
	out := make([][]pts.ImportedCell, n)
	for r := range out {
		for _, c := range s.Cells {
			res := got[c.Key][r]
			out[r] = append(out[r], pts.ImportedCell{Workload: res.fw.Workload, Measurement: res.m, Time: res.time})
		}
		for i := range out[r] {
			out[r][i].Workload.Duration = out[r][i].Measurement.Elapsed
		}
	}
	return out
}

func shortList(files []string) string {
	if len(files) <= 3 {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s, %s … %s", files[0], files[1], files[len(files)-1])
}
