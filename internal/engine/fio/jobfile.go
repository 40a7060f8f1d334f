package fio

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
)

// A user's fio job files, read for the safety gate in two halves.
//
// ReadJobFile, here, reads only what fio cannot tell: the lines, which of
// them start sections, which are include lines, and where each option is
// written. It inlines every include file, so that fio runs one file, the
// copy (UserJobFile.Copy), which is what the gate judged; fio never reads
// the user's live file or an include file while it runs. The rules are
// fio 3.33's (init.c __parse_jobs_ini, parse.c strip_blank_front and
// strip_blank_end):
//
//   - A line is blank or a comment when its first character that is not
//     blank is ';' or '#'. Elsewhere the first ';', else the first '#',
//     ends the line, and blanks and control characters before it go.
//   - "[name]" starts a section; fio keeps what follows '[' up to 255
//     bytes and drops the last byte. A section whose name begins with
//     "global" is a global one. An option before the first section is an
//     error.
//   - A line of a section starting with "include" names an include file
//     (what follows the next byte), taken as written when it exists there,
//     else beside the file that includes it; its lines are options of the
//     section, and it may include others but has no sections.
//
// fio itself then reads the copy (FioReading.Read, jobfile_fio.go): every
// option's name as fio knows it, its value after ${VAR}, $ncpus and bc, the
// numbers fio makes of it, and the files filename= adds. The job model
// (inheritance from [global], threads, files) is built from fio's reading.

// maxLine is the longest line fio reads whole (OPT_LEN_MAX 8192 with the
// newline and the terminating NUL): a longer one is split by fgets into
// several options.
const maxLine = 8190

// maxIncludeDepth bounds include files including include files: fio itself
// recurses until it runs out of file descriptors.
const maxIncludeDepth = 16

// Pos is where something is written: a file and a line.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Option is one option of a section as fio reads it, and where it is
// written.
type Option struct {
	Name    string // fio's name for it: readwrite is rw, nr_files nrfiles, …
	Written string // the name as written
	Raw     string // the line, blanks and comment stripped
	At      Pos
	// Value is fio's: after ${VAR}, $pagesize, $mb_memory and $ncpus and
	// bc; HasValue false for a bare "name".
	Value    string
	HasValue bool
	Type     string   // fio's type of the option: OPT_STR, OPT_INT, …
	Nums     []uint64 // the numbers fio made of the value, in order (a list or range has several)
	Percent  int      // a size or offset fio took as this percentage; -1 when not one
	Files    []string // for filename: the files fio added for it, with their directory
}

// String is the option as written, with its place.
func (o Option) String() string { return fmt.Sprintf("%s: %s", o.At, o.Raw) }

// Section is a [name] section of a job file.
type Section struct {
	Name    string
	Global  bool
	At      Pos      // its header
	Options []Option // its options in the order fio handles them
	lines   []optLine
}

// optLine is an option line as written, before fio reads it.
type optLine struct {
	raw, written string
	at           Pos
}

// UserJobFile is one of a user's job files and the jobs in it.
type UserJobFile struct {
	Path    string
	Sources []Source // the job file, then the files it includes, in the order read
	// Copy is the job file with its include files inlined: what fio reads
	// and runs (each line ends in a newline).
	Copy     []byte
	Sections []Section
	Jobs     []JobDef
	lines    []Pos // where each line of Copy is written
}

// Source is a file read: a job file or an include file.
type Source struct {
	Path    string
	Text    string
	Include bool
}

// ReadOptions say how to read job files.
type ReadOptions struct {
	// ReadFile reads a job or include file; os.ReadFile when nil.
	ReadFile func(name string) ([]byte, error)
	// Kind says what a path is (following links), to place an include file
	// as fio does (access F_OK) and refuse one that is not a regular file;
	// LiveStat{} when nil.
	Kind func(name string) FileKind
}

// ErrJobFile marks a job file fio would not read either: bad input.
var ErrJobFile = errors.New("job file")

// ErrCannotJudge marks a job file fio would read but the gate cannot judge
// as fio would run it: refused.
var ErrCannotJudge = errors.New("ptsrun cannot judge the job file")

// JobFileError is a problem at a place in a job file.
type JobFileError struct {
	At  Pos
	Msg string
	// Refused says fio would take it, and ptsrun refuses it
	// (ErrCannotJudge); otherwise fio rejects it too (ErrJobFile).
	Refused bool
}

func (e *JobFileError) Error() string { return e.At.String() + ": " + e.Msg }
func (e *JobFileError) Unwrap() error {
	if e.Refused {
		return ErrCannotJudge
	}
	return ErrJobFile
}

func errAt(at Pos, format string, a ...any) error {
	return &JobFileError{At: at, Msg: fmt.Sprintf(format, a...)}
}

func refuseAt(at Pos, format string, a ...any) error {
	return &JobFileError{At: at, Msg: fmt.Sprintf(format, a...), Refused: true}
}

// rawLine is one line of a file as fgets reads it.
type rawLine struct {
	text string
	at   Pos
}

// ReadJobFile reads a job file and its include files into sections of
// option lines and the copy fio runs. The options have no values until
// fio has read the copy (FioReading.Read).
func ReadJobFile(path string, opt ReadOptions) (*UserJobFile, error) {
	opt = opt.withDefaults()
	data, err := opt.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrJobFile, path, err)
	}
	jf := &UserJobFile{Path: path, Sources: []Source{{Path: path, Text: string(data)}}}
	lines, err := splitLines(path, data)
	if err != nil {
		return nil, err
	}
	var copyBuf bytes.Buffer
	for _, l := range lines {
		p := stripBlankFront(l.text)
		if isEmptyOrComment(p) {
			jf.addCopy(&copyBuf, l.text, l.at)
			continue
		}
		if strings.HasPrefix(p, "[") {
			name, ok := sectionName(stripBlankEnd(p))
			if !ok {
				return nil, errAt(l.at, "option <%s> outside of [] job section", stripBlankEnd(p))
			}
			jf.Sections = append(jf.Sections, Section{Name: name, Global: strings.HasPrefix(name, "global"), At: l.at})
			jf.addCopy(&copyBuf, l.text, l.at)
			continue
		}
		p = stripBlankEnd(p)
		if len(jf.Sections) == 0 {
			return nil, errAt(l.at, "option <%s> outside of [] job section", p)
		}
		if strings.HasPrefix(p, "include") {
			if err := jf.include(&copyBuf, path, p, l.at, opt, 1); err != nil {
				return nil, err
			}
			continue
		}
		jf.addOption(&copyBuf, l.text, p, l.at)
	}
	jf.Copy = copyBuf.Bytes()
	return jf, nil
}

// addCopy adds a line to the copy, from at.
func (jf *UserJobFile) addCopy(b *bytes.Buffer, text string, at Pos) {
	b.WriteString(text)
	b.WriteByte('\n')
	jf.lines = append(jf.lines, at)
}

// addOption adds an option line of the last section, and to the copy.
func (jf *UserJobFile) addOption(b *bytes.Buffer, text, stripped string, at Pos) {
	s := &jf.Sections[len(jf.Sections)-1]
	written, _, _ := strings.Cut(stripped, "=")
	// fio strips blanks and control characters from the end of the name
	// (parse.c get_option).
	written = strings.TrimRightFunc(written, func(c rune) bool { return c < 0x80 && (isSpace(byte(c)) || isCntrl(byte(c))) })
	s.lines = append(s.lines, optLine{raw: stripped, written: written, at: at})
	jf.addCopy(b, text, at)
}

// include inlines the include file that line names, included from file:
// its lines go into the copy in place of the include line, between two
// comments that say where they come from.
func (jf *UserJobFile) include(b *bytes.Buffer, file, line string, at Pos, opt ReadOptions, depth int) error {
	if depth > maxIncludeDepth {
		return refuseAt(at, "include files nested more than %d deep", maxIncludeDepth)
	}
	if len(line) <= len("include") {
		// fio would read past the end of the line for the file's name.
		return refuseAt(at, "%s: no include file named", line)
	}
	written := line[len("include")+1:]
	name := written
	// Placed as fio places it: as written when that exists, else beside
	// the including file (the part of its name up to the last '/').
	if opt.Kind(name) == Missing {
		if i := strings.LastIndexByte(file, '/'); i >= 0 {
			name = file[:i+1] + name
		}
	}
	switch opt.Kind(name) {
	case Missing:
		return errAt(at, "unable to open include file %q: it is neither in fio's working directory nor beside %s", written, file)
	case Regular:
	default:
		// A fifo would block, a device may act on being opened.
		return refuseAt(at, "include file %q is not a regular file", name)
	}
	data, err := opt.ReadFile(name)
	if err != nil {
		return errAt(at, "unable to open include file %q: %v", name, err)
	}
	jf.Sources = append(jf.Sources, Source{Path: name, Text: string(data), Include: true})
	lines, err := splitLines(name, data)
	if err != nil {
		return err
	}
	jf.addCopy(b, "; ptsrun: "+line+" ("+printable(at.String())+"), inlined:", at)
	for _, l := range lines {
		if isEmptyOrComment(l.text) {
			jf.addCopy(b, l.text, l.at)
			continue
		}
		p := stripBlankFront(l.text)
		if strings.HasPrefix(p, "[") {
			return errAt(l.at, "no new sections in included files (included from %s)", at)
		}
		p = stripBlankEnd(p)
		if strings.HasPrefix(p, "include") {
			if err := jf.include(b, name, p, l.at, opt, depth+1); err != nil {
				return err
			}
			continue
		}
		jf.addOption(b, l.text, p, l.at)
	}
	jf.addCopy(b, "; ptsrun: the end of "+printable(name), at)
	return nil
}

// printable is s for a comment of the copy: a control character (a
// newline in a file's name) would end the comment and start an option.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// splitLines splits a file into lines as fgets reads them, refusing what
// fio would read otherwise than written: a NUL ends a C string, and a
// line longer than fio's buffer is split.
func splitLines(file string, data []byte) ([]rawLine, error) {
	var out []rawLine
	n := 0
	for len(data) > 0 {
		n++
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if i := bytes.IndexByte(line, 0); i >= 0 {
			return nil, refuseAt(Pos{file, n}, "a NUL byte at column %d: fio would read the line only up to it", i+1)
		}
		if len(line) > maxLine {
			return nil, refuseAt(Pos{file, n}, "the line is %d bytes long: fio reads lines of up to %d bytes and would split it into several options", len(line), maxLine)
		}
		out = append(out, rawLine{text: string(line), at: Pos{file, n}})
	}
	return out, nil
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// isCntrl is C's iscntrl in the C locale.
func isCntrl(c byte) bool { return c < 0x20 || c == 0x7f }

// isEmptyOrComment is init.c is_empty_or_comment.
func isEmptyOrComment(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ';' || c == '#':
			return true
		case !isSpace(c) && !isCntrl(c):
			return false
		}
	}
	return true
}

// stripBlankFront is parse.c strip_blank_front.
func stripBlankFront(s string) string {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return s[i:]
}

// stripBlankEnd is parse.c strip_blank_end: the line ends at its first
// ';', else its first '#', and blanks and control characters before that
// go.
func stripBlankEnd(s string) string {
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	// fio stops at the first byte; a line of blanks keeps it.
	i := len(s)
	for i > 1 && (isSpace(s[i-1]) || isCntrl(s[i-1])) {
		i--
	}
	if i == 1 && (isSpace(s[0]) || isCntrl(s[0])) {
		return s[:1]
	}
	return s[:i]
}

// sectionName reads a header as sscanf("[%255[^\n]]") and fio's dropping
// of its last byte do.
func sectionName(p string) (string, bool) {
	if len(p) < 2 || p[0] != '[' {
		return "", false
	}
	name := p[1:]
	if len(name) > 255 {
		name = name[:255]
	}
	return name[:len(name)-1], true
}

// lineOf is where line n (from 1) of the copy is written.
func (jf *UserJobFile) lineOf(n int) Pos {
	if n < 1 || n > len(jf.lines) {
		return Pos{File: jf.Path}
	}
	return jf.lines[n-1]
}

func (o ReadOptions) withDefaults() ReadOptions {
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	if o.Kind == nil {
		o.Kind = func(name string) FileKind { return LiveStat{}.Stat(name).Kind }
	}
	return o
}
