package fio

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

// memFiles is a set of job and include files in memory, for ReadOptions:
// fio reads the copy from stdin, so they need not be on disk.
type memFiles map[string]string

func (m memFiles) opts() ReadOptions {
	return ReadOptions{
		ReadFile: func(name string) ([]byte, error) {
			if s, ok := m[name]; ok {
				return []byte(s), nil
			}
			return nil, os.ErrNotExist
		},
		Kind: func(name string) FileKind {
			if _, ok := m[name]; ok {
				return Regular
			}
			return Missing
		},
	}
}

// fakeStat says every path in kinds is that kind (a regular file with one
// link), and lists dirs.
type fakeStat struct {
	kinds map[string]FileKind
	dirs  map[string][]string
}

func (f fakeStat) Stat(p string) FileStat {
	k := f.kinds[p]
	return FileStat{Kind: k, Links: 1, NotRegular: k != Missing && k != Regular}
}

func (f fakeStat) List(d string) ([]string, error) {
	if l, ok := f.dirs[d]; ok {
		return l, nil
	}
	return nil, os.ErrNotExist
}

// readFiles reads job files as ptsrun fio does: ptsrun's reading, then
// fio's of the copy.
func readFiles(t *testing.T, paths []string, files memFiles) []*UserJobFile {
	t.Helper()
	enginetest.NeedFio(t)
	var out []*UserJobFile
	for _, p := range paths {
		jf, err := ReadJobFile(p, files.opts())
		require.NoError(t, err)
		require.NoError(t, FioReading{}.Read(context.Background(), jf))
		out = append(out, jf)
	}
	NumberGroups(out)
	return out
}

// parseOne reads one job file, job.fio, with fio, the environment set as
// env says.
func parseOne(t *testing.T, text string, files memFiles, env map[string]string) *UserJobFile {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	if files == nil {
		files = memFiles{}
	}
	files["job.fio"] = text
	return readFiles(t, []string{"job.fio"}, files)[0]
}

// threadFiles writes every thread as "job#jobnum: file file…".
func threadFiles(jf *UserJobFile, st Stat) []string {
	var out []string
	for _, th := range jf.Threads(1, st) {
		var names []string
		for _, f := range th.Files {
			names = append(names, f.Name)
		}
		line := jf.Jobs[th.Job].Name + "#" + strconv.Itoa(th.JobNum) + ": " + strings.Join(names, " ")
		for _, u := range th.Unresolved {
			line += " !" + u.Error()
		}
		out = append(out, line)
	}
	return out
}

func TestJobFileLines(t *testing.T) {
	jf := parseOne(t, "; a comment\n  # another\n\n[global]\nrw=read ; why\nbs=4k#x\n[ job 1 ]   ; c\n\t  iodepth=8 \r\n[j2]\n[global2]\nsize=1m\n[j3]\n", nil, nil)
	require.Len(t, jf.Sections, 5)
	assert.Equal(t, []string{"global", " job 1 ", "j2", "global2", "j3"}, []string{jf.Sections[0].Name, jf.Sections[1].Name,
		jf.Sections[2].Name, jf.Sections[3].Name, jf.Sections[4].Name})
	assert.True(t, jf.Sections[3].Global, "a section whose name starts with global is global")
	assert.Equal(t, "rw=read", jf.Sections[0].Options[0].Raw)
	assert.Equal(t, "bs=4k", jf.Sections[0].Options[1].Raw)
	assert.Equal(t, []uint64{4096}, jf.Sections[0].Options[1].Nums, "fio's number of it")
	assert.Equal(t, Pos{"job.fio", 8}, jf.Sections[1].Options[0].At)
	assert.Equal(t, "iodepth=8", jf.Sections[1].Options[0].Raw)
	require.Len(t, jf.Jobs, 3)
	o, ok := jf.Jobs[0].Get("rw")
	require.True(t, ok, "a job inherits the global options before it")
	assert.Equal(t, "read", o.Value)
	_, ok = jf.Jobs[1].Get("size")
	assert.False(t, ok, "not a later global's")
	_, ok = jf.Jobs[2].Get("size")
	assert.True(t, ok)
	assert.Equal(t, "; a comment\n  # another\n\n[global]\nrw=read ; why\nbs=4k#x\n[ job 1 ]   ; c\n\t  iodepth=8 \r\n[j2]\n[global2]\nsize=1m\n[j3]\n",
		string(jf.Copy), "without include files, the copy is the file")
}

// What fio would not read is bad input (ErrJobFile); what fio would read
// otherwise than written is refused (ErrCannotJudge). Neither needs fio.
func TestJobFileBadLines(t *testing.T) {
	for _, tc := range []struct {
		name, text, msg string
		refused         bool
	}{
		{"option before a section", "rw=read\n[j]\n", "job.fio:1: option <rw=read> outside of [] job section", false},
		{"bare bracket", "[j]\n[\n", "job.fio:2: option <[> outside of [] job section", false},
		{"NUL", "[j]\nrw=re\x00ad\n", "job.fio:2: a NUL byte at column 6", true},
		{"long line", "[j]\nfilename=" + strings.Repeat("x", 9000) + "\n", "job.fio:2: the line is 9009 bytes long", true},
		{"missing include", "[j]\ninclude nope.fio\n", `job.fio:2: unable to open include file "nope.fio"`, false},
		{"no include file named", "[j]\ninclude\n", "job.fio:2: include: no include file named", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := memFiles{"job.fio": tc.text}
			_, err := ReadJobFile("job.fio", files.opts())
			require.Error(t, err)
			assert.Equal(t, tc.refused, errors.Is(err, ErrCannotJudge))
			assert.Equal(t, !tc.refused, errors.Is(err, ErrJobFile))
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
	files := memFiles{"dir/job.fio": "[j]\ninclude inc.fio\n", "dir/inc.fio": "rw=read\n[x]\n"}
	_, err := ReadJobFile("dir/job.fio", files.opts())
	assert.ErrorContains(t, err, "dir/inc.fio:2: no new sections in included files (included from dir/job.fio:2)")
	files = memFiles{"a.fio": "[j]\ninclude b.fio\n", "b.fio": "include b.fio\n"}
	_, err = ReadJobFile("a.fio", files.opts())
	assert.ErrorContains(t, err, "include files nested more than 16 deep")
	assert.ErrorIs(t, err, ErrCannotJudge)
	// An include file that is not a regular file is not opened: a fifo
	// would block, a device may act on being opened.
	opts := files.opts()
	opts.Kind = func(n string) FileKind {
		if n == "/dev/watchdog" {
			return Char
		}
		return Regular
	}
	opts.ReadFile = func(n string) ([]byte, error) {
		if n == "/dev/watchdog" {
			t.Fatal("opened the device")
		}
		return []byte("[j]\ninclude /dev/watchdog\n"), nil
	}
	_, err = ReadJobFile("a.fio", opts)
	assert.ErrorContains(t, err, `a.fio:2: include file "/dev/watchdog" is not a regular file`)
}

func TestJobFileIncludes(t *testing.T) {
	files := memFiles{
		"jobs/main.fio":    "[j]\nsize=1m\ninclude common.fio\nbs=8k\n",
		"jobs/common.fio":  "rw=randwrite\ninclude deeper.fio\n",
		"jobs/deeper.fio":  "filename=/dev/sdz\n",
		"here.fio":         "iodepth=4\n",
		"jobs/second.fio":  "[k]\ninclude here.fio\n",
		"jobs/here.fio":    "iodepth=99\n",
		"jobs/eq.fio":      "[k]\ninclude=common.fio\n",
		"jobs/spaced.fio":  "[k]\ninclude  common.fio\n",
		"jobs/ jobs/x.fio": "",
	}
	jfs := readFiles(t, []string{"jobs/main.fio", "jobs/second.fio", "jobs/eq.fio"}, files)
	var raws []string
	for _, o := range jfs[0].Jobs[0].Options {
		raws = append(raws, o.At.String()+" "+o.Raw)
	}
	assert.Equal(t, []string{"jobs/main.fio:2 size=1m", "jobs/common.fio:1 rw=randwrite", "jobs/main.fio:4 bs=8k",
		"jobs/deeper.fio:1 filename=/dev/sdz"}, raws, "included options in place, includes placed beside the file that includes them, filename handled last")
	assert.Equal(t, "jobs/main.fio", jfs[0].Sources[0].Path)
	assert.Equal(t, []string{"jobs/common.fio", "jobs/deeper.fio"}, []string{jfs[0].Sources[1].Path, jfs[0].Sources[2].Path})
	assert.Equal(t, "[j]\nsize=1m\n"+
		"; ptsrun: include common.fio (jobs/main.fio:3), inlined:\nrw=randwrite\n"+
		"; ptsrun: include deeper.fio (jobs/common.fio:2), inlined:\nfilename=/dev/sdz\n; ptsrun: the end of jobs/deeper.fio\n"+
		"; ptsrun: the end of jobs/common.fio\nbs=8k\n", string(jfs[0].Copy), "what fio runs: one file")
	o, _ := jfs[1].Jobs[0].Get("iodepth")
	assert.Equal(t, "4", o.Value, "an include that exists as written is taken from there (fio's working directory)")
	o, _ = jfs[2].Jobs[0].Get("rw")
	assert.Equal(t, "randwrite", o.Value, "include=FILE works too: fio skips one byte after include")
	// A newline in a file's name does not end the copy's comment.
	evil := memFiles{"a\nrw=write\n/job.fio": "[j]\ninclude inc.fio\n", "a\nrw=write\n/inc.fio": "bs=4k\n"}
	jf, err := ReadJobFile("a\nrw=write\n/job.fio", evil.opts())
	require.NoError(t, err)
	assert.Equal(t, 4, strings.Count(string(jf.Copy), "\n"), "%q", jf.Copy)
	_, err = ReadJobFile("jobs/spaced.fio", files.opts())
	assert.ErrorContains(t, err, `unable to open include file " common.fio"`, "the name is what follows that byte")
}

// The values are fio's: ${VAR} from the environment, $ncpus and the like,
// bc's arithmetic, the numbers and the files fio makes of them.
func TestFioReadsTheValues(t *testing.T) {
	jf := parseOne(t, "[j]\nfilename=${DEV}:${NOPE}x\nrw=${EMPTY}randwrite\nnumjobs=$ncpus\nsize=$mb_memory/$mb_memory\nname=$NCPUS\noffset=50%\nstonewall\n",
		nil, map[string]string{"DEV": "/dev/sdb", "EMPTY": ""})
	get := func(n string) Option { o, _ := jf.Jobs[0].Get(n); return o }
	assert.Equal(t, "/dev/sdb:x", get("filename").Value)
	assert.Equal(t, []string{"/dev/sdb", "x"}, get("filename").Files, "fio's files: an unset variable is nothing")
	assert.Equal(t, "randwrite", get("rw").Value)
	assert.Equal(t, []uint64{uint64(runtime.NumCPU())}, get("numjobs").Nums)
	assert.Equal(t, "1", get("size").Value, "bc's result")
	assert.Equal(t, "$NCPUS", get("name").Value, "keywords are case-sensitive")
	assert.Equal(t, 50, get("offset").Percent)
	assert.Equal(t, -1, get("size").Percent)
	assert.False(t, get("stonewall").HasValue)
	assert.Empty(t, get("stonewall").Value)
	assert.True(t, jf.Jobs[0].Flag("stonewall"))
	assert.Equal(t, Pos{"job.fio", 2}, get("filename").At)
	assert.Equal(t, "OPT_STR_STORE", get("filename").Type)
	assert.Len(t, jf.Threads(1, fakeStat{}), runtime.NumCPU())
}

func TestFileLists(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"/dev/sdb", []string{"/dev/sdb"}},
		{"/dev/sdb:/dev/sdc", []string{"/dev/sdb", "/dev/sdc"}},
		{`/tmp/a\:b:/tmp/c`, []string{"/tmp/a:b", "/tmp/c"}},
		{`a\:b\:c`, []string{"a:b:c"}},
		{":a::b", []string{"a", "b"}}, // a ':' that starts a name is skipped
		{`a\\:b`, []string{`a\:b`}},
		{"a:", []string{"a"}},
		{`a\:`, []string{"a:"}},
		{"", nil},
	} {
		assert.Equal(t, tc.want, splitFileList(tc.in), tc.in)
	}
}

func TestJobThreadsAndFiles(t *testing.T) {
	jf := parseOne(t, `[global]
filename=/g/a
[j1]
filename=/j/b:/j/c
numjobs=3
[global]
directory=/d1:/d2
[j2]
nrfiles=2
numjobs=2
new_group
[j3]
filename_format=$jobname.$JOBNUM.$filenum.x
stonewall
`, nil, nil)
	assert.Equal(t, []string{
		"j1#0: /g/a /j/b /j/c", "j1#2: /g/a /j/b /j/c", "j1#1: /g/a /j/b /j/c",
		"j2#0: /g/a", "j2#1: /g/a",
		"j3#0: /g/a",
	}, threadFiles(jf, fakeStat{}), "filename= in a global names every later job's files")
	jf = parseOne(t, `[global]
directory=/d1:/d2
[j2]
nrfiles=2
numjobs=2
new_group
[j3]
filename_format=$jobname.$JOBNUM.$filenum.x
stonewall
[j4]
filename_format=$clientuid.x
[/dev/sdq]
[/dev/sdr]
nrfiles=2
[link]
`, nil, nil)
	st := fakeStat{kinds: map[string]FileKind{"/dev/sdq": Block, "/dev/sdr": Char, "link": Regular}}
	assert.Equal(t, []string{
		"j2#0: /d1/j2.0.0 /d1/j2.0.1", "j2#1: /d2/j2.1.0 /d2/j2.1.1",
		"j3#0: /d1/j3.0.0.x",
		"j4#0:  !job.fio:11: filename_format=$clientuid.x: $clientuid is the address of the fio client, which ptsrun cannot know here",
		"/dev/sdq#0: /d1//dev/sdq",
		"/dev/sdr#0: /d1//dev/sdr.0.0 /d1//dev/sdr.0.1",
		"link#0: /d1/link.0.0",
	}, threadFiles(jf, st), "a job named after a device does I/O on it (with one file)")
	var groups []int
	for _, j := range jf.Jobs {
		groups = append(groups, j.Group)
	}
	assert.Equal(t, []int{0, 1, 1, 1, 1, 1}, groups)
	th := jf.Threads(7, st)
	assert.Equal(t, 7, th[0].Number)
	assert.Equal(t, 8, th[1].Number)

	jf = parseOne(t, "[o]\nopendir=/data\n[p]\nopendir=/nope\n", nil, nil)
	assert.Equal(t, []string{"o#0: /data/x /data/y/z", "p#0:  !job.fio:4: opendir=/nope: file does not exist"},
		threadFiles(jf, fakeStat{dirs: map[string][]string{"/data": {"/data/x", "/data/y/z"}}}))
}

// A job named after a symbolic link does I/O on it, as after a device:
// fio asks lstat (filesetup.c exists_and_not_regfile). The link's target
// is that file.
func TestJobNamedAfterALink(t *testing.T) {
	enginetest.NeedFio(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "real.dat"), []byte("data"), 0o644))
	require.NoError(t, os.Symlink("real.dat", filepath.Join(dir, "victim")))
	jf := parseOne(t, "[victim]\nrw=read\nsize=4k\n", nil, nil)
	assert.Equal(t, []string{"victim#0: victim"}, threadFiles(jf, LiveStat{Dir: dir}))
	assert.Equal(t, []string{"victim#0: victim.0.0"}, threadFiles(jf, LiveStat{Dir: t.TempDir()}))
}

func TestGroupsAcrossJobFiles(t *testing.T) {
	files := memFiles{"a.fio": "[global]\nrw=write\n[a1]\n[a2]\nstonewall\n", "b.fio": "[b1]\n[b2]\nnew_group\n[b3]\n"}
	jfs := readFiles(t, []string{"a.fio", "b.fio"}, files)
	var got []string
	for _, jf := range jfs {
		for _, j := range jf.Jobs {
			got = append(got, j.Name+"="+strconv.Itoa(j.Group))
		}
	}
	assert.Equal(t, []string{"a1=0", "a2=1", "b1=2", "b2=3", "b3=3"}, got, "every job file after the first starts a group")
	_, ok := jfs[1].Jobs[0].Get("rw")
	assert.False(t, ok, "fio starts every job file from its defaults")
}

func TestJobAccess(t *testing.T) {
	for _, tc := range []struct {
		opts   string
		writes bool
		why    string
		noIO   bool
	}{
		{"", false, "rw=read (fio's default)", false},
		{"rw=randread", false, "rw=randread (job.fio:2)", false},
		{"readwrite=randread:8", false, "readwrite=randread:8 (job.fio:2)", false},
		{"rw=randwrite", true, "rw=randwrite (job.fio:2)", false},
		{"rw=trim", true, "rw=trim (job.fio:2)", false},
		{"rw=randrw\nrwmixread=100", true, "rw=randrw (job.fio:2)", false},
		{"rw=write\nrw=read", true, "rw=write (job.fio:2)", false},
		{"rw=${RW}", true, "rw=${RW} (job.fio:2)", false},
		{"ioengine=filedelete", true, "ioengine=filedelete deletes files (job.fio:2)", false},
		{"ioengine=null\nrw=write", true, "rw=write (job.fio:3)", true},
		{"unlink=1", true, "unlink=1 deletes the files (job.fio:2)", false},
		{"unlink=0", false, "rw=read (fio's default)", false},
		{"fill_fs=1", true, "fill_fs=1 fills the files up to the end of their devices (job.fio:2)", false},
		{"trim_percentage=10\nverify=md5", true, "trim_percentage=10 trims (job.fio:2)", false},
		{"zonemode=zbd", true, "zonemode=zbd resets zones (job.fio:2)", false},
		{"zonemode=strided", false, "rw=read (fio's default)", false},
	} {
		t.Run(tc.opts, func(t *testing.T) {
			jf := parseOne(t, "[j]\n"+tc.opts+"\n", nil, map[string]string{"RW": "write"})
			a := jf.Jobs[0].Access()
			assert.Equal(t, tc.writes, a.Writes)
			assert.Equal(t, tc.why, a.Why)
			assert.Equal(t, tc.noIO, a.NoIO)
		})
	}
}

// What fio acts on as it reads a job file, before anything runs, is
// refused before fio reads it: fio is never started (the binary given
// does not exist).
func TestScreenedBeforeFioReads(t *testing.T) {
	for _, tc := range []struct{ text, msg string }{
		{"[j]\nioengine=external:/tmp/evil.so\nbogus=1\n", "ioengine=external:/tmp/evil.so: ptsrun's gate knows only the engines"},
		{"[j]\nioengine=/tmp/evil.so\n", "ioengine=/tmp/evil.so"},
		{"[j]\nioengine=${E}\n", "ioengine=${E}"},
		{"[j]\nioengine=rbd\n", "ioengine=rbd"},
		{"[j]\nbuffer_pattern='/etc/shadow'\n", "buffer_pattern='/etc/shadow': fio reads a pattern in quotes"},
		{"[j]\nverify_pattern=${P}\n", "verify_pattern=${P}"},
		{"[j]\n${X}=/dev/sda\n", "job.fio:2: ${X}=/dev/sda: the option's name holds a substitution"},
	} {
		files := memFiles{"job.fio": tc.text}
		jf, err := ReadJobFile("job.fio", files.opts())
		require.NoError(t, err)
		err = FioReading{Binary: "/nonexistent/fio"}.Read(context.Background(), jf)
		require.Error(t, err, tc.text)
		assert.ErrorIs(t, err, ErrCannotJudge, tc.text)
		assert.Contains(t, err.Error(), tc.msg)
	}
}

// fio's reading placed on the lines: a section fio reads otherwise than
// ptsrun is refused, naming the line.
func TestFioReadingMismatch(t *testing.T) {
	files := memFiles{"job.fio": "[global]\nrw=read\n[j]\nfilename=/dev/sdb\n"}
	jf, err := ReadJobFile("job.fio", files.opts())
	require.NoError(t, err)
	debug := func(lines ...string) []fioSection {
		return readDebug("fio: set debug option parse\nparse    1 Parsing ini file -\n" + strings.Join(lines, "\n") + "\n")
	}
	global := []string{"parse    1 Parsing section [global]", "parse    1 handle_option=rw, ptr=read"}
	err = jf.apply(debug(append(global, "parse    1 Parsing section [j]", "parse    1 handle_option=filename, ptr=/dev/sdc")...))
	require.Error(t, err)
	assert.Equal(t, `job.fio:4: filename=/dev/sdb: fio reads filename="/dev/sdc": ptsrun cannot judge it as fio runs it`, err.Error())
	assert.ErrorIs(t, err, ErrCannotJudge)
	err = jf.apply(debug(append(global, "parse    1 Parsing section [j]", "parse    1 handle_option=directory, ptr=/dev/sdb")...))
	assert.ErrorContains(t, err, "fio reads an option directory=/dev/sdb in section [j] that ptsrun does not find written")
	err = jf.apply(debug(append(global, "parse    1 Parsing section [j]", "parse    1 handle_option=filename, ptr=/dev/sdb",
		"parse    1 handle_option=size, ptr=1g")...))
	assert.ErrorContains(t, err, "fio reads 2 options in section [j], ptsrun 1")
	err = jf.apply(debug(append(global, "parse    1 Parsing section [k]", "parse    1 handle_option=filename, ptr=/dev/sdb")...))
	assert.ErrorContains(t, err, `job.fio:3: fio reads the section's name as "k", ptsrun as "j"`)
	assert.ErrorContains(t, jf.apply(debug(global...)), "fio reads 1 sections, ptsrun 2")
	err = jf.apply(debug(append(global, "parse    1 Parsing section [j]", "parse    1 handle_option=filename, ptr=/dev/sdb",
		`file     1 file 0x1 "/dev/sdb" added at 0`, `file     1 file 0x2 "/dev/sdc" added at 1`)...))
	require.NoError(t, err, "the files are fio's")
	assert.Equal(t, []string{"/dev/sdb", "/dev/sdc"}, jf.Sections[1].Options[0].Files)
	err = jf.apply(debug(append(global, "parse    1 Parsing section [j]", "parse    1 handle_option=filename, ptr=/dev/sdb", "more of the value")...))
	assert.ErrorContains(t, err, `job.fio:4: filename=/dev/sdb: fio printed "more of the value" as it read it`)
	// The engine's defaults, which fio fills in as it loads the engine,
	// are not the job file's.
	files["job.fio"] = "[j]\nioengine=io_uring\nhipri\n"
	jf, err = ReadJobFile("job.fio", files.opts())
	require.NoError(t, err)
	require.NoError(t, jf.apply(debug("parse    1 Parsing section [j]", "parse    1 handle_option=ioengine, ptr=io_uring", "parse    1 init options",
		"parse    1 filling default options", "parse    1 handle_option=nonvectored, ptr=-1", "parse    1 handle_option=hipri, ptr=(null)")))
	assert.Equal(t, []string{"ioengine", "hipri"}, []string{jf.Sections[0].Options[0].Name, jf.Sections[0].Options[1].Name})
}

// oracleDir is a working directory for fio with what the job files of
// testdata/jobfiles use: ${T} names it.
func oracleDir(t *testing.T) string {
	dir := t.TempDir()
	for _, d := range []string{"d1", "d2", "tree/sub"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	for _, f := range []string{"tree/one.dat", "tree/sub/two.dat"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), make([]byte, 4096), 0o644))
	}
	require.NoError(t, os.Symlink("/dev/null", filepath.Join(dir, "tree", "link")))
	return dir
}

var addedFileLine = regexp.MustCompile(`^file\s+\d+\s+file 0x[0-9a-f]+ "(.*)" added at \d+$`)

// TestJobFilesAsFioReadsThem is fio as the oracle of the file model:
// running each job file's copy (reads of a few KiB in a temporary
// directory) fio adds exactly the files Threads resolves, as --debug=file
// prints them; and fio reads the user's job file as its copy.
func TestJobFilesAsFioReadsThem(t *testing.T) {
	enginetest.NeedFio(t)
	files, err := filepath.Glob("testdata/jobfiles/*.fio")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			dir := oracleDir(t)
			t.Setenv("T", dir)
			abs, err := filepath.Abs(f)
			require.NoError(t, err)
			st := LiveStat{Dir: dir}
			jf, err := ReadJobFile(abs, ReadOptions{Kind: func(n string) FileKind { return st.Stat(n).Kind }})
			require.NoError(t, err)
			require.NoError(t, FioReading{Dir: dir}.Read(context.Background(), jf))
			readsAsOriginal(t, jf, dir)

			var want []string
			for _, th := range jf.Threads(1, st) {
				require.Empty(t, th.Unresolved)
				for _, fr := range th.Files {
					if !slices.Contains(want, fr.Name) {
						want = append(want, fr.Name)
					}
				}
			}
			cp := filepath.Join(t.TempDir(), "copy.fio")
			require.NoError(t, os.WriteFile(cp, jf.Copy, 0o444))
			cmd := exec.Command("fio", "--debug=file", "--output-format=json", cp)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			var got []string
			for _, l := range strings.Split(string(out), "\n") {
				if m := addedFileLine.FindStringSubmatch(l); m != nil && !slices.Contains(got, m[1]) {
					got = append(got, m[1])
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			require.NotEmpty(t, got)
			assert.Equal(t, want, got)
			t.Logf("%d files, as fio adds them", len(got))
		})
	}
}

// fio's own message for a job file it rejects, with the line it is about.
func TestFioRejectsJobFile(t *testing.T) {
	enginetest.NeedFio(t)
	for _, tc := range []struct{ name, text, msg string }{
		{"unknown option", "[j]\nrw=read\nbogus_option=3\n", "job.fio:3: Bad option <bogus_option=3> (Did you mean log_prio?)"},
		{"bad value", "[global]\nrw=randreadx\n[j]\n", "job.fio:2: fio: failed parsing rw=randreadx"},
		{"bad value from the environment", "[j]\nrw=${RW}\n", "job.fio:2: fio: failed parsing rw=${RW}"},
		{"blank before the value", "[j]\n  rw = randwrite # x\n", "job.fio:2: fio: failed parsing rw = randwrite"},
		{"bad size", "[j]\nsize=abc\n", "job.fio:2: fio: failed parsing size=abc"},
		{"in an include file", "[j]\ninclude inc.fio\n", "inc.fio:2: fio: failed parsing bs=huge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("RW", "sideways")
			files := memFiles{"job.fio": tc.text, "inc.fio": "rw=read\nbs=huge\n"}
			jf, err := ReadJobFile("job.fio", files.opts())
			require.NoError(t, err)
			err = FioReading{}.Read(context.Background(), jf)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrFioRejects))
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

// readsAsOriginal has fio read the user's job file itself, includes and
// all, and holds its reading to that of the copy with the include files
// inlined: the inlining is fio's.
func readsAsOriginal(t *testing.T, jf *UserJobFile, dir string) {
	t.Helper()
	r := FioReading{Dir: dir}
	orig, err := r.parse(context.Background(), jf, nil, jf.Path, nil)
	require.NoError(t, err)
	cp, err := r.parse(context.Background(), jf, nil, "-", jf.Copy)
	require.NoError(t, err)
	require.Len(t, orig, len(cp))
	for k, s := range jf.Sections {
		a, err := s.own(orig[k])
		require.NoError(t, err)
		b, err := s.own(cp[k])
		require.NoError(t, err)
		require.Len(t, a, len(b))
		for i := range a {
			assert.Equal(t, a[i].name+"="+a[i].ptr, b[i].name+"="+b[i].ptr, "section [%s]", s.Name)
			assert.Equal(t, a[i].files, b[i].files)
		}
	}
}
