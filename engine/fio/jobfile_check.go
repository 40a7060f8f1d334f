package fio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// fio is its own oracle for a job file: `fio --parse-only` reads it as a
// run would, options checked and nothing started (init.c parse_dryrun),
// and with --debug=parse it prints every option of every section as it
// handles it, after ${VAR} and keyword substitution:
//
//	parse    4711 Parsing section [job1]
//	parse    4711 handle_option=filename, ptr=/dev/sdb
//
// CheckJobFile runs it and turns what fio says into an error naming the
// line; CrossCheck compares fio's reading with this package's.

// ErrFioRejects marks a job file fio does not accept.
var ErrFioRejects = errors.New("fio rejects the job file")

// ParseOnly is fio's reading of a job file: what it printed.
type ParseOnly struct {
	Stdout, Stderr string
}

// CheckJobFile runs `fio --parse-only --debug=parse ARGS FILE` in dir
// ("" for the working directory) with fio's own options args (those ptsrun
// adds), and fails with fio's messages, each with the line of the job file
// it is about where jf places it, when fio rejects the file. fio exits 0
// for a missing include file or a section in one, though it reads no
// further: any message of that kind is a rejection.
func CheckJobFile(ctx context.Context, bin string, args []string, jf *UserJobFile, dir string) (ParseOnly, error) {
	if bin == "" {
		bin = "fio"
	}
	cmd := exec.CommandContext(ctx, bin, append(append([]string{"--parse-only", "--debug=parse"}, args...), jf.Path)...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	po := ParseOnly{Stdout: out.String(), Stderr: errb.String()}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return po, fmt.Errorf("%w: %v", ErrNoFio, err)
	}
	msgs := rejections(po.Stderr)
	if err == nil && len(msgs) == 0 {
		return po, nil
	}
	if len(msgs) == 0 {
		msgs = []string{strings.TrimSpace(tail(po.Stderr + "\n" + fioMessages(po.Stdout)))}
	}
	var lines []string
	for _, m := range msgs {
		if at := jf.locate(m); at.Line > 0 {
			m = at.String() + ": " + m
		}
		lines = append(lines, m)
	}
	return po, fmt.Errorf("%w %s: %s", ErrFioRejects, jf.Path, strings.Join(lines, "; "))
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

var (
	debugLine    = regexp.MustCompile(`^parse\s+(\d+) `)
	quotedOption = regexp.MustCompile(`<([^<>]*)>`)
)

// locate finds the line a message of fio is about: the option it quotes
// (<opt=val>, "failed parsing opt=val"), or the include file it names.
func (jf *UserJobFile) locate(msg string) Pos {
	var want string
	switch {
	case strings.Contains(msg, "failed parsing "):
		want = strings.TrimSpace(msg[strings.Index(msg, "failed parsing ")+len("failed parsing "):])
	case quotedOption.MatchString(msg):
		want = quotedOption.FindStringSubmatch(msg)[1]
	case strings.Contains(msg, "include file ") || strings.Contains(msg, "unable to open '"):
		var name string
		if i := strings.Index(msg, "include file "); i >= 0 {
			name = strings.TrimSpace(msg[i+len("include file "):])
		} else {
			name, _, _ = strings.Cut(msg[strings.Index(msg, "unable to open '")+len("unable to open '"):], "'")
		}
		for _, src := range jf.Sources {
			for i, l := range strings.Split(src.Text, "\n") {
				if p := stripBlankEnd(stripBlankFront(l)); strings.HasPrefix(p, "include") && len(p) > 8 && strings.HasSuffix(name, p[8:]) {
					return Pos{src.Path, i + 1}
				}
			}
		}
		return Pos{}
	default:
		return Pos{}
	}
	for _, s := range jf.Sections {
		for _, o := range s.Options {
			if o.Raw == want {
				return o.At
			}
		}
	}
	// Not an option of a section: a line outside of any, or one fio
	// stopped at before the sections were made.
	for _, src := range jf.Sources {
		for i, l := range strings.Split(src.Text, "\n") {
			if stripBlankEnd(stripBlankFront(l)) == want {
				return Pos{src.Path, i + 1}
			}
		}
	}
	return Pos{}
}

// gateOptions are the options the safety gate and the recording read: fio's
// reading of them must be this package's.
var gateOptions = []string{"filename", "directory", "opendir", "filename_format", "nrfiles", "numjobs", "rw", "ioengine",
	"stonewall", "new_group", "group_reporting", "unlink", "unlink_each_loop", "write_iolog", "read_iolog",
	"replay_redirect", "merge_blktrace_file", "exec_prerun", "exec_postrun", "write_iops_log", "write_bw_log",
	"write_lat_log", "log_avg_msec", "name", "per_job_logs", "log_compression", "log_store_compressed", "log_unix_epoch"}

// fioSection is a section as fio's --debug=parse shows it.
type fioSection struct {
	name    string
	options []string // "name=value" as handled, "name=(null)" for a bare one
}

// readDebug reads fio's --debug=parse output: the options of each section
// in order (those before the first section are fio's command line).
func readDebug(stdout string) []fioSection {
	var out []fioSection
	for _, l := range strings.Split(stdout, "\n") {
		m := debugLine.FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		// dprint writes "%-8s %-5u ": the pid padded to five columns.
		rest := l[m[1]:]
		for pad := 5 - (m[3] - m[2]); pad > 0 && strings.HasPrefix(rest, " "); pad-- {
			rest = rest[1:]
		}
		switch {
		case strings.HasPrefix(rest, "Parsing section ["):
			name := strings.TrimPrefix(rest, "Parsing section [")
			out = append(out, fioSection{name: strings.TrimSuffix(name, "]")})
		case strings.HasPrefix(rest, "handle_option=") && len(out) > 0:
			name, val, ok := strings.Cut(strings.TrimPrefix(rest, "handle_option="), ", ptr=")
			if ok {
				s := &out[len(out)-1]
				s.options = append(s.options, name+"="+val)
			}
		}
	}
	return out
}

// CrossCheck compares fio's reading of the job file (CheckJobFile's
// output) with this package's, for every option the gate reads, section by
// section. A difference is an error naming the line: the gate would judge
// a job other than the one fio runs.
func (jf *UserJobFile) CrossCheck(po ParseOnly) error {
	fs := readDebug(po.Stdout)
	if len(fs) != len(jf.Sections) {
		return fmt.Errorf("%w %s: fio reads %d sections, ptsrun %d: ptsrun cannot judge it as fio runs it", ErrJobFile, jf.Path, len(fs), len(jf.Sections))
	}
	for i, s := range jf.Sections {
		f := fs[i]
		if f.name != s.Name {
			return errAt(s.At, "fio reads the section's name as %q, ptsrun as %q", f.name, s.Name)
		}
		var mine, theirs []string
		for _, o := range s.Options {
			if !slices.Contains(gateOptions, o.Name) {
				continue
			}
			mine = append(mine, o.Name+"="+fioValue(o))
		}
		for _, o := range f.options {
			name, _, _ := strings.Cut(o, "=")
			if slices.Contains(gateOptions, name) {
				theirs = append(theirs, o)
			}
		}
		slices.Sort(mine)
		slices.Sort(theirs)
		if !slices.Equal(mine, theirs) {
			for _, o := range s.Options {
				if slices.Contains(gateOptions, o.Name) && !slices.Contains(theirs, o.Name+"="+fioValue(o)) {
					return errAt(o.At, "%s: ptsrun reads %s=%q, fio %s: ptsrun cannot judge the job as fio runs it",
						o.Raw, o.Name, o.Value, fioReads(theirs, o.Name))
				}
			}
			return errAt(s.At, "fio reads options ptsrun does not: %s", strings.Join(theirs, ", "))
		}
	}
	return nil
}

// fioValue is an option's value as fio's debug output prints it.
func fioValue(o Option) string {
	if !o.HasValue {
		return "(null)"
	}
	if o.Calc {
		if n, err := evalInt(strings.TrimSpace(o.Value)); err == nil {
			return fmt.Sprint(n)
		}
	}
	return o.Value
}

func fioReads(opts []string, name string) string {
	var vals []string
	for _, o := range opts {
		if n, v, _ := strings.Cut(o, "="); n == name {
			vals = append(vals, fmt.Sprintf("%q", v))
		}
	}
	if len(vals) == 0 {
		return "does not see it"
	}
	return "reads " + strings.Join(vals, ", ")
}
