package importer

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/fio"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/units"
)

// FioOptions shape an import of fio output.
type FioOptions struct {
	Profile string // enterprise (default) or client: the profile the cells are filed under
	Name    string // the device's name in reports; the fio filename when empty
	Version string // ptsrun's version, for run.json
}

// fioWorkload is the workload a fio job ran, read from its options.
type fioWorkload struct {
	Workload engine.Workload
	// Custom is why the job is not a PTS cell, or "" when it is one.
	Custom string
	Label  string // what it ran, in fio's words, for custom workloads
}

// same says two jobs ran the same workload.
func (a fioWorkload) same(b fioWorkload) bool {
	x, y := a.Workload, b.Workload
	return a.Custom == b.Custom && a.Label == b.Label && x.Access == y.Access && x.ReadPct == y.ReadPct &&
		x.BlockSize == y.BlockSize && x.TC == y.TC && x.QD == y.QD
}

// fioJobWorkload reads rw, rwmixread/rwmixwrite, bs, numjobs and iodepth;
// job options override the global ones.
func fioJobWorkload(job fio.Job, global map[string]string) (fioWorkload, error) {
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
	var fw fioWorkload
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
	b, err := units.ParseSize(sizes[0])
	if err != nil {
		return fw, fmt.Errorf("job %s: bs=%q: %w", job.Name, bs, err)
	}
	w.BlockSize = b
	if split := opt("bssplit"); split != "" {
		fw.Custom = "a block-size split (bssplit=" + split + ")"
	}
	// The PTS's random access is uniform over the active range.
	if d := opt("random_distribution"); w.Access == engine.Random && d != "" && d != "random" {
		fw.Custom = "random_distribution=" + d + " is not uniform random access"
	}
	if p := opt("percentage_random"); p != "" && p != "100" && p != "100,100" {
		fw.Custom = "percentage_random=" + p + " mixes random and sequential access"
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
	fw.Label = fmt.Sprintf("%s %s %d/%d TC%d/QD%d", acc, units.FormatSize(b), w.ReadPct, 100-w.ReadPct, w.TC, w.QD)
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
func classify(fw fioWorkload) (test pts.TestID, stageID string) {
	w := fw.Workload
	if fw.Custom != "" {
		return pts.Custom, pts.CustomStage
	}
	if w.Access == engine.Random {
		if w.TC == 1 && w.QD == 1 && slices.Contains(pts.LATBlockSizes, w.BlockSize) && slices.Contains(pts.LATMixes, w.ReadPct) {
			return pts.LAT, "lat"
		}
		if slices.Contains(pts.IOPSBlockSizes, w.BlockSize) && slices.Contains(pts.IOPSMixes, w.ReadPct) {
			return pts.IOPS, "iops"
		}
		return pts.Custom, pts.CustomStage
	}
	if (w.ReadPct == 100 || w.ReadPct == 0) && (w.BlockSize == 1024*pts.KiB || w.BlockSize == 128*pts.KiB) {
		return pts.TP, "tp-" + units.SizeKey(w.BlockSize)
	}
	return pts.Custom, pts.CustomStage
}

// fioResult is one cell's result in one fio output: a reporting group's
// jobs of one workload, on every host and target.
type fioResult struct {
	file    string
	order   int // the file's position on the command line
	time    time.Time
	fw      fioWorkload
	m       engine.Measurement
	targets []string // the fio filename options of its jobs
	ar      float64  // its active range in %, 0 when not known
	arWhy   string   // why not
	pattern string   // the data it wrote, in fio's words
	seeded  bool     // its jobs set randseed
}

// readFio reads fio outputs (json or json+, local or client/server, fio
// 2.x and 3.x) into one result per reporting group per file, each at the
// load its entries show (fioResults); left says which entries were left
// out, and why.
func readFio(files []string) (results []fioResult, left []string, err error) {
	for order, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("fio output %s: %w", f, err)
		}
		o, err := fio.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, nil, fmt.Errorf("fio output %s: %w", f, err)
		}
		if len(o.Jobs) == 0 {
			return nil, nil, fmt.Errorf("fio output %s: no jobs in it", f)
		}
		loads, out, err := fioResults(f, o)
		if err != nil {
			return nil, nil, err
		}
		left = append(left, out...)
		for _, l := range loads {
			r := fioResult{file: f, order: order, time: o.Time, fw: l.fw, ar: l.ar, arWhy: l.arWhy,
				m: engine.Measurement{Engine: "fio " + o.Version.String()}}
			for _, e := range l.entries {
				if e.target != "" && !slices.Contains(r.targets, e.target) {
					r.targets = append(r.targets, e.target)
				}
				rd, wr := e.job.Read.Stats(), e.job.Write.Stats()
				r.m.Read.Merge(rd)
				r.m.Write.Merge(wr)
				r.m.Elapsed = max(r.m.Elapsed, e.job.Elapsed())
				if o.ClientServer {
					r.m.Targets = append(r.m.Targets, engine.TargetStats{Target: e.target, Host: e.host, Read: rd, Write: wr})
				}
				if p := dataPattern(e.job, o.Global); r.pattern == "" || r.pattern == p {
					r.pattern = p
				} else {
					r.pattern = "different in its jobs"
				}
				_, seeded := option(e.job, o.Global, "randseed")
				r.seeded = seeded
			}
			results = append(results, r)
		}
	}
	// Rounds follow the time fio wrote each output; files without a time
	// keep their command-line order.
	sort.SliceStable(results, func(a, b int) bool {
		ta, tb := results[a].time, results[b].time
		if !ta.IsZero() && !tb.IsZero() && !ta.Equal(tb) {
			return ta.Before(tb)
		}
		return results[a].order < results[b].order
	})
	return results, left, nil
}

func errnoText(e int) string { return syscall.Errno(e).Error() }

func onHost(j fio.Job) string {
	if j.Host == "" {
		return ""
	}
	return fmt.Sprintf(" on %s:%d", j.Host, j.Port)
}

// ImportFio files fio results under PTS cells: the n-th result of a cell is
// its round n. It returns the run.json and the rounds WriteImported
// journals, and warnings for results left out. run.json records only what
// fio's output says: each cell's load (stageLoads), the active range and
// data pattern where fio's options give them; purge and preconditioning
// are never in it (pts.ImportRecord).
func ImportFio(files []string, opt FioOptions) (pts.RunInfo, map[string][][]pts.ImportedCell, []string, error) {
	results, warnings, err := readFio(files)
	if err != nil {
		return pts.RunInfo{}, nil, nil, err
	}
	cfg := pts.DefaultConfig()
	cfg.Engine = engine.Fio
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
		if t != pts.Custom && !slices.Contains(tests, t) {
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
	planned := cfg.Stages(prof) // at the profile's loads
	loads := stageLoads(planned, results)
	if l, ok := loads[string(pts.IOPS)]; ok {
		cfg.TC, cfg.QD = l.TC, l.QD // the IOPS test's load, as the header prints it
	}

	rec := &pts.ImportRecord{NotRecorded: []string{pts.UnrecordedPurge, pts.UnrecordedPrecondition}}
	var stages []pts.Stage
	rounds := map[string][][]pts.ImportedCell{}
	// occurrences[stage][cell key] are a cell's results in time order; a
	// result at another load than its stage's is a custom workload.
	occ := map[string]map[pts.CellKey][]fioResult{}
	why := map[pts.CellKey]string{}
	for _, r := range results {
		_, sid := classify(r.fw)
		key := pts.KeyOf(r.fw.Workload)
		if l, ok := loads[sid]; ok && loadLabel(l) != loadLabel(r.fw.Workload) {
			key = pts.Named(r.fw.Label)
			why[key] = fmt.Sprintf("its stage (%s) runs every cell at one load, %s here, the load most of its results ran at", sid, loadLabel(l))
			sid = pts.CustomStage
		}
		if sid == pts.CustomStage {
			key = pts.Named(r.fw.Label)
		}
		if occ[sid] == nil {
			occ[sid] = map[pts.CellKey][]fioResult{}
		}
		occ[sid][key] = append(occ[sid][key], r)
	}
	for _, def := range planned {
		got := occ[def.ID]
		if len(got) == 0 {
			continue
		}
		s := def
		s.Purge, s.Precondition, s.Cells, s.Tracking = false, nil, nil, nil
		remap := map[int]int{}
		var arWhy []string
		for _, c := range def.Cells {
			rs := got[c.Key]
			if len(rs) == 0 {
				continue
			}
			remap[c.Index] = len(s.Cells)
			c.Index = len(s.Cells)
			c.Workload = rs[0].fw.Workload // its active range a placeholder of 100 % unless fio's options give it
			c.Workload.Duration = rs[0].m.Elapsed
			if known, w := recordedRange(rs); w != "" {
				if !slices.Contains(arWhy, w) {
					arWhy = append(arWhy, w)
				}
			} else {
				c.Workload.ActiveRange = known
			}
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
		if len(arWhy) > 0 {
			rec.NoActiveRange = append(rec.NoActiveRange, s.ID)
			rec.Departures = append(rec.Departures, fmt.Sprintf("%s: the active range is not recorded (%s).", s.Title, strings.Join(arWhy, "; ")))
		}
		if l, ok := loads[s.ID]; ok && len(def.Cells) > 0 {
			if want := def.Cells[0].Workload; loadLabel(want) != loadLabel(l) {
				rec.Departures = append(rec.Departures, fmt.Sprintf("%s: the imported cells ran at %s (TOIO %d); the %s profile's load is %s (TOIO %d).",
					s.Title, loadLabel(l), l.TC*l.QD, prof.Short, loadLabel(want), want.TC*want.QD))
			}
		}
		stages = append(stages, s)
		rounds[s.ID] = roundsOf(s, got, &warnings)
	}
	if cust := occ[pts.CustomStage]; len(cust) > 0 {
		s := pts.Stage{ID: pts.CustomStage, Test: pts.Custom, Title: "Custom workloads", MaxRounds: cfg.MaxRounds}
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
			if ar, unknown := recordedRange(rs); unknown == "" {
				w.ActiveRange = ar
			} else if !slices.Contains(rec.NoActiveRange, s.ID) {
				rec.NoActiveRange = append(rec.NoActiveRange, s.ID)
			}
			s.Cells = append(s.Cells, pts.Cell{Index: len(s.Cells), Key: k, Workload: w})
			reason := why[k]
			if reason == "" {
				reason = customWhy(rs[0].fw)
			}
			warnings = append(warnings, fmt.Sprintf("%s: not a PTS cell (%s): filed as a custom workload", k, reason))
		}
		stages = append(stages, s)
		rounds[s.ID] = roundsOf(s, cust, &warnings)
	}
	if len(stages) == 0 {
		msg := fmt.Sprintf("fio outputs %s: no results to import", strings.Join(files, ", "))
		if len(warnings) > 0 {
			msg += ": " + strings.Join(warnings, "; ")
		}
		return pts.RunInfo{}, nil, nil, errors.New(msg)
	}
	recordData(rec, results)
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
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: opt.Version, Build: pts.ThisBuild(opt.Version), Spec: "PTS " + pts.SpecRevision,
		Created: created, Config: cfg, Profile: prof, Stages: stages, Targets: ids, Imported: true, Import: rec,
		Engine: version + " (imported)", Source: fmt.Sprintf("fio output: %d file(s): %s", len(files), shortList(files)),
		Host: device.Host{Fio: strings.TrimPrefix(version, "fio ")}}
	return ri, rounds, warnings, nil
}

// stageLoads is the load of each planned stage's imported results: a
// stage runs every cell at one TC/QD, the one most of its results ran at;
// on a tie the profile's, else the first run.
func stageLoads(planned []pts.Stage, results []fioResult) map[string]engine.Workload {
	out := map[string]engine.Workload{}
	for _, def := range planned {
		var order []engine.Workload
		count := map[string]int{}
		for _, r := range results {
			if _, sid := classify(r.fw); sid != def.ID {
				continue
			}
			l := r.fw.Workload
			if count[loadLabel(l)] == 0 {
				order = append(order, engine.Workload{TC: l.TC, QD: l.QD})
			}
			count[loadLabel(l)]++
		}
		if len(order) == 0 {
			continue
		}
		best := order[0]
		for _, l := range order[1:] {
			n, b := count[loadLabel(l)], count[loadLabel(best)]
			if n > b || n == b && len(def.Cells) > 0 && loadLabel(l) == loadLabel(def.Cells[0].Workload) {
				best = l
			}
		}
		out[def.ID] = best
	}
	return out
}

// recordedRange is the active range a cell's results record, or why it
// is not known: one of them does not say, or they differ.
func recordedRange(rs []fioResult) (float64, string) {
	ar := rs[0].ar
	for _, r := range rs {
		if r.arWhy != "" {
			return 0, r.arWhy
		}
		if r.ar != ar {
			return 0, fmt.Sprintf("its rounds ran %g %% and %g %%", ar, r.ar)
		}
	}
	return ar, ""
}

// recordData records the data pattern fio's options set and whether they
// set a seed.
func recordData(rec *pts.ImportRecord, results []fioResult) {
	seeded := len(results) > 0
	var patterns []string
	for _, r := range results {
		seeded = seeded && r.seeded
		if !slices.Contains(patterns, r.pattern) {
			patterns = append(patterns, r.pattern)
		}
	}
	if !seeded {
		rec.NotRecorded = append(rec.NotRecorded, pts.UnrecordedSeed)
	}
	rec.DataPattern = strings.Join(patterns, "; ")
	if len(patterns) != 1 || patterns[0] != dataPattern(fio.Job{}, nil) {
		rec.Departures = append(rec.Departures, "The data written was not only fio's default random buffers: "+rec.DataPattern+".")
	}
}

func customWhy(fw fioWorkload) string {
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
			out[r][i].Workload.ActiveRange = s.Cells[i].Workload.ActiveRange // as the stage records it
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
