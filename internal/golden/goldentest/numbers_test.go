package goldentest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// recorder is a testing.TB whose failures are kept, not reported, so that
// a test can check that a comparison fails and how.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); r.FailNow() }
func (r *recorder) FailNow()                          { panic(r) }

// check runs a comparison against a recorder and returns its failures.
func check(t *testing.T, compare func(testing.TB)) (errs []string) {
	r := &recorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		errs = r.errs
	}()
	compare(r)
	return r.errs
}

func TestAgree(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"189245.47", "189245.47", true},
		{"189245.47", "189245.48", true}, // one in the last digit: a rounding boundary crossed
		{"189245.47", "189245.49", false},
		{"0.020918274", "0.020918275", true},
		{"0.020918274", "0.020918374", false},
		{"9.9999999", "10", true}, // across a power of ten
		{"2.0207e-05", "2.0208e-05", false},
		{"6401263403008", "6401263403008", true},
		{"6401263403008", "6401263403009", false}, // integers are exact
		{"5937", "5937.0001", true},
		{"0", "1.4e-17", true}, // noise around zero
		{"0", "1e-9", false},
	} {
		assert.Equal(t, c.want, agree(json.Number(c.a), json.Number(c.b)), "%s vs %s", c.a, c.b)
	}
}

func histJSON(t *testing.T, values ...int64) string {
	h := engine.NewHistogram()
	for _, v := range values {
		h.Record(v)
	}
	b, err := json.Marshal(h)
	require.NoError(t, err)
	return string(b)
}

// results is a results.json in miniature: nested objects, a list of cells
// named by key, floats, integers and a histogram.
func results(t *testing.T, iops string, hist string) []byte {
	return []byte(`{"schema": 1, "tests": [{"test": "iops", "stages": [{"id": "iops", "cells": [
		{"key": "rnd-4k-100/0", "iops": ` + iops + `, "bs_bytes": 4096, "lat_hist": ` + hist + `}]}]}]}`)
}

func TestJSON(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	hist := histJSON(t, 20000, 21000, 90000)
	require.Empty(t, check(t, func(tb testing.TB) { JSON(tb, path, results(t, "189245.46666666667", hist), true) }))

	golden, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(golden), `"iops": 189245.47,`, "rounded to 8 significant digits")
	assert.Contains(t, string(golden), `"bs_bytes": 4096,`)
	assert.Contains(t, string(golden), `"count": 3,`, "a histogram's summary")
	assert.Contains(t, string(golden), `"p50_ns": 21`)
	assert.NotContains(t, string(golden), "HISTF", "no blob")

	for _, c := range []struct {
		name, iops, hist string
		want             []string // failures, by what they name; none to pass
	}{
		{"the same", "189245.46666666667", hist, nil},
		{"the last bit", "189245.46666666670", hist, nil},
		{"the last digit kept", "189245.4749", hist, nil},
		{"a real change", "189246.0", hist, []string{"tests[iops].stages[iops].cells[rnd-4k-100/0].iops: golden 189245.47, now 189246"}},
		{"a bin", "189245.46666666667", histJSON(t, 20000, 21000, 91000), []string{"cells[rnd-4k-100/0].lat_hist.bins_sha256"}},
		{"a latency", "189245.46666666667", histJSON(t, 20000, 21000, 90000, 95000), []string{"lat_hist.count: golden 3, now 4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			errs := check(t, func(tb testing.TB) { JSON(tb, path, results(t, c.iops, c.hist), false) })
			_, statErr := os.Stat(path + ".actual")
			if c.want == nil {
				assert.Empty(t, errs)
				assert.True(t, os.IsNotExist(statErr), "no output is left beside an agreeing golden")
				return
			}
			require.Len(t, errs, 1)
			for _, w := range c.want {
				assert.Contains(t, errs[0], w)
			}
			assert.Contains(t, errs[0], "diff -u "+path+" "+path+".actual")
			assert.NoError(t, statErr, "the output is written beside the golden")
		})
	}
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(golden), string(after), "a comparison without -update leaves the golden alone")
}

func TestCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tp.csv")
	table := func(v string) []byte { return []byte("bs,100/0,0/100\n1024KiB," + v + ",2007.3834086399997\n") }
	require.Empty(t, check(t, func(tb testing.TB) { CSV(tb, path, table("6622.4914432000005"), true) }))
	golden, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "bs,100/0,0/100\n1024KiB,6622.4914,2007.3834\n", string(golden))

	assert.Empty(t, check(t, func(tb testing.TB) { CSV(tb, path, table("6622.4914432000001"), false) }))
	errs := check(t, func(tb testing.TB) { CSV(tb, path, table("6622.5"), false) })
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0], "row 1024KiB, column 100/0: golden 6622.4914, now 6622.5")
}

func TestFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.golden")
	require.Empty(t, check(t, func(tb testing.TB) { File(tb, path, []byte("a\nb\nc\n"), true) }))
	errs := check(t, func(tb testing.TB) { File(tb, path, []byte("a\nB\nc\n"), false) })
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0], "at line 2")
	assert.Contains(t, errs[0], `golden: "b"`)
	actual, err := os.ReadFile(path + ".actual")
	require.NoError(t, err)
	assert.Equal(t, "a\nB\nc\n", string(actual))

	assert.Empty(t, check(t, func(tb testing.TB) { File(tb, path, []byte("a\nb\nc\n"), false) }))
	_, err = os.Stat(path + ".actual")
	assert.True(t, os.IsNotExist(err), "a passing comparison removes the stale output")

	errs = check(t, func(tb testing.TB) { File(tb, filepath.Join(t.TempDir(), "missing.golden"), nil, false) })
	require.Len(t, errs, 1)
	assert.True(t, strings.Contains(errs[0], "-update"), errs[0])
}
