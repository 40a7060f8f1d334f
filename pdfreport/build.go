package pdfreport

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/engine"
	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/pts"
	"github.com/ptsrun/ptsrun/steadystate"
)

// Options choose the paper and where the run's files are (fio job files).
type Options struct {
	Paper string // A4 (default) or Letter
	Dir   string // the run directory, for the fio job files; optional
}

// Build describes the report of a run.
func Build(ri pts.RunInfo, res *matrix.Results, opt Options) *Doc {
	paper := "A4"
	if strings.EqualFold(opt.Paper, "letter") {
		paper = "Letter"
	}
	b := &builder{ri: ri, res: res, opt: opt, doc: &Doc{Paper: paper}}
	b.header()
	b.summary()
	// A stage without a value to report gets one page saying why.
	stages := func(test pts.TestID, title string) []matrix.StageResult {
		var with []matrix.StageResult
		if t := res.Find(test); t != nil {
			for _, s := range t.Stages {
				if empty(s) {
					b.noResults(title, s)
				} else {
					with = append(with, s)
				}
			}
		}
		return with
	}
	if s := stages(pts.IOPS, "IOPS"); len(s) > 0 {
		b.iops(s[0])
	}
	if s := stages(pts.TP, "Throughput"); len(s) > 0 {
		b.throughput(s)
	}
	if s := stages(pts.LAT, "Latency"); len(s) > 0 {
		b.latency(s[0])
	}
	if t := res.Find(pts.Custom); t != nil && len(t.Stages) > 0 {
		b.custom(t.Stages[0])
	}
	b.perTarget()
	b.appendix()
	return b.doc
}

type builder struct {
	ri  pts.RunInfo
	res *matrix.Results
	opt Options
	doc *Doc
	// warning goes on the header of every page of the stage being built.
	warning string
}

func (b *builder) add(p *Page) {
	if p.Test != "" {
		p.Warning = b.warning
	}
	if p.Setup == nil && p.Params == nil {
		p.Setup, p.Params = b.runSetup(), b.runParams()
	}
	b.doc.Pages = append(b.doc.Pages, p)
}

// empty says a stage has no value to report: no complete round, and no
// published values either.
func empty(s matrix.StageResult) bool { return s.Rounds == 0 && !s.Published() }

// perTarget is the page of a run on several targets at once (the LUNs of
// an array, the hosts of a client/server run): the headline cells of every
// test on each target, and how far apart the targets are.
func (b *builder) perTarget() {
	tables := b.res.TargetTables()
	if len(tables) == 0 {
		return
	}
	names := tables[0].Cols
	type row struct {
		test, cell, unit string
		vals             []float64
		cpu              []float64 // host CPU per target, user + system %
		format           func(float64) string
	}
	cpuUnit := ""
	var rows []row
	for _, t := range b.res.Tests {
		for si := range t.Stages {
			s := &t.Stages[si]
			heads := matrix.StageHeadlines(pts.Def(t.Test), s)
			slices.SortFunc(heads, func(a, b matrix.HeadlineCell) int { return a.Cell.Index - b.Cell.Index })
			for _, h := range heads {
				c := h.Cell
				if len(c.Targets) == 0 {
					continue
				}
				r := row{test: s.Title, cell: c.Key.Label()}
				var v func(matrix.TargetCell) float64
				switch h.Metrics[0] {
				case pts.MetricIOPS:
					r.unit, r.format, v = "IOPS", fmtIOPS, func(x matrix.TargetCell) float64 { return x.IOPS }
				case pts.MetricMBps:
					r.unit, r.format, v = "MB/s", fmtMBps, func(x matrix.TargetCell) float64 { return x.MBps }
				case pts.MetricLatMean:
					r.unit, r.format, v = "avg ms", fmtMs, func(x matrix.TargetCell) float64 { return x.LatMeanMs }
				default:
					continue
				}
				r.vals = make([]float64, len(names))
				r.cpu = make([]float64, len(names))
				for i := range r.vals {
					r.vals[i], r.cpu[i] = math.NaN(), math.NaN()
				}
				for _, tc := range c.Targets {
					if i := slices.Index(names, tc.TargetName()); i >= 0 {
						r.vals[i] = v(tc)
						if tc.CPU != nil {
							r.cpu[i], cpuUnit = tc.CPU.Pct(), tc.CPU.Unit()
						}
					}
				}
				rows = append(rows, r)
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	// Wide sets are split into tables of a few targets each.
	const per = 5
	var blocks []Block
	blocks = append(blocks, Paragraph{Lines: []string{fmt.Sprintf("%d targets were loaded at once; the tests' tables give their sum (IOPS, MB/s) "+
		"or their I/O-weighted mean (response time). Spread is the largest target's value over the smallest's. "+
		"Every cell of every target is in tables/targets_*.csv.", len(names))}})
	for from := 0; from < len(names); from += per {
		to := min(from+per, len(names))
		head := []string{"Test", "Cell", "Unit"}
		for i := from; i < to; i++ {
			head = append(head, fmt.Sprintf("T%d", i+1))
		}
		head = append(head, "Spread")
		var trows [][]string
		for _, r := range rows {
			tr := []string{r.test, r.cell, r.unit}
			for i := from; i < to; i++ {
				tr = append(tr, r.format(r.vals[i]))
			}
			tr = append(tr, spread(r.vals))
			trows = append(trows, tr)
		}
		widths := []float64{1.3, 1.6, 0.7}
		align := "LLL"
		for i := from; i < to; i++ {
			widths, align = append(widths, 1), align+"R"
		}
		widths, align = append(widths, 0.8), align+"R"
		var legend []string
		for i := from; i < to; i++ {
			legend = append(legend, fmt.Sprintf("T%d = %s", i+1, names[i]))
		}
		blocks = append(blocks, Table{Caption: "Per-target results (" + strings.Join(legend, "; ") + ")",
			Head: head, Rows: trows, Widths: widths, Align: align})
		if cpuUnit == "" {
			continue
		}
		trows = nil
		for _, r := range rows {
			tr := []string{r.test, r.cell, "CPU %"}
			for i := from; i < to; i++ {
				tr = append(tr, fmtPct(r.cpu[i]))
			}
			trows = append(trows, append(tr, spread(r.cpu)))
		}
		blocks = append(blocks, Table{Caption: "Host CPU per target, user + system, " + cpuUnit + " (" + strings.Join(legend, "; ") + ")",
			Head: head, Rows: trows, Widths: widths, Align: align})
	}
	if cpuUnit == (engine.CPU{Of: engine.CPUOfOne}).Unit() {
		blocks = append(blocks, Paragraph{Lines: []string{"Host CPU is fio's usr_cpu + sys_cpu of the threads that drove each target: " +
			"CPU time per second of the cell, where 100 % is one CPU busy; it is not a share of the host, whose CPU count " +
			"a fio server does not report. Every cell is in tables/targets_cpu_pct.csv."}})
	}
	b.add(&Page{Title: "Per-target results: every target of the set", Landmark: "targets", Flow: true, Blocks: blocks})
}

// workload is the page of a run of `ptsrun workload`: one measurement,
// per direction, with its response-time histogram.
func (b *builder) workload(s matrix.StageResult) {
	var c *matrix.CellResult
	for i := range s.Cells {
		if s.Cells[i].Present() {
			c = &s.Cells[i]
		}
	}
	if c == nil {
		return
	}
	w := b.ri.Stages[0].Cells[0].Workload
	blocks := []Block{
		Paragraph{Lines: []string{fmt.Sprintf("ptsrun workload ran %s for %v, once, outside the PTS methodology: "+
			"no purge, no preconditioning, no rounds to steady state. The numbers are that one measurement.", w, w.Duration)}},
	}
	rows := [][]string{}
	if c.ReadIOPS > 0 {
		rows = append(rows, []string{"read", fmtIOPS(c.ReadIOPS), fmtMBps(c.ReadMBps), fmtMs(c.ReadLatMeanMs)})
	}
	if c.WriteIOPS > 0 {
		rows = append(rows, []string{"write", fmtIOPS(c.WriteIOPS), fmtMBps(c.WriteMBps), fmtMs(c.WriteLatMean)})
	}
	rows = append(rows, []string{"total", fmtIOPS(c.IOPS), fmtMBps(c.MBps), fmtMs(c.LatMeanMs)})
	blocks = append(blocks,
		Table{Caption: "The workload's measurement, per direction", Head: []string{"Direction", "IOPS", "MB/s", "Average ms"}, Rows: rows},
		Table{Caption: "Response times of every I/O (ms; percentiles: " + pctLabel([]matrix.CellResult{*c}) + ")", Head: []string{"99 %", "99.99 %", "99.999 %", "Maximum"},
			Rows: [][]string{{fmtMs(c.LatP99Ms), fmtMs(c.LatP9999Ms), fmtMs(c.LatP99999Ms), fmtMs(c.LatMaxMs)}}})
	if ss := b.perSecond(math.Ceil(w.Duration.Seconds())); len(ss) > 0 {
		blocks = append(blocks, Chart{Caption: "IOPS in every second of the workload (from seconds.csv)",
			Plot: secondsPlot(w.String()+": IOPS per second", "IOPS", ss), Summary: summarize(ss, fmtIOPS)})
	}
	if c.Hist != nil && c.Hist.Count() > 0 {
		hist, clp, sum := histogramPlots(w.String(), c.Hist)
		blocks = append(blocks,
			Chart{Caption: "Response-time histogram (I/Os per latency bin, log scales)", Plot: hist, Summary: sum},
			Chart{Caption: "Confidence level: share of I/Os at or under each response time", Plot: clp, Summary: sum})
	}
	b.add(&Page{Test: "Workload", Title: w.String(), Landmark: "workload", Flow: true, Blocks: blocks})
}

// perSecond reads a recorded workload's seconds.csv: read and write IOPS in
// every second up to last, the directions that did any I/O. The seconds
// after the workload's time hold only the I/Os that were still in flight.
func (b *builder) perSecond(last float64) []series {
	if b.opt.Dir == "" {
		return nil
	}
	f, err := os.Open(filepath.Join(b.opt.Dir, "seconds.csv"))
	if err != nil {
		return nil
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 || len(recs[0]) < 3 || recs[0][1] != "read_iops" || recs[0][2] != "write_iops" {
		return nil
	}
	read, write := series{name: "read"}, series{name: "write"}
	var anyRead, anyWrite bool
	for _, r := range recs[1:] {
		sec, e1 := strconv.ParseFloat(r[0], 64)
		rd, e2 := strconv.ParseFloat(r[1], 64)
		wr, e3 := strconv.ParseFloat(r[2], 64)
		if e1 != nil || e2 != nil || e3 != nil {
			return nil
		}
		if sec > last {
			break
		}
		read.xs, read.ys = append(read.xs, sec), append(read.ys, rd)
		write.xs, write.ys = append(write.xs, sec), append(write.ys, wr)
		anyRead, anyWrite = anyRead || rd > 0, anyWrite || wr > 0
	}
	var out []series
	if anyRead {
		out = append(out, read)
	}
	if anyWrite {
		out = append(out, write)
	}
	return out
}

// engineLabel names the engine, with the native engine's completion
// polling when it was not left to the engine.
func engineLabel(ri pts.RunInfo) string {
	if p := ri.Config.Poll; p != "" && p != "auto" && strings.HasPrefix(ri.Engine, "native") {
		return ri.Engine + ", poll " + p
	}
	return orDash(ri.Engine)
}

// spread is the largest value over the smallest, "–" without two values.
func spread(v []float64) string {
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, x := range v {
		if !math.IsNaN(x) && x > 0 {
			lo, hi, n = min(lo, x), max(hi, x), n+1
		}
	}
	if n < 2 {
		return "–"
	}
	return fmt.Sprintf("×%.2f", hi/lo)
}

// noResults is the one page of a stage that has no complete round to
// report, saying why, instead of a set of empty plots and tables.
func (b *builder) noResults(test string, s matrix.StageResult) {
	b.stage(s)
	why := "It was interrupted before its first round ended; `ptsrun resume` continues it."
	if s.Error != "" {
		why = "It was stopped by an error: " + s.Error + "."
	}
	if !s.Started {
		why = "The run ended before it started."
	}
	lines := []string{s.Title + ": no complete round, so there is nothing to report for this stage.", why}
	if s.Purge != nil || s.Precondition != nil {
		lines = append(lines, "The purge and preconditioning it did are in the appendix.")
	}
	b.add(&Page{Test: test, Title: "No results: " + s.Title, Setup: b.setup(s), Landmark: "no-results",
		Params: b.params(s, s.Title, "–", "–"), Blocks: []Block{Paragraph{Lines: lines}}})
}

// stage sets the header warning for a stage's pages.
func (b *builder) stage(s matrix.StageResult) {
	switch {
	case s.Published():
		b.warning = "PUBLISHED VALUES"
	case !s.Started:
		b.warning = "STAGE NOT RUN"
	case !s.Complete:
		b.warning = "STAGE INCOMPLETE"
	case !s.Steady:
		b.warning = "SS NOT ACHIEVED"
	default:
		b.warning = ""
	}
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// decimal writes a capacity as drives are sold: GB, TB.
func decimal(b int64) string {
	if b <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%s (%d bytes)", device.FormatCapacity(b), b)
}

func (b *builder) header() {
	ri, h := b.ri, &b.doc.Header
	h.Start, h.Finish = stamp(b.res.Start), stamp(b.res.Finish)
	if !b.res.Complete {
		h.Finish += " (incomplete)"
	}
	h.Spec = ri.Profile.Short + " " + pts.SpecRevision
	if ri.Profile.Short == "" { // an imported table has no profile
		h.Spec = "PTS " + pts.SpecRevision
	}
	h.TestedBy, h.Lab = stated(ri.TestedBy), stated(ri.Lab)
	var vendors, models []string
	for _, t := range ri.Targets {
		vendors = append(vendors, orDash(t.Vendor))
		models = append(models, orDash(t.Model))
	}
	h.Vendor, h.Model = strings.Join(unique(vendors), ", "), strings.Join(unique(models), ", ")
	host := ri.Host
	cpu := host.CPUModel
	if host.CPUs > 0 {
		cpu = fmt.Sprintf("%s × %d", orDash(cpu), host.CPUs)
	}
	software := "ptsrun " + ri.Version + " (" + orDash(host.Go) + ")"
	if host.Fio != "" {
		software += ", " + host.Fio
	}
	h.Platform = []KV{
		{"Host", orDash(host.Hostname)},
		{"Motherboard", orNotKnown(host.DMI.Motherboard())},
		{"CPU", orDash(cpu)},
		{"Memory", memLabel(host.MemoryBytes)},
		{"OS", osLabel(host)},
		{"HBA", strings.Join(unique(mapTargets(ri.Targets, hbaLabel)), "; ")},
	}
	if link := strings.Join(unique(mapTargets(ri.Targets, hbaLink)), "; "); strings.Trim(link, "; ") != "" {
		h.Platform = append(h.Platform, KV{"HBA link", link})
	}
	h.Platform = append(h.Platform, KV{"Test software", software}, KV{"Engine", engineLabel(ri)})
	t := ri.Targets
	dev := func(f func(int) string) string {
		var v []string
		for i := range t {
			v = append(v, f(i))
		}
		return strings.Join(unique(v), "; ")
	}
	h.Device = []KV{
		{"Model", dev(func(i int) string { return orDash(t[i].Vendor + " " + t[i].Model) })},
		{"Path", dev(func(i int) string { return orDash(targetPath(t[i])) })},
		{"Serial / FW", dev(func(i int) string { return orDash(t[i].Serial) + " / " + orDash(t[i].Firmware) })},
		{"Capacity", dev(func(i int) string { return decimal(t[i].CapacityBytes) })},
		{"Interface", dev(func(i int) string { return orDash(strings.Join(unique([]string{t[i].Interface, t[i].Transport}), " ")) })},
	}
	facts := dutFacts(t, ri.DUTNotes)
	h.Device = append(h.Device, facts[:2]...) // NAND type and form factor, where the SNIA template has them
	if link := dev(func(i int) string { return t[i].PCIeLink }); strings.Trim(link, "; ") != "" {
		h.Device = append(h.Device, KV{"PCIe link", link})
	}
	h.Device = append(h.Device, []KV{
		{"Block size", dev(func(i int) string {
			if t[i].LogicalBlock <= 0 {
				return "–"
			}
			if t[i].PhysicalBlock <= 0 { // a file: the filesystem's, not known
				return fmt.Sprintf("%d B logical", t[i].LogicalBlock)
			}
			return fmt.Sprintf("%d B logical, %d B physical", t[i].LogicalBlock, t[i].PhysicalBlock)
		})},
		{"Write cache", cacheLabel(b.res.WriteCache)},
		{"Purge", b.purgeLabel()},
	}...)
	h.Device = append(h.Device, facts[2:]...)
	if len(t) > 1 {
		h.Device = append(h.Device, KV{"Targets", fmt.Sprintf("%d, loaded at once", len(t))})
	}
	if len(t) > 0 && t[0].Kind == "sim" {
		h.Device = append(h.Device, KV{"Note", "simulated drive: a model, not hardware"})
	}
}

// stated is what the operator said, or that they did not say.
func stated(s string) string {
	if strings.TrimSpace(s) == "" {
		return "not stated"
	}
	return strings.TrimSpace(s)
}

func orNotKnown(s string) string {
	if s == "" {
		return "not known"
	}
	return s
}

func osLabel(h device.Host) string {
	if h.Kernel == "" {
		return orDash(h.OS)
	}
	return strings.TrimSpace(orDash(h.OS) + ", kernel " + h.Kernel + " " + h.Arch)
}

func mapTargets(t []device.Identity, f func(device.Identity) string) []string {
	var out []string
	for _, x := range t {
		out = append(out, f(x))
	}
	return out
}

// hbaLabel is the Test Platform's HBA row for one target: the adapter it
// hangs off, or why there is none to name.
func hbaLabel(t device.Identity) string {
	switch {
	case t.HBA != nil && t.HBA.OnDrive:
		return "none, NVMe on PCIe: " + t.HBA.Label()
	case t.HBA != nil:
		return t.HBA.Label()
	case t.Kind == device.KindSim:
		return "none (simulated drive)"
	case t.Kind == device.KindFile:
		return "none (file target)"
	case t.Kind == device.KindRemote:
		return "not known (target on a fio server)"
	case t.Kind == "imported":
		return "not known (imported results)"
	case t.Interface == "loop":
		return strings.TrimSpace("none (loop device " + t.Notes + ")")
	case t.Kind == device.KindBlock && t.Interface == "NVMe" && t.Transport != "" && t.Transport != "pcie":
		return "none (NVMe over " + t.Transport + ")"
	}
	return "not known"
}

// hbaLink is the PCIe link of an adapter between host and drive; an NVMe
// drive's own link is in the Device Under Test column.
func hbaLink(t device.Identity) string {
	if t.HBA == nil || t.HBA.OnDrive || t.HBA.Link == "" {
		return ""
	}
	if t.HBA.MaxLink != "" && t.HBA.MaxLink != t.HBA.Link {
		return t.HBA.Link + " (capable of " + t.HBA.MaxLink + ")"
	}
	return t.HBA.Link
}

// dutFacts are the header rows of what is known of the device beyond its
// name: NAND type and form factor first, always, then whatever else the
// device reports or the operator states. The device's word stands; where
// the operator states something else, the row says so beside it.
func dutFacts(targets []device.Identity, notes []device.Fact) []KV {
	keys := []string{device.FactNAND, device.FactFormFactor}
	for _, t := range targets {
		for _, f := range t.Facts {
			keys = append(keys, f.Key)
		}
	}
	note := map[string]string{}
	for _, n := range notes {
		keys = append(keys, n.Key)
		note[n.Key] = n.Value
	}
	var out []KV
	for _, k := range unique(keys) {
		var reported []string
		differs := false
		for _, t := range targets {
			v := "not reported"
			for _, f := range t.Facts {
				if f.Key == k {
					v = f.Value + " (" + f.Source + ")"
					differs = differs || note[k] != "" && !strings.EqualFold(note[k], f.Value)
				}
			}
			reported = append(reported, v)
		}
		reported = unique(reported)
		byDevice := len(reported) > 1 || len(reported) == 1 && reported[0] != "not reported"
		v := strings.Join(reported, "; ")
		switch {
		case byDevice && differs:
			v += "; the operator states " + note[k]
		case byDevice:
		case note[k] != "":
			v = note[k] + " (" + device.SourceOperator + ")"
		default:
			v = notStated(targets)
		}
		out = append(out, KV{k, v})
	}
	return out
}

// notStated says why a fact is missing: nobody stated it, or there is no
// device to have it.
func notStated(targets []device.Identity) string {
	if len(targets) > 0 {
		switch t := targets[0]; {
		case t.Kind == device.KindSim:
			return "none (simulated drive)"
		case t.Kind == device.KindFile, t.Interface == "loop":
			return "not known (" + t.Interface + " target)"
		case t.Kind == device.KindBlock:
			return "not stated; the device does not report it"
		}
	}
	return "not stated"
}

// targetPath is where a target is: its device or file, or the model for
// a simulated drive.
func targetPath(t device.Identity) string {
	if t.Path != "" {
		return t.Path
	}
	return t.Spec
}

func memLabel(b int64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}

func cacheLabel(s string) string {
	switch s {
	case "enabled":
		return "WCE (enabled)"
	case "disabled":
		return "WCD (disabled)"
	case "none":
		return "none (no volatile write cache)"
	}
	return "unknown"
}

func (b *builder) purgeLabel() string {
	for _, t := range b.res.Tests {
		for _, s := range t.Stages {
			if p := s.Purge; p != nil {
				switch {
				case p.Skipped:
					return "none (not purged)"
				case !p.Compliant:
					return p.Method + " (substitute, NOT a PTS purge)"
				case len(p.Erased) > 0:
					return p.Method + " (controller-wide: " + strings.Join(p.Erased, ", ") + ")"
				}
				return p.Method
			}
		}
	}
	return "–"
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "–"
	}
	return strings.TrimSpace(s)
}

func unique(v []string) []string {
	var out []string
	for _, s := range v {
		found := false
		for _, o := range out {
			found = found || o == s
		}
		if !found {
			out = append(out, s)
		}
	}
	return out
}

// setup is the Set-Up Parameters column of a stage's pages.
func (b *builder) setup(s matrix.StageResult) []KV {
	cfg := b.ri.Config
	if s.Published() {
		return []KV{{"Source", b.ri.Source}, {"Values", "one per cell, as published"}, {"Rounds", "none: no steady-state verdict"},
			{"Purge, PC", "not known"}}
	}
	kv := []KV{{"Data pattern", "RND, incompressible"}, {"PC AR", fmt.Sprintf("%g %%", cfg.PCActiveRange)}}
	if s.Purge != nil {
		p := s.Purge.Method
		if !s.Purge.Compliant && !s.Purge.Skipped {
			p += " (NOT a PTS purge)"
		}
		kv = append(kv, KV{"Purge", p})
	}
	if pc := s.Precondition; pc != nil {
		w := pc.Workload
		acc := "SEQ"
		if w.Access == engine.Random {
			acc = "RND"
		}
		kv = append(kv, KV{"Pre-condition 1", fmt.Sprintf("%s %s W, %gX capacity", acc, engine.FormatSize(w.BlockSize), w.Passes)},
			KV{"TOIO – TC/QD", fmt.Sprintf("%d – TC %d/QD %d", w.TC*w.QD, w.TC, w.QD)},
			KV{"Duration", fmt.Sprintf("%s, %.1f GB at %s MB/s", durationLabel(pc.Seconds), float64(pc.Bytes)/1e9, fmtMBps(pc.MBps))})
	}
	kv = append(kv, KV{"Pre-condition 2", s.Title + " loop (WDPC)"})
	if b.ri.Imported {
		kv = append([]KV{{"Imported", b.ri.Source}}, kv...)
	}
	note := "SS achieved"
	if !s.Steady {
		note = "SS NOT ACHIEVED"
	}
	if !s.Complete {
		note = "stage incomplete"
	}
	kv = append(kv, KV{"Notes", note})
	return kv
}

func durationLabel(sec float64) string {
	d := time.Duration(sec * float64(time.Second)).Round(time.Second)
	return d.String()
}

func ssRounds(s matrix.StageResult) string {
	if s.Rounds == 0 {
		return "none"
	}
	r := fmt.Sprintf("%d – %d", s.Window[0], s.Window[1])
	if !s.Steady {
		r += " (NOT ACHIEVED)"
	}
	return r
}

// params is the Test Parameters column.
func (b *builder) params(s matrix.StageResult, stimulus, mixes, sizes string) []KV {
	cfg := b.ri.Config
	td := pts.Def(b.testOf(s))
	if td == nil {
		td = &pts.TestDef{}
	}
	var capacity int64
	for _, t := range b.ri.Targets {
		capacity += t.CapacityBytes
	}
	var c matrix.CellResult
	if len(s.Cells) > 0 {
		c = s.Cells[0]
	}
	// The active range the stage's cells ran with (tests have their own).
	ar := cfg.ActiveRangeOf(td.ID)
	for _, st := range b.ri.Stages {
		if st.ID == s.ID && len(st.Cells) > 0 {
			ar = st.Cells[0].Workload.ActiveRange
		}
	}
	kv := []KV{
		{"Data pattern", "RND"},
		{"AR & amount", fmt.Sprintf("%g %% (%s)", ar, device.FormatCapacity(int64(float64(capacity)*ar/100)))},
		{"Test stimulus", stimulus},
		{td.LoopLabel(pts.LoopMix), mixes},
		{td.LoopLabel(pts.LoopBlockSize), sizes},
		{"TOIO – TC/QD", fmt.Sprintf("%d – TC %d/QD %d", c.TC*c.QD, c.TC, c.QD)},
		{"Cell time", fmt.Sprintf("%v per cell", time.Duration(cfg.CellTime))},
		{"SS rounds", ssRounds(s)},
	}
	if len(td.Loops) > 0 && td.Loops[0] == pts.LoopBlockSize {
		kv[3], kv[4] = kv[4], kv[3] // the outer loop first
	}
	if s.Published() {
		kv = kv[2:5] // the matrix only: no load, time or rounds are known
	}
	return kv
}

func mixList(m []int) string {
	var s []string
	for _, x := range m {
		s = append(s, matrix.MixLabel(x))
	}
	return strings.Join(s, ", ")
}

func sizeList(sz []int64) string {
	var s []string
	for _, x := range sz {
		s = append(s, strings.TrimSuffix(engine.FormatSize(x), " KiB"))
	}
	return strings.Join(s, ", ") + " KiB"
}

// --- summary page ---

func (b *builder) summary() {
	res := b.res
	p := &Page{Title: "Summary: compliance, device and headline results", Landmark: "summary"}
	p.Blocks = append(p.Blocks, Paragraph{Lines: []string{"Compliance verdict: " + res.Verdict}, Strong: true, Size: 11})
	if res.Scope != "" {
		p.Blocks = append(p.Blocks, Paragraph{Lines: []string{"Scope: " + res.Scope}, Size: 8.5})
	}
	if len(res.Deviations) > 0 {
		var lines []string
		for i, d := range res.Deviations {
			lines = append(lines, fmt.Sprintf("%d. %s", i+1, d.Text))
		}
		p.Blocks = append(p.Blocks, Paragraph{Lines: lines, Size: 8.5})
	}
	var dev []string
	for _, t := range b.ri.Targets {
		line := fmt.Sprintf("Device: %s (%s), serial %s, firmware %s, %s, %s.", orDash(strings.TrimSpace(t.Vendor+" "+t.Model)),
			targetPath(t), orDash(t.Serial), orDash(t.Firmware), decimal(t.CapacityBytes), orDash(t.Interface))
		if p := t.HBA; p != nil {
			// The header has room for the adapter's name only.
			what := "Attached through"
			if p.OnDrive {
				what = "Its NVMe controller is"
			}
			line += fmt.Sprintf(" %s %s at PCI %s, driver %s", what, p.Label(), p.Address, orDash(p.Driver))
			if p.Link != "" {
				line += ", link " + p.Link
			}
			line += "."
		}
		dev = append(dev, line)
	}
	h := b.ri.Host
	if h.Hostname == "" && h.CPUs == 0 {
		dev = append(dev, fmt.Sprintf("Platform: not known (imported results); %s.", orDash(b.ri.Engine)))
	} else {
		dev = append(dev, fmt.Sprintf("Platform: %s, motherboard %s, %s × %d, %.1f GiB, %s, kernel %s; %s; engine %s.", orDash(h.Hostname),
			orNotKnown(h.DMI.Motherboard()), orDash(h.CPUModel), h.CPUs, float64(h.MemoryBytes)/(1<<30), orDash(h.OS), orDash(h.Kernel),
			"ptsrun "+b.ri.Version, b.ri.Engine))
	}
	p.Blocks = append(p.Blocks, Paragraph{Lines: dev, Size: 8.5})
	rows := [][]string{}
	for _, t := range res.Tests {
		for _, s := range t.Stages {
			state := fmt.Sprintf("steady at round %d (window %d–%d)", s.SSRound, s.Window[0], s.Window[1])
			switch {
			case t.Test == "custom":
				state = "outside the PTS: no verdict"
			case s.Published():
				state = "published value, no rounds"
			case !s.Complete:
				state = fmt.Sprintf("incomplete (%d rounds)", s.Rounds)
			case !s.Steady:
				state = fmt.Sprintf("NOT steady in %d rounds (window %d–%d)", s.Rounds, s.Window[0], s.Window[1])
			}
			if empty(s) {
				why := "interrupted before round 1"
				switch {
				case !s.Started:
					why = "not run"
				case s.Error != "":
					why = "stopped by an error"
				}
				rows = append(rows, []string{s.Title, "–", "no result", why})
				continue
			}
			for _, h := range matrix.StageHeadlines(pts.Def(t.Test), &s) {
				label, value := headline(h)
				rows = append(rows, []string{s.Title, label, value, state})
			}
		}
	}
	p.Blocks = append(p.Blocks, Table{Caption: "Headline results (averages over each stage's measurement window)",
		Head: []string{"Test", "Workload", "Result", "Steady state"}, Rows: rows, Widths: []float64{1.15, 1.55, 2.3, 1.85}, Align: "LLRL"})
	b.add(p)
}

// runSetup and runParams fill the header columns of pages that belong to
// the run rather than to one test.
func (b *builder) runSetup() []KV {
	cfg := b.ri.Config
	if b.ri.Imported && b.ri.Profile.Short == "" {
		return []KV{{"Imported", b.ri.Source}, {"Purge, PC", "not known"}}
	}
	if b.ri.Workload {
		return []KV{{"Recorded by", "ptsrun workload"}, {"Purge, PC", "none (outside the PTS)"}, {"Write cache", cacheLabel(b.res.WriteCache)}}
	}
	return []KV{{"Profile", b.ri.Profile.Short + " (" + b.ri.Profile.Name + ")"}, {"Write cache", cacheLabel(b.res.WriteCache)},
		{"Purge", b.purgeLabel()}, {"PC AR", fmt.Sprintf("%g %%", cfg.PCActiveRange)}, {"Seed", fmt.Sprint(cfg.Seed)},
		{"SS rule", fmt.Sprintf("%d rounds, range ≤ %g %%, slope ≤ %g %%", cfg.SS.Window, cfg.SS.MaxRange*100, cfg.SS.MaxSlope*100)},
		{"Round limit", fmt.Sprint(cfg.MaxRounds)}}
}

func (b *builder) runParams() []KV {
	cfg := b.ri.Config
	if b.ri.Workload && len(b.ri.Stages) == 1 && len(b.ri.Stages[0].Cells) == 1 {
		w := b.ri.Stages[0].Cells[0].Workload
		return []KV{{"Workload", w.String()}, {"Duration", w.Duration.String()}, {"Targets", fmt.Sprint(len(b.ri.Targets))}}
	}
	if b.ri.Imported && b.ri.Profile.Short == "" {
		var tests []string
		for _, t := range b.res.Tests {
			tests = append(tests, string(t.Test))
		}
		return []KV{{"Tests", strings.Join(tests, ", ")}, {"Complete", yesNo(b.res.Complete)}}
	}
	return []KV{{"Tests", pts.JoinTests(cfg.Tests, ", ")}, {"Cell time", time.Duration(cfg.CellTime).String()},
		{"AR", b.activeRanges()}, {"IOPS TC/QD", fmt.Sprintf("%d/%d", cfg.TC, cfg.QD)},
		{"Targets", fmt.Sprint(len(b.ri.Targets))}, {"Complete", yesNo(b.res.Complete)}}
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// headlines picks the numbers people quote from a stage.
// headline writes a headline cell for the first page: the cell, and its
// metrics with their units. Latency figures name the load they were
// measured at, and come as avg / 99.999 % / max.
func headline(h matrix.HeadlineCell) (label, value string) {
	c := h.Cell
	label = h.Key.Label()
	if h.Test == pts.Custom {
		label = h.Key.String()
	}
	var vals, names []string
	allMs := true
	for _, m := range h.Metrics {
		v, _ := c.Value(m)
		vals = append(vals, m.Format(v))
		names = append(names, shortName(m))
		allMs = allMs && m.Unit() == "ms"
	}
	switch {
	case allMs:
		return fmt.Sprintf("%s TC%d/QD%d", label, c.TC, c.QD), strings.Join(vals, " / ") + " ms (" + strings.Join(names, " / ") + ")"
	case len(h.Metrics) == 1:
		return label, vals[0] + " " + h.Metrics[0].Unit()
	}
	var parts []string
	for i, m := range h.Metrics {
		part := vals[i] + " " + m.Unit()
		if m.Unit() == "ms" {
			part += " " + names[i]
		}
		parts = append(parts, part)
	}
	return label, strings.Join(parts, ", ")
}

// shortName is a latency metric's name in a row of several: "avg".
func shortName(m pts.Metric) string {
	switch m {
	case pts.MetricLatMean:
		return "avg"
	case pts.MetricLatMax:
		return "max"
	case pts.MetricLatP99999:
		return "99.999 %"
	}
	return m.Label()
}

// --- test pages ---

func trackingSeries(t matrix.TrackingResult) series {
	s := series{name: t.Name}
	for i, v := range t.Values {
		s.xs = append(s.xs, float64(i+1))
		s.ys = append(s.ys, v)
	}
	return s
}

func summarize(ss []series, f func(float64) string) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, s.summary(f))
	}
	return strings.Join(parts, "\n")
}

func (b *builder) windowPage(test string, s matrix.StageResult, tr matrix.TrackingResult, setup, params []KV) *Page {
	v := tr.Verdict
	p := &Page{Test: test, Title: "Steady State Measurement Window: " + tr.Name, Setup: setup, Params: params, Landmark: "window"}
	if len(v.Values) == 0 {
		p.Blocks = append(p.Blocks, Paragraph{Lines: []string{"No measurement window: fewer rounds than the window needs."}})
		return p
	}
	p.Blocks = append(p.Blocks, Chart{Caption: tr.Name + ": steady-state measurement window, rounds " + fmt.Sprintf("%d–%d", v.FirstRound, v.LastRound),
		Plot: windowPlot(tr.Name, tr.Unit, v, b.ri.Config.SS), Height: 105,
		Summary: fmt.Sprintf("window %d–%d: %s", v.FirstRound, v.LastRound, joinF(v.Values, func(x float64) string { return fmtValue(tr.Unit, x) }))})
	crit := b.ri.Config.SS
	verdict, why := "PASS: steady state", "range and slope within the allowed"
	if !v.Steady {
		verdict, why = "FAIL: not steady", windowCheck(crit, []steadystate.Series{{Name: tr.Name, Values: tr.Values}}, v.LastRound)
	}
	p.Blocks = append(p.Blocks, Table{Caption: "Steady-state determination: " + tr.Name,
		Head: []string{"Quantity", "Value", "Criterion"}, Widths: []float64{2.2, 1.6, 2}, Align: "LRL",
		Rows: [][]string{
			{"Measurement window (rounds)", fmt.Sprintf("%d – %d", v.FirstRound, v.LastRound), ""},
			{"Average of the window", fmtValue(tr.Unit, v.Average), ""},
			{fmt.Sprintf("Allowed maximum data excursion (%g %% of average)", 100*crit.MaxRange), fmtValue(tr.Unit, v.MaxRange), ""},
			{"Measured data excursion (max − min)", fmtValue(tr.Unit, v.Range), passFail(v.RangeOK, "≤ allowed")},
			{fmt.Sprintf("Allowed maximum slope excursion (%g %% of average)", 100*crit.MaxSlope), fmtValue(tr.Unit, v.MaxSlopeExcursion), ""},
			{"Measured slope excursion (|m| × (window − 1))", fmtValue(tr.Unit, v.SlopeExcursion), passFail(v.SlopeOK, "≤ allowed")},
			{"Least-squares linear fit", fmtFit(v.Slope, v.Intercept), ""},
			{"Verdict", verdict, why},
		}})
	return p
}

func passFail(ok bool, what string) string {
	if ok {
		return "pass (" + what + ")"
	}
	return "FAIL (not " + what + ")"
}

func joinF(v []float64, f func(float64) string) string {
	var s []string
	for _, x := range v {
		s = append(s, f(x))
	}
	return strings.Join(s, ", ")
}

func (b *builder) iops(s matrix.StageResult) {
	b.stage(s)
	setup := b.setup(s)
	sizes, mixes := ranSizes(s, pts.IOPSBlockSizes), ranMixes(s, pts.IOPSMixes)
	params := b.params(s, "IOPS loop: RND, "+loopCount(len(mixes), len(sizes)), mixList(mixes), sizeList(sizes))
	// Convergence: IOPS per round for every block size at 0/100 (the
	// tracking variables' full history comes from the tracking table; the
	// other cells' from the journal-derived per-round values).
	var writes []series
	for _, bs := range pts.IOPSBlockSizes {
		c := cellAt(s, bs, 0)
		if c == nil {
			continue
		}
		writes = append(writes, roundSeries(engine.FormatSize(bs)+" 0/100", c))
	}
	// Results without rounds (a published table) have no convergence.
	if s.Rounds > 0 && len(writes) > 0 {
		b.add(&Page{Test: "IOPS", Title: "Steady State Convergence Plot: write IOPS, all block sizes", Setup: setup, Params: params, Landmark: "iops-convergence",
			Blocks: []Block{Chart{Caption: "IOPS steady-state convergence: RND 0/100, every block size",
				Plot: convergencePlot("IOPS per round, RND 0/100", "IOPS", writes, s.Window, true), Summary: summarize(writes, fmtIOPS)}}})
	}
	var tracked []series
	for _, t := range s.Tracking {
		tracked = append(tracked, trackingSeries(t))
	}
	if s.Rounds > 0 && len(tracked) > 0 {
		b.add(&Page{Test: "IOPS", Title: "Steady State Convergence Plot: the tracking variables", Setup: setup, Params: params, Landmark: "iops-tracking",
			Blocks: []Block{Chart{Caption: "IOPS steady-state convergence: the three PTS 2.0.2 tracking variables",
				Plot: convergencePlot("Tracking variables per round", "IOPS", tracked, s.Window, true), Summary: summarize(tracked, fmtIOPS)}}})
	}
	for _, t := range s.Tracking {
		b.add(b.windowPage("IOPS", s, t, setup, params))
	}
	tb := matrix.Table{}
	for _, x := range b.res.Tables() {
		if x.Name == "iops" {
			tb = x
		}
	}
	rows := [][]string{}
	for i, r := range tb.Rows {
		row := []string{strings.Replace(r, "KiB", " KiB", 1)}
		for _, v := range tb.Values[i] {
			row = append(row, fmtIOPS(v))
		}
		rows = append(rows, row)
	}
	head := append([]string{"Block size"}, tb.Cols...)
	b.add(&Page{Test: "IOPS", Title: "Tabular Data and 3D Plot equivalent: IOPS by block size × R/W mix", Setup: setup, Params: params,
		Landmark: "iops-table", Blocks: []Block{
			Table{Caption: "IOPS (read + write), average of the measurement window (" + b.doc.Header.Spec + ", " + cacheShort(b.res.WriteCache) + ")",
				Head: head, Rows: rows},
			Matrix{Caption: "IOPS by block size × R/W mix (shaded matrix: the PTS 3D column plot, printable in black and white)",
				RowHead: "Block size", Rows: rowsLabels(tb), Cols: tb.Cols, Values: tb.Values, Unit: "IOPS", Format: fmtIOPS},
		}})
	var byMix []series
	for j, mix := range tb.Cols {
		sr := series{name: mix}
		for i, bs := range tb.RowBytes {
			sr.xs = append(sr.xs, float64(bs)/1024)
			sr.ys = append(sr.ys, tb.Values[i][j])
		}
		byMix = append(byMix, sr)
	}
	b.add(&Page{Test: "IOPS", Title: "2D Plot: IOPS vs block size", Setup: setup, Params: params, Landmark: "iops-2d",
		Blocks: []Block{Chart{Caption: "IOPS against block size, one line per R/W mix (log–log)",
			Plot: logLogPlot("IOPS by block size and R/W mix", "IOPS", tb.RowBytes, byMix), Summary: summarize(byMix, fmtIOPS)}}})
}

func rowsLabels(t matrix.Table) []string {
	var out []string
	for _, r := range t.Rows {
		out = append(out, strings.Replace(r, "KiB", " KiB", 1))
	}
	return out
}

// loopCount says how many mixes and block sizes a loop runs: "7 R/W mixes
// × 8 block sizes", "3 R/W mixes × 1 block size".
func loopCount(mixes, sizes int) string {
	s := fmt.Sprintf("%d R/W mix", mixes)
	if mixes != 1 {
		s += "es"
	}
	s += fmt.Sprintf(" × %d block size", sizes)
	if sizes != 1 {
		s += "s"
	}
	return s
}

// ranSizes is the PTS's block sizes the stage has cells of (a 4Kn target
// has no 0.5 KiB cells, a quick look only those it chose), or all of them
// when it has none.
func ranSizes(s matrix.StageResult, sizes []int64) []int64 {
	return ranOf(s, sizes, func(c matrix.CellResult) int64 { return c.BlockSize })
}

// ranMixes is ranSizes for the R/W mixes.
func ranMixes(s matrix.StageResult, mixes []int) []int {
	return ranOf(s, mixes, func(c matrix.CellResult) int { return c.ReadPct })
}

func ranOf[T comparable](s matrix.StageResult, all []T, of func(matrix.CellResult) T) []T {
	var out []T
	for _, v := range all {
		if slices.ContainsFunc(s.Cells, func(c matrix.CellResult) bool { return of(c) == v }) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

func cellAt(s matrix.StageResult, bs int64, read int) *matrix.CellResult {
	for i := range s.Cells {
		if s.Cells[i].BlockSize == bs && s.Cells[i].ReadPct == read {
			return &s.Cells[i]
		}
	}
	return nil
}

// roundSeries is a cell's IOPS in every round the results hold for it.
func roundSeries(name string, c *matrix.CellResult) series {
	s := series{name: name}
	rounds := c.AllRounds
	if len(rounds) == 0 {
		rounds = c.PerRound
	}
	for _, r := range rounds {
		s.xs = append(s.xs, float64(r.Round))
		s.ys = append(s.ys, r.IOPS)
	}
	return s
}

func roundSeriesOf(name string, c *matrix.CellResult, v func(matrix.RoundValue) float64) series {
	s := series{name: name}
	rounds := c.AllRounds
	if len(rounds) == 0 {
		rounds = c.PerRound
	}
	for _, r := range rounds {
		s.xs = append(s.xs, float64(r.Round))
		s.ys = append(s.ys, v(r))
	}
	return s
}

func (b *builder) throughput(stages []matrix.StageResult) {
	var groups []string
	read := series{name: "100/0 (SEQ read)"}
	write := series{name: "0/100 (SEQ write)"}
	rows := [][]string{}
	var lastSetup, lastParams []KV
	for _, s := range stages {
		if len(s.Cells) == 0 {
			continue
		}
		bs := s.Cells[0].BlockSize
		b.stage(s)
		setup := b.setup(s)
		mixes, order := ranMixes(s, pts.TPMixes), "read then write"
		switch {
		case len(mixes) == 1 && mixes[0] == 0:
			order = "write only"
		case len(mixes) == 1 && mixes[0] == 100:
			order = "read only"
		}
		stimulus := "Throughput loop: SEQ " + engine.FormatSize(bs) + ", " + order
		tpSizes, _ := b.ri.Config.Subset("tp", b.ri.Profile)
		params := b.params(s, stimulus, mixList(mixes), fmt.Sprintf("%s (this stage of %s)", engine.FormatSize(bs), sizeList(tpSizes)))
		lastSetup, lastParams = setup, params
		var ss []series
		for _, c := range s.Cells {
			c := c
			ss = append(ss, roundSeriesOf(fmt.Sprintf("SEQ %s %s MB/s", engine.FormatSize(bs), matrix.MixLabel(c.ReadPct)), &c,
				func(r matrix.RoundValue) float64 { return r.MBps }))
		}
		if s.Rounds > 0 {
			b.add(&Page{Test: "Throughput", Title: "Steady State Convergence Plot: " + engine.FormatSize(bs), Setup: setup, Params: params, Landmark: "tp-convergence",
				Blocks: []Block{Chart{Caption: "Throughput steady-state convergence, SEQ " + engine.FormatSize(bs) + ": read and write MB/s per round",
					Plot: convergencePlot("MB/s per round, SEQ "+engine.FormatSize(bs), "MB/s", ss, s.Window, false), Summary: summarize(ss, fmtMBps)}}})
		}
		for _, t := range s.Tracking {
			b.add(b.windowPage("Throughput", s, t, setup, params))
		}
		groups = append(groups, engine.FormatSize(bs))
		r, w := math.NaN(), math.NaN()
		for _, c := range s.Cells {
			if c.ReadPct == 100 && c.Present() {
				r = c.MBps
			}
			if c.ReadPct == 0 && c.Present() {
				w = c.MBps
			}
		}
		read.xs, read.ys = append(read.xs, float64(len(groups))), append(read.ys, r)
		write.xs, write.ys = append(write.xs, float64(len(groups))), append(write.ys, w)
	}
	if len(groups) == 0 {
		return
	}
	// The table has a row per block size of the profile: a stage a quick
	// look left out shows empty.
	for _, tb := range b.res.Tables() {
		if tb.Name != "tp" {
			continue
		}
		for i, bs := range tb.RowBytes {
			rows = append(rows, []string{engine.FormatSize(bs), fmtMBps(tb.Values[i][0]), fmtMBps(tb.Values[i][1])})
		}
	}
	// A mix left out has no bars, rather than bars of zero.
	var ss []series
	for _, sr := range []series{read, write} {
		if slices.ContainsFunc(sr.ys, func(v float64) bool { return !math.IsNaN(v) }) {
			ss = append(ss, sr)
		}
	}
	b.add(&Page{Test: "Throughput", Title: "Tabular Data and Plot: MB/s by block size", Setup: lastSetup, Params: lastParams, Landmark: "tp-table",
		Blocks: []Block{
			Table{Caption: "Throughput in MB/s (10^6 bytes/s), average of each block size's measurement window",
				Head: []string{"Block size", "100/0 (read) MB/s", "0/100 (write) MB/s"}, Rows: rows},
			Chart{Caption: "Throughput by block size: sequential read and write", Plot: barPlot("Throughput", "MB/s", groups, ss),
				Summary: summarize(ss, fmtMBps)},
		}})
}

func (b *builder) latency(s matrix.StageResult) {
	b.stage(s)
	setup := b.setup(s)
	sizes, mixes := ranSizes(s, pts.LATBlockSizes), ranMixes(s, pts.LATMixes)
	params := b.params(s, "Latency loop: RND, "+loopCount(len(mixes), len(sizes)), mixList(mixes), sizeList(sizes))
	var art, mrt []series
	for _, bs := range pts.LATBlockSizes {
		c := cellAt(s, bs, 0)
		if c == nil {
			continue
		}
		name := "RND " + engine.FormatSize(bs) + " 0/100"
		art = append(art, roundSeriesOf(name, c, func(r matrix.RoundValue) float64 { return r.LatMeanMs }))
		mrt = append(mrt, roundSeriesOf(name, c, func(r matrix.RoundValue) float64 { return r.LatMaxMs }))
	}
	if s.Rounds > 0 && len(art) > 0 {
		b.add(&Page{Test: "Latency", Title: "Steady State Convergence Plots: average and maximum response time", Setup: setup, Params: params, Landmark: "lat-convergence",
			Blocks: []Block{
				Chart{Caption: "Average response time per round, RND 0/100, TC1/QD1", Plot: convergencePlot("Average response time (ART) per round", "ART (ms)", art, s.Window, false), Summary: summarize(art, fmtMs)},
				Chart{Caption: "Maximum response time per round, RND 0/100, TC1/QD1", Plot: convergencePlot("Maximum response time (MRT) per round", "MRT (ms)", mrt, s.Window, false), Summary: summarize(mrt, fmtMs)},
			}})
	}
	for _, t := range s.Tracking {
		b.add(b.windowPage("Latency", s, t, setup, params))
	}
	tables := map[string]matrix.Table{}
	for _, t := range b.res.Tables() {
		tables[t.Name] = t
	}
	var blocks []Block
	pct := pctLabel(s.Cells)
	if note := pctNote(s.Cells); note != "" {
		blocks = append(blocks, Paragraph{Lines: []string{note}})
	}
	for _, name := range []string{"lat_mean_ms", "lat_p99_999_ms", "lat_max_ms", "lat_max_mean_ms", "lat_iops"} {
		t := tables[name]
		f := fmtMs
		if t.Unit == "IOPS" {
			f = fmtIOPS
		}
		rows := [][]string{}
		for i, r := range t.Rows {
			row := []string{strings.Replace(r, "KiB", " KiB", 1)}
			for _, v := range t.Values[i] {
				row = append(row, f(v))
			}
			rows = append(rows, row)
		}
		how := t.Aggregate
		if name == "lat_p99_999_ms" { // a percentile of the window's I/Os: say of which latency, from what
			how = pct
		}
		caption := fmt.Sprintf("%s (%s): %s, rounds %d–%d (%s, %s)", t.Title, t.Unit, how, s.Window[0], s.Window[1],
			b.doc.Header.Spec, cacheShort(b.res.WriteCache))
		blocks = append(blocks, Table{Caption: caption, Head: append([]string{"Block size"}, t.Cols...), Rows: rows})
	}
	b.add(&Page{Test: "Latency", Title: "Tabular Data: ART, 99.999 % RT, MRT and IOPS", Setup: setup, Params: params, Landmark: "lat-table", Blocks: blocks})
	mean, maxT, p5 := tables["lat_mean_ms"], tables["lat_max_ms"], tables["lat_p99_999_ms"]
	b.add(&Page{Test: "Latency", Title: "Block size × R/W mix: average and maximum response time", Setup: setup, Params: params, Landmark: "lat-3d",
		Blocks: []Block{
			Matrix{Caption: "Average response time by block size × R/W mix", RowHead: "Block size", Rows: rowsLabels(mean), Cols: mean.Cols,
				Values: mean.Values, Unit: "ms", Format: fmtMs, LowIsGood: true},
			Matrix{Caption: "99.999 % response time by block size × R/W mix (" + pct + ")", RowHead: "Block size", Rows: rowsLabels(p5), Cols: p5.Cols,
				Values: p5.Values, Unit: "ms", Format: fmtMs, LowIsGood: true},
			Matrix{Caption: "Maximum response time by block size × R/W mix", RowHead: "Block size", Rows: rowsLabels(maxT), Cols: maxT.Cols,
				Values: maxT.Values, Unit: "ms", Format: fmtMs, LowIsGood: true},
		}})
	if c := cellAt(s, 4096, 0); c != nil && c.Hist != nil && c.Hist.Count() > 0 {
		title := "RND 4 KiB 0/100 TC1/QD1"
		hist, clp, sum := histogramPlots(title, c.Hist)
		b.add(&Page{Test: "Latency", Title: "Response Time Histogram – Confidence Level Plot", Setup: setup, Params: params, Landmark: "lat-histogram",
			Blocks: []Block{
				Paragraph{Lines: []string{fmt.Sprintf("%s, measurement window rounds %d–%d: %s IOPS, %s MB/s, average %s ms, maximum %s ms.",
					title, s.Window[0], s.Window[1], fmtIOPS(c.IOPS), fmtMBps(c.MBps), fmtMs(c.LatMeanMs), fmtMs(c.LatMaxMs))}},
				Chart{Caption: "Response-time histogram (I/Os per latency bin, log scales)", Plot: hist, Summary: sum},
				Chart{Caption: "Confidence level: share of I/Os at or under each response time", Plot: clp, Summary: sum},
			}})
	}
}

// pctLabel says what the cells' percentiles are: which latency, and from
// where; the cells' distinct labels, joined, when they differ.
func pctLabel(cells []matrix.CellResult) string {
	var labels []string
	for _, c := range cells {
		if c.LatPctSource == "" {
			continue
		}
		// Short: captions are one line; pctNote says the rest.
		what := "total latency"
		if c.LatPctLatency == engine.LatCompletion {
			what = "fio clat"
		}
		l := what + ", merged histograms"
		if c.LatPctSource == matrix.PctPrinted {
			l = what + " as fio printed it"
			if c.LatPctUpperBound {
				l += ", upper bound"
			}
		}
		if !slices.Contains(labels, l) {
			labels = append(labels, l)
		}
	}
	if len(labels) == 0 {
		return "none available"
	}
	return strings.Join(labels, "; ")
}

// pctNote explains percentiles that are not the PTS's (total latency from
// the measurement window's I/Os), or "" when they are.
func pctNote(cells []matrix.CellResult) string {
	var printed, clat bool
	for _, c := range cells {
		printed = printed || c.LatPctSource == matrix.PctPrinted
		clat = clat || c.LatPctLatency == engine.LatCompletion
	}
	var out []string
	if printed {
		out = append(out, "The fio output has no json+ histogram bins: the percentiles are those fio printed, per job and direction. "+
			"Percentiles cannot be merged; where a cell has several rounds, jobs or directions, its value is the largest of theirs, "+
			"an upper bound. A percentile fio did not print (see its percentile_list) is left empty, not interpolated.")
	}
	if clat {
		out = append(out, "fio gave percentiles of the completion latency only (clat, without submission; lat_percentiles=1 "+
			"gives those of the total latency, the PTS response time): they leave out the submission time.")
	}
	return strings.Join(out, " ")
}

func cacheShort(s string) string {
	switch s {
	case "enabled":
		return "WCE"
	case "disabled":
		return "WCD"
	case "none":
		return "no volatile write cache"
	}
	return "write cache unknown"
}

// --- appendix ---

func (b *builder) appendix() {
	b.warning = ""
	// A: the workload of every cell.
	rows := [][]string{}
	for _, st := range b.ri.Stages {
		for _, c := range st.Cells {
			w := c.Workload
			rows = append(rows, []string{st.Title, fmt.Sprint(c.Index + 1), c.Key.String(), w.String(),
				fmt.Sprintf("%g–%g %%", w.RangeStart, w.ActiveRange), time.Duration(w.Duration).String()})
		}
	}
	data := "Written data is incompressible random data, new for every write."
	if strings.HasPrefix(b.ri.Engine, "sim") {
		data = "The simulated drive models incompressible data."
	}
	intro := fmt.Sprintf("Every round runs these cells in this order, each for its time, over its active range of every target "+
		"(percent of capacity). %s Each cell's random address stream is seeded from the run seed (%d), the stage, the round "+
		"and the cell, so that a rerun repeats it exactly.", data, b.ri.Config.Seed)
	b.add(&Page{Title: "Appendix A: the workload of every cell", Landmark: "appendix-cells", Flow: true, Blocks: []Block{
		Paragraph{Lines: []string{intro}},
		Table{Caption: "Cells of every round, in loop order", Head: []string{"Stage", "Cell", "Key", "Workload", "Active range", "Time"},
			Widths: []float64{1.2, 0.45, 1.25, 2.2, 0.8, 0.5}, Align: "LRLLRR", Small: true, Rows: rows}}})
	b.fioJobs()
	if b.ri.Workload {
		return // no purge, no preconditioning, no rounds: B and C would be empty
	}
	// B: purge and preconditioning.
	var lines []string
	for _, t := range b.res.Tests {
		for _, s := range t.Stages {
			if p := s.Purge; p != nil {
				lines = append(lines, fmt.Sprintf("%s — purge %s (%s), %s", s.Title, p.Method, compliance(p.Compliant, p.Skipped),
					p.Duration.Round(time.Millisecond)))
				if p.Note != "" {
					lines = append(lines, "    note: "+p.Note)
				}
				if len(p.Erased) > 0 {
					lines = append(lines, "    controller-wide: it erased every namespace of the controller: "+strings.Join(p.Erased, ", "))
				}
				if p.Verified != "" {
					lines = append(lines, "    check: "+p.Verified)
				}
				for _, c := range p.Commands {
					lines = append(lines, fmt.Sprintf("    $ %s   → exit %d in %s; %s", strings.Join(c.Args, " "), c.Exit,
						c.Duration.Round(time.Millisecond), oneLine(c.Output)))
				}
			}
			if pc := s.Precondition; pc != nil {
				lines = append(lines, fmt.Sprintf("%s — preconditioning %s: %.1f GB written in %s (%s MB/s)", s.Title, pc.Workload.String(),
					float64(pc.Bytes)/1e9, durationLabel(pc.Seconds), fmtMBps(pc.MBps)))
			}
			if s.Error != "" {
				lines = append(lines, fmt.Sprintf("%s — stopped by an error: %s", s.Title, s.Error))
			}
		}
	}
	if len(lines) == 0 {
		lines = []string{"Nothing to report."}
	}
	b.add(&Page{Title: "Appendix B: purge and preconditioning, with every command", Landmark: "appendix-purge", Flow: true,
		Blocks: []Block{Paragraph{Lines: lines, Mono: true, Size: 6.5}}})
	// C: tracking variables per round.
	var blocks []Block
	for _, t := range b.res.Tests {
		for _, s := range t.Stages {
			head := []string{"Round"}
			var vars []steadystate.Series
			for _, tr := range s.Tracking {
				head = append(head, tr.Name)
				vars = append(vars, steadystate.Series{Name: tr.Name, Values: tr.Values})
			}
			head = append(head, "Window ending here")
			crit := b.ri.Config.SS
			rows := [][]string{}
			for r := 0; r < s.Rounds; r++ {
				row := []string{fmt.Sprint(r + 1)}
				for _, tr := range s.Tracking {
					v := math.NaN()
					if r < len(tr.Values) {
						v = tr.Values[r]
					}
					row = append(row, fmtValue(tr.Unit, v))
				}
				if r+1 >= s.Window[0] && r+1 <= s.Window[1] {
					row[0] += " (window)"
				}
				row = append(row, windowCheck(crit, vars, r+1))
				rows = append(rows, row)
			}
			widths := []float64{0.7}
			for range s.Tracking {
				widths = append(widths, 1.1)
			}
			widths = append(widths, 2)
			blocks = append(blocks, Table{Caption: s.Title + ": tracking variables in every round", Head: head, Rows: rows,
				Widths: widths, Small: true, Align: "L" + strings.Repeat("R", len(s.Tracking)) + "L"})
		}
	}
	b.add(&Page{Title: "Appendix C: tracking variables per round", Landmark: "appendix-tracking", Flow: true, Blocks: blocks})
}

// windowCheck is the steady-state rule applied to the window that ends at
// round, in words.
func windowCheck(c steadystate.Criteria, vars []steadystate.Series, round int) string {
	if len(vars) == 0 {
		return "–"
	}
	if round < c.Window {
		return fmt.Sprintf("(%d of %d rounds)", round, c.Window)
	}
	j := c.CheckAllAt(vars, round)
	if j.Steady {
		return "steady"
	}
	var why []string
	for i, v := range j.Verdicts {
		if v.Steady || v.Average == 0 {
			continue
		}
		name := ""
		if len(vars) > 1 { // the tracking variable's workload, short: "4 KiB 0/100"
			f := strings.Fields(vars[i].Name)
			if len(f) > 2 && (f[1] == "RND" || f[1] == "SEQ") {
				f = f[2:]
			}
			name = strings.Join(f, " ") + ": "
		}
		var parts []string
		if !v.RangeOK {
			parts = append(parts, fmt.Sprintf("range %.1f %% > %g %%", 100*v.Range/v.Average, 100*c.MaxRange))
		}
		if !v.SlopeOK {
			parts = append(parts, fmt.Sprintf("slope %.1f %% > %g %%", 100*v.SlopeExcursion/v.Average, 100*c.MaxSlope))
		}
		why = append(why, name+strings.Join(parts, ", "))
	}
	if len(why) == 0 {
		return "not steady: " + j.Reason
	}
	return strings.Join(why, "; ")
}

func compliance(ok, skipped bool) string {
	switch {
	case skipped:
		return "skipped: a deviation"
	case ok:
		return "a PTS purge"
	}
	return "a substitute, NOT a PTS purge"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 110 {
		s = string(r[:110]) + "…"
	}
	if s == "" {
		return "no output"
	}
	return "output: " + s
}

// fioJobs shows one fio job file per stage when fio ran (every cell's is in
// the run directory's fio folder).
func (b *builder) fioJobs() {
	if b.opt.Dir == "" || !strings.HasPrefix(b.ri.Engine, "fio") {
		return
	}
	for _, st := range b.ri.Stages {
		matches, _ := filepath.Glob(filepath.Join(b.opt.Dir, "fio", st.ID+"-r01-c01-*.fio"))
		sort.Strings(matches)
		if len(matches) == 0 {
			continue
		}
		data, err := os.ReadFile(matches[0])
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		lines = append([]string{"# " + filepath.Base(matches[0]) + " — every cell's job file is in fio/ beside run.json"}, lines...)
		b.add(&Page{Title: "Appendix A: fio job file, " + st.Title + ", round 1, cell 1", Landmark: "appendix-fio", Flow: true,
			Blocks: []Block{Paragraph{Lines: lines, Mono: true, Size: 6.5}}})
	}
}

// custom lists imported workloads that are not PTS cells, with what they
// measured.
func (b *builder) custom(s matrix.StageResult) {
	b.warning = ""
	rows := [][]string{}
	for _, c := range s.Cells {
		if !c.Present() {
			continue
		}
		row := []string{c.Key.String()}
		for _, m := range pts.CustomTest.Tables[0].Columns {
			v, _ := c.Value(m)
			row = append(row, m.Format(v))
		}
		rows = append(rows, row)
	}
	if b.ri.Workload {
		b.workload(s)
		return
	}
	lines := []string{"These imported results ran workloads outside the PTS matrices. They are shown as measured, " +
		fmt.Sprintf("averaged over rounds %d–%d, and take no part in any steady-state verdict.", s.Window[0], s.Window[1])}
	if note := pctNote(s.Cells); note != "" {
		lines = append(lines, note)
	}
	b.add(&Page{Test: "Custom", Title: "Workloads that are not PTS cells", Landmark: "custom", Flow: true, Blocks: []Block{
		Paragraph{Lines: lines},
		Table{Caption: "Custom workloads (99.999 %: " + pctLabel(s.Cells) + ")", Head: []string{"Workload", "IOPS", "MB/s", "Average ms", "99.999 % ms", "Maximum ms"},
			Widths: []float64{4.2, 1, 1, 1, 1, 1}, Align: "LRRRRR", Rows: rows, Small: true},
	}})
}

// testOf is the test a stage belongs to.
func (b *builder) testOf(s matrix.StageResult) pts.TestID {
	for _, t := range b.res.Tests {
		for _, x := range t.Stages {
			if x.ID == s.ID {
				return t.Test
			}
		}
	}
	return ""
}

// activeRanges names each test's active range and the preconditioning's.
func (b *builder) activeRanges() string {
	var parts []string
	for _, td := range pts.Tests {
		for _, st := range b.ri.Stages {
			if st.Test == td.ID && len(st.Cells) > 0 {
				parts = append(parts, fmt.Sprintf("%s %g %%", strings.ToUpper(string(td.ID)), st.Cells[0].Workload.ActiveRange))
				break
			}
		}
	}
	return strings.Join(append(parts, fmt.Sprintf("PC %g %%", b.ri.Config.PCActiveRange)), ", ")
}
