package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

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
	{"iops-health", "Drive Temperature and Health: IOPS"},
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
	t.Parallel() // waits on its own files and devices: beside the others
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

// TestDocLinks walks every Markdown file of the repository (README.md,
// docs/ and any other, testdata aside): each link and image must name a
// file of the repository by a relative path, and an anchor a heading of
// the file it points into.
func TestDocLinks(t *testing.T) {
	files := markdownFiles(t)
	require.Contains(t, files, "README.md")
	headings := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(repoRoot, f))
		require.NoError(t, err)
		headings[f] = anchors(string(b))
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(repoRoot, f))
		require.NoError(t, err)
		for _, l := range links(string(b)) {
			if err := checkLink(f, l.target, headings); err != nil {
				t.Errorf("%s:%d: %s: %v", f, l.line, l.text, err)
			}
		}
	}
}

// TestDocLinksFail shows that the walker finds what it is for.
func TestDocLinksFail(t *testing.T) {
	headings := map[string][]string{"README.md": {"set-up"}, "docs/ci.md": {"check"}}
	for _, c := range []struct{ from, target, want string }{
		{"README.md", "docs/nothing.md", "no such file"},
		{"README.md", "../../elsewhere/notes.md", "outside the repository"},
		{"README.md", "/etc/passwd", "not a relative path"},
		{"README.md", "#install", `no heading "install"`},
		{"docs/x.md", "ci.md#compare", `no heading "compare" in docs/ci.md`},
	} {
		err := checkLink(c.from, c.target, headings)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: %v, want %q", c.from, c.target, err, c.want)
		}
	}
	for _, ok := range []string{"#check", "ci.md#check", "https://example.com/x", "../README.md#set-up"} {
		if err := checkLink("docs/ci.md", ok, headings); err != nil && !strings.Contains(err.Error(), "no such file") {
			t.Errorf("%s: %v", ok, err)
		}
	}
	got := links("a [x](a.md) and `[no](b.md)` `×` [z](z.md)\n```\n[no](c.md)\n```\n![img](i.png) [multi\nline](d.md#h)\n[ref]: e.md\n")
	var targets []string
	for _, l := range got {
		targets = append(targets, fmt.Sprintf("%d:%s", l.line, l.target))
	}
	require.Equal(t, []string{"1:a.md", "1:z.md", "5:i.png", "5:d.md#h", "7:e.md"}, targets)
	require.Equal(t, "[z](z.md)", got[1].text, "offsets past a code span of multi-byte characters")
	require.Equal(t, []string{"the-tests-rules-and-how-ptsrun-reads-pts-202", "your-own-fio-job-files-ptsrun-fio",
		"second-gates---readonly-judging-again-landlock", "a", "a-1"},
		anchors("## The tests' rules, and how ptsrun reads PTS 2.0.2\n# Your own fio job files: `ptsrun fio`\n"+
			"## Second gates: --readonly, judging again, Landlock\n# A\n# A\n"))
}

// markdownFiles are the repository's Markdown files, relative to it with
// slashes, testdata and .git aside.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(repoRoot, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

type docLink struct {
	line         int
	text, target string
}

var (
	fence      = regexp.MustCompile("(?m)^ *(```|~~~)")
	inlineCode = regexp.MustCompile("`[^`\n]*`")
	mdLink     = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refLink    = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)`)
	htmlLink   = regexp.MustCompile(`<(?:img|a)\s[^>]*?(?:src|href)="([^"]+)"`)
	heading    = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
)

// prose is a Markdown text with its code (fenced blocks, inline spans)
// blanked out byte for byte, so that offsets and lines stay those of
// the text.
func prose(s string) string {
	lines := strings.SplitAfter(s, "\n")
	in := false
	for i, l := range lines {
		f := fence.MatchString(l)
		if in || f {
			lines[i] = blank(l)
		}
		if f {
			in = !in
		}
	}
	return inlineCode.ReplaceAllStringFunc(strings.Join(lines, ""), blank)
}

// blank is s with every byte but newlines a blank: as long as s, byte for
// byte, so that offsets into the blanked text are offsets into s.
func blank(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// links are the links, images and link definitions of a Markdown text.
func links(s string) []docLink {
	p := prose(s)
	var out []docLink
	for _, re := range []*regexp.Regexp{mdLink, refLink, htmlLink} {
		for _, m := range re.FindAllStringSubmatchIndex(p, -1) {
			out = append(out, docLink{
				line:   strings.Count(p[:m[0]], "\n") + 1,
				text:   strings.Join(strings.Fields(s[m[0]:m[1]]), " "),
				target: p[m[2]:m[3]],
			})
		}
	}
	slices.SortStableFunc(out, func(a, b docLink) int { return a.line - b.line })
	return out
}

// anchors are the anchors GitHub gives a Markdown text's headings:
// lower case, inline code unquoted, every character but letters, digits,
// blanks, hyphens and underscores dropped, blanks made hyphens, and a
// heading seen before numbered -1, -2, ….
func anchors(s string) []string {
	var out []string
	seen := map[string]int{}
	in := false
	for _, l := range strings.Split(s, "\n") {
		if fence.MatchString(l) {
			in = !in
			continue
		}
		m := heading.FindStringSubmatch(l)
		if in || m == nil {
			continue
		}
		a := strings.Map(func(r rune) rune {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				return unicode.ToLower(r)
			case r == ' ':
				return '-'
			}
			return -1
		}, m[1])
		if n := seen[a]; n > 0 {
			seen[a] = n + 1
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			seen[a] = 1
		}
		out = append(out, a)
	}
	return out
}

// checkLink says why a link in file from (relative to the repository,
// with slashes) does not resolve; headings are every Markdown file's
// anchors.
func checkLink(from, target string, headings map[string][]string) error {
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "mailto:") {
		return nil
	}
	path, frag, _ := strings.Cut(target, "#")
	file := from
	if path != "" {
		if strings.HasPrefix(path, "/") || filepath.IsAbs(path) {
			return fmt.Errorf("%s is not a relative path: name the file from %s", path, filepath.Dir(from))
		}
		file = filepath.ToSlash(filepath.Join(filepath.Dir(from), path))
		if file == ".." || strings.HasPrefix(file, "../") {
			return fmt.Errorf("%s is outside the repository", path)
		}
		if _, err := os.Stat(filepath.Join(repoRoot, file)); err != nil {
			return fmt.Errorf("no such file %s in the repository", file)
		}
	}
	if frag == "" || !strings.HasSuffix(file, ".md") {
		return nil
	}
	if !slices.Contains(headings[file], frag) {
		return fmt.Errorf("no heading %q in %s", frag, file)
	}
	return nil
}

// TestNoOutsideReferences: no file of the repository (git ls-files)
// refers to files it does not ship (a design note or a digest of the PTS kept beside it while
// ptsrun was written). Cite the PTS by section, or docs/readings.md.
func TestNoOutsideReferences(t *testing.T) {
	forbidden := []string{"pts-spec" + ".md", "DESIGN" + ".md", "spec " + "digest", "../" + "shared"}
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("needs a git checkout to list the repository's files: %v", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if strings.HasSuffix(f, ".png") || strings.HasSuffix(f, ".pdf") {
			continue
		}
		path := filepath.Join(repoRoot, f)
		if fi, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) || err == nil && !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a link (testdata's sysfs)
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		for i, l := range strings.Split(strings.ToLower(string(b)), "\n") {
			for _, w := range forbidden {
				if strings.Contains(l, strings.ToLower(w)) {
					t.Errorf("%s:%d refers to %q, which ptsrun does not ship: cite the PTS itself or docs/readings.md", f, i+1, w)
				}
			}
		}
	}
}

// TestArchitectureNamesEveryPackage: docs/architecture.md lists the
// packages by what they do; a package added or split off (a row of
// deps_test.go's allowedImports) gets its line there too.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "architecture.md"))
	require.NoError(t, err)
	doc := string(b)
	for _, r := range allowedImports {
		if !strings.Contains(doc, "`internal/"+r.pkg+"`") && !strings.Contains(doc, "`"+r.pkg+"`") {
			t.Errorf("docs/architecture.md does not name the package %s: add it to the table of packages (`internal/%s`), with its job", r.pkg, r.pkg)
		}
	}
}
