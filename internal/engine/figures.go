package engine

import (
	"strconv"
	"time"
)

// Figures are one direction's figures over a measurement, in the units
// people read (field names carry them): what workload.json and
// vdbench.json write of a workload's reads, writes and both, and
// fio-run.json of each job fio reports. An interval of a time series has
// its own view (matrix.Interval), whose latencies an engine may not know.
type Figures struct {
	IOs   int64 `json:"ios"`
	Bytes int64 `json:"bytes"`
	// RuntimeMs is the direction's run time as fio reports it for a job;
	// 0 (left out) elsewhere.
	RuntimeMs float64 `json:"runtime_ms,omitempty"`
	IOPS      float64 `json:"iops"`
	// FioIOPS is fio's own IOPS of a job, beside IOPS: ptsrun's reading,
	// the I/Os over RuntimeMs.
	FioIOPS   float64 `json:"fio_iops,omitempty"`
	MBps      float64 `json:"mbps"`
	LatMeanMs float64 `json:"lat_mean_ms"`
	LatMinMs  float64 `json:"lat_min_ms,omitempty"`
	LatMaxMs  float64 `json:"lat_max_ms,omitempty"`
	// Percentiles are the response times at FigurePercentiles, from the
	// histogram, keyed "99.999".
	Percentiles map[string]float64 `json:"lat_percentiles_ms,omitempty"`
}

// FigurePercentiles are the percentiles Figures of a measurement give.
var FigurePercentiles = []float64{50, 90, 99, 99.9, 99.99, 99.999}

// FiguresOf is d's figures over elapsed, its percentiles those of
// FigurePercentiles.
func FiguresOf(d DirStats, elapsed time.Duration) Figures {
	f := Figures{IOs: d.IOs, Bytes: d.Bytes, IOPS: d.IOPS(elapsed), MBps: d.MBps(elapsed), LatMeanMs: d.MeanLatNs() / 1e6,
		LatMinMs: float64(d.LatMinNs) / 1e6, LatMaxMs: float64(d.LatMaxNs) / 1e6}
	if d.IOs > 0 {
		f.Percentiles = map[string]float64{}
		for _, p := range FigurePercentiles {
			f.Percentiles[strconv.FormatFloat(p, 'f', -1, 64)] = float64(d.PercentileNs(p)) / 1e6
		}
	}
	return f
}

// Percentile is the response time at p (one of FigurePercentiles), 0
// when the figures have none.
func (f Figures) Percentile(p float64) float64 {
	return f.Percentiles[strconv.FormatFloat(p, 'f', -1, 64)]
}
