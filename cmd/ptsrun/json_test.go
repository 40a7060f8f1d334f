package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneJSON decodes stdout, which must be exactly one JSON document.
func oneJSON(t *testing.T, stdout string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var v any
	require.NoError(t, dec.Decode(&v), "stdout is not JSON: %q", stdout)
	var more any
	require.ErrorIs(t, dec.Decode(&more), io.EOF, "more than one JSON document on stdout: %q", stdout)
	return v
}

// TestJSONOutput runs every command that writes or judges results with
// --json: stdout is one JSON document naming the files written, which
// exist, and the verdicts; progress and warnings stay on stderr.
func TestJSONOutput(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	tmp := t.TempDir()
	sim := filepath.Join(tmp, "sim")
	code, _, stderr := ptsrun("run", "--target", "sim:enterprise", "--tests", "lat", "--cell-time", "10s", "--out", sim)
	require.Contains(t, []int{0, 3}, code, stderr)
	csv := filepath.Join(tmp, "review.csv")
	require.NoError(t, os.WriteFile(csv, []byte("bs,100/0,0/100\n4k,0.09,0.04\n"), 0o644))
	fioDir, tableDir := filepath.Join(tmp, "fio"), filepath.Join(tmp, "table")

	runKeys := []string{"type", "dir", "files", "conforming", "complete", "deviations", "stages", "headline"}
	// files lists what a run summary says was written; each must exist.
	files := func(t *testing.T, doc map[string]any) {
		f := doc["files"].(map[string]any)
		assert.FileExists(t, f["results_json"].(string))
		assert.FileExists(t, f["report_pdf"].(string))
		tables := f["tables"].([]any)
		require.NotEmpty(t, tables)
		for _, p := range tables {
			assert.FileExists(t, p.(string))
		}
	}
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		keys  []string
		check func(t *testing.T, doc map[string]any)
	}{
		{"report", []string{"report", sim, "-o", filepath.Join(tmp, "r.pdf"), "--json"}, 0, runKeys, func(t *testing.T, doc map[string]any) {
			files(t, doc)
			assert.Equal(t, filepath.Join(tmp, "r.pdf"), doc["files"].(map[string]any)["report_pdf"], "-o is where the PDF went")
			st := doc["stages"].([]any)[0].(map[string]any)
			assert.Equal(t, "lat", st["stage"])
			assert.Contains(t, st, "steady")
			assert.NotEmpty(t, doc["deviations"], "a simulated drive is a deviation")
		}},
		{"resume of a complete run", []string{"resume", sim, "--json"}, 0, runKeys, files},
		{"import fio", []string{"import", "fio", "../../internal/importer/testdata/fio-clat-3.33.json", "--out", fioDir, "--json"}, 0,
			append(runKeys, "imported_from", "warnings"), func(t *testing.T, doc map[string]any) {
				files(t, doc)
				assert.Equal(t, fioDir, doc["dir"])
				st := doc["stages"].([]any)[0].(map[string]any)
				assert.Equal(t, 1.0, st["cells"])
				assert.Equal(t, 1.0, st["rounds"])
				assert.Equal(t, false, st["steady"])
			}},
		{"import table", []string{"import", "table", csv, "--out", tableDir, "--metric", "lat_ms", "--json"}, 0,
			append(runKeys, "imported_from"), func(t *testing.T, doc map[string]any) {
				files(t, doc)
				st := doc["stages"].([]any)[0].(map[string]any)
				assert.Equal(t, 2.0, st["cells"])
			}},
		{"compare", []string{"compare", sim, fioDir, "-o", filepath.Join(tmp, "cmp.pdf"), "--json"}, 0,
			[]string{"type", "files", "runs", "headlines"}, func(t *testing.T, doc map[string]any) {
				f := doc["files"].(map[string]any)
				assert.FileExists(t, f["compare_pdf"].(string))
				for _, p := range f["csv"].([]any) {
					assert.FileExists(t, p.(string))
				}
				assert.Len(t, doc["runs"], 2)
				h := doc["headlines"].([]any)[0].(map[string]any)
				assert.Equal(t, "RND 4 KiB read average ms", h["label"])
				assert.Len(t, h["values"], 2)
				assert.Len(t, h["ratios"], 1)
			}},
		{"check", []string{"check", "--golden", sim, sim, "--json"}, 0, []string{"pass", "regressions", "compared"}, func(t *testing.T, doc map[string]any) {
			assert.Equal(t, true, doc["pass"])
		}},
		{"check, a regression", []string{"check", "--golden", sim, fioDir, "--json"}, 3, []string{"pass", "only_in_baseline"}, func(t *testing.T, doc map[string]any) {
			assert.Equal(t, false, doc["pass"])
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := ptsrun(c.args...)
			require.Equal(t, c.code, code, stderr)
			doc, ok := oneJSON(t, stdout).(map[string]any)
			require.True(t, ok, "not a JSON object: %s", stdout)
			for _, k := range c.keys {
				assert.Contains(t, doc, k)
			}
			c.check(t, doc)
		})
	}
	// devices: the list, with each device's safety verdict, as before.
	code, stdout, stderr := ptsrun("devices", "--json")
	require.Equal(t, 0, code, stderr)
	list, ok := oneJSON(t, stdout).([]any)
	require.True(t, ok, "devices --json is an array: %s", stdout)
	for _, d := range list {
		assert.Contains(t, d, "verdict")
	}
}
