package fio

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A job file is outside input: ptsrun's reading of its lines, and its
// reading of what fio prints of it, take anything without panicking.

// jobFileSeeds are the job files of testdata/jobfiles and a few more.
func jobFileSeeds(t testing.TB) []string {
	seeds, _ := filepath.Glob("testdata/jobfiles/*.fio")
	var out []string
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return append(out,
		"[global]\nfilename=/a\\:b:/c\n[j]\nnumjobs=3\nfilename_format=$jobname.$JOBNUM\n",
		"[j]\ninclude inc.fio\n", "[\n", "[global\nrw=${RW}\nnumjobs=$ncpus*(2-1)/0\n", "[/dev/sdq]\nnrfiles=1\ndirectory=:/x::\n",
		"; c\n[j] ; x\n  rw = read # y\r\n\x01\n[k]\nmem=mmapshared:/dev/x\n")
}

// debugSeeds are what fio prints with --debug=parse,file, as it does.
var debugSeeds = []string{
	"fio: set debug option parse\nparse    1 Parsing ini file -\nparse    1 [j]\nparse    1 Parsing section [j]\nparse    1 dup options\n" +
		"parse    1 rw=read\nparse    1 handle_option=rw, ptr=read\nparse    1 __handle_option=rw, type=OPT_STR, ptr=read\n" +
		"parse    1 handle_option=size, ptr=50%\nparse    1   ret=0, out=18446744073709551565\nparse    1 SET size_percent 50\n" +
		"parse    1 handle_option=filename, ptr=/a:/b\nfile     1 file 0x1 \"/a\" added at 0\nfile     1 file 0x2 \"/b\" added at 1\n",
	"parse    77777 Parsing ini file -\nparse    77777 Parsing section [j]\nparse    77777 handle_option=ioengine, ptr=io_uring\n" +
		"parse    77777 init options\nparse    77777 filling default options\nparse    77777 handle_option=nonvectored, ptr=-1\n" +
		"parse    77777 handle_option=hipri, ptr=(null)\nparse    77777   ret=0, out=1\nvalue goes on\n",
}

// readAnyJobFile reads text (with inc as its include file inc.fio) as
// ReadJobFile does, and checks what it kept: every option placed on a
// line of a file it read, and a copy that reads back as the same options,
// with no include file left in it.
func readAnyJobFile(t testing.TB, text, inc string) {
	files := memFiles{"job.fio": text, "inc.fio": inc}
	jf, err := ReadJobFile("job.fio", files.opts())
	if err != nil {
		if !strings.Contains(err.Error(), "job.fio") && !strings.Contains(err.Error(), "inc.fio") {
			t.Fatalf("error names no file: %v", err)
		}
		return
	}
	lines := map[string]int{}
	for _, src := range jf.Sources {
		lines[src.Path] = strings.Count(src.Text, "\n") + 1
	}
	var kept []string
	for _, s := range jf.Sections {
		for _, l := range s.lines {
			if n, ok := lines[l.at.File]; !ok || l.at.Line < 1 || l.at.Line > n {
				t.Fatalf("option %q placed at %s, outside what was read", l.raw, l.at)
			}
			kept = append(kept, l.raw)
		}
	}
	again, err := ReadJobFile("copy.fio", memFiles{"copy.fio": string(jf.Copy)}.opts())
	if err != nil {
		t.Fatalf("the copy does not read back: %v\n%q", err, jf.Copy)
	}
	var back []string
	for _, s := range again.Sections {
		for _, l := range s.lines {
			back = append(back, l.raw)
		}
	}
	if strings.Join(kept, "\n") != strings.Join(back, "\n") || len(again.Sections) != len(jf.Sections) || len(again.Sources) != 1 {
		t.Fatalf("the copy reads as other options:\n%q\n%q", kept, back)
	}
	// fio's reading of nothing is never taken for an agreement.
	if len(jf.Sections) > 0 && jf.apply(nil) == nil {
		t.Fatal("no fio output taken for agreement")
	}
	st := fakeStat{kinds: map[string]FileKind{"/dev/sdq": Block}, dirs: map[string][]string{"/x": {"/x/y"}}}
	_ = jf.screen()
	for _, out := range debugSeeds {
		if jf.apply(readDebug(out)) == nil {
			jf.makeJobs()
			for _, th := range jf.Threads(1, st) {
				_ = jf.Jobs[th.Job].Access()
				_, _ = jf.Jobs[th.Job].LaysOut(th.JobNum, len(th.Files), 14)
				_ = jf.LogFiles(th, "/w", false)
			}
			_ = jf.Refusals(true)
		}
	}
}

// readAnyDebug reads what fio might print as readDebug does, and places
// it on a job file's lines, without panicking.
func readAnyDebug(t testing.TB, out string) {
	for _, s := range readDebug(out) {
		for _, e := range s.entries {
			if e.percent < -1 {
				t.Fatalf("percentage %d", e.percent)
			}
		}
	}
	jf, err := ReadJobFile("job.fio", memFiles{"job.fio": "[j]\nrw=read\nsize=50%\nfilename=/a:/b\n"}.opts())
	if err != nil {
		t.Fatal(err)
	}
	if jf.apply(readDebug(out)) == nil {
		jf.makeJobs()
		_ = jf.Threads(1, fakeStat{})
		_ = jf.Refusals(false)
	}
}

func FuzzReadJobFile(f *testing.F) {
	for _, s := range jobFileSeeds(f) {
		f.Add(s, "rw=randwrite\nfilename=/dev/sdb\n")
	}
	f.Add("[j]\ninclude inc.fio\n", "include inc.fio\n")
	f.Add("[j]\ninclude inc.fio\n", "[x]\n")
	f.Fuzz(func(t *testing.T, text, inc string) { readAnyJobFile(t, text, inc) })
}

func FuzzReadDebug(f *testing.F) {
	for _, s := range debugSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) { readAnyDebug(t, out) })
}

// mutate changes a few bytes of s: changed, cut out, cut short, lines and
// fio's markers put in.
func mutate(rng *rand.Rand, s []byte) []byte {
	inserts := []string{"\n", "[x]\n", "include inc.fio\n", "handle_option=rw, ptr=write\n", "parse    1 ", "${A}", "$ncpus", ":", "\\", ";", "#"}
	for k := 0; k < 1+rng.IntN(4) && len(s) > 0; k++ {
		p := rng.IntN(len(s))
		switch rng.IntN(4) {
		case 0:
			s[p] = byte(rng.IntN(256))
		case 1:
			s = append(s[:p], s[min(len(s), p+1+rng.IntN(20)):]...)
		case 2:
			s = append(s[:p], append([]byte(inserts[rng.IntN(len(inserts))]), s[p:]...)...)
		case 3:
			s = s[:p]
		}
	}
	return s
}

// TestJobFileMutations reads 20 000 mutations of the fuzz seeds of both
// targets as they do, without the fuzzing engine, whose workers stall on
// this package's targets here: never a panic or a hang (go test's
// timeout).
func TestJobFileMutations(t *testing.T) {
	seeds := jobFileSeeds(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		if i%2 == 0 {
			s := mutate(rng, []byte(seeds[rng.IntN(len(seeds))]))
			readAnyJobFile(t, string(s), string(mutate(rng, []byte("rw=write\ninclude inc.fio\n"))))
			continue
		}
		readAnyDebug(t, string(mutate(rng, []byte(debugSeeds[rng.IntN(len(debugSeeds))]))))
	}
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
