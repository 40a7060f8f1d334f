package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

const nobodyUID = 65534 // the other user the tests play, as root

// ownedDir makes a directory with exactly mode, owned by uid.
func ownedDir(t *testing.T, p string, mode os.FileMode, uid int) string {
	t.Helper()
	require.NoError(t, os.Mkdir(p, 0o700))
	require.NoError(t, os.Chmod(p, mode))
	require.NoError(t, os.Lchown(p, uid, uid))
	return p
}

// writers are the commands that write a run directory, each writing into
// dir; what each needs besides is made in the test's own directories.
func writers(t *testing.T) map[string]func(dir string) []string {
	t.Helper()
	src := t.TempDir()
	csv := filepath.Join(src, "review.csv")
	require.NoError(t, os.WriteFile(csv, []byte("bs,100/0,65/35,0/100\n4k,0.09,0.18,0.04\n"), 0o644))
	parm := filepath.Join(src, "sim.parm")
	require.NoError(t, os.WriteFile(parm, []byte("sd=sd1,lun=sim,openflags=o_direct\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=2\n"), 0o644))
	w := map[string]func(dir string) []string{
		"run": func(dir string) []string {
			return []string{"run", "--target", "sim", "--tests", "lat", "--cell-time", "1s", "--out", dir}
		},
		"demo": func(dir string) []string { return []string{"demo", "--tests", "lat", "--out", dir} },
		"workload": func(dir string) []string {
			return []string{"workload", "--target", "sim", "--engine", "sim", "--access", "random", "--read", "100", "--bs", "4k", "--tc", "1", "--qd", "1", "--time", "1s", "--out", dir}
		},
		"vdbench":      func(dir string) []string { return []string{"workload", "--vdbench", parm, "--out", dir} },
		"import table": func(dir string) []string { return []string{"import", "table", csv, "--out", dir, "--metric", "lat_ms"} },
		"import fio": func(dir string) []string {
			return []string{"import", "fio", "../../internal/importer/testdata/fio-clat-3.33.json", "--out", dir}
		},
	}
	if _, err := exec.LookPath("fio"); err == nil && !testing.Short() { // -short: no fio
		in := randomFile(t, src, "in.dat", 1<<20)
		job := jobFile(t, src, "r.fio", fmt.Sprintf("[r]\nrw=read\nbs=4k\nsize=1m\nfilename=%s\n", in))
		w["fio"] = func(dir string) []string { return []string{"fio", job, "--out", dir} }
	}
	return w
}

// Hole 4 of the red team's second round: a run directory, or the path to
// it, that another user can change lets them redirect root's writes. Every
// command that writes one refuses such a directory, exit 4, before it
// runs or makes anything, naming the directory and its owner or mode; a
// new directory in a sticky one (/tmp) is its own and is taken.
func TestRunDirectoryOthersCanChange(t *testing.T) {
	need(t)
	t.Parallel()
	for name, args := range writers(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			for _, tc := range []struct {
				what string
				// out makes what --out names and returns it, the
				// refusal expected ("" = accepted) and the directory
				// that must stay as it is.
				out func() (dir, why, untouched string)
			}{
				{"empty, someone else's", func() (string, string, string) {
					d := ownedDir(t, filepath.Join(base, "theirs"), 0o755, nobodyUID)
					return d, d + " is owned by nobody (uid 65534), not by you or root", d
				}},
				{"new, in someone else's directory", func() (string, string, string) {
					p := ownedDir(t, filepath.Join(base, "their-parent"), 0o755, nobodyUID)
					return filepath.Join(p, "run"), p + " is owned by nobody (uid 65534)", p
				}},
				{"new, two levels below someone else's directory", func() (string, string, string) {
					p := ownedDir(t, filepath.Join(base, "their-grandparent"), 0o755, nobodyUID)
					ownedDir(t, filepath.Join(p, "mine"), 0o755, 0)
					return filepath.Join(p, "mine", "run"), p + " is owned by nobody (uid 65534)", p
				}},
				{"new, in a directory everyone may write", func() (string, string, string) {
					p := ownedDir(t, filepath.Join(base, "open"), 0o777, 0)
					return filepath.Join(p, "run"), p + " may be written by others than its owner (mode drwxrwxrwx), and is not sticky", p
				}},
				{"new, in a directory its group may write", func() (string, string, string) {
					p := ownedDir(t, filepath.Join(base, "group"), 0o770, 0)
					return filepath.Join(p, "run"), "(mode drwxrwx---), and is not sticky", p
				}},
				{"someone else's link in a sticky directory", func() (string, string, string) {
					s := ownedDir(t, filepath.Join(base, "sticky-link"), 0o777|os.ModeSticky, 0)
					mine := ownedDir(t, filepath.Join(base, "mine"), 0o755, 0)
					l := filepath.Join(s, "run")
					require.NoError(t, os.Symlink(mine, l))
					require.NoError(t, os.Lchown(l, nobodyUID, nobodyUID))
					return l, l + ", in the sticky directory " + s + ", is owned by nobody (uid 65534)", mine
				}},
				{"new, in a sticky directory", func() (string, string, string) {
					s := ownedDir(t, filepath.Join(base, "sticky"), 0o777|os.ModeSticky, 0)
					return filepath.Join(s, "run"), "", ""
				}},
			} {
				dir, why, untouched := tc.out()
				before := ""
				if untouched != "" {
					before = listing(t, untouched)
				}
				code, _, stderr := ptsrun(args(dir)...)
				if why == "" {
					assert.Contains(t, []int{0, 3}, code, "%s: %s", tc.what, stderr)
					assert.FileExists(t, filepath.Join(dir, "run.json"), tc.what)
					continue
				}
				assert.Equal(t, 4, code, "%s: %s", tc.what, stderr)
				assert.Contains(t, stderr, "refusing to write into "+dir+": ", tc.what)
				assert.Contains(t, stderr, why, tc.what)
				assert.Equal(t, before, listing(t, untouched), "%s: something was made", tc.what)
			}
		})
	}
}

// The commands that write into a run directory that is there (report,
// resume) or an output beside others (report -o, compare -o, --csv) refuse
// the same way.
func TestOutputsOthersCanChange(t *testing.T) {
	need(t)
	t.Parallel()
	runs := t.TempDir()
	a, b := filepath.Join(runs, "a"), filepath.Join(runs, "b")
	for _, d := range []string{a, b} {
		code, _, stderr := ptsrun("run", "--target", "sim", "--tests", "lat", "--cell-time", "1s", "--out", d)
		require.Contains(t, []int{0, 3}, code, stderr)
	}
	theirs := ownedDir(t, filepath.Join(t.TempDir(), "theirs"), 0o755, nobodyUID)
	theirRun := filepath.Join(theirs, "run")
	sh(t, "cp", "-a", a, theirRun)
	sh(t, "chown", "-R", fmt.Sprint(nobodyUID), theirRun)
	copied := filepath.Join(t.TempDir(), "run")
	sh(t, "cp", "-a", a, copied)
	sh(t, "chown", "-R", fmt.Sprint(nobodyUID), copied) // handed over as it was: the owner's files

	for _, tc := range []struct {
		args []string
		why  string
	}{
		{[]string{"report", theirRun}, theirs + " is owned by nobody (uid 65534)"},
		{[]string{"resume", theirRun}, theirs + " is owned by nobody (uid 65534)"},
		{[]string{"report", copied}, copied + " is owned by nobody (uid 65534)"},
		{[]string{"resume", copied}, copied + " is owned by nobody (uid 65534)"},
		{[]string{"report", a, "-o", filepath.Join(theirs, "r.pdf")}, theirs + " is owned by nobody"},
		{[]string{"compare", a, b, "-o", filepath.Join(theirs, "c.pdf"), "--csv", filepath.Join(runs, "tables")}, theirs + " is owned by nobody"},
		{[]string{"compare", a, b, "-o", filepath.Join(runs, "c.pdf"), "--csv", filepath.Join(theirs, "tables")}, theirs + " is owned by nobody"},
	} {
		before := listing(t, theirs) + listing(t, runs)
		code, _, stderr := ptsrun(tc.args...)
		assert.Equal(t, 4, code, "%v: %s", tc.args, stderr)
		assert.Contains(t, stderr, tc.why, tc.args)
		assert.Equal(t, before, listing(t, theirs)+listing(t, runs), "%v wrote something", tc.args)
	}
	// The same copied as one's own is one's own.
	mine := filepath.Join(t.TempDir(), "run")
	sh(t, "cp", "-r", theirRun, mine)
	code, _, stderr := ptsrun("report", mine)
	assert.Equal(t, 0, code, stderr)
}

// Hole 7, variations: a copied run directory with links (or hard links,
// or files of someone else's) in place of any of its files or
// directories. resume and report refuse it before they read or write
// anything, exit 4, naming the entry, and the files linked to stay as they
// were.
func TestRunDirectoryWithLinksInIt(t *testing.T) {
	need(t, "losetup")
	t.Parallel()
	sim := filepath.Join(t.TempDir(), "sim")
	// Complete: resume rebuilds its results, as report does.
	code, _, stderr := ptsrun("run", "--target", "sim", "--tests", "lat", "--cell-time", "1s", "--out", sim)
	require.Contains(t, []int{0, 3}, code, stderr)
	victims := t.TempDir()
	victim := filepath.Join(victims, "settings.json")
	const secret = `{"api_token":"s3cr3t"}`
	require.NoError(t, os.WriteFile(victim, []byte(secret), 0o600))
	entries, err := os.ReadDir(sim)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Contains(t, names, "sim", "the simulated drive's state, which resume writes")

	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir string) string // the entry refused
		why   string
	}{
		{"run.json a link", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "run.json")
			require.NoError(t, os.Rename(p, filepath.Join(victims, "run.json")))
			require.NoError(t, os.Symlink(filepath.Join(victims, "run.json"), p))
			return p
		}, "is a symbolic link"},
		{"journal a hard link", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "journal.jsonl")
			other := filepath.Join(filepath.Dir(dir), "journal-elsewhere")
			require.NoError(t, os.Link(p, other))
			return p
		}, "has 2 hard links"},
		{"sim/ a link", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "sim")
			other := filepath.Join(t.TempDir(), "sim")
			require.NoError(t, os.Rename(p, other))
			require.NoError(t, os.Symlink(other, p))
			return p
		}, "is a symbolic link"},
		{"a file in sim/ a link", func(t *testing.T, dir string) string {
			p := ""
			require.NoError(t, filepath.WalkDir(filepath.Join(dir, "sim"), func(f string, d os.DirEntry, err error) error {
				if err == nil && p == "" && d.Type().IsRegular() {
					p = f
				}
				return err
			}))
			require.NotEmpty(t, p)
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Symlink(victim, p))
			return p
		}, "is a symbolic link"},
		{"report.pdf a dangling link", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "report.pdf")
			require.NoError(t, os.Remove(p))
			require.NoError(t, os.Symlink(filepath.Join(victims, "made.pdf"), p))
			return p
		}, "is a symbolic link"},
		{"a table of someone else's", func(t *testing.T, dir string) string {
			files, err := filepath.Glob(filepath.Join(dir, "tables", "*.csv"))
			require.NoError(t, err)
			require.NotEmpty(t, files)
			require.NoError(t, os.Chown(files[0], nobodyUID, nobodyUID))
			return files[0]
		}, "is owned by nobody (uid 65534), not by you or root"},
		{"a fifo", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "results.json")
			require.NoError(t, os.Remove(p))
			sh(t, "mkfifo", p)
			return p
		}, "is a fifo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range []string{"resume", "report"} {
				dir := filepath.Join(t.TempDir(), "run")
				sh(t, "cp", "-a", sim, dir)
				p := tc.plant(t, dir)
				before := listing(t, victims)
				code, _, stderr := ptsrun(cmd, dir)
				assert.Equal(t, 4, code, "%s: %s", cmd, stderr)
				assert.Contains(t, stderr, "refusing to write into the run directory "+dir+": "+p+" "+tc.why, cmd)
				assert.Equal(t, before, listing(t, victims), cmd)
				b, err := os.ReadFile(victim)
				require.NoError(t, err)
				assert.Equal(t, secret, string(b), cmd)
			}
		})
	}

	// fio's files of a run on a device: every job file and output of fio/
	// a link to the victim.
	t.Run("fio's files links", func(t *testing.T) {
		enginetest.NeedFio(t)
		dev := randomDevice(t, 64<<20, 0)
		run := filepath.Join(t.TempDir(), "run")
		interrupted(t, run, "--target", dev, "--destroy-data", dev, "--purge", "none", "--tests", "lat", "--cell-time", "1s", "--engine", "fio")
		files, err := filepath.Glob(filepath.Join(run, "fio", "*"))
		require.NoError(t, err)
		linked := 0
		for _, f := range files {
			if st, err := os.Lstat(f); err == nil && st.Mode().IsRegular() {
				require.NoError(t, os.Remove(f))
				require.NoError(t, os.Symlink(victim, f))
				linked++
			}
		}
		require.NotZero(t, linked)
		// And the next cell's job file, which resume writes, not there yet.
		next := filepath.Join(run, "fio", "lat-r01-c01-next.fio")
		require.NoError(t, os.Symlink(victim, next))
		code, _, stderr := ptsrun("resume", run, "--destroy-data", dev)
		assert.Equal(t, 4, code, stderr)
		assert.Contains(t, stderr, "is a symbolic link")
		b, err := os.ReadFile(victim)
		require.NoError(t, err)
		assert.Equal(t, secret, string(b))
		assert.True(t, strings.HasPrefix(stderr, "ptsrun: unsafe target: refusing to write into the run directory "+run), stderr)
	})
}

// Without --out, the fio engine keeps its job files and output in a new
// directory of TMPDIR, reached by path while fio runs: a TMPDIR that
// others may write (and is not sticky) is refused as a run directory is.
func TestFioWorkDirInATmpdirOthersCanChange(t *testing.T) {
	need(t)
	enginetest.NeedFio(t)
	t.Parallel()
	open := ownedDir(t, filepath.Join(t.TempDir(), "open"), 0o777, 0)
	target := randomFile(t, t.TempDir(), "in.dat", 4<<20)
	cmd := exec.Command(binary, "workload", "--target", "file:"+target, "--engine", "fio", "--access", "random", "--read", "100",
		"--bs", "4k", "--tc", "1", "--qd", "1", "--time", "1s")
	cmd.Env = append(os.Environ(), "TMPDIR="+open)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, string(out))
	assert.Equal(t, 4, ee.ExitCode(), string(out))
	assert.Contains(t, string(out), open+" may be written by others than its owner (mode drwxrwxrwx), and is not sticky")
	entries, err := os.ReadDir(open)
	require.NoError(t, err)
	assert.Empty(t, entries, "the work directory made there is removed")
}

// A relative --out is made absolute against the working directory before
// it is checked: in someone else's working directory, it is theirs.
func TestRelativeOutInSomeoneElsesDirectory(t *testing.T) {
	need(t)
	t.Parallel()
	cwd := ownedDir(t, filepath.Join(t.TempDir(), "theirs"), 0o755, nobodyUID)
	code, stderr := ptsrunIn(t, cwd, "run", "--target", "sim", "--tests", "lat", "--cell-time", "1s", "--out", "run")
	assert.Equal(t, 4, code, stderr)
	assert.Contains(t, stderr, "refusing to write into "+filepath.Join(cwd, "run")+": "+cwd+" is owned by nobody (uid 65534)")
	assert.NoDirExists(t, filepath.Join(cwd, "run"))
}
