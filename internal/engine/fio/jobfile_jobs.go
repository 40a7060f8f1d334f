package fio

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

// The jobs of a job file as fio makes them from its reading (init.c
// get_new_job, add_job, filesetup.c add_file):
//
//   - A global section sets the defaults of the job sections after it in
//     the same job file; fio starts every job file from its defaults again
//     (init.c fill_def_thread), and runs the first job of every job file
//     but the first after the earlier jobs have ended (a stonewall).
//   - A job inherits the global sections' files, and adds its own to them:
//     filename= in [global] and in a job names both sets.
//   - numjobs=N makes N threads of a job: the job, then clones numbered
//     $jobnum N-1 down to 1, each a thread of its own (one log file and,
//     without group_reporting, one entry of the JSON output each).
//   - A job without filename= does I/O on nrfiles files named by
//     filename_format ($jobname.$jobnum.$filenum by default) in directory
//     (several directories separated by ':' are taken in turn by the
//     threads); with one file and a job name that names an existing path
//     that is not a regular file (lstat: a device, or a symbolic link), on
//     that path.
//   - A new reporting group starts at a job with stonewall or new_group
//     after any job of the current group.

// maxThreads is the most threads fio runs (fio.h REAL_MAX_JOBS), and
// maxFiles the most files ptsrun looks at for one thread.
const (
	maxThreads = 4096
	maxFiles   = 65536
)

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
	// fio added them.
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

// makeJobs makes the job sections' jobs: each with the global options
// before it and the files they named.
func (jf *UserJobFile) makeJobs() {
	jf.Jobs = nil
	var global []Option
	var globalFiles []FileRef
	for i, s := range jf.Sections {
		if s.Global {
			for _, o := range s.Options {
				for _, f := range o.Files {
					globalFiles = append(globalFiles, FileRef{Name: f, At: o.At})
				}
			}
			global = append(global, s.Options...)
			continue
		}
		j := JobDef{Name: s.Name, Section: i, At: s.At, GlobalFiles: slices.Clone(globalFiles)}
		j.Options = append(slices.Clone(global), s.Options...)
		j.Own = s.Options
		j.Stonewall = j.Flag("stonewall")
		jf.Jobs = append(jf.Jobs, j)
	}
}

// NumberGroups numbers the reporting groups of job files fio is given
// together, as one fio run counts them: every job file after the first
// starts a group.
func NumberGroups(jfs []*UserJobFile) {
	group, any := 0, false
	for i, jf := range jfs {
		for k := range jf.Jobs {
			j := &jf.Jobs[k]
			if k == 0 && i > 0 {
				j.Stonewall = true // fio separates job files by a stonewall
			}
			if j.Stonewall || j.Flag("new_group") {
				if any {
					group++
					any = false
				}
			}
			j.Group = group
			any = true
		}
	}
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

// Flag says a bool option (stonewall, new_group, group_reporting, unlink)
// is set: fio made a number other than 0 of it, or it is given bare.
func (j JobDef) Flag(name string) bool {
	o, ok := j.Get(name)
	if !ok {
		return false
	}
	if len(o.Nums) > 0 {
		return o.Nums[len(o.Nums)-1] != 0
	}
	return !o.HasValue || strings.TrimSpace(o.Value) != "0"
}

// count reads a count option (numjobs, nrfiles): fio's number, or def.
func (j JobDef) count(name string, def int) (int, error) {
	o, ok := j.Get(name)
	if !ok {
		return def, nil
	}
	if len(o.Nums) != 1 || o.Nums[0] < 1 {
		return def, &JobFileError{At: o.At, Msg: fmt.Sprintf("%s: fio reads %q, which is not a count", o.Raw, o.Value), Refused: true}
	}
	if limit := map[string]int{"numjobs": maxThreads, "nrfiles": maxFiles}[name]; o.Nums[0] > uint64(limit) {
		return def, &JobFileError{At: o.At, Msg: fmt.Sprintf("%s: more than the %d ptsrun follows", o.Raw, limit), Refused: true}
	}
	return int(o.Nums[0]), nil
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

// Stat is what the file resolution asks of the host: what a path is, and
// a directory's entries (opendir). os on the live system.
type Stat interface {
	Stat(path string) FileStat
	List(dir string) ([]string, error) // every regular file below dir, recursively
}

// FileStat is what a path is: stat(2) (links followed), and whether
// lstat(2) finds something that is not a regular file there (a device, a
// directory, a symbolic link).
type FileStat struct {
	Kind  FileKind
	Size  int64 // of a regular file
	Links int   // hard links of a regular file
	// NotRegular is fio's exists_and_not_regfile: lstat finds the path,
	// and it is not a regular file.
	NotRegular bool
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
// numbered from first (1 for a job file fio runs alone), with the files
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

// files are the files a thread of j with $jobnum jobnum does I/O on
// (init.c add_job, filesetup.c add_file, make_filename).
func (j JobDef) files(jobnum int, st Stat) ([]FileRef, []*JobFileError) {
	var bad []*JobFileError
	files := slices.Clone(j.GlobalFiles)
	dir := ""
	if o, ok := j.Get("directory"); ok {
		dir = o.Value
	}
	// filename= in a global or in the job names the files; the job's own
	// add to the globals' (fio added them as it read the option).
	named := len(j.All("filename")) > 0
	for _, o := range j.Own {
		if o.Name == "filename" {
			for _, f := range o.Files {
				files = append(files, FileRef{Name: f, At: o.At})
			}
		}
	}
	for _, o := range j.All("opendir") {
		list, err := st.List(o.Value)
		if err != nil {
			bad = append(bad, &JobFileError{At: o.At, Msg: fmt.Sprintf("%s: %v", o.Raw, err), Refused: true})
		}
		for _, f := range list {
			files = append(files, FileRef{Name: withDirectory(dir, f, 0), At: o.At})
		}
		named = named || len(list) > 0
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
	if nr == 1 && st.Stat(j.Name).NotRegular {
		// A job named after an existing path that is not a regular file
		// (init.c exists_and_not_regfile) does I/O on that path.
		return []FileRef{{Name: withDirectory(dir, j.Name, jobnum), At: at}}, nil
	}
	format := "$jobname.$jobnum.$filenum"
	if o, ok := j.Get("filename_format"); ok {
		format, at = o.Value, o.At
		if format == "" {
			format = "$jobname.$jobnum.$filenum"
		}
	}
	for i := 0; i < nr; i++ {
		f, err := makeFilename(format, j.Name, jobnum, i)
		if err != nil {
			bad = append(bad, &JobFileError{At: at, Msg: err.Error(), Refused: true})
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

// splitFileList splits a directory= value as options.c get_next_str does:
// at every ':' not preceded by a backslash, which is dropped; an empty
// name (a leading ':') is skipped and an empty name after that ends the
// list.
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

// Place is where fio opens name: in its working directory cwd when
// relative. It is not cleaned: the kernel takes a ".." after a symbolic
// link from the link's target, not from the name.
func Place(cwd, name string) string {
	if path.IsAbs(name) || cwd == "" {
		return name
	}
	return strings.TrimSuffix(cwd, "/") + "/" + name
}

// LiveStat is Stat on this host, relative paths placed in Dir (the
// working directory when empty): fio's working directory.
type LiveStat struct{ Dir string }

func (l LiveStat) abs(p string) string { return Place(l.Dir, p) }

// Stat says what path is.
func (l LiveStat) Stat(p string) FileStat {
	var s FileStat
	if li, err := os.Lstat(l.abs(p)); err == nil {
		s.NotRegular = !li.Mode().IsRegular()
	}
	fi, err := os.Stat(l.abs(p))
	switch {
	case err != nil:
		return s
	case fi.Mode().IsRegular():
		s.Kind, s.Size, s.Links = Regular, fi.Size(), links(fi)
	case fi.IsDir():
		s.Kind = Directory
	case fi.Mode()&os.ModeCharDevice != 0:
		s.Kind = Char
	case fi.Mode()&os.ModeDevice != 0:
		s.Kind = Block
	default:
		s.Kind = Other
	}
	return s
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
