package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shape issue 21 gave the project, kept: the command line is flags,
// options and calls (at most 2 000 lines), no source file grows past 700
// lines, and the repository's root holds only what a Go module's must.
func TestShape(t *testing.T) {
	root := filepath.Join("..", "..")
	cmdLines := 0
	require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n := bytes.Count(b, []byte("\n"))
		rel, _ := filepath.Rel(root, path)
		assert.LessOrEqual(t, n, 700, "%s has %d lines: split it by concern", rel, n)
		if filepath.Dir(rel) == filepath.Join("cmd", "ptsrun") {
			cmdLines += n
		}
		return nil
	}))
	assert.LessOrEqual(t, cmdLines, 2000, "cmd/ptsrun has %d non-test lines: what is not flags, options and calls belongs in a package below internal/", cmdLines)

	out, err := exec.Command("git", "-C", root, "ls-files").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	allowed := map[string]bool{"README.md": true, "LICENSE": true, "go.mod": true, "go.sum": true}
	for _, f := range strings.Fields(string(out)) {
		if !strings.Contains(f, "/") && !allowed[f] && !strings.HasPrefix(f, ".") {
			t.Errorf("%s at the repository's root: outputs go into directories of their own", f)
		}
	}
}
