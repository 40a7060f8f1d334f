package pdfreport

import (
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/matrix"
)

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
