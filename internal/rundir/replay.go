package rundir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pdfreport"
	"github.com/ptsrun/ptsrun/internal/pts"
	"github.com/ptsrun/ptsrun/internal/replay"
)

// ReplayFile is `ptsrun replay`'s record: what was replayed, on what, the
// fidelity figures, the totals and the per-second series (replay.Result);
// beside it seconds.csv (the replay's and the capture's series, a
// "source" column telling them apart) and report.pdf.
const ReplayFile = "replay.json"

// ReplayRecord is replay.json.
type ReplayRecord struct {
	Version  string          `json:"ptsrun_version"`
	Started  time.Time       `json:"started"`
	Finished time.Time       `json:"finished"`
	Identity device.Identity `json:"target_identity"`
	Error    string          `json:"error,omitempty"`
	*replay.Result
}

// Replay runs the prepared replay into the new run directory dir (--out;
// "" for ./ptsrun-replay-TIME): made as CheckNew allows, locked while it runs; replay.json,
// seconds.csv and report.pdf written atomically once it has run. A
// replay cut short by an I/O error or a signal still records what it
// measured, and returns the error; one that measured nothing leaves no
// directory behind.
func Replay(ctx context.Context, p *replay.Prepared, out, version string) (*ReplayRecord, []string, error) {
	if out == "" {
		out = "ptsrun-replay-" + time.Now().Format("20060102-150405")
	}
	dir, err := device.AbsPath(out)
	if err != nil {
		return nil, nil, fmt.Errorf("--out: %w", err)
	}
	if err := p.Plan.CheckRunDir(dir); err != nil {
		return nil, nil, err
	}
	undo, err := Make(dir)
	if err != nil {
		return nil, nil, err
	}
	lock, err := TakeLock(dir, "replay")
	if err != nil {
		undo()
		return nil, nil, err
	}
	defer lock.Release()
	rec := &ReplayRecord{Version: version, Started: time.Now().UTC(), Identity: p.Plan.Identities[0]}
	res, runErr := p.Run(ctx, dir)
	if res == nil {
		lock.Release()
		undo()
		return nil, nil, runErr
	}
	rec.Finished, rec.Result = time.Now().UTC(), res
	if runErr != nil {
		rec.Error = runErr.Error()
	}
	files, err := writeReplay(dir, rec)
	return rec, files, errors.Join(runErr, err)
}

func writeReplay(dir string, rec *ReplayRecord) ([]string, error) {
	if err := writeJSON(filepath.Join(dir, ReplayFile), rec); err != nil {
		return nil, err
	}
	r := rec.Result
	replayed, captured := replaySeries(r.ReplaySeries), replaySeries(r.CaptureSeries)
	var buf bytes.Buffer
	if err := matrix.WriteSeriesCSV(&buf, []string{"source"}, []matrix.SeriesPart{
		{Lead: []string{"replay"}, Series: replayed}, {Lead: []string{"capture"}, Series: captured}}); err != nil {
		return nil, err
	}
	if err := pts.WriteFileAtomic(filepath.Join(dir, SecondsFile), buf.Bytes()); err != nil {
		return nil, err
	}
	doc := pdfreport.ReplayDoc(replayPage(rec, replayed, captured), "A4")
	var pdf bytes.Buffer
	if err := doc.Render(&pdf, rec.Started); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if err := pts.WriteFileAtomic(filepath.Join(dir, ReportFile), pdf.Bytes()); err != nil {
		return nil, err
	}
	var files []string
	for _, f := range []string{ReplayFile, SecondsFile, ReportFile} {
		files = append(files, filepath.Join(dir, f))
	}
	return files, nil
}

// replaySeries is a per-second series as the CSV writer and the report
// take it.
func replaySeries(secs []engine.Second) []matrix.Interval {
	n := time.Duration(len(secs)) * time.Second
	return matrix.SeriesOf(engine.Workload{Duration: n, Interval: time.Second}, &engine.Measurement{Seconds: secs})
}

func replayPage(rec *ReplayRecord, replayed, captured []matrix.Interval) pdfreport.Replay {
	r := rec.Result
	f := r.Fidelity
	msf := func(v float64) string { return pts.FormatMs(v) + " ms" }
	delayed := "unknown to the engine"
	if f.Delayed != nil {
		delayed = fmt.Sprintf("%d of %d", *f.Delayed, r.Totals.Scheduled)
	}
	res := "the engine's clock (ns)"
	if f.ResolutionMs > 0 {
		res = msf(f.ResolutionMs)
	}
	own := "unknown to the engine"
	if f.OwnP99Ms != nil {
		own = msf(*f.OwnP50Ms) + ", " + msf(*f.OwnP99Ms) + ", " + msf(*f.OwnMaxMs)
	}
	capLat := "none (no completions)"
	if r.Capture.LatMeanMs != nil {
		capLat = msf(*r.Capture.LatMeanMs)
	}
	p := pdfreport.Replay{Start: rec.Started, Finish: rec.Finished, Target: rec.Identity.Label(), Engine: r.Engine,
		Capture: fmt.Sprintf("%s (%s, device %s): %d I/Os, %.3f s, %s IOPS", r.Capture.File, r.Capture.Format, r.Capture.Device, r.Capture.IOs, r.Capture.DurationS, pts.FormatIOPS(r.Capture.IOPS)),
		Setup: []pdfreport.KV{{K: "Speed", V: fmt.Sprintf("× %g", r.Speed)}, {K: "Slots", V: fmt.Sprint(r.Depth)},
			{K: "Capture I/Os", V: fmt.Sprint(r.Capture.IOs)}},
		Params: []pdfreport.KV{{K: "Lateness p99", V: msf(f.LatenessP99Ms)}, {K: "Delayed", V: delayed},
			{K: "I/Os completed", V: fmt.Sprint(r.Totals.Completed)}},
		Replayed: replayed, Captured: captured, CapturedLatency: r.Capture.LatMeanMs != nil,
		Fidelity: []pdfreport.KV{
			{K: "Lateness p50", V: msf(f.LatenessP50Ms)}, {K: "Lateness p99", V: msf(f.LatenessP99Ms)}, {K: "Lateness max", V: msf(f.LatenessMaxMs)},
			{K: "Lateness of the I/Os not delayed: p50, p99, max", V: own},
			{K: "Issue times to", V: res}, {K: "Delayed by the target", V: delayed},
			{K: "I/Os scheduled, issued, completed", V: fmt.Sprintf("%d, %d, %d (the capture: %d)", r.Totals.Scheduled, r.Totals.Issued, r.Totals.Completed, r.Capture.IOs)},
			{K: "Replay IOPS, mean response time", V: fmt.Sprintf("%s IOPS over %.1f s, %s", pts.FormatIOPS(r.Totals.IOPS), r.Totals.ElapsedS, msf(r.Totals.LatMeanMs))},
			{K: "Capture mean response time", V: capLat},
		},
		Notes: []string{"Slots: " + r.DepthRule + ".", "Offsets: " + r.Mapping + ".",
			"Lateness: " + f.LatenessRule + ".", "Delayed: " + f.DelayedRule + "."}}
	if f.Note != "" {
		p.Notes = append(p.Notes, f.Note+".")
	}
	if r.CPUIdle != nil {
		p.CPUIdle = r.CPUIdle.Label()
	}
	if rec.Error != "" {
		p.Notes = append(p.Notes, "The replay stopped early: "+rec.Error)
	}
	return p
}

// Print writes the replay's figures for people, and the files written.
func (rec *ReplayRecord) Print(w io.Writer, files []string) {
	if rec == nil {
		return
	}
	r := rec.Result
	f := r.Fidelity
	fmt.Fprintf(w, "Replayed %s (%d I/Os over %.3f s) on %s with %s, ×%g, %d slots\n", r.Capture.File, r.Capture.IOs, r.Capture.DurationS,
		r.Target, r.Engine, r.Speed, r.Depth)
	fmt.Fprintf(w, "  I/Os: %d scheduled, %d issued, %d completed; %s IOPS, mean response time %s ms\n",
		r.Totals.Scheduled, r.Totals.Issued, r.Totals.Completed, pts.FormatIOPS(r.Totals.IOPS), pts.FormatMs(r.Totals.LatMeanMs))
	delayed := "unknown"
	if f.Delayed != nil {
		delayed = fmt.Sprint(*f.Delayed)
	}
	fmt.Fprintf(w, "  issue lateness: p50 %s ms, p99 %s ms, max %s ms; delayed by the target: %s\n",
		pts.FormatMs(f.LatenessP50Ms), pts.FormatMs(f.LatenessP99Ms), pts.FormatMs(f.LatenessMaxMs), delayed)
	if f.OwnP99Ms != nil {
		fmt.Fprintf(w, "  lateness of the I/Os not delayed: p50 %s ms, p99 %s ms, max %s ms\n",
			pts.FormatMs(*f.OwnP50Ms), pts.FormatMs(*f.OwnP99Ms), pts.FormatMs(*f.OwnMaxMs))
	}
	if f.Note != "" {
		fmt.Fprintf(w, "  (%s)\n", f.Note)
	}
	for _, file := range files {
		fmt.Fprintf(w, "  wrote %s\n", file)
	}
}
