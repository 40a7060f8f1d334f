package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The repository's documentation is checked here, beside deps_test.go's
// check of its import graph: both are about the whole repository rather
// than one package, the README is this command's manual, and the page
// images come from its demo. A package of their own would be a package of
// tests alone, with a row in the import graph for nothing.

var update = flag.Bool("update", false, "rewrite docs/img/*.png and *.txt from the demo's report")

// repoRoot is the repository, seen from this package's directory.
var repoRoot = filepath.Join("..", "..")

// docImages are the pages of the demo's report that the README and
// docs/report.md show, each found by its title. Each is committed twice:
// NAME.png for people, NAME.txt (the page's text) for this test, so that
// a picture cannot go stale unnoticed.
var docImages = []struct{ name, title string }{
	{"summary", "Summary: compliance, device and headline results"},
	{"iops-window", "Steady State Measurement Window: IOPS RND 4 KiB 0/100"},
	{"iops-table", "Tabular Data and 3D Plot equivalent: IOPS by block size × R/W mix"},
}

const (
	imageDir   = "docs/img"
	imageDPI   = "70" // small files, legible text
	regenerate = "go test ./cmd/ptsrun -run TestDocImages -update (.ci/docimages), then look at every image"
	// docClock is the demo's clock (PTSRUN_CLOCK), as .ci/proof's.
	docClock = "2026-01-02T03:04:05Z"
)

// docHost is the test platform the pictures show: the machine that makes
// them would otherwise be in every page header, and the pictures would
// change with it.
var docHost = map[string]any{
	"hostname":     "lab-host",
	"os":           "Debian GNU/Linux 12 (bookworm)",
	"kernel":       "6.1.0-18-amd64",
	"arch":         "amd64",
	"cpu_model":    "AMD EPYC 7543",
	"cpus":         64,
	"memory_bytes": 274877906944,
	"go_version":   "go1.26",
	"fio_version":  "fio-3.33",
}

// TestDocImages rebuilds the demo's report with a fixed seed, clock and
// host and holds each chosen page's text to the committed docs/img/NAME.txt;
// -update writes the text and the picture (pdftoppm) of each.
func TestDocImages(t *testing.T) {
	for _, tool := range []string{"pdftotext", "pdftoppm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (poppler-utils) to read the demo's report", tool)
		}
	}
	dir := filepath.Join(t.TempDir(), "demo")
	ptsrunEnv := func(args ...string) {
		t.Helper()
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), "PTSRUN_CLOCK="+docClock, "PTSRUN_TESTED_BY=", "PTSRUN_LAB=", "PTSRUN_DUT_NOTE=")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "ptsrun %s: %s", strings.Join(args, " "), out)
	}
	ptsrunEnv("demo", "--out", dir)
	setHost(t, filepath.Join(dir, "run.json"))
	ptsrunEnv("report", dir)
	pdf := filepath.Join(dir, "report.pdf")
	out, err := exec.Command("pdftotext", "-layout", pdf, "-").Output()
	require.NoError(t, err, "pdftotext %s", pdf)
	pages := strings.Split(string(out), "\f")

	for _, img := range docImages {
		n := slices.IndexFunc(pages, func(p string) bool { return strings.Contains(p, img.title) })
		if n < 0 {
			t.Errorf("the demo's report has no page titled %q for %s/%s.png: choose another page in docImages", img.title, imageDir, img.name)
			continue
		}
		text := pageText(pages[n])
		base := filepath.Join(repoRoot, imageDir, img.name)
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(base), 0o755))
			require.NoError(t, os.WriteFile(base+".txt", []byte(text), 0o644))
			page := fmt.Sprint(n + 1)
			cmd := exec.Command("pdftoppm", "-png", "-r", imageDPI, "-f", page, "-l", page, "-singlefile", pdf, base)
			b, err := cmd.CombinedOutput()
			require.NoError(t, err, "pdftoppm: %s", b)
			continue
		}
		want, err := os.ReadFile(base + ".txt")
		if err != nil {
			t.Errorf("%s.txt: %v: %s", base, err, regenerate)
			continue
		}
		if string(want) != text {
			line, w, g := firstLineDiff(string(want), text)
			t.Errorf("%s.png is not page %d of the demo's report any more (%s.txt, line %d:\n  committed: %q\n  now:       %q)\n%s",
				base, n+1, base, line, w, g, regenerate)
		}
		if _, err := os.Stat(base + ".png"); err != nil {
			t.Errorf("%s.png: %v: %s", base, err, regenerate)
		}
	}

	// Nothing else in docs/img: a picture nobody regenerates goes stale.
	entries, err := os.ReadDir(filepath.Join(repoRoot, imageDir))
	require.NoError(t, err)
	for _, e := range entries {
		name := strings.TrimSuffix(strings.TrimSuffix(e.Name(), ".png"), ".txt")
		if !slices.ContainsFunc(docImages, func(i struct{ name, title string }) bool { return i.name == name }) {
			t.Errorf("%s/%s is none of docImages: delete it, or add its page there and regenerate", imageDir, e.Name())
		}
	}
}

// setHost puts docHost into run.json, keeping ptsrun's version.
func setHost(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var run map[string]any
	require.NoError(t, dec.Decode(&run), path)
	old, _ := run["host"].(map[string]any)
	require.NotNil(t, old, "%s has no host", path)
	host := map[string]any{"ptsrun_version": old["ptsrun_version"]}
	for k, v := range docHost {
		host[k] = v
	}
	run["host"] = host
	b, err = json.MarshalIndent(run, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// pageText is a page as pdftotext lays it out, without trailing blanks.
func pageText(p string) string {
	lines := strings.Split(p, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n") + "\n"
}

// firstLineDiff is the first line (from 1) where a and b differ, and that
// line of each.
func firstLineDiff(a, b string) (int, string, string) {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; ; i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y || i >= len(la) && i >= len(lb) {
			return i + 1, x, y
		}
	}
}
