package fiojobs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine/fio"
)

// gateDirs are the places the judging needs: the job files' directories,
// the job files and include files themselves, and the run directory.
type gateDirs struct {
	jobDirs []string // each job file's own directory, links followed
	sources []string // every job file and include file, links followed
	runDir  string
}

func (o gateOptions) gateDirs() gateDirs {
	var g gateDirs
	for _, jf := range o.Files {
		g.jobDirs = append(g.jobDirs, filepath.Dir(o.real(abs(o.Cwd, jf.Path))))
		for _, s := range jf.Sources {
			g.sources = append(g.sources, o.real(abs(o.Cwd, s.Path)))
		}
	}
	g.runDir = o.real(o.RunDir)
	return g
}

// ownPlace says a file written at path is the job's own: in DIR, or in a
// job file's own directory (not below it).
func (g gateDirs) ownPlace(path string) bool {
	return inside(path, []string{g.runDir}) || slices.Contains(g.jobDirs, filepath.Dir(path))
}

// ptsrunsFile says which file of a run directory path is, if it is one
// ptsrun writes (RunDirFiles in DIR), or one in another run directory.
func (o gateOptions) ptsrunsFile(path string, g gateDirs) string {
	if g.runDir != "" && inside(path, []string{g.runDir}) {
		rel, _ := filepath.Rel(g.runDir, path)
		first := strings.Split(rel, string(filepath.Separator))[0]
		if rel == "." || slices.Contains(o.RunDirFiles, first) || strings.HasPrefix(first, ".") {
			return "ptsrun's own file of the run directory " + g.runDir
		}
		return ""
	}
	markers := o.RunDirFiles[:min(2, len(o.RunDirFiles))]
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		for _, m := range markers {
			if o.Stat.Stat(filepath.Join(d, m)).Kind == fio.Regular {
				return "a file of the run directory " + d
			}
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// judge decides a target.
func (o gateOptions) judge(t *Target, g gateDirs, sys *device.System) {
	t.Verdict = "read only: nothing to confirm"
	refuse := func(why string) {
		t.Refused = fmt.Sprintf("%s is a %s, %s: %s", t.Name, t.Kind, t.Why, why)
		if t.Log {
			t.Refused = fmt.Sprintf("%s is a log the job writes (%s): %s", t.Path, t.Kind, why)
		}
		t.Verdict = "refused: " + why
	}
	if t.unresolved != "" {
		// Read or written: a job that only reads a file that is not
		// there lays it out.
		refuse("ptsrun cannot tell where the path leads: " + t.unresolved + "; spell it without \"..\"")
		return
	}
	if t.inspectErr != nil {
		if t.Written {
			refuse("ptsrun cannot identify it: " + t.inspectErr.Error())
		} else {
			t.Verdict = "read only; ptsrun cannot identify it: " + t.inspectErr.Error()
		}
		return
	}
	if t.Log && t.Host == "" {
		switch {
		case g.runDir == "":
			refuse("a job's logs go only into the run directory, and there is none (--out)")
			return
		case !inside(t.Path, []string{g.runDir}):
			refuse("a job's logs go only into the run directory " + g.runDir + ": drop the option (ptsrun logs every job's IOPS, bandwidth and latency per second itself) or name a path in it")
			return
		case o.ptsrunsFile(t.Path, g) != "":
			refuse("it is " + o.ptsrunsFile(t.Path, g) + ": name another path in DIR")
			return
		}
	}
	if t.Written && (t.Kind == kindFile || t.Kind == kindNewFile) {
		if slices.Contains(g.sources, t.Path) {
			refuse("it is a job file or include file of this run: a job may not write what the gate reads")
			return
		}
		if what := o.ptsrunsFile(t.Path, g); what != "" {
			refuse("it is " + what + ": a job may not write it")
			return
		}
	}
	confirmed := func() bool {
		// A directory confirmed is the one its path names, links followed.
		var named []string
		for _, d := range o.DestroyData {
			if filepath.IsAbs(d) {
				named = append(named, d, o.real(d))
			}
		}
		return inside(t.Path, named)
	}
	switch t.Kind {
	case kindRemote:
		if !t.Written {
			return
		}
		spec := t.Host + "=" + t.Path
		if slices.Contains(o.DestroyData, spec) {
			t.Verdict = "confirmed by --destroy-data " + spec
			return
		}
		refuse("ptsrun cannot check " + t.Path + " on " + t.Host + ": confirm that its data may be destroyed with --destroy-data " + spec)
	case kindMissing:
		refuse("there is no such device: fio would make a regular file in /dev")
	case kindBlock:
		t.id = &t.dev.Identity
		if !t.Written {
			return
		}
		v := o.FS.Check(*t.dev, *sys)
		if !v.Usable {
			refuse("refusing to write to it: " + strings.Join(v.Refused, "; "))
			return
		}
		if !v.Confirmed(*t.dev, o.DestroyData) {
			what := "its data"
			if len(v.Carries) > 0 {
				what = strings.Join(v.Carries, ", ")
			}
			refuse("writing destroys " + what + ": confirm with --destroy-data " + v.Confirm)
			return
		}
		t.Verdict = "confirmed by --destroy-data"
	case kindChar, kindDir, kindOther:
		if t.Written {
			refuse("ptsrun cannot tell what writing it destroys")
		}
	case kindNewFile:
		t.Written = true
		own, notOwn := o.own(t.Path, g)
		switch {
		case o.mountedBetween(t.Path, g) != "":
			refuse(o.mountedBetween(t.Path, g))
		case t.Log:
			t.Verdict = "a log of the job's, in the run directory"
		case own:
			t.Verdict = "made by fio, in the run directory or beside the job file"
		case confirmed() && o.confirmingDir(t.Path) == t.Path:
			// Landlock holds fio to whole directories for what it makes
			// (it removes and creates the file there): the file's name
			// alone confirms no directory.
			t.Outside = true
			refuse("fio makes a new file in its directory, and ptsrun holds fio only to a directory --destroy-data names: " +
				"confirm the directory it goes in (--destroy-data " + filepath.Dir(t.Path) + ": everything in it may be written), or make the file at its full size first" + notOwn)
		case confirmed() && o.live() && !isDir(o.confirmingDir(t.Path)):
			// ptsrun makes it before fio runs (Jobs.Run), to hold fio to it.
			t.Verdict, t.Outside = "made by fio; confirmed by --destroy-data "+o.confirmingDir(t.Path)+", which ptsrun makes first", true
		case confirmed():
			t.Verdict, t.Outside = "made by fio; confirmed by --destroy-data", true
		default:
			t.Outside = true
			refuse("fio would make it (and any directory missing above it) outside the run directory and the job file's directory: " +
				"confirm with --destroy-data " + filepath.Dir(t.Path) + " (or a directory above it)" + notOwn)
		}
	case kindFile:
		if !t.Written {
			return
		}
		own, notOwn := o.own(t.Path, g)
		t.Outside = !own
		// The check a file target of run passes: no loop device on it in
		// use, not active swap; the loop devices on it that are not in use
		// are what its confirmation destroys, beside the job's directory
		// or not.
		v := device.Verdict{Usable: true}
		if sys != nil {
			v = o.FS.Check(device.Target{Spec: device.Spec{Raw: t.Path, Kind: device.KindFile, Path: t.Path}, Exists: true}, *sys)
		}
		mounted := o.mountedBetween(t.Path, g)
		switch {
		case t.stat.Links != 1:
			refuse(fmt.Sprintf("it has %d hard links (or ptsrun cannot tell): writing it changes the file under its other names too", t.stat.Links))
		case mounted != "":
			refuse(mounted)
		case !v.Usable:
			refuse("refusing to write to it: " + strings.Join(v.Refused, "; "))
		case t.Log:
			t.Verdict = "a log of the job's, in the run directory"
		case len(v.Carries) > 0 && !confirmed():
			refuse("writing destroys " + strings.Join(v.Carries, ", ") + ": confirm with --destroy-data " + t.Path)
		case len(v.Carries) > 0:
			t.Verdict = "confirmed by --destroy-data"
		case !t.Outside:
			t.Verdict = "the job's own file (beside its job file or in the run directory)"
		case confirmed():
			t.Verdict = "confirmed by --destroy-data"
		default:
			refuse("writing overwrites it: confirm with --destroy-data " + t.Path + " (or a directory above it)" + notOwn)
		}
	}
}

// own says a file written at path is the job's own: in DIR, or in a job
// file's own directory that no other user can change (device.CheckDir):
// fio may write anything in that directory (internal/confine), and
// another user could swap a name there for a link while fio runs. notOwn
// is why a file beside the job file is not, for a refusal ("" else).
func (o gateOptions) own(path string, g gateDirs) (own bool, notOwn string) {
	if !g.ownPlace(path) {
		return false, ""
	}
	if !o.live() || inside(path, []string{g.runDir}) {
		return true, ""
	}
	if err := device.CheckDir(filepath.Dir(path)); err != nil {
		return false, " (it is not the job's own beside the job file: " + err.Error() + ")"
	}
	return true, ""
}

// mountedBetween says why a file written at path is another name of
// something elsewhere: it, or a directory above it below the place that
// makes it the job's (DIR, the job file's directory) or the one
// --destroy-data names, is where a mount is attached (a bind mount; its
// parent's device number is no tell, a bind mount is on the same
// filesystem). "" when none is, or on a fixture tree.
func (o gateOptions) mountedBetween(path string, g gateDirs) string {
	if !o.live() {
		return ""
	}
	stop := filepath.Dir(path)
	if g.runDir != "" && inside(path, []string{g.runDir}) {
		stop = g.runDir
	}
	for _, d := range o.DestroyData {
		if filepath.IsAbs(d) && inside(path, []string{o.real(d)}) && len(o.real(d)) < len(stop) {
			stop = o.real(d)
		}
	}
	for p := path; p != stop && p != filepath.Dir(p); p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err != nil {
			continue // made by fio: nothing mounted there yet
		}
		root, err := device.MountRoot(p)
		if err != nil {
			return "ptsrun cannot tell whether a mount is attached at " + p + ": " + err.Error()
		}
		if root {
			return "a mount is attached at " + p + " (a bind mount?): the file is another name of something elsewhere"
		}
	}
	return ""
}
