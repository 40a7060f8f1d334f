package fio

import (
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

// A user's fio job files, read the way fio 3.33 reads them (init.c
// __parse_jobs_ini, parse.c strip_blank_front/strip_blank_end,
// options.c fio_option_dup_subs, fio_keyword_replace, sort_options), so
// that the safety gate knows which files and devices a job does I/O on
// before fio runs it:
//
//   - A line is blank or a comment when its first character that is not
//     blank is ';' or '#'. Elsewhere the first ';', else the first '#',
//     ends the line, and blanks and control characters before it go.
//   - "[name]" starts a section; fio keeps what follows '[' up to 255
//     bytes and drops the last byte, which is the ']' of a well-formed
//     header. A section whose name begins with "global" is a global one.
//     An option before the first section is an error.
//   - "include FILE" (any line starting with "include"; the file name is
//     what follows the next byte) reads FILE's lines as options of the
//     current section. FILE is taken as written when it exists there,
//     else beside the file that includes it. An included file may include
//     others but has no sections.
//   - A section's options are handled highest priority first: directory
//     before filename and filename_format. In each option ${VAR} becomes
//     the environment variable (nothing when it is unset), then $pagesize,
//     $mb_memory and $ncpus become the host's figures, and when one of
//     those was replaced and the line holds + - * or /, fio hands the
//     value to bc.
//   - A global section sets the defaults of the job sections after it in
//     the same job file; fio starts every job file from its defaults again
//     (init.c fill_def_thread), and runs the first job of every job file
//     but the first after the earlier jobs have ended (a stonewall).
//   - A job inherits the global section's files, and adds its own to them:
//     filename= in [global] and in a job names both sets.
//   - numjobs=N makes N threads of a job: the job, then clones numbered
//     $jobnum N-1 down to 1, each a thread of its own (one log file and,
//     without group_reporting, one entry of the JSON output each).
//   - A job without filename= does I/O on nrfiles files named by
//     filename_format ($jobname.$jobnum.$filenum by default) in directory
//     (several directories separated by ':' are taken in turn by the
//     threads); with one file and a job name that names an existing path
//     that is not a regular file (a device), on that path.
//   - A new reporting group starts at a job with stonewall or new_group
//     after any job of the current group.

// maxLine is the longest line fio reads whole (OPT_LEN_MAX 8192 with the
// newline and the terminating NUL): a longer one is split by fgets into
// several options.
const maxLine = 8190

// maxThreads is the most threads fio runs (fio.h REAL_MAX_JOBS), and
// maxFiles the most files ptsrun looks at for one thread.
const (
	maxThreads = 4096
	maxFiles   = 65536
)

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

// Option is one option line of a section.
type Option struct {
	Name     string // fio's name for it: readwrite is rw, nr_files nrfiles, …
	Written  string // the name as written
	Raw      string // the line as fio handles it: blanks and comment stripped
	Value    string // after ${VAR} and keyword substitution
	HasValue bool   // "name=value"; false for a bare "name"
	At       Pos
	// Unset are the ${VAR}s the value holds that are not set: fio puts
	// nothing in their place.
	Unset []string
	// Keywords says $pagesize, $mb_memory or $ncpus were replaced; Calc
	// that fio then hands the value to bc (the line holds + - * or /), and
	// Value is what bc would be given.
	Keywords, Calc bool
	prio           int
}

// String is the option as written, with its place.
func (o Option) String() string { return fmt.Sprintf("%s: %s", o.At, o.Raw) }

// Section is a [name] section of a job file.
type Section struct {
	Name    string
	Global  bool
	At      Pos      // its header
	Options []Option // its options in the order fio handles them, included ones in place
}

// JobDef is a job section as fio makes it: the global options before it
// and its own.
type JobDef struct {
	Name    string
	Section int // index into the job file's Sections
	At      Pos
	// Options are the global options it inherits, then its own (Own, the
	// last len(Own)), each in the order fio handles them: for an option
	// given more than once the last one counts, but for filename (every
	// one adds files).
	Options []Option
	Own     []Option
	// GlobalFiles are the files the global sections before it named, as
	// fio made their names (with the directory of that time).
	GlobalFiles []FileRef
	Group       int // fio's groupid, counted over the job files of one fio run
	Stonewall   bool
}

// FileRef is a file a job does I/O on, as fio names it, and the option
// that names it.
type FileRef struct {
	Name string
	At   Pos
}

// UserJobFile is one of a user's job files and the jobs in it.
type UserJobFile struct {
	Path     string
	Sources  []Source // the job file, then the files it includes, in the order read
	Sections []Section
	Jobs     []JobDef
}

// Source is a file read: a job file or an include file.
type Source struct {
	Path    string
	Text    string
	Include bool
}

// Host is what fio substitutes for its keywords; ReadJobFiles fills an
// empty one from the host (host.go).
type Host struct {
	PageSize int64 // $pagesize
	MemMB    int64 // $mb_memory
	NCPUs    int64 // $ncpus: CPUs configured
}

// ParseOptions say how to read job files.
type ParseOptions struct {
	// ReadFile reads a job or include file; os.ReadFile when nil.
	ReadFile func(name string) ([]byte, error)
	// Exists says whether a path exists (access(F_OK)), to place an
	// include file as fio does; os.Stat when nil.
	Exists func(name string) bool
	// Getenv looks up ${VAR}; os.LookupEnv when nil.
	Getenv func(name string) (string, bool)
	Host   Host
}

// ErrJobFile marks a job file that fio would not read as written.
var ErrJobFile = errors.New("job file")

// JobFileError is a problem at a place in a job file.
type JobFileError struct {
	At  Pos
	Msg string
}

func (e *JobFileError) Error() string { return e.At.String() + ": " + e.Msg }
func (e *JobFileError) Unwrap() error { return ErrJobFile }

func errAt(at Pos, format string, a ...any) error {
	return &JobFileError{At: at, Msg: fmt.Sprintf(format, a...)}
}

// ParseJobFiles reads job files, in the order fio is given them, with
// their include files; groups are counted over all of them, as one fio
// run counts them.
func ParseJobFiles(paths []string, opt ParseOptions) ([]*UserJobFile, error) {
	opt = opt.withDefaults()
	var out []*UserJobFile
	group, any := 0, false
	for i, p := range paths {
		data, err := opt.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %v", ErrJobFile, p, err)
		}
		jf, err := parseJobFile(p, data, opt)
		if err != nil {
			return nil, err
		}
		for k := range jf.Jobs {
			j := &jf.Jobs[k]
			if k == 0 && i > 0 {
				j.Stonewall = true // fio separates job files by a stonewall
			}
			if j.Stonewall || j.flag("new_group") {
				if any {
					group++
					any = false
				}
			}
			j.Group = group
			any = true
		}
		out = append(out, jf)
	}
	return out, nil
}

// rawLine is one line read, before options are handled.
type rawLine struct {
	text string // after strip_blank_front and strip_blank_end
	at   Pos
}

func parseJobFile(path string, data []byte, opt ParseOptions) (*UserJobFile, error) {
	jf := &UserJobFile{Path: path, Sources: []Source{{Path: path, Text: string(data)}}}
	lines, err := splitLines(path, data)
	if err != nil {
		return nil, err
	}
	type sect struct {
		Section
		raw []rawLine
	}
	var secs []sect
	for _, l := range lines {
		p := stripBlankFront(l.text)
		if isEmptyOrComment(p) {
			continue
		}
		if strings.HasPrefix(p, "[") {
			name, ok := sectionName(stripBlankEnd(p))
			if !ok {
				return nil, errAt(l.at, "option <%s> outside of [] job section", stripBlankEnd(p))
			}
			secs = append(secs, sect{Section: Section{Name: name, Global: strings.HasPrefix(name, "global"), At: l.at}})
			continue
		}
		p = stripBlankEnd(p)
		if len(secs) == 0 {
			return nil, errAt(l.at, "option <%s> outside of [] job section", p)
		}
		s := &secs[len(secs)-1]
		if strings.HasPrefix(p, "include") {
			inc, err := jf.include(path, p, l.at, opt, 1)
			if err != nil {
				return nil, err
			}
			s.raw = append(s.raw, inc...)
			continue
		}
		s.raw = append(s.raw, rawLine{text: p, at: l.at})
	}
	for _, s := range secs {
		sec := s.Section
		for _, r := range s.raw {
			sec.Options = append(sec.Options, newOption(r, opt))
		}
		// fio sorts a section's options by priority (qsort; glibc's is a
		// merge sort, stable): directory before filename.
		slices.SortStableFunc(sec.Options, func(a, b Option) int { return b.prio - a.prio })
		jf.Sections = append(jf.Sections, sec)
	}
	jf.makeJobs()
	return jf, nil
}

// include reads the include file that line names, included from file.
func (jf *UserJobFile) include(file, line string, at Pos, opt ParseOptions, depth int) ([]rawLine, error) {
	if depth > maxIncludeDepth {
		return nil, errAt(at, "include files nested more than %d deep", maxIncludeDepth)
	}
	if len(line) <= len("include") {
		return nil, errAt(at, "%s: no include file named", line)
	}
	name := line[len("include")+1:]
	// Placed as fio places it: as written when that exists, else beside
	// the including file (the part of its name up to the last '/').
	if !opt.Exists(name) {
		if i := strings.LastIndexByte(file, '/'); i >= 0 {
			name = file[:i+1] + name
		}
	}
	data, err := opt.ReadFile(name)
	if err != nil {
		return nil, errAt(at, "unable to open include file %q: %v", name, err)
	}
	jf.Sources = append(jf.Sources, Source{Path: name, Text: string(data), Include: true})
	lines, err := splitLines(name, data)
	if err != nil {
		return nil, err
	}
	var out []rawLine
	for _, l := range lines {
		if isEmptyOrComment(l.text) {
			continue
		}
		p := stripBlankFront(l.text)
		if strings.HasPrefix(p, "[") {
			return nil, errAt(l.at, "no new sections in included files (included from %s)", at)
		}
		p = stripBlankEnd(p)
		if strings.HasPrefix(p, "include") {
			inc, err := jf.include(name, p, l.at, opt, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, inc...)
			continue
		}
		out = append(out, rawLine{text: p, at: l.at})
	}
	return out, nil
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
		if i := strings.IndexByte(string(data), '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if i := strings.IndexByte(string(line), 0); i >= 0 {
			return nil, errAt(Pos{file, n}, "a NUL byte at column %d: fio would read the line only up to it", i+1)
		}
		if len(line) > maxLine {
			return nil, errAt(Pos{file, n}, "the line is %d bytes long: fio reads lines of up to %d bytes and would split it into several options", len(line), maxLine)
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

// aliases are fio's other names for options (options.c .alias).
var aliases = map[string]string{
	"readwrite": "rw", "iodepth_batch_submit": "iodepth_batch", "iodepth_batch_complete": "iodepth_batch_complete_min",
	"io_limit": "io_size", "fill_fs": "fill_device", "fileoffset": "offset", "blocksize": "bs", "blockalign": "ba",
	"blocksize_range": "bsrange", "blocksize_unaligned": "bs_unaligned", "nr_files": "nrfiles", "timeout": "runtime",
	"iomem": "mem", "mem_align": "iomem_align", "ratemin": "rate_min", "ratecycle": "rate_cycle",
	"wait_for_previous": "stonewall", "disable_bw": "disable_bw_measurement", "ss": "steadystate",
	"ss_dur": "steadystate_duration", "ss_ramp": "steadystate_ramp_time",
}

// priorities are the options fio handles before (1) or after (-1) the
// others (options.c .prio).
var priorities = map[string]int{
	"filename": -1, "filename_format": -1,
	"lockfile": 1, "cpus_allowed_policy": 1, "kb_base": 1, "unit_base": 1,
}

// keywords fio replaces in every option, in the order it does
// (options.c fio_keywords).
var keywords = []string{"$pagesize", "$mb_memory", "$ncpus"}

// newOption handles one option line: name and value, ${VAR} and keywords.
func newOption(r rawLine, opt ParseOptions) Option {
	o := Option{Raw: r.text, At: r.at}
	trim := func(n string) string {
		return strings.TrimRightFunc(n, func(c rune) bool { return c < 0x80 && (isSpace(byte(c)) || isCntrl(byte(c))) })
	}
	written, _, _ := strings.Cut(r.text, "=")
	o.Written = trim(written)
	// fio sorts by the option as written, and substitutes in the whole
	// line, name included, before it splits it at its first '='.
	o.prio = priorities[canonical(o.Written)]
	sub, unset := substituteEnv(r.text, opt.Getenv)
	sub, kw := replaceKeywords(sub, opt.Host)
	o.Unset, o.Keywords = unset, kw
	o.Calc = kw && strings.ContainsAny(sub, "+-*/") && !strings.Contains(sub, "'")
	name, value, has := strings.Cut(sub, "=")
	o.Name, o.Value, o.HasValue = canonical(trim(name)), value, has
	return o
}

func canonical(name string) string {
	if a, ok := aliases[name]; ok {
		return a
	}
	return name
}

// substituteEnv is options.c fio_option_dup_subs: every ${VAR} becomes the
// variable's value, or nothing when it is unset.
func substituteEnv(s string, getenv func(string) (string, bool)) (string, []string) {
	var b strings.Builder
	var unset []string
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "${") {
			if j := strings.IndexByte(s[i:], '}'); j >= 0 {
				name := s[i+2 : i+j]
				if v, ok := getenv(name); ok {
					b.WriteString(v)
				} else {
					unset = append(unset, name)
				}
				i += j + 1
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String(), unset
}

// replaceKeywords is options.c fio_keyword_replace without the bc step.
func replaceKeywords(s string, h Host) (string, bool) {
	vals := []int64{h.PageSize, h.MemMB, h.NCPUs}
	did := false
	for i, kw := range keywords {
		if strings.Contains(s, kw) {
			s = strings.ReplaceAll(s, kw, strconv.FormatInt(vals[i], 10))
			did = true
		}
	}
	return s, did
}

// makeJobs makes the job sections' jobs: each with the global options
// before it and the files they named.
func (jf *UserJobFile) makeJobs() {
	var global []Option
	var globalFiles []FileRef
	for i, s := range jf.Sections {
		if s.Global {
			// The global section's own files get the directory it has by
			// then: an earlier global's, or its own (handled first).
			dir := lastValue(append(slices.Clone(global), s.Options...), "directory")
			for _, o := range s.Options {
				if o.Name == "filename" {
					for _, f := range splitFileList(strings.TrimSpace(o.Value)) {
						globalFiles = append(globalFiles, FileRef{Name: withDirectory(dir, f, 0), At: o.At})
					}
				}
			}
			global = append(global, s.Options...)
			continue
		}
		j := JobDef{Name: s.Name, Section: i, At: s.At, GlobalFiles: slices.Clone(globalFiles)}
		j.Options = append(slices.Clone(global), s.Options...)
		j.Own = s.Options
		j.Stonewall = j.flag("stonewall")
		jf.Jobs = append(jf.Jobs, j)
	}
}

func lastValue(opts []Option, name string) string {
	v := ""
	for _, o := range opts {
		if o.Name == name {
			v = o.Value
		}
	}
	return v
}

// Get is the option that counts for name (the last one given), if any.
func (j JobDef) Get(name string) (Option, bool) {
	for i := len(j.Options) - 1; i >= 0; i-- {
		if j.Options[i].Name == name {
			return j.Options[i], true
		}
	}
	return Option{}, false
}

// All are every option name given, inherited ones first.
func (j JobDef) All(name string) []Option {
	var out []Option
	for _, o := range j.Options {
		if o.Name == name {
			out = append(out, o)
		}
	}
	return out
}

// flag reads a set-or-bool option (stonewall, new_group, group_reporting):
// given bare, or with a value other than 0.
func (j JobDef) flag(name string) bool {
	o, ok := j.Get(name)
	if !ok {
		return false
	}
	if !o.HasValue {
		return true
	}
	v := strings.TrimSpace(o.Value)
	return v != "0" && !strings.EqualFold(v, "false") && !strings.EqualFold(v, "no") && !strings.EqualFold(v, "off")
}

// Flag is flag for callers: a bool option the job sets.
func (j JobDef) Flag(name string) bool { return j.flag(name) }

// splitFileList splits a filename= or directory= value as options.c
// get_next_str does: at every ':' not preceded by a backslash, which is
// dropped; an empty name (a leading ':') is skipped and an empty name
// after that ends the list (str_filename_cb).
func splitFileList(v string) []string {
	var out []string
	for v != "" {
		var name string
		name, v = nextStr(v)
		if name == "" {
			break
		}
		out = append(out, name)
	}
	return out
}

// nextStr is get_next_str: the next name and the rest.
func nextStr(s string) (string, string) {
	start := 0
	var b strings.Builder
	i := start
	for {
		j := strings.IndexByte(s[i:], ':')
		if j < 0 {
			b.WriteString(s[i:])
			return b.String(), ""
		}
		p := i + j
		if p == start {
			// A ':' first: skipped.
			start = p + 1
			i = start
			continue
		}
		if s[p-1] != '\\' {
			b.WriteString(s[i:p])
			return b.String(), s[p+1:]
		}
		b.WriteString(s[i : p-1])
		b.WriteByte(':')
		i = p + 1
		if i >= len(s) {
			return b.String(), ""
		}
	}
}

// withDirectory prefixes name with the directory the idx-th thread takes
// from a directory= list (filesetup.c add_file, options.c set_name_idx).
func withDirectory(dirs, name string, idx int) string {
	if dirs == "" {
		return name
	}
	ds := splitFileList(dirs)
	if len(ds) == 0 {
		return name
	}
	return ds[idx%len(ds)] + "/" + name
}

// Thread is one thread fio makes of a job: the job, or one of its
// numjobs clones.
type Thread struct {
	Job    int // index into the job file's Jobs
	Number int // fio's thread number in its run, from 1: its log files' number
	JobNum int // $jobnum: 0 for the job, numjobs-1 … 1 for its clones
	Files  []FileRef
	// Unresolved says why the files cannot be known, with where; empty
	// when they are.
	Unresolved []*JobFileError
}

// Stat is what the file resolution asks of the host: whether a path
// exists and whether it is a regular file or a directory, and a
// directory's entries (opendir). os on the live system.
type Stat interface {
	Kind(path string) FileKind
	List(dir string) ([]string, error) // every path below dir that is not a directory, recursively
}

// FileKind is what a path is.
type FileKind int

// Kinds of paths.
const (
	Missing FileKind = iota
	Regular
	Directory
	Block
	Char
	Other // a fifo, a socket
)

// Threads lays a job file's jobs out as the threads fio makes of them,
// numbered from first (1 for a job file fio runs alone; after the threads
// of the job files before it when fio is given several), with the files
// each does I/O on, as st finds them.
func (jf *UserJobFile) Threads(first int, st Stat) []Thread {
	var out []Thread
	n := first
	for ji, j := range jf.Jobs {
		if n-first >= maxThreads {
			break // fio refuses more
		}
		count, countErr := j.count("numjobs", 1)
		if countErr != nil {
			count = 1
		}
		for k := 0; k < count; k++ {
			jobnum := 0
			if k > 0 {
				jobnum = count - k
			}
			t := Thread{Job: ji, Number: n, JobNum: jobnum}
			t.Files, t.Unresolved = j.files(jobnum, st)
			if countErr != nil {
				t.Unresolved = append(t.Unresolved, countErr.(*JobFileError))
			}
			out = append(out, t)
			n++
		}
	}
	return out
}

// count reads a count option (numjobs, nrfiles) with its default.
func (j JobDef) count(name string, def int) (int, error) {
	o, ok := j.Get(name)
	if !ok {
		return def, nil
	}
	if len(o.Unset) > 0 {
		return def, &JobFileError{At: o.At, Msg: fmt.Sprintf("%s: ${%s} is not set", o.Raw, o.Unset[0])}
	}
	v := strings.TrimSpace(o.Value)
	if o.Calc {
		n, err := evalInt(v)
		if err != nil {
			return def, &JobFileError{At: o.At, Msg: fmt.Sprintf("%s: fio hands %q to bc, which ptsrun cannot follow: %v", o.Raw, v, err)}
		}
		v = strconv.FormatInt(n, 10)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return def, &JobFileError{At: o.At, Msg: fmt.Sprintf("%s: %q is not a count", o.Raw, v)}
	}
	if limit := map[string]int{"numjobs": maxThreads, "nrfiles": maxFiles}[name]; n > limit {
		return def, &JobFileError{At: o.At, Msg: fmt.Sprintf("%s: more than the %d ptsrun follows", o.Raw, limit)}
	}
	return n, nil
}

// files are the files a thread of j with $jobnum jobnum does I/O on
// (init.c add_job, filesetup.c add_file, make_filename).
func (j JobDef) files(jobnum int, st Stat) ([]FileRef, []*JobFileError) {
	var bad []*JobFileError
	check := func(o Option, what string) bool {
		switch {
		case len(o.Unset) > 0:
			bad = append(bad, &JobFileError{At: o.At, Msg: fmt.Sprintf("%s: ${%s} is not set: fio would put nothing in its place", o.Raw, o.Unset[0])})
		case o.Keywords:
			bad = append(bad, &JobFileError{At: o.At, Msg: fmt.Sprintf("%s: fio replaces $ncpus, $pagesize and $mb_memory in %s and may hand it to bc", o.Raw, what)})
		default:
			return true
		}
		return false
	}
	files := slices.Clone(j.GlobalFiles)
	dir := ""
	if o, ok := j.Get("directory"); ok {
		if !check(o, "a directory") {
			return nil, bad
		}
		dir = o.Value
	}
	named := len(j.All("filename")) > 0
	for _, o := range j.Own {
		if o.Name != "filename" || !check(o, "a file name") {
			continue
		}
		for _, f := range splitFileList(strings.TrimSpace(o.Value)) {
			files = append(files, FileRef{Name: withDirectory(dir, f, 0), At: o.At})
		}
	}
	for _, o := range j.All("opendir") {
		if !check(o, "a directory") {
			continue
		}
		list, err := st.List(o.Value)
		if err != nil {
			bad = append(bad, &JobFileError{At: o.At, Msg: fmt.Sprintf("%s: %v", o.Raw, err)})
		}
		for _, f := range list {
			files = append(files, FileRef{Name: withDirectory(dir, f, 0), At: o.At})
		}
		named = named || len(list) > 0
	}
	if o, ok := j.Get("read_iolog"); ok {
		bad = append(bad, &JobFileError{At: o.At, Msg: o.Raw + ": the I/O log names the files and the I/O, which ptsrun cannot follow"})
		return files, bad
	}
	if named || len(bad) > 0 {
		return files, bad
	}
	// No file named: nrfiles files named by filename_format.
	nr, err := j.count("nrfiles", 1)
	if err != nil {
		return nil, append(bad, err.(*JobFileError))
	}
	at := j.At
	if nr == 1 {
		// A job named after an existing path that is not a regular file
		// (init.c exists_and_not_regfile) does I/O on that path.
		if k := st.Kind(j.Name); k != Missing && k != Regular {
			return []FileRef{{Name: withDirectory(dir, j.Name, jobnum), At: at}}, nil
		}
	}
	format := "$jobname.$jobnum.$filenum"
	if o, ok := j.Get("filename_format"); ok {
		if !check(o, "a file name format") {
			return nil, bad
		}
		format, at = o.Value, o.At
		if strings.TrimSpace(format) == "" {
			format = "$jobname.$jobnum.$filenum"
		}
	}
	for i := 0; i < nr; i++ {
		f, err := makeFilename(format, j.Name, jobnum, i)
		if err != nil {
			bad = append(bad, &JobFileError{At: at, Msg: err.Error()})
			continue
		}
		files = append(files, FileRef{Name: withDirectory(dir, f, jobnum), At: at})
	}
	return files, bad
}

// makeFilename is init.c make_filename: $jobname, $jobnum, $filenum and
// $clientuid replaced, keyword names matched without regard to case. A
// $clientuid is the fio server's client address, which ptsrun does not
// know.
func makeFilename(format, jobname string, jobnum, filenum int) (string, error) {
	buf := format
	for _, kw := range []string{"$jobname", "$jobnum", "$filenum", "$clientuid"} {
		for {
			i := strings.Index(asciiLower(buf), kw)
			if i < 0 {
				break
			}
			var val string
			switch kw {
			case "$jobname":
				val = jobname
			case "$jobnum":
				val = strconv.Itoa(jobnum)
			case "$filenum":
				val = strconv.Itoa(filenum)
			case "$clientuid":
				return "", fmt.Errorf("filename_format=%s: $clientuid is the address of the fio client, which ptsrun cannot know here", format)
			}
			buf = buf[:i] + val + buf[i+len(kw):]
			if strings.Contains(asciiLower(val), kw) {
				// fio would loop for ever replacing a job name that holds
				// its own keyword.
				return "", fmt.Errorf("filename_format=%s: the job name %q holds %s", format, jobname, kw)
			}
		}
	}
	return buf, nil
}

// asciiLower lowers A-Z only, byte for byte, as strcasestr compares in
// the C locale.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// evalInt evaluates what bc would for a count: integers, + - * / and
// parentheses, division truncated (bc's scale 0).
func evalInt(s string) (int64, error) {
	p := &calc{s: strings.ReplaceAll(s, " ", "")}
	v, err := p.expr()
	if err != nil {
		return 0, err
	}
	if p.i != len(p.s) {
		return 0, fmt.Errorf("unexpected %q", p.s[p.i:])
	}
	return v, nil
}

type calc struct {
	s string
	i int
}

func (c *calc) expr() (int64, error) {
	v, err := c.term()
	for err == nil && c.i < len(c.s) && (c.s[c.i] == '+' || c.s[c.i] == '-') {
		op := c.s[c.i]
		c.i++
		var w int64
		if w, err = c.term(); op == '+' {
			v += w
		} else {
			v -= w
		}
	}
	return v, err
}

func (c *calc) term() (int64, error) {
	v, err := c.factor()
	for err == nil && c.i < len(c.s) && (c.s[c.i] == '*' || c.s[c.i] == '/') {
		op := c.s[c.i]
		c.i++
		var w int64
		if w, err = c.factor(); err != nil {
			break
		}
		if op == '*' {
			v *= w
		} else if w == 0 {
			return 0, errors.New("division by zero")
		} else {
			v /= w
		}
	}
	return v, err
}

func (c *calc) factor() (int64, error) {
	if c.i < len(c.s) && c.s[c.i] == '(' {
		c.i++
		v, err := c.expr()
		if err != nil {
			return 0, err
		}
		if c.i >= len(c.s) || c.s[c.i] != ')' {
			return 0, errors.New("missing )")
		}
		c.i++
		return v, nil
	}
	neg := false
	if c.i < len(c.s) && c.s[c.i] == '-' {
		neg = true
		c.i++
	}
	j := c.i
	for c.i < len(c.s) && c.s[c.i] >= '0' && c.s[c.i] <= '9' {
		c.i++
	}
	if j == c.i {
		return 0, fmt.Errorf("not a number at %q", c.s[j:])
	}
	v, err := strconv.ParseInt(c.s[j:c.i], 10, 64)
	if neg {
		v = -v
	}
	return v, err
}

// Abs places a file name fio opens relative to its working directory.
func Abs(cwd, name string) string {
	if path.IsAbs(name) {
		return path.Clean(name)
	}
	return path.Join(cwd, name)
}

func (o ParseOptions) withDefaults() ParseOptions {
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	if o.Exists == nil {
		o.Exists = func(name string) bool { return LiveStat{}.Kind(name) != Missing }
	}
	if o.Getenv == nil {
		o.Getenv = os.LookupEnv
	}
	if o.Host == (Host{}) {
		o.Host = LiveHost()
	}
	return o
}

// LiveStat is Stat on this host, relative paths placed in Dir (the
// working directory when empty): fio's working directory.
type LiveStat struct{ Dir string }

func (l LiveStat) abs(p string) string {
	if l.Dir == "" || path.IsAbs(p) {
		return p
	}
	return path.Join(l.Dir, p)
}

// Kind says what path is, following symbolic links.
func (l LiveStat) Kind(p string) FileKind {
	fi, err := os.Stat(l.abs(p))
	switch {
	case err != nil:
		return Missing
	case fi.Mode().IsRegular():
		return Regular
	case fi.IsDir():
		return Directory
	case fi.Mode()&os.ModeCharDevice != 0:
		return Char
	case fi.Mode()&os.ModeDevice != 0:
		return Block
	}
	return Other
}

// List lists what fio's opendir adds (filesetup.c recurse_dir): the
// regular files below dir (lstat: a link is not followed, a device is
// left out), directories descended into, in the order the directory
// holds them.
func (l LiveStat) List(dir string) ([]string, error) {
	var out []string
	var walk func(d string, depth int) error
	walk = func(d string, depth int) error {
		if depth > 64 {
			return fmt.Errorf("opendir %s: directories nested too deep", dir)
		}
		f, err := os.Open(l.abs(d))
		if err != nil {
			return fmt.Errorf("opendir %s: %w", d, err)
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			return fmt.Errorf("opendir %s: %w", d, err)
		}
		for _, n := range names {
			p := d + "/" + n
			fi, err := os.Lstat(l.abs(p))
			if err != nil {
				return fmt.Errorf("opendir %s: %w", p, err)
			}
			switch {
			case fi.Mode().IsRegular():
				out = append(out, p)
			case fi.IsDir():
				if err := walk(p, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err := walk(dir, 0)
	return out, err
}

// Access is what a job does to the files it names, as far as its options
// tell.
type Access struct {
	// Writes says the job may change data: it writes, trims, deletes,
	// truncates, allocates or lays out, or what it does cannot be told
	// (then Why says so).
	Writes bool
	Why    string // the options that decide it: "rw=randwrite (job.fio:7)"
	Engine string // the ioengine (psync when not set)
	// Files says the engine does I/O on files or devices named by path on
	// this host; false for network and other engines (whose "files" are
	// addresses) and for the null engine, which does none.
	Files bool
	// Refuse are options whose effect no gate can check (commands run,
	// traces replayed).
	Refuse []*JobFileError
	// Also are files the job writes besides its I/O files (write_iolog).
	Also []FileRef
	// NoIO says the engine does no I/O on files at all (null, cpuio).
	NoIO bool
}

// Engines that do I/O on local paths, and those of them that change
// files whatever rw says.
var (
	pathEngines = map[string]bool{
		"sync": true, "psync": true, "vsync": true, "pvsync": true, "pvsync2": true, "libaio": true, "io_uring": true,
		"io_uring_cmd": true, "posixaio": true, "mmap": true, "splice": true, "sg": true, "falloc": true, "ftruncate": true,
		"e4defrag": true, "filecreate": true, "filestat": true, "filedelete": true, "dircreate": true, "dirstat": true,
		"dirdelete": true, "xnvme": true, "libpmem": true, "mtd": true, "windowsaio": true, "solarisaio": true,
	}
	changingEngines = map[string]string{
		"falloc": "allocates", "ftruncate": "truncates", "e4defrag": "moves blocks of",
		"filecreate": "creates", "filedelete": "deletes", "dircreate": "creates", "dirdelete": "deletes",
	}
	noIOEngines = map[string]bool{"null": true, "cpuio": true}
	// remoteEngines do I/O on something that is not a path on this host
	// (a network peer, a storage cluster, a PCIe device behind SPDK), as
	// rw says.
	remoteEngines = map[string]bool{
		"net": true, "netsplice": true, "rbd": true, "rados": true, "http": true, "nfs": true, "libiscsi": true, "nbd": true,
		"dfs": true, "rdma": true, "libhdfs": true, "spdk": true, "spdk_bdev": true, "gfapi": true, "gfapi_async": true,
		"libblkio": true, "dev-dax": true,
	}
)

// rw values (options.c posval of rw) that only read.
var readOnlyRW = map[string]bool{"read": true, "randread": true}

// writingRW are the other rw values fio takes.
var writingRW = map[string]bool{"write": true, "randwrite": true, "rw": true, "readwrite": true, "randrw": true,
	"trim": true, "randtrim": true, "trimwrite": true, "randtrimwrite": true}

// Access reads what j does: its rw, its ioengine, and the options that
// write or run something besides its I/O.
func (j JobDef) Access() Access {
	a := Access{Engine: "psync", Files: true}
	engAt := j.At
	if o, ok := j.Get("ioengine"); ok {
		a.Engine, engAt = strings.TrimSpace(o.Value), o.At
		if len(o.Unset) > 0 || o.Keywords {
			a.Writes, a.Why = true, fmt.Sprintf("cannot tell: %s (%s)", o.Raw, o.At)
		}
	}
	eng := a.Engine
	switch {
	case noIOEngines[eng]:
		a.Files, a.NoIO = false, true
	case remoteEngines[eng]:
		a.Files = false
	case !pathEngines[eng]:
		// A library by path (external:…), or an engine ptsrun does not
		// know: what it does is not told by rw.
		a.Files = false
		if !a.Writes {
			a.Writes, a.Why = true, fmt.Sprintf("cannot tell: ioengine=%s does I/O ptsrun cannot follow (%s)", eng, engAt)
		}
	}
	rwAt, rwRaw := j.At, "rw=read (fio's default)"
	// The job's own rw replaces an inherited one. Given twice in one
	// section, fio takes the one its sort leaves last: any that writes
	// counts here.
	var rws []Option
	for _, o := range j.Own {
		if o.Name == "rw" {
			rws = append(rws, o)
		}
	}
	if len(rws) == 0 {
		if o, ok := j.Get("rw"); ok {
			rws = []Option{o}
		}
	}
	for _, o := range rws {
		rwAt, rwRaw = o.At, o.Raw
		v, _, _ := strings.Cut(o.Value, ":")
		v, _, _ = strings.Cut(v, ",")
		switch {
		case a.Writes:
		case len(o.Unset) > 0 || o.Keywords:
			a.Writes, a.Why = true, fmt.Sprintf("cannot tell: %s (%s)", o.Raw, o.At)
		case writingRW[v]:
			a.Writes, a.Why = true, fmt.Sprintf("%s (%s)", o.Raw, o.At)
		case !readOnlyRW[v]:
			a.Writes, a.Why = true, fmt.Sprintf("cannot tell: %s (%s)", o.Raw, o.At)
		}
	}
	if !a.Writes {
		if what, ok := changingEngines[eng]; ok {
			a.Writes, a.Why = true, fmt.Sprintf("ioengine=%s %s files (%s)", eng, what, engAt)
		}
	}
	if !a.Writes {
		if o, ok := j.Get("unlink"); ok && j.flag("unlink") {
			a.Writes, a.Why = true, fmt.Sprintf("%s deletes the files (%s)", o.Raw, o.At)
		} else if o, ok := j.Get("unlink_each_loop"); ok && j.flag("unlink_each_loop") {
			a.Writes, a.Why = true, fmt.Sprintf("%s deletes the files (%s)", o.Raw, o.At)
		}
	}
	if !a.Writes {
		a.Why = fmt.Sprintf("%s (%s)", rwRaw, rwAt)
		if rwAt == j.At {
			a.Why = rwRaw
		}
	}
	for _, name := range []string{"exec_prerun", "exec_postrun"} {
		for _, o := range j.All(name) {
			a.Refuse = append(a.Refuse, &JobFileError{At: o.At, Msg: o.Raw + ": runs a command, which no gate can check"})
		}
	}
	for _, name := range []string{"read_iolog", "replay_redirect", "merge_blktrace_file"} {
		for _, o := range j.All(name) {
			a.Refuse = append(a.Refuse, &JobFileError{At: o.At, Msg: o.Raw + ": replays I/O from a trace, whose targets and writes ptsrun cannot follow"})
		}
	}
	if eng == "exec" || strings.HasPrefix(eng, "external") || strings.Contains(eng, "/") {
		a.Refuse = append(a.Refuse, &JobFileError{At: engAt, Msg: "ioengine=" + eng + ": runs a program or loads a library, which no gate can check"})
	}
	for _, o := range j.All("write_iolog") {
		a.Also = append(a.Also, FileRef{Name: strings.TrimSpace(o.Value), At: o.At})
	}
	return a
}
