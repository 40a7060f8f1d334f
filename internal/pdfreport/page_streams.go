package pdfreport

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/streams"
)

// The pages of a capture's characterisation (package streams), after the
// SNIA RWSW method: the I/O stream map (each top stream's share of each
// stretch of the capture's time, shaded), the demand intensity and IOPS
// over time, and the cumulative table of the streams. The rwsw test's
// report and `ptsrun streams --pdf` draw them, from the one report.

// mapColumns is the most columns the stream map has: steps beyond it are
// merged, each column their I/Os together.
const mapColumns = 16

// streamPages are the pages of rep, of the capture named name.
func streamPages(test, name string, rep *streams.Report, setup, params []KV) []*Page {
	if setup == nil {
		setup = captureSetup(name, rep)
	}
	if params == nil {
		params = captureParams(rep)
	}
	var out []*Page
	page := func(title, landmark string, blocks ...Block) {
		out = append(out, &Page{Test: test, Title: title, Setup: setup, Params: params, Landmark: landmark, Blocks: blocks})
	}
	page("I/O Stream Map", "streams-map", streamMap(rep), Paragraph{Lines: []string{
		"Streams are (random or sequential, transfer size, direction), " + rep.Method + ".",
		"Sequential rule: " + rep.SequentialRule + ".",
	}})
	page("Demand Intensity and IOPS over time", "streams-demand", demandCharts(rep)...)
	t := &rep.Totals
	rows := [][]string{}
	applied := map[string]float64{}
	for _, w := range rep.Workload.Streams {
		applied[w.Stream] = w.Share
	}
	for i, s := range rep.Streams {
		if i == 2*streams.WorkloadStreams {
			rows = append(rows, []string{"…", fmt.Sprintf("%d more streams", len(rep.Streams)-i), "", "", "", ""})
			break
		}
		a := "–"
		if v, ok := applied[s.Stream]; ok {
			a = fmtShare(v)
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), s.Stream, fmtNum(float64(s.IOs)), fmtShare(s.Share), fmtShare(s.Cumulative), a})
	}
	lines := []string{fmt.Sprintf("%s I/Os, %s %% reads, %s %% sequential, %d streams over %s.", fmtNum(float64(t.IOs)),
		fmtShare(t.ReadPct), fmtShare(t.SequentialPct), t.Streams, fmtSeconds(t.Duration)),
		fmt.Sprintf("The top %d streams hold %s %% of the I/Os; the applied test workload is the top %d, %s %% of them, renormalised to 100 %%.",
			rep.Top, fmtShare(rep.TopShare), len(rep.Workload.Streams), fmtShare(rep.Workload.Covered))}
	page("Cumulative Streams", "streams-table",
		Table{Caption: "The capture's streams, most I/Os first, with their cumulative share and their share of the applied test workload",
			Head: []string{"#", "Stream", "I/Os", "share %", "cumulative %", "applied %"}, Widths: []float64{0.5, 2.2, 1.2, 1, 1.2, 1},
			Align: "RLRRRR", Rows: rows},
		Paragraph{Lines: lines})
	return out
}

// streamMap is the stream map: the top streams (rows) over the capture's
// time (columns), each cell the stream's share of that time's I/Os.
func streamMap(rep *streams.Report) Block {
	steps := rep.Steps
	cols := min(len(steps), mapColumns)
	unit := timeUnitOf(rep)
	m := Matrix{Caption: fmt.Sprintf("I/O stream map: each top stream's share of the I/Os of each stretch of the capture (%s)", mapStretch(rep, cols, unit)),
		RowHead: "Stream", Corner: "Stream \\ time", Unit: "% of I/Os", Format: fmtShare, LabelWidth: 34}
	for _, s := range rep.Streams[:rep.Top] {
		m.Rows = append(m.Rows, s.Stream)
	}
	m.Rows = append(m.Rows, "other")
	m.Values = make([][]float64, len(m.Rows))
	for c := 0; c < cols; c++ {
		lo, hi := c*len(steps)/cols, (c+1)*len(steps)/cols
		ios := 0
		sums := make([]float64, len(m.Rows))
		for _, st := range steps[lo:hi] {
			ios += st.IOs
			for k, v := range st.Shares {
				sums[k] += v * float64(st.IOs)
			}
			sums[len(sums)-1] += st.Other * float64(st.IOs)
		}
		m.Cols = append(m.Cols, fmtNum(steps[lo].Start/unit.div))
		for k := range m.Rows {
			v := math.NaN()
			if ios > 0 {
				v = sums[k] / float64(ios)
			}
			m.Values[k] = append(m.Values[k], v)
		}
	}
	return m
}

// mapStretch says what a column of the map is.
func mapStretch(rep *streams.Report, cols int, u timeUnit) string {
	if !rep.Timed || len(rep.Steps) <= 1 {
		return "the capture as a whole: it has one step"
	}
	per := (len(rep.Steps) + cols - 1) / cols
	return fmt.Sprintf("a column per %s, headed by its start in %s", fmtSeconds(float64(per)*rep.Step), u.name)
}

// timeUnit is the unit a capture's time is drawn in.
type timeUnit struct {
	div  float64 // seconds per unit
	name string  // "ms", "seconds", "minutes"
	axis string
}

func timeUnitOf(rep *streams.Report) timeUnit {
	switch d := rep.Totals.Duration; {
	case d < 2:
		return timeUnit{1e-3, "ms", "Millisecond"}
	case d < 600:
		return timeUnit{1, "seconds", "Second"}
	}
	return timeUnit{60, "minutes", "Minute"}
}

// demandCharts are the demand intensity and the IOPS step by step.
func demandCharts(rep *streams.Report) []Block {
	var di, iops series
	di.name, iops.name = "demand intensity", "IOPS"
	unit := timeUnitOf(rep)
	for _, st := range rep.Steps {
		x := (st.Start + st.End) / 2 / unit.div
		if st.DemandIntensity != nil {
			di.xs, di.ys = append(di.xs, x), append(di.ys, *st.DemandIntensity)
		}
		if st.IOPS != nil {
			iops.xs, iops.ys = append(iops.xs, x), append(iops.ys, *st.IOPS)
		}
	}
	var out []Block
	src := rep.Totals.DemandSource
	if len(di.xs) > 0 {
		mean := "–"
		if rep.Totals.DemandIntensity != nil {
			mean = fmtNum(*rep.Totals.DemandIntensity)
		}
		out = append(out, Chart{Caption: "Demand intensity per step (mean I/Os outstanding); " + mean + " over the capture",
			Plot: linePlot("Demand intensity per step", unit.axis, "Outstanding I/O", []series{di}, false), Height: 90,
			Summary: di.summary(fmtNum)}, Paragraph{Lines: []string{"Demand intensity " + src + "."}})
	} else {
		out = append(out, Paragraph{Lines: []string{"No demand intensity: " + src + "."}})
	}
	if len(iops.xs) > 0 {
		out = append(out, Chart{Caption: "IOPS per step (the capture's I/Os over the step's time)",
			Plot: linePlot("IOPS per step", unit.axis, "IOPS", []series{iops}, false), Height: 90, Summary: iops.summary(fmtIOPS)})
	} else {
		out = append(out, Paragraph{Lines: []string{"No IOPS over time: the capture has no times."}})
	}
	return out
}

// captureSetup and captureParams are the header columns of a capture's
// pages outside a run.
func captureSetup(name string, rep *streams.Report) []KV {
	var devs []string
	for _, d := range rep.Devices {
		devs = append(devs, fmt.Sprintf("%s (%d I/Os)", d.Device, d.IOs))
	}
	return []KV{{"Capture", name}, {"Format", string(rep.Format)}, {"Devices", strings.Join(devs, ", ")}, {"Characterised", rep.Device}}
}

func captureParams(rep *streams.Report) []KV {
	step := "–"
	if rep.Timed {
		step = fmtSeconds(rep.Step)
	}
	return []KV{{"Method", rep.Method}, {"Step", step}, {"Top streams", strconv.Itoa(rep.Top)},
		{"Applied workload", fmt.Sprintf("%d streams, %s %% of the I/Os", len(rep.Workload.Streams), fmtShare(rep.Workload.Covered))}}
}

// fmtShare writes a percentage share: "27.83".
func fmtShare(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// fmtSeconds writes a length of time in seconds: "5m0s", "1.5s".
func fmtSeconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

// StreamsDoc is the report of a capture's characterisation alone: what
// `ptsrun streams CAPTURE --pdf FILE` writes.
func StreamsDoc(rep *streams.Report, name, paperSize string) *Doc {
	paper := "A4"
	if strings.EqualFold(paperSize, "letter") {
		paper = "Letter"
	}
	d := &Doc{Paper: paper, Kind: "I/O Streams of a Capture",
		Footer: "ptsrun — a capture characterised into I/O streams " + rep.Method + "; rebuild it with `ptsrun streams --pdf`"}
	h := &d.Header
	h.Spec = "RWSW method"
	h.Vendor, h.Model = "capture", name
	h.TestedBy, h.Lab = stated(""), stated("")
	h.Start, h.Finish = "–", "–"
	h.Platform = []KV{{"Source", string(rep.Format)}}
	h.Device = []KV{{"Device", rep.Device}}
	d.Pages = streamPages("", name, rep, nil, nil)
	return d
}

// RenderStreams writes StreamsDoc as PDF.
func RenderStreams(w io.Writer, rep *streams.Report, name, paperSize string) error {
	return StreamsDoc(rep, name, paperSize).Render(w, time.Unix(0, 0).UTC())
}
