package fiojobs

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/confine"
)

// confineRules are where job file k's fio may write, by the gate's
// verdicts: the run directory (its output, logs and aux files); each
// block device a job writes; each regular file a job writes, alone when
// fio writes it in place; and, where fio makes a file, lays it out again
// or deletes it (it removes the file and makes it anew), the directory
// that made the file the job's (its job file's own, which no other user
// can change) or that --destroy-data names. A file --destroy-data names
// alone is the file only: fio writes it in place, and cannot remove or
// replace it. Landlock holds these (internal/confine): a name swapped for
// a link after the gate's judging leads outside them, and fio's write
// fails.
func (f *Jobs) confineRules(k int) []confine.Rule {
	rules := []confine.Rule{{Path: f.dir, Dir: true}}
	add := func(r confine.Rule) {
		if r.Path != "" && !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	for _, th := range f.Plan.Threads {
		if th.File != k {
			continue
		}
		for _, i := range th.Targets {
			t := f.Plan.Targets[i]
			if !t.Written || t.Host != "" || inside(t.Path, []string{f.dir}) {
				continue
			}
			d := f.gate.confirmingDir(t.Path)
			switch {
			case t.Kind == kindBlock:
				add(confine.Rule{Path: t.Path})
			case t.Kind != kindFile && t.Kind != kindNewFile:
			case !t.Outside && t.Kind == kindFile && !t.replaced:
				// Written in place: the file alone, so that no other name
				// in its directory is fio's to write.
				add(confine.Rule{Path: t.Path})
			case !t.Outside:
				if t.Kind == kindFile {
					add(confine.Rule{Path: t.Path})
				}
				add(confine.Rule{Path: filepath.Dir(t.Path), Dir: true})
			case d == t.Path && t.Kind == kindFile:
				add(confine.Rule{Path: t.Path})
			case d != "" && d != t.Path && t.Kind == kindFile && !t.replaced:
				add(confine.Rule{Path: t.Path})
			case d != "" && d != t.Path:
				if t.Kind == kindFile {
					add(confine.Rule{Path: t.Path})
				}
				add(confine.Rule{Path: d, Dir: true})
			}
		}
	}
	return rules
}

// confirmingDir is the path (links followed) of the --destroy-data entry
// that covers path, the shortest when several do; "" when none does.
func (o gateOptions) confirmingDir(path string) string {
	best := ""
	for _, d := range o.DestroyData {
		if !filepath.IsAbs(d) {
			continue
		}
		for _, c := range []string{filepath.Clean(d), o.real(d)} {
			if inside(path, []string{c}) && (best == "" || len(c) < len(best)) {
				best = c
			}
		}
	}
	return best
}

// confinement says where job file k's fio may write, or why the kernel
// does not hold it to that.
func (f *Jobs) confinement(k int) string {
	if why := confine.Unavailable(); why != "" {
		return "not confined: " + why + "; the gate's judging, again just before fio starts, stands alone"
	}
	var places []string
	for _, r := range f.confineRules(k) {
		places = append(places, r.Path)
	}
	if len(f.gate.FioServers) > 0 {
		return fmt.Sprintf("the fio client is confined by Landlock to %s and /dev/null; the fio servers, on their own hosts, are not", strings.Join(places, ", "))
	}
	return fmt.Sprintf("confined by Landlock: fio writes nothing but %s and /dev/null", strings.Join(places, ", "))
}
