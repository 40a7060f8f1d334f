package targets

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/confine"
)

// confineRules are where job file k's fio may write, by the gate's
// verdicts: the run directory (its output, logs and aux files); each
// block device a job writes; each regular file a job writes, with the
// directory that made it the job's (beside the job file, or a directory
// --destroy-data names) so that fio may lay it out again or delete it,
// and only the file itself when --destroy-data names the file; for each
// file fio makes, the nearest directory above it that exists. Landlock
// holds these (internal/confine): a name swapped for a link after the
// gate's judging leads outside them, and fio's write fails.
func (f *FioJobs) confineRules(k int) []confine.Rule {
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
			switch t.Kind {
			case kindBlock:
				add(confine.Rule{Path: t.Path})
			case kindFile:
				add(confine.Rule{Path: t.Path})
				switch d := f.gate.confirmingDir(t.Path); {
				case !t.Outside:
					add(confine.Rule{Path: filepath.Dir(t.Path), Dir: true})
				case d != "" && d != t.Path:
					add(confine.Rule{Path: d, Dir: true})
				}
			case kindNewFile:
				add(confine.Rule{Path: existingAbove(t.Path), Dir: true})
			}
		}
	}
	return rules
}

// confirmingDir is the path (links followed) of the --destroy-data entry
// that covers path, the shortest when several do; "" when none does.
func (o FioJobsOptions) confirmingDir(path string) string {
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

// existingAbove is the nearest directory above path that exists: where fio
// starts making the missing ones.
func existingAbove(path string) string {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// confinement says where job file k's fio may write, or why the kernel
// does not hold it to that.
func (f *FioJobs) confinement(k int) string {
	if why := confine.Unavailable(); why != "" {
		return "not confined: " + why + "; the gate's judging, again just before fio starts, stands alone"
	}
	var places []string
	for _, r := range f.confineRules(k) {
		places = append(places, r.Path)
	}
	return fmt.Sprintf("confined by Landlock: fio writes nothing but %s and /dev/null", strings.Join(places, ", "))
}
