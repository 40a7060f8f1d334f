package pts

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Metric is one figure a cell is measured by, named as results.json names
// it. Every package reads a metric's unit, label, direction and display
// format from here.
type Metric string

// The metrics of a cell.
const (
	MetricIOPS         Metric = "iops"
	MetricReadIOPS     Metric = "read_iops"
	MetricWriteIOPS    Metric = "write_iops"
	MetricMBps         Metric = "mbps"
	MetricReadMBps     Metric = "read_mbps"
	MetricWriteMBps    Metric = "write_mbps"
	MetricLatMean      Metric = "lat_mean_ms"
	MetricLatMax       Metric = "lat_max_ms"
	MetricLatMaxMean   Metric = "lat_max_mean_ms" // the mean of the window rounds' maxima
	MetricLatP99       Metric = "lat_p99_ms"
	MetricLatP9999     Metric = "lat_p99_99_ms"
	MetricLatP99999    Metric = "lat_p99_999_ms"
	MetricReadLatMean  Metric = "read_lat_mean_ms"
	MetricWriteLatMean Metric = "write_lat_mean_ms"
)

// metricInfo is what is known of each metric: its label, unit and
// direction, and for latencies the shorter names tables and headlines use
// (empty: the label, or for quote the unit).
var metricInfo = map[Metric]struct {
	label, unit        string
	lowerBetter        bool
	head, short, quote string
}{
	MetricIOPS:         {label: "IOPS", unit: "IOPS"},
	MetricReadIOPS:     {label: "read IOPS", unit: "IOPS"},
	MetricWriteIOPS:    {label: "write IOPS", unit: "IOPS"},
	MetricMBps:         {label: "MB/s", unit: "MB/s"},
	MetricReadMBps:     {label: "read MB/s", unit: "MB/s"},
	MetricWriteMBps:    {label: "write MB/s", unit: "MB/s"},
	MetricLatMean:      {"average response time", "ms", true, "Average ms", "avg", "average ms"},
	MetricLatMax:       {"maximum response time", "ms", true, "Maximum ms", "max", "maximum ms"},
	MetricLatMaxMean:   {label: "mean of the rounds' maximum response times", unit: "ms", lowerBetter: true},
	MetricLatP99:       {label: "99 % response time", unit: "ms", lowerBetter: true, head: "99 % ms"},
	MetricLatP9999:     {label: "99.99 % response time", unit: "ms", lowerBetter: true},
	MetricLatP99999:    {"99.999 % response time", "ms", true, "99.999 % ms", "99.999 %", "99.999 % ms"},
	MetricReadLatMean:  {label: "average read response time", unit: "ms", lowerBetter: true},
	MetricWriteLatMean: {label: "average write response time", unit: "ms", lowerBetter: true},
}

// legacyMetrics are the names run.json used before a metric had one name
// everywhere (the cells of results.json always used the new ones).
var legacyMetrics = map[string]Metric{"mean_lat_ms": MetricLatMean, "max_lat_ms": MetricLatMax, "p99999_lat_ms": MetricLatP99999}

// UnmarshalText reads a metric name, old or new.
func (m *Metric) UnmarshalText(b []byte) error {
	if v, ok := legacyMetrics[string(b)]; ok {
		*m = v
		return nil
	}
	*m = Metric(b)
	return nil
}

// Label names the metric in words: "average response time".
func (m Metric) Label() string {
	if i, ok := metricInfo[m]; ok {
		return i.label
	}
	return string(m)
}

// Unit is the display unit: IOPS, MB/s (10^6 bytes/s) or ms.
func (m Metric) Unit() string {
	if i, ok := metricInfo[m]; ok {
		return i.unit
	}
	return ""
}

// Head names the metric in a table's head: "IOPS", "Average ms".
func (m Metric) Head() string {
	if h := metricInfo[m].head; h != "" {
		return h
	}
	return m.Label()
}

// Short names a latency in a row of several: "avg", "max", "99.999 %".
func (m Metric) Short() string {
	if s := metricInfo[m].short; s != "" {
		return s
	}
	return m.Label()
}

// Quote names the metric after a cell in a headline: "RND 4 KiB read
// average ms"; the unit for a metric without such a name ("IOPS").
func (m Metric) Quote() string {
	if q := metricInfo[m].quote; q != "" {
		return q
	}
	return m.Unit()
}

// LowerIsBetter says which way the metric improves.
func (m Metric) LowerIsBetter() bool { return metricInfo[m].lowerBetter }

// Format writes a value of the metric for display, with the digits that
// show differences; a value the cell does not have is "–".
func (m Metric) Format(v float64) string {
	switch m.Unit() {
	case "IOPS":
		return FormatIOPS(v)
	case "MB/s":
		return FormatMBps(v)
	}
	return FormatMs(v)
}

// Value reads the metric from one measurement (a round of a cell): what a
// tracking variable follows. Latencies are in ms.
func (m Metric) Value(x engine.Measurement) float64 {
	t := x.Counts()
	switch m {
	case MetricIOPS:
		return x.IOPS()
	case MetricReadIOPS:
		return x.Read.IOPS(x.Elapsed)
	case MetricWriteIOPS:
		return x.Write.IOPS(x.Elapsed)
	case MetricWriteMBps:
		return x.Write.MBps(x.Elapsed)
	case MetricReadMBps:
		return x.Read.MBps(x.Elapsed)
	case MetricMBps:
		return x.MBps()
	case MetricLatMean:
		return t.MeanLatNs() / 1e6
	case MetricLatMax:
		return float64(t.LatMaxNs) / 1e6
	case MetricLatP99999:
		return float64(x.Total().PercentileNs(LATPercentile)) / 1e6
	}
	return math.NaN()
}

// FormatIOPS writes IOPS as whole numbers with thousands grouped.
func FormatIOPS(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return groupThousands(fmt.Sprintf("%.0f", v))
}

// FormatMBps writes MB/s: whole numbers from 100 up, one decimal below.
func FormatMBps(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if v >= 100 {
		return groupThousands(fmt.Sprintf("%.0f", v))
	}
	return fmt.Sprintf("%.1f", v)
}

// FormatMs shows latencies in ms with three significant digits, at least
// three decimals: 0.021, 0.0835 → 0.0835, 1.23, 12.3.
func FormatMs(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v == 0:
		return "0"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	d := 3
	for x := v; x < 0.1 && d < 6; x *= 10 {
		d++
	}
	return fmt.Sprintf("%.*f", d, v)
}

// FormatNumber writes a plain number readably: whole and grouped from 1,000
// up, four significant digits below (0.7128, 14, 1.856).
func FormatNumber(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case math.Abs(v) >= 1000:
		return FormatIOPS(v)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// groupThousands puts commas between groups of three digits.
func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
