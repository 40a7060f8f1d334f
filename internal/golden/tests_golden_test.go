package golden

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/golden/goldentest"
	"github.com/ptsrun/ptsrun/internal/pdfreport"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// goldenRuns are the settings a test's golden runs with on the simulated
// drive where its own defaults would take long: shorter loops and times
// for the tests over time and of demand, which still run every stage,
// segment and page of their test. A test not here runs with its defaults
// (the PTS's, for the tests of rounds).
var goldenRuns = map[pts.TestID]map[string]string{
	pts.IOPS:  nil,
	pts.TP:    nil,
	pts.LAT:   nil,
	pts.WSAT:  nil,
	pts.HIR:   {"hir-cycles": "40", "hir-baseline": "10m"},
	pts.XSR:   {"xsr-groups": "2h,1h,2h"},
	pts.ECW:   {"ecw-tc": "32,4,1", "ecw-qd": "32,4,1", "ecw-prewrite": "20m", "ecw-histogram": "5m"},
	pts.DIRTH: {"dirth-tc": "32,4,1", "dirth-qd": "32,4,1", "dirth-prewrite": "20m", "dirth-histogram": "5m"},
	pts.RWSW:  {"rwsw-tc": "32,4,1", "rwsw-qd": "32,4,1", "rwsw-prewrite": "20m", "rwsw-histogram": "5m"},
}

// goldenInputs are what the tests that need an input run on: rwsw's
// applied workload as `run --capture` read it from the blkparse fixture
// (testdata/tests/rwsw/applied.json).
func goldenInputs(t *testing.T, id pts.TestID, c *pts.Config) {
	if id != pts.RWSW {
		return
	}
	b, err := os.ReadFile(filepath.Join("testdata", "tests", "rwsw", "applied.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &c.RWSW))
}

// TestEveryTestGolden freezes each of the tests, run alone on the
// simulated drive with a fixed seed and clock: its results.json (numbers
// at goldentest.Digits significant digits) and the text of every page of
// its report as pdftotext reads it, so that a change in any number, rule
// or page shows in review as a diff of testdata/tests/TEST/. Rewrite with
// -update after reviewing why they changed.
func TestEveryTestGolden(t *testing.T) {
	t.Parallel()
	_, err := exec.LookPath("pdftotext")
	havePdftotext := err == nil
	for _, td := range pts.Tests {
		t.Run(string(td.ID), func(t *testing.T) {
			t.Parallel()
			params := goldenRuns[td.ID]
			ri, res, dir := goldentest.SimRun(t, "enterprise", func(c *pts.Config) {
				c.Tests, c.Params = []pts.TestID{td.ID}, params
				goldenInputs(t, td.ID, c)
			})
			require.NoError(t, res.Save(dir))
			b, err := os.ReadFile(filepath.Join(dir, "results.json"))
			require.NoError(t, err)
			golden := filepath.Join("testdata", "tests", string(td.ID))
			goldentest.JSON(t, filepath.Join(golden, "results.json"), b, *update)
			if !havePdftotext {
				t.Skip("pdftotext not found (apt-get install poppler-utils): the pages' golden is not checked; CI installs it")
			}
			var pdf bytes.Buffer
			require.NoError(t, pdfreport.Build(ri, res, pdfreport.Options{}).Render(&pdf, res.Start))
			goldentest.File(t, filepath.Join(golden, "pages.txt"), []byte(pageTexts(t, pdf.Bytes())), *update)
		})
	}
}

// pageTexts is a PDF's text as pdftotext lays it out, page by page, each
// line without its trailing spaces.
func pageTexts(t *testing.T, pdf []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "report.pdf")
	require.NoError(t, os.WriteFile(f, pdf, 0o644))
	out, err := exec.Command("pdftotext", "-layout", f, "-").CombinedOutput()
	require.NoError(t, err, "%s", out)
	pages := strings.Split(string(out), "\f")
	if len(pages) > 0 && strings.TrimSpace(pages[len(pages)-1]) == "" {
		pages = pages[:len(pages)-1]
	}
	var b strings.Builder
	for i, p := range pages {
		fmt.Fprintf(&b, "=== page %d of %d\n", i+1, len(pages))
		for _, line := range strings.Split(strings.Trim(p, "\n"), "\n") {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	return b.String()
}
