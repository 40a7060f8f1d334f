package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// One figure per concept (issue 20): each DIRTH and ECW operating point
// has two measurements, as chosen and its histogram run, and each prints
// the same, to its last digit, in the run's summary, on page 1, in the
// operating points table, in tables/X_points.csv, in the demand-intensity
// plot's legend and in `compare --json`, each under its own name. The
// runs have their goldens' settings (golden/tests_golden_test.go): three
// TCs and QDs and shorter points, every stage and page all the same.
func TestOperatingPointFiguresAgree(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	enginetest.Long(t, "a simulated DIRTH run and its report")
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not found (apt-get install poppler-utils); CI installs it")
	}
	dir := filepath.Join(t.TempDir(), "run")
	var args []string
	for _, p := range []string{"--dirth-", "--ecw-"} {
		args = append(args, p+"tc", "32,4,1", p+"qd", "32,4,1", p+"prewrite", "20m", p+"histogram", "5m")
	}
	code, stdout, stderr := ptsrun(append([]string{"run", "--target", "sim:enterprise", "--tests", "dirth,ecw", "--out", dir}, args...)...)
	require.Contains(t, []int{0, 3}, code, stderr)
	out, err := exec.Command("pdftotext", "-layout", filepath.Join(dir, "report.pdf"), "-").Output()
	require.NoError(t, err)
	pages := strings.Split(string(out), "\f")
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	page1 := flat(pages[0])
	report := flat(string(out))
	summary := flat(stdout) // the summary is stdout's; progress stderr's

	cmpOut := filepath.Join(t.TempDir(), "compare.pdf")
	code, cmpJSON, cmpErr := ptsrun("compare", dir, dir, "-o", cmpOut, "--json")
	require.Equal(t, 0, code, cmpErr)
	var cmp struct {
		Headlines []struct {
			Label  string     `json:"label"`
			Metric string     `json:"metric"`
			Values []*float64 `json:"values"`
		} `json:"headlines"`
	}
	require.NoError(t, json.Unmarshal([]byte(cmpJSON), &cmp))
	compared := map[string]string{}
	for _, h := range cmp.Headlines {
		require.NotNil(t, h.Values[0], h.Label)
		compared[h.Label] = pts.Metric(h.Metric).Format(*h.Values[0])
	}

	res, _, err := matrix.Load(dir)
	require.NoError(t, err)
	for _, test := range []pts.TestID{pts.DIRTH, pts.ECW} {
		name := pts.Def(test).Name
		f, err := os.Open(filepath.Join(dir, "tables", string(test)+"_points.csv"))
		require.NoError(t, err)
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		require.NoError(t, err)
		require.Len(t, rows, 4, "%s: a row per point", name)
		tr := res.Find(test)
		require.Len(t, tr.OperatingPoints, 3)
		for i, row := range rows[1:] {
			num := func(j int) float64 {
				v, err := strconv.ParseFloat(row[j], 64)
				require.NoError(t, err, row)
				return v
			}
			label, tc, qd := row[0], int(num(1)), int(num(2))
			iops, art := pts.FormatIOPS(num(3)), pts.FormatMs(num(4))
			runIOPS, runART, run5, runMRT := pts.FormatIOPS(num(5)), pts.FormatMs(num(6)), pts.FormatMs(num(7)), pts.FormatMs(num(8))
			at := fmt.Sprintf("TC%d/QD%d", tc, qd)
			what := name + " " + label + " " + at

			// results.json carries both measurements, named, at full precision.
			p := tr.OperatingPoints[i]
			assert.Equal(t, label, pts.PointLabel(p.Point))
			assert.Equal(t, num(3), p.IOPS, what)
			assert.Equal(t, num(4), p.ARTMs, what)
			require.NotNil(t, p.Run, what)
			assert.Equal(t, []float64{num(5), num(6), num(7), num(8)}, []float64{p.Run.IOPS, p.Run.ARTMs, p.Run.P99999Ms, p.Run.MRTMs}, what)

			chosen := fmt.Sprintf("%s IOPS, ART %s ms", iops, art)
			ran := fmt.Sprintf("%s IOPS, ART %s ms", runIOPS, runART)
			assert.Contains(t, summary, fmt.Sprintf("%s (%s): a time series of", name+" "+label, at), what)
			assert.Contains(t, summary, fmt.Sprintf("%s as chosen (round ", chosen), "the run's summary: %s", what)
			assert.Contains(t, summary, fmt.Sprintf("histogram run %s, 99.999 %% %s ms, MRT %s ms", ran, run5, runMRT), "the run's summary: %s", what)
			assert.Regexp(t, regexp.QuoteMeta(name+" "+label)+` [^|]*?`+regexp.QuoteMeta(at+" as chosen: "+chosen), page1, "page 1: %s", what)
			assert.Contains(t, page1, "histogram run: "+ran, "page 1: %s", what)
			assert.Contains(t, report, fmt.Sprintf("%s %s %d %s %s %s %s %s %s", label, at, tc*qd, iops, art, runIOPS, runART, run5, runMRT),
				"the operating points table: %s", what)
			assert.Contains(t, report, fmt.Sprintf("%s %s: %s as chosen (round", label, at, chosen), "the plot's legend: %s", what)
			if label == "MaxIOPS" {
				assert.Equal(t, iops, compared[name+" MaxIOPS IOPS"], "compare --json: %s", what)
				assert.Equal(t, art, compared[name+" MaxIOPS average ms"], "compare --json: %s", what)
				assert.Contains(t, summary, fmt.Sprintf("%s MaxIOPS %s %s as chosen", name, at, chosen), "the summary's headline")
			}
		}
	}
}
