package fio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// fio is the authority on what a job file says: `fio --parse-only` reads it
// as a run would, options checked and nothing started (init.c
// parse_dryrun), and with --debug=parse,file it prints every option of
// every section as it handles it, after ${VAR} and keyword substitution,
// the numbers it makes of the value, and the files filename= adds:
//
//	parse    4711 Parsing section [job1]
//	parse    4711 handle_option=filename, ptr=/dev/sdb
//	parse    4711 __handle_option=filename, type=OPT_STR_STORE, ptr=/dev/sdb
//	file     4711 file 0x55d0c2a8 "/dev/sdb" added at 0
//	parse    4711 handle_option=size, ptr=1g
//	parse    4711   ret=0, out=1073741824
//
// FioReading.Read has fio read the copy (from stdin) and places each
// option fio handled on the line it is written on: within a section, the
// k-th option fio handles under a name is the k-th line that names it
// (fio sorts a section's options by priority, a stable sort, and reads an
// engine's options in a second pass, after the engine's defaults). A
// section fio reads otherwise than ptsrun (another count of options,
// another name, another value of a line without substitutions) is refused.

// ErrFioRejects marks a job file fio does not accept.
var ErrFioRejects = errors.New("fio rejects the job file")

// FioReading is how fio reads job files for ptsrun.
type FioReading struct {
	Binary string   // fio; "fio" on PATH when empty
	Args   []string // fio options ptsrun adds to the run: fio checks them with the job file
	Dir    string   // fio's working directory, "" for ptsrun's
}

// Read has fio read jf's copy and gives every option its value as fio
// reads it, then makes the jobs. fio never reads the user's job file: an
// include file fio placed otherwise than ptsrun would be read unscreened
// (TestJobFilesAsFioReadsThem holds the copy to the original). A job file fio rejects is an error
// wrapping ErrFioRejects in fio's words, each naming its line; one fio
// reads otherwise than ptsrun a *JobFileError (ErrCannotJudge).
func (r FioReading) Read(ctx context.Context, jf *UserJobFile) error {
	// What fio does as it reads, before anything runs, is checked first.
	if err := jf.screen(); err != nil {
		return err
	}
	secs, err := r.parse(ctx, jf, r.Args, "-", jf.Copy)
	if err != nil {
		return err
	}
	if err := jf.apply(secs); err != nil {
		return err
	}
	jf.makeJobs()
	return nil
}

// parse runs `fio --parse-only --debug=parse,file ARGS FILE` (FILE "-":
// stdin, given) and reads what fio says.
func (r FioReading) parse(ctx context.Context, jf *UserJobFile, args []string, file string, stdin []byte) ([]fioSection, error) {
	bin := r.Binary
	if bin == "" {
		bin = "fio"
	}
	cmd := exec.CommandContext(ctx, bin, append(append([]string{"--parse-only", "--debug=parse,file"}, args...), file)...)
	cmd.Dir = r.Dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return nil, fmt.Errorf("%w: %v", ErrNoFio, err)
	}
	// fio exits 0 for some rejections (a missing include file), though it
	// reads no further: any message on stderr is one.
	msgs := rejections(errb.String())
	if err == nil && len(msgs) == 0 {
		return readDebug(out.String()), nil
	}
	if len(msgs) == 0 {
		msgs = []string{strings.TrimSpace(tail(errb.String() + "\n" + fioMessages(out.String())))}
	}
	var lines []string
	for _, m := range msgs {
		if at := jf.locate(m); at.Line > 0 {
			m = at.String() + ": " + m
		}
		lines = append(lines, m)
	}
	return nil, fmt.Errorf("%w %s: %s", ErrFioRejects, jf.Path, strings.Join(lines, "; "))
}

// screen refuses what fio would act on as it reads the job file, before
// fio reads it: a name ptsrun cannot know (substituted), an engine other
// than those the gate knows (fio loads it, a library's code runs), a data
// pattern read from a file.
func (jf *UserJobFile) screen() error {
	for _, s := range jf.Sections {
		for _, l := range s.lines {
			if strings.Contains(l.written, "$") {
				return refuseAt(l.at, "%s: the option's name holds a substitution: ptsrun cannot tell which option fio reads; write the name out", l.raw)
			}
			_, v, _ := strings.Cut(l.raw, "=")
			switch canonical(l.written) {
			case "ioengine":
				if _, ok := engines[v]; !ok {
					return refuseAt(l.at, "%s", engineRefusal(v))
				}
			case "buffer_pattern", "verify_pattern":
				if strings.ContainsAny(v, "'$") {
					return refuseAt(l.at, "%s: fio reads a pattern in quotes ('…') from that file, and ptsrun cannot tell what a substitution makes; write the pattern itself (0x…, \"text\")", l.raw)
				}
			}
		}
	}
	return nil
}

// fioEntry is an option as fio's --debug=parse shows it.
type fioEntry struct {
	name, ptr string
	typ       string
	nums      []uint64
	percent   int
	files     []string
	said      string // a line fio printed while handling it that is not debug output
}

// fioSection is a section as fio's --debug=parse shows it.
type fioSection struct {
	name    string
	entries []fioEntry
	fill    int // where the engine's defaults start among the entries; -1 for none
}

var (
	debugLine    = regexp.MustCompile(`^(parse|file)\s+(\d+) `)
	addedFile    = regexp.MustCompile(`^file 0x[0-9a-f]+ "(.*)" added at \d+$`)
	retLine      = regexp.MustCompile(`^\s+ret=(-?\d+), out=(\d+)$`)
	setPercent   = regexp.MustCompile(`^SET \w+_percent (\d+)$`)
	quotedOption = regexp.MustCompile(`<([^<>]*)>`)
)

// readDebug reads fio's --debug=parse,file output: the options of each
// section in the order fio handles them (those before the job file are
// fio's command line).
func readDebug(stdout string) []fioSection {
	var out []fioSection
	var cur *fioEntry
	started := false
	for _, l := range strings.Split(stdout, "\n") {
		m := debugLine.FindStringSubmatchIndex(l)
		if m == nil {
			if cur != nil && l != "" && cur.said == "" {
				// fio printed more: a value that holds a newline, or a
				// message of fio about the option.
				cur.said = l
			}
			continue
		}
		// dprint writes "%-8s %-5u ": the pid padded to five columns.
		rest := l[m[1]:]
		for pad := 5 - (m[5] - m[4]); pad > 0 && strings.HasPrefix(rest, " "); pad-- {
			rest = rest[1:]
		}
		if l[m[2]:m[3]] == "file" {
			if f := addedFile.FindStringSubmatch(rest); f != nil && cur != nil {
				cur.files = append(cur.files, f[1])
			} else if f != nil && len(out) > 0 {
				// A file added outside an option: nothing ptsrun places.
				out[len(out)-1].entries = append(out[len(out)-1].entries, fioEntry{name: "(a file fio adds)", ptr: f[1], percent: -1})
			}
			continue
		}
		switch {
		case strings.HasPrefix(rest, "Parsing ini file "):
			started, cur = true, nil
		case !started:
		case strings.HasPrefix(rest, "Parsing section ["):
			name := strings.TrimSuffix(strings.TrimPrefix(rest, "Parsing section ["), "]")
			out = append(out, fioSection{name: name, fill: -1})
			cur = nil
		case len(out) == 0:
		case strings.HasPrefix(rest, "handle_option="):
			name, val, ok := strings.Cut(strings.TrimPrefix(rest, "handle_option="), ", ptr=")
			if !ok {
				continue
			}
			s := &out[len(out)-1]
			s.entries = append(s.entries, fioEntry{name: name, ptr: val, percent: -1})
			cur = &s.entries[len(s.entries)-1]
		case rest == "filling default options":
			s := &out[len(out)-1]
			s.fill = len(s.entries)
			cur = nil
		case rest == "init options" || rest == "dup options" || rest == "free options":
			cur = nil
		case cur == nil:
		case strings.HasPrefix(rest, "__handle_option="):
			if _, t, ok := strings.Cut(rest, ", type="); ok && cur.typ == "" {
				cur.typ, _, _ = strings.Cut(t, ", ptr=")
			}
		case retLine.MatchString(rest):
			r := retLine.FindStringSubmatch(rest)
			if n, err := strconv.ParseUint(r[2], 10, 64); err == nil && r[1] == "0" {
				cur.nums = append(cur.nums, n)
			}
		case setPercent.MatchString(rest):
			cur.percent, _ = strconv.Atoi(setPercent.FindStringSubmatch(rest)[1])
		}
	}
	return out
}

// apply places fio's reading of every section on the lines ptsrun read.
func (jf *UserJobFile) apply(secs []fioSection) error {
	if len(secs) != len(jf.Sections) {
		return refuseAt(Pos{File: jf.Path}, "fio reads %d sections, ptsrun %d: ptsrun cannot judge it as fio runs it", len(secs), len(jf.Sections))
	}
	for k := range jf.Sections {
		s := &jf.Sections[k]
		entries, err := s.own(secs[k])
		if err != nil {
			return err
		}
		byName := map[string][]int{}
		for i, l := range s.lines {
			n := canonical(l.written)
			byName[n] = append(byName[n], i)
		}
		used := map[string]int{}
		s.Options = nil
		for _, e := range entries {
			idx := byName[e.name]
			if used[e.name] >= len(idx) {
				return refuseAt(s.At, "fio reads an option %s=%s in section [%s] that ptsrun does not find written: ptsrun cannot judge it as fio runs it", e.name, e.ptr, s.Name)
			}
			l := s.lines[idx[used[e.name]]]
			used[e.name]++
			if e.said != "" {
				return refuseAt(l.at, "%s: fio printed %q as it read it: ptsrun cannot read fio's value", l.raw, e.said)
			}
			_, val, has := strings.Cut(l.raw, "=")
			if !strings.Contains(l.raw, "$") && (has && val != e.ptr || !has && e.ptr != "(null)") {
				return refuseAt(l.at, "%s: fio reads %s=%q: ptsrun cannot judge it as fio runs it", l.raw, e.name, e.ptr)
			}
			if !has {
				e.ptr = ""
			}
			s.Options = append(s.Options, Option{Name: e.name, Written: l.written, Raw: l.raw, At: l.at, Value: e.ptr, HasValue: has,
				Type: e.typ, Nums: e.nums, Percent: e.percent, Files: e.files})
		}
	}
	return nil
}

// own are a section's entries without the engine's defaults fio fills in
// when it loads the engine: those are not written in the job file.
func (s Section) own(f fioSection) ([]fioEntry, error) {
	if f.name != s.Name {
		return nil, refuseAt(s.At, "fio reads the section's name as %q, ptsrun as %q", f.name, s.Name)
	}
	entries := f.entries
	if d := len(entries) - len(s.lines); f.fill >= 0 && d >= 0 && f.fill+d <= len(entries) {
		entries = append(slices.Clone(entries[:f.fill]), entries[f.fill+d:]...)
	}
	if len(entries) != len(s.lines) {
		return nil, refuseAt(s.At, "fio reads %d options in section [%s], ptsrun %d: ptsrun cannot judge it as fio runs it", len(entries), s.Name, len(s.lines))
	}
	return entries, nil
}

// rejections are the lines of fio's stderr that reject something; the
// "Did you mean" hints stay with the line before.
func rejections(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
		case strings.HasPrefix(l, "Did you mean") && len(out) > 0:
			out[len(out)-1] += " (" + l + ")"
		case strings.HasPrefix(l, "fio: job ") && strings.HasSuffix(l, " dropped"):
			// What follows from the line before.
		default:
			out = append(out, l)
		}
	}
	return out
}

// fioMessages are the lines of fio's stdout that are not debug output.
func fioMessages(stdout string) string {
	var keep []string
	for _, l := range strings.Split(stdout, "\n") {
		if l != "" && !debugLine.MatchString(l) && !strings.HasPrefix(l, "fio: set debug option") {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	return strings.Join(keep, " ")
}

// locate finds the line a message of fio is about: the option it quotes
// (<opt=val>, "failed parsing opt=val").
func (jf *UserJobFile) locate(msg string) Pos {
	var want string
	switch {
	case strings.Contains(msg, "failed parsing "):
		want = strings.TrimSpace(msg[strings.Index(msg, "failed parsing ")+len("failed parsing "):])
	case quotedOption.MatchString(msg):
		want = quotedOption.FindStringSubmatch(msg)[1]
	default:
		return Pos{}
	}
	for _, s := range jf.Sections {
		for _, l := range s.lines {
			if l.raw == want {
				return l.at
			}
		}
	}
	for i, l := range strings.Split(string(jf.Copy), "\n") {
		if stripBlankEnd(stripBlankFront(l)) == want {
			return jf.lineOf(i + 1)
		}
	}
	return Pos{}
}
