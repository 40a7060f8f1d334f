package fio

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memFiles is a set of job and include files in memory, for ParseOptions.
type memFiles map[string]string

func (m memFiles) opts(env map[string]string) ParseOptions {
	return ParseOptions{
		ReadFile: func(name string) ([]byte, error) {
			if s, ok := m[name]; ok {
				return []byte(s), nil
			}
			return nil, os.ErrNotExist
		},
		Exists: func(name string) bool { _, ok := m[name]; return ok },
		Getenv: func(name string) (string, bool) { v, ok := env[name]; return v, ok },
		Host:   Host{PageSize: 4096, MemMB: 1024, NCPUs: 2},
	}
}

// fakeStat says every path in kinds is that kind, and lists dirs.
type fakeStat struct {
	kinds map[string]FileKind
	dirs  map[string][]string
}

func (f fakeStat) Kind(p string) FileKind { return f.kinds[p] }
func (f fakeStat) List(d string) ([]string, error) {
	if l, ok := f.dirs[d]; ok {
		return l, nil
	}
	return nil, os.ErrNotExist
}

func parseOne(t *testing.T, text string, files memFiles, env map[string]string) *UserJobFile {
	t.Helper()
	if files == nil {
		files = memFiles{}
	}
	files["job.fio"] = text
	jfs, err := ParseJobFiles([]string{"job.fio"}, files.opts(env))
	require.NoError(t, err)
	return jfs[0]
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
}

func TestJobFileBadLines(t *testing.T) {
	for _, tc := range []struct{ name, text, msg string }{
		{"option before a section", "rw=read\n[j]\n", "job.fio:1: option <rw=read> outside of [] job section"},
		{"bare bracket", "[j]\n[\n", "job.fio:2: option <[> outside of [] job section"},
		{"NUL", "[j]\nrw=re\x00ad\n", "job.fio:2: a NUL byte at column 6"},
		{"long line", "[j]\nfilename=" + strings.Repeat("x", 9000) + "\n", "job.fio:2: the line is 9009 bytes long"},
		{"missing include", "[j]\ninclude nope.fio\n", `job.fio:2: unable to open include file "nope.fio"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := memFiles{"job.fio": tc.text}
			_, err := ParseJobFiles([]string{"job.fio"}, files.opts(nil))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrJobFile)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
	files := memFiles{"dir/job.fio": "[j]\ninclude inc.fio\n", "dir/inc.fio": "rw=read\n[x]\n"}
	_, err := ParseJobFiles([]string{"dir/job.fio"}, files.opts(nil))
	assert.ErrorContains(t, err, "dir/inc.fio:2: no new sections in included files (included from dir/job.fio:2)")
	files = memFiles{"a.fio": "[j]\ninclude b.fio\n", "b.fio": "include b.fio\n"}
	_, err = ParseJobFiles([]string{"a.fio"}, files.opts(nil))
	assert.ErrorContains(t, err, "include files nested more than 16 deep")
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
	jfs, err := ParseJobFiles([]string{"jobs/main.fio", "jobs/second.fio", "jobs/eq.fio"}, files.opts(nil))
	require.NoError(t, err)
	var raws []string
	for _, o := range jfs[0].Jobs[0].Options {
		raws = append(raws, o.At.String()+" "+o.Raw)
	}
	assert.Equal(t, []string{"jobs/main.fio:2 size=1m", "jobs/common.fio:1 rw=randwrite", "jobs/main.fio:4 bs=8k",
		"jobs/deeper.fio:1 filename=/dev/sdz"}, raws, "included options in place, includes placed beside the file that includes them, filename handled last")
	assert.Equal(t, "jobs/main.fio", jfs[0].Sources[0].Path)
	assert.Equal(t, []string{"jobs/common.fio", "jobs/deeper.fio"}, []string{jfs[0].Sources[1].Path, jfs[0].Sources[2].Path})
	o, _ := jfs[1].Jobs[0].Get("iodepth")
	assert.Equal(t, "4", o.Value, "an include that exists as written is taken from there (fio's working directory)")
	o, _ = jfs[2].Jobs[0].Get("rw")
	assert.Equal(t, "randwrite", o.Value, "include=FILE works too: fio skips one byte after include")
	_, err = ParseJobFiles([]string{"jobs/spaced.fio"}, files.opts(nil))
	assert.ErrorContains(t, err, `unable to open include file "jobs/ common.fio"`, "the name is what follows that byte")
}

func TestJobFileSubstitution(t *testing.T) {
	env := map[string]string{"DEV": "/dev/sdb", "EMPTY": ""}
	jf := parseOne(t, "[j]\nfilename=${DEV}:${NOPE}x\nrw=${EMPTY}randwrite\nnumjobs=$ncpus\nsize=$mb_memory*2\nbs=${DEV\nname=$NCPUS\n", nil, env)
	get := func(n string) Option { o, _ := jf.Jobs[0].Get(n); return o }
	assert.Equal(t, "/dev/sdb:x", get("filename").Value)
	assert.Equal(t, []string{"NOPE"}, get("filename").Unset)
	assert.Equal(t, "randwrite", get("rw").Value)
	assert.Equal(t, "2", get("numjobs").Value)
	assert.True(t, get("numjobs").Keywords)
	assert.False(t, get("numjobs").Calc, "no arithmetic: no bc")
	assert.Equal(t, "1024*2", get("size").Value)
	assert.True(t, get("size").Calc)
	assert.Equal(t, "${DEV", get("bs").Value, "no closing brace: as written")
	assert.Equal(t, "$NCPUS", get("name").Value, "keywords are case-sensitive")
	n, err := jf.Jobs[0].count("numjobs", 1)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	th := jf.Threads(1, fakeStat{})
	require.Len(t, th, 2)
	require.Len(t, th[0].Unresolved, 1)
	assert.Equal(t, "job.fio:2: filename=${DEV}:${NOPE}x: ${NOPE} is not set: fio would put nothing in its place", th[0].Unresolved[0].Error())
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
`, nil, nil)
	st := fakeStat{kinds: map[string]FileKind{"/dev/sdq": Block, "/dev/sdr": Char}}
	assert.Equal(t, []string{
		"j2#0: /d1/j2.0.0 /d1/j2.0.1", "j2#1: /d2/j2.1.0 /d2/j2.1.1",
		"j3#0: /d1/j3.0.0.x",
		"j4#0:  !job.fio:11: filename_format=$clientuid.x: $clientuid is the address of the fio client, which ptsrun cannot know here",
		"/dev/sdq#0: /d1//dev/sdq",
		"/dev/sdr#0: /d1//dev/sdr.0.0 /d1//dev/sdr.0.1",
	}, threadFiles(jf, st), "a job named after a device does I/O on it (with one file)")
	var groups []int
	for _, j := range jf.Jobs {
		groups = append(groups, j.Group)
	}
	assert.Equal(t, []int{0, 1, 1, 1, 1}, groups)
	th := jf.Threads(7, st)
	assert.Equal(t, 7, th[0].Number)
	assert.Equal(t, 8, th[1].Number)

	jf = parseOne(t, "[o]\nopendir=/data\n[p]\nopendir=/nope\n", nil, nil)
	assert.Equal(t, []string{"o#0: /data/x /data/y/z", "p#0:  !job.fio:4: opendir=/nope: file does not exist"},
		threadFiles(jf, fakeStat{dirs: map[string][]string{"/data": {"/data/x", "/data/y/z"}}}))
}

func TestGroupsAcrossJobFiles(t *testing.T) {
	files := memFiles{"a.fio": "[global]\nrw=write\n[a1]\n[a2]\nstonewall\n", "b.fio": "[b1]\n[b2]\nnew_group\n[b3]\n"}
	jfs, err := ParseJobFiles([]string{"a.fio", "b.fio"}, files.opts(nil))
	require.NoError(t, err)
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
		files  bool
		refuse string
	}{
		{"", false, "rw=read (fio's default)", true, ""},
		{"rw=randread", false, "rw=randread (job.fio:2)", true, ""},
		{"readwrite=randread:8", false, "readwrite=randread:8 (job.fio:2)", true, ""},
		{"rw=randwrite", true, "rw=randwrite (job.fio:2)", true, ""},
		{"rw=trim", true, "rw=trim (job.fio:2)", true, ""},
		{"rw=randrw\nrwmixread=100", true, "rw=randrw (job.fio:2)", true, ""},
		{"rw=write\nrw=read", true, "rw=write (job.fio:2)", true, ""},
		{"rw=${RW}", true, "cannot tell: rw=${RW} (job.fio:2)", true, ""},
		{"rw=Read", true, "cannot tell: rw=Read (job.fio:2)", true, ""},
		{"ioengine=filedelete", true, "ioengine=filedelete deletes files (job.fio:2)", true, ""},
		{"ioengine=null\nrw=write", true, "rw=write (job.fio:3)", false, ""},
		{"ioengine=rbd", false, "rw=read (fio's default)", false, ""},
		{"ioengine=rbd\nrw=randwrite", true, "rw=randwrite (job.fio:3)", false, ""},
		{"ioengine=fancy", true, "cannot tell: ioengine=fancy does I/O ptsrun cannot follow (job.fio:2)", false, ""},
		{"unlink=1", true, "unlink=1 deletes the files (job.fio:2)", true, ""},
		{"unlink=0", false, "rw=read (fio's default)", true, ""},
		{"exec_prerun=dd if=/dev/zero of=/dev/sda", false, "rw=read (fio's default)", true, "job.fio:2: exec_prerun=dd if=/dev/zero of=/dev/sda: runs a command, which no gate can check"},
		{"read_iolog=trace.log", false, "rw=read (fio's default)", true, "replays I/O from a trace"},
		{"ioengine=external:/x.so", true, "cannot tell: ioengine=external:/x.so does I/O ptsrun cannot follow (job.fio:2)", false, "runs a program or loads a library"},
	} {
		t.Run(tc.opts, func(t *testing.T) {
			jf := parseOne(t, "[j]\n"+tc.opts+"\n", nil, nil)
			a := jf.Jobs[0].Access()
			assert.Equal(t, tc.writes, a.Writes)
			assert.Equal(t, tc.why, a.Why)
			assert.Equal(t, tc.files, a.Files)
			if tc.refuse == "" {
				assert.Empty(t, a.Refuse)
			} else {
				require.NotEmpty(t, a.Refuse)
				assert.Contains(t, a.Refuse[0].Error(), tc.refuse)
			}
		})
	}
	jf := parseOne(t, "[j]\nwrite_iolog=/tmp/io.log\n", nil, nil)
	assert.Equal(t, []FileRef{{Name: "/tmp/io.log", At: Pos{"job.fio", 2}}}, jf.Jobs[0].Access().Also)
}

func TestEvalInt(t *testing.T) {
	for in, want := range map[string]int64{"2": 2, "2*2-1": 3, "7/2": 3, "(1+2)*3": 9, "-4+5": 1} {
		got, err := evalInt(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "1/0", "2x", "(1", "a"} {
		_, err := evalInt(in)
		assert.Error(t, err, in)
	}
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

var addedFile = regexp.MustCompile(`^file\s+\d+\s+file 0x[0-9a-f]+ "(.*)" added at \d+$`)

// TestJobFilesAsFioReadsThem is fio as the oracle: fio's --parse-only
// reading of every option the gate reads is this package's, and running
// each job file (reads of a few KiB in a temporary directory) fio adds
// exactly the files Threads resolves, as --debug=file prints them.
func TestJobFilesAsFioReadsThem(t *testing.T) {
	needFio(t)
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
			opt := ParseOptions{Exists: func(n string) bool { return st.Kind(n) != Missing }}
			jfs, err := ParseJobFiles([]string{abs}, opt)
			require.NoError(t, err)
			jf := jfs[0]
			po, err := CheckJobFile(context.Background(), "", nil, jf, dir)
			require.NoError(t, err)
			require.NoError(t, jf.CrossCheck(po))

			var want []string
			for _, th := range jf.Threads(1, st) {
				require.Empty(t, th.Unresolved)
				for _, fr := range th.Files {
					if !slices.Contains(want, fr.Name) {
						want = append(want, fr.Name)
					}
				}
			}
			cmd := exec.Command("fio", "--debug=file", "--output-format=json", abs)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, string(out))
			var got []string
			for _, l := range strings.Split(string(out), "\n") {
				if m := addedFile.FindStringSubmatch(l); m != nil && !slices.Contains(got, m[1]) {
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
	needFio(t)
	for _, tc := range []struct{ name, text, msg string }{
		{"unknown option", "[j]\nrw=read\nbogus_option=3\n", "job.fio:3: Bad option <bogus_option=3> (Did you mean log_prio?)"},
		{"bad value", "[global]\nrw=randreadx\n[j]\n", "job.fio:2: fio: failed parsing rw=randreadx"},
		{"bad value from the environment", "[j]\nrw=${RW}\n", "job.fio:2: fio: failed parsing rw=${RW}"},
		{"blank before the value", "[j]\n  rw = randwrite # x\n", "job.fio:2: fio: failed parsing rw = randwrite"},
		{"bad size", "[j]\nsize=abc\n", "job.fio:2: fio: failed parsing size=abc"},
		{"missing include", "[j]\ninclude nope.fio\n", "job.fio:2: fio: unable to open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "job.fio")
			require.NoError(t, os.WriteFile(path, []byte(tc.text), 0o644))
			t.Setenv("RW", "sideways")
			jf := &UserJobFile{Path: path, Sources: []Source{{Path: path, Text: tc.text}}}
			if parsed, err := ParseJobFiles([]string{path}, ParseOptions{}); err == nil {
				jf = parsed[0]
			}
			_, err := CheckJobFile(context.Background(), "", nil, jf, dir)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrFioRejects))
			assert.Contains(t, err.Error(), strings.ReplaceAll(tc.msg, "job.fio", path))
		})
	}
}

// A difference between fio's reading and this package's is refused,
// naming the line.
func TestCrossCheckFindsADifference(t *testing.T) {
	jf := parseOne(t, "[global]\nrw=read\n[j]\nfilename=/dev/sdb\n", nil, nil)
	po := ParseOnly{Stdout: "parse    1 Parsing section [global]\nparse    1 handle_option=rw, ptr=read\n" +
		"parse    1 Parsing section [j]\nparse    1 handle_option=filename, ptr=/dev/sdc\n"}
	err := jf.CrossCheck(po)
	require.Error(t, err)
	assert.Equal(t, `job.fio:4: filename=/dev/sdb: ptsrun reads filename="/dev/sdb", fio reads "/dev/sdc": ptsrun cannot judge the job as fio runs it`, err.Error())
	po.Stdout = strings.Replace(po.Stdout, "/dev/sdc", "/dev/sdb", 1)
	assert.NoError(t, jf.CrossCheck(po))
	po.Stdout += "parse    1 Parsing section [k]\n"
	assert.ErrorContains(t, jf.CrossCheck(po), "fio reads 3 sections, ptsrun 2")
}
