package fio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseJobFile: whatever a job file holds, reading it does not panic;
// every option it keeps is placed on a line of a file it read; its threads
// and the gate's questions about them are answered without panicking; and
// fio's reading of nothing is never taken for an agreement.
func FuzzParseJobFile(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/jobfiles/*.fio")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err == nil {
			f.Add(string(b), "rw=randwrite\nfilename=/dev/sdb\n")
		}
	}
	f.Add("[global]\nfilename=/a\\:b:/c\n[j]\nnumjobs=3\nfilename_format=$jobname.$JOBNUM\n", "")
	f.Add("[j]\ninclude inc.fio\n", "include inc.fio\n")
	f.Add("[j]\ninclude inc.fio\n", "[x]\n")
	f.Add("[\n", "")
	f.Add("[global\nrw=${RW}\nnumjobs=$ncpus*(2-1)/0\n", "")
	f.Add("[/dev/sdq]\nnrfiles=1\ndirectory=:/x::\n", "")
	f.Fuzz(func(t *testing.T, text, inc string) {
		files := memFiles{"job.fio": text, "inc.fio": inc}
		jfs, err := ParseJobFiles([]string{"job.fio"}, files.opts(map[string]string{"RW": "write"}))
		if err != nil {
			if !strings.Contains(err.Error(), "job") && !strings.Contains(err.Error(), "inc.fio") {
				t.Fatalf("error names no file: %v", err)
			}
			return
		}
		jf := jfs[0]
		lines := map[string]int{}
		for _, src := range jf.Sources {
			lines[src.Path] = strings.Count(src.Text, "\n") + 1
		}
		for _, s := range jf.Sections {
			for _, o := range s.Options {
				if n, ok := lines[o.At.File]; !ok || o.At.Line < 1 || o.At.Line > n {
					t.Fatalf("option %q placed at %s, outside what was read", o.Raw, o.At)
				}
			}
		}
		st := fakeStat{kinds: map[string]FileKind{"/dev/sdq": Block}, dirs: map[string][]string{"/x": {"/x/y"}}}
		for _, th := range jf.Threads(1, st) {
			_ = jf.Jobs[th.Job].Access()
			if len(th.Files) > 100000 {
				t.Fatalf("%d files", len(th.Files))
			}
		}
		if len(jf.Sections) > 0 && jf.CrossCheck(ParseOnly{}) == nil {
			t.Fatal("no fio output taken for agreement")
		}
	})
}

// FuzzFileNameValue: a path written into filename= as the fio engine
// writes it is read back by fio's splitting as that one path.
func FuzzFileNameValue(f *testing.F) {
	for _, s := range []string{"/dev/sdb", "/tmp/a:b", ":x", `a\`, `a\:b`, "x::y", `\\:`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || strings.ContainsRune(s, 0) {
			return
		}
		got := splitFileList(filenameValue(s))
		if len(got) != 1 || got[0] != s {
			t.Fatalf("%q written as %q reads back as %q", s, filenameValue(s), got)
		}
	})
}
