package pdfreport

import (
	"fmt"
	"strings"

	"github.com/ptsrun/ptsrun/internal/matrix"
)

// FioRun is what the report shows of a `ptsrun fio` run that its results
// do not hold: the job files as they ran, what the gate made of them, the
// fio command lines, and fio's own figures per job. The caller reads it
// from the run directory (pdfreport reads no files).
type FioRun struct {
	JobFiles []JobFile // the job files and the files they include, as they ran
	Commands []string  // the fio command lines, one per job file
	Targets  []FioTarget
	Notes    []string // what the gate reported, and where the logs are
	Groups   []FioGroup
}

// FioTarget is a file or device the jobs used, and the gate's verdict.
type FioTarget struct {
	Path, Kind, Use, Verdict string
}

// FioGroup is a reporting group of the job files: a cell of the run.
type FioGroup struct {
	Cell    int    // index of its cell in the run's one stage
	Name    string // its cell's name
	JobFile string
	Jobs    []FioJob
	// Series says where its per-second figures come from, or why it has
	// none.
	Series string
}

// FioJob is one job of fio's output: a thread, or the threads fio reports
// as one (group_reporting), with fio's figures.
type FioJob struct {
	Name    string
	Host    string
	Threads int
	Targets string
	// Per direction, as fio reports them: IOPS, MB/s, mean latency.
	ReadIOPS, WriteIOPS, MBps, LatMeanMs float64
	RuntimeS                             float64
}

// fioGroups are the pages of a `ptsrun fio` run: one per reporting group,
// with its figures, its jobs and targets, and its time series.
func (b *builder) fioGroups(s matrix.StageResult) {
	run := b.opt.Fio
	for _, g := range run.Groups {
		if g.Cell < 0 || g.Cell >= len(s.Cells) || !s.Cells[g.Cell].Present() {
			continue
		}
		c := &s.Cells[g.Cell]
		w := b.ri.Stages[0].Cells[g.Cell].Workload
		threads := 0
		var names []string
		for _, j := range g.Jobs {
			threads += j.Threads
			if !contains(names, j.Name) {
				names = append(names, j.Name)
			}
		}
		lines := []string{fmt.Sprintf("Reporting group %d of the job files: jobs %s of %s, %d threads, ran for %s. "+
			"The job file ran as written; the appendix has it, and what the safety gate made of it. "+
			"The figures are fio's, from its json+ output: every job's I/Os, bytes and latency histogram added up, "+
			"rates over the group's longest job.", g.Cell+1, strings.Join(names, ", "), g.JobFile, threads, durationLabel(w.Duration.Seconds()))}
		if g.Series != "" {
			lines = append(lines, g.Series)
		}
		blocks := []Block{Paragraph{Lines: lines}}
		rows := [][]string{}
		if c.ReadIOPS > 0 {
			rows = append(rows, []string{"read", fmtIOPS(c.ReadIOPS), fmtMBps(c.ReadMBps), fmtMs(c.ReadLatMeanMs)})
		}
		if c.WriteIOPS > 0 {
			rows = append(rows, []string{"write", fmtIOPS(c.WriteIOPS), fmtMBps(c.WriteMBps), fmtMs(c.WriteLatMean)})
		}
		rows = append(rows, []string{"total", fmtIOPS(c.IOPS), fmtMBps(c.MBps), fmtMs(c.LatMeanMs)})
		blocks = append(blocks,
			Table{Caption: "The group, per direction", Head: []string{"Direction", "IOPS", "MB/s", "Average ms"}, Rows: rows},
			Table{Caption: "Response times of every I/O of the group (ms; percentiles: " + pctLabel([]matrix.CellResult{*c}) + ")",
				Head: []string{"99 %", "99.99 %", "99.999 %", "Maximum"},
				Rows: [][]string{{fmtMs(c.LatP99Ms), fmtMs(c.LatP9999Ms), fmtMs(c.LatP99999Ms), fmtMs(c.LatMaxMs)}}})
		var jrows [][]string
		for _, j := range g.Jobs {
			name := j.Name
			if j.Threads > 1 {
				name += fmt.Sprintf(" (%d threads)", j.Threads)
			}
			if j.Host != "" {
				name += " on " + j.Host
			}
			jrows = append(jrows, []string{name, j.Targets, fmtIOPS(j.ReadIOPS), fmtIOPS(j.WriteIOPS), fmtMBps(j.MBps), fmtMs(j.LatMeanMs),
				fmt.Sprintf("%.3f", j.RuntimeS)})
		}
		blocks = append(blocks, Table{Caption: "Every job as fio reports it (IOPS and MB/s over the job's own run time)",
			Head:   []string{"Job", "Targets", "Read IOPS", "Write IOPS", "MB/s", "Average ms", "Run time s"},
			Widths: []float64{1.4, 2.2, 1, 1, 0.9, 0.9, 0.8}, Align: "LLRRRRR", Small: true, Rows: jrows})
		if len(c.Targets) > 0 {
			var trows [][]string
			for _, t := range c.Targets {
				trows = append(trows, []string{t.TargetName(), fmtIOPS(t.IOPS), fmtMBps(t.MBps), fmtMs(t.LatMeanMs), fmtMs(t.LatMaxMs)})
			}
			blocks = append(blocks, Table{Caption: "Every target of the group (its jobs added up, rates over the group's time)",
				Head: []string{"Target", "IOPS", "MB/s", "Average ms", "Maximum ms"}, Widths: []float64{3, 1, 1, 1, 1},
				Align: "LRRRR", Small: true, Rows: trows})
		}
		group := fmt.Sprintf("group %d", g.Cell+1)
		blocks = append(blocks, seriesCharts(group, group, "fio-seconds.csv", w, lastSeries(c))...)
		b.add(&Page{Test: "fio", Title: fmt.Sprintf("Group %d: %s", g.Cell+1, g.Name), Landmark: "fio-group", Flow: true,
			Setup: []KV{{"Recorded by", "ptsrun fio"}, {"Job file", g.JobFile}, {"Purge, PC", "none (outside the PTS)"}},
			Params: []KV{{"Group", fmt.Sprint(g.Cell + 1)}, {"Jobs", strings.Join(names, ", ")}, {"Threads", fmt.Sprint(threads)},
				{"Time", durationLabel(w.Duration.Seconds())}},
			Blocks: blocks})
	}
}

// fioParams are the Test Parameters of a `ptsrun fio` run's pages.
func (b *builder) fioParams() []KV {
	var files []string
	for _, jf := range b.opt.Fio.JobFiles {
		if !strings.Contains(jf.Name, " (included by ") {
			files = append(files, jf.Name)
		}
	}
	return []KV{{"Job files", strings.Join(files, ", ")}, {"Groups", fmt.Sprint(len(b.opt.Fio.Groups))},
		{"Targets", fmt.Sprint(len(b.opt.Fio.Targets))}}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fioAppendix shows a `ptsrun fio` run's job files as they ran, the
// gate's verdict on every target and the fio command lines.
func (b *builder) fioAppendix() {
	run := b.opt.Fio
	if run == nil {
		return
	}
	var rows [][]string
	for _, t := range run.Targets {
		rows = append(rows, []string{t.Path, t.Kind, t.Use, t.Verdict})
	}
	blocks := []Block{Paragraph{Lines: []string{"The safety gate read the job files the way fio does and judged every file and device " +
		"their jobs use: a block device written passes the checks of a PTS run and must be named by --destroy-data; " +
		"what it cannot resolve for a job that writes, it refuses. These are the targets it found and its verdicts."}},
		Table{Caption: "Targets of the job files and the gate's verdicts", Head: []string{"Target", "Kind", "Use", "Verdict"},
			Widths: []float64{1.6, 0.8, 2.4, 1.6}, Align: "LLLL", Small: true, Rows: rows}}
	var lines []string
	for _, c := range run.Commands {
		lines = append(lines, "$ "+c)
	}
	lines = append(lines, "")
	lines = append(lines, run.Notes...)
	blocks = append(blocks, Paragraph{Lines: lines, Mono: true, Size: 6.5})
	b.add(&Page{Title: "Appendix: the safety gate's verdicts and the fio command lines", Landmark: "appendix-fio-gate", Flow: true, Blocks: blocks})
	for _, jf := range run.JobFiles {
		lines := append([]string{"# " + jf.Name}, strings.Split(strings.TrimRight(jf.Text, "\n"), "\n")...)
		b.add(&Page{Title: "Appendix: fio job file " + jf.Name, Landmark: "appendix-fio-jobfile", Flow: true,
			Blocks: []Block{Paragraph{Lines: lines, Mono: true, Size: 6.5}}})
	}
}
