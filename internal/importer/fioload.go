package importer

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/fio"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// How a fio output's entries become results, and the load each ran.
//
// fio prints one entry per thread, unless group_reporting merges the
// threads of a reporting group into one; group_reporting may be in the job
// file (then fio prints it among the options) or on fio's command line (then
// it does not, but a job of numjobs=N with fewer than N entries shows it).
// An entry stands for numjobs threads when grouped, for one when not. A
// grouped entry prints the options of one job only: when its job-seconds
// (job_runtime) show more threads than that job's numjobs, the others ran
// options fio does not print, and the entry is left out.
//
// Jobs of one reporting group (groupid: each stonewall starts one) ran at
// the same time; groups ran one after the other. Jobs of different
// workloads in one group are no PTS cell each: they shared the target, and
// are left out. new_group without stonewall starts a group that runs with
// the one before, which fio reports apart: left out too, where fio prints
// it (new_group=1; a bare new_group it does not print, and such groups are
// taken to run one after the other). In client/server
// output each host's entries are its own (fio's "All clients" aggregate is
// not read); the hosts of one group ran at once.
//
// A result's TC is the threads per target (the filename each job names),
// as ptsrun's own runs count it; targets or hosts that ran different
// thread counts have no one TC and are left out. QD is iodepth.

// fioEntry is one job entry of a fio output with what it ran.
type fioEntry struct {
	job     fio.Job
	fw      fioWorkload
	threads int
	host    string // "host:port" in client/server output, else ""
	target  string // the filename option
	ar      float64
	arWhy   string // why the active range is not known; "" when ar is
}

// option reads a job's option, its own or the global one it inherits.
func option(j fio.Job, global map[string]string, names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := j.Options[n]; ok {
			return v, true
		}
	}
	for _, n := range names {
		if v, ok := global[n]; ok {
			return v, true
		}
	}
	return "", false
}

// isSet reads an option fio takes as a flag: set unless 0 or false.
func isSet(v string, ok bool) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return ok && v != "0" && v != "false"
}

// loadedResult is the result of one reporting group of one workload, with
// what its options record.
type loadedResult struct {
	group   int
	fw      fioWorkload // its TC the threads per target
	entries []fioEntry
	ar      float64
	arWhy   string
}

// fioResults reads the results of one output: one per reporting group, in
// group order, and the entries left out and why.
func fioResults(file string, o *fio.Output) ([]loadedResult, []string, error) {
	var entries []fioEntry
	for _, j := range o.Jobs {
		if j.Error != 0 {
			return nil, nil, fmt.Errorf("fio output %s: job %s%s ended with error %d (%s): its numbers are not a result",
				file, j.Name, onHost(j), j.Error, errnoText(j.Error))
		}
		fw, err := fioJobWorkload(j, o.Global)
		if err != nil {
			return nil, nil, fmt.Errorf("fio output %s: %w", file, err)
		}
		if j.Read.IOs+j.Write.IOs == 0 {
			return nil, nil, fmt.Errorf("fio output %s: job %s%s did no I/O", file, j.Name, onHost(j))
		}
		e := fioEntry{job: j, fw: fw}
		if o.ClientServer {
			e.host = fmt.Sprintf("%s:%d", j.Host, j.Port)
		}
		e.target, _ = option(j, o.Global, "filename")
		e.ar, e.arWhy = activeRange(j, o.Global)
		entries = append(entries, e)
	}
	var left []string
	leave := func(e fioEntry, why string) {
		left = append(left, fmt.Sprintf("%s: job %s%s (group %d) left out: %s", file, e.job.Name, onHost(e.job), e.job.GroupID, why))
	}
	// Threads per entry.
	var counted []fioEntry
	for _, e := range entries {
		n := e.fw.Workload.TC // numjobs
		grouped := isSet(option(e.job, o.Global, "group_reporting"))
		if !grouped && n > 1 {
			clones := 0
			for _, x := range entries {
				if x.host == e.host && x.job.GroupID == e.job.GroupID && x.job.Name == e.job.Name && maps.Equal(x.job.Options, e.job.Options) {
					clones++
				}
			}
			grouped = clones < n // fio merged them: --group_reporting on its command line
		}
		e.threads = 1
		if grouped {
			e.threads = n
		}
		if el := e.job.Elapsed(); el > 0 && e.job.JobRuntime > 0 {
			if seen := float64(e.job.JobRuntime) / float64(el); seen > float64(e.threads)+0.5 {
				leave(e, fmt.Sprintf("fio's group_reporting merged about %.0f threads into it, but it prints the options of one job "+
					"(numjobs=%d): what the others ran is not known", seen, n))
				continue
			}
		}
		counted = append(counted, e)
	}
	// A group fio started with new_group but no stonewall ran with the one
	// before it: fio reports the two apart, neither alone.
	together := map[int]bool{}
	for _, e := range entries {
		if v, ok := option(e.job, o.Global, "new_group"); isSet(v, ok) && !isSet(option(e.job, o.Global, "stonewall")) {
			together[e.job.GroupID] = true
			before := -1
			for _, x := range entries {
				if x.job.GroupID < e.job.GroupID {
					before = max(before, x.job.GroupID)
				}
			}
			together[before] = true
		}
	}
	counted = slices.DeleteFunc(counted, func(e fioEntry) bool {
		if together[e.job.GroupID] {
			leave(e, "new_group without stonewall: its reporting group and the one before it ran at the same time, and fio reports them apart")
		}
		return together[e.job.GroupID]
	})
	// One result per reporting group.
	var groups []int
	for _, e := range counted {
		if !slices.Contains(groups, e.job.GroupID) {
			groups = append(groups, e.job.GroupID)
		}
	}
	var out []loadedResult
	for _, g := range groups {
		var in []fioEntry
		for _, e := range counted {
			if e.job.GroupID == g {
				in = append(in, e)
			}
		}
		if r, why := oneLoad(g, in); why != "" {
			for _, e := range in {
				leave(e, why)
			}
		} else {
			out = append(out, r)
		}
	}
	return out, left, nil
}

// oneLoad makes the result of a reporting group's entries, or says why
// they are none: jobs of different workloads, or targets at different
// thread counts.
func oneLoad(group int, in []fioEntry) (loadedResult, string) {
	r := loadedResult{group: group, fw: in[0].fw, entries: in, ar: in[0].ar, arWhy: in[0].arWhy}
	var names []string
	for _, e := range in {
		if !sameButTC(e.fw, r.fw) {
			for _, x := range in {
				if !slices.Contains(names, x.job.Name) {
					names = append(names, x.job.Name)
				}
			}
			return r, fmt.Sprintf("jobs %s ran different workloads at the same time (one reporting group): none is a cell alone",
				pts.JoinAnd(names))
		}
		if e.ar != r.ar || e.arWhy != r.arWhy {
			r.ar, r.arWhy = 0, "its jobs' offsets cover different ranges"
		}
	}
	per := map[string]int{}
	var targets []string
	for _, e := range in {
		t := e.host + " " + e.target
		if _, ok := per[t]; !ok {
			targets = append(targets, t)
		}
		per[t] += e.threads
	}
	tc := per[targets[0]]
	for _, t := range targets[1:] {
		if per[t] != tc {
			var each []string
			for _, t := range targets {
				each = append(each, fmt.Sprintf("%d on %s", per[t], strings.TrimSpace(t)))
			}
			return r, "its targets ran different thread counts (" + strings.Join(each, ", ") + "): the load has no one TC"
		}
	}
	r.fw = withTC(r.fw, tc)
	return r, ""
}

// sameButTC says two entries ran the same workload, whatever their threads.
func sameButTC(a, b fioWorkload) bool {
	a, b = withTC(a, 1), withTC(b, 1)
	return a.same(b)
}

// withTC is fw at tc threads, its label saying so.
func withTC(fw fioWorkload, tc int) fioWorkload {
	old := fw.Workload.TC
	fw.Workload.TC = tc
	if fw.Custom == "" {
		fw.Label = strings.Replace(fw.Label, fmt.Sprintf(" TC%d/", old), fmt.Sprintf(" TC%d/", tc), 1)
	} else {
		fw.Label = strings.Replace(fw.Label, fmt.Sprintf(" numjobs=%d ", old), fmt.Sprintf(" threads=%d ", tc), 1)
	}
	return fw
}

// activeRange is the share of its target a job's offsets cover, where its
// options say: the whole file or device (no size, no offset), or a size in
// per cent of it. Otherwise 0, and why it is not known: fio does not print
// the capacity a size in bytes is a share of.
func activeRange(j fio.Job, global map[string]string) (float64, string) {
	for _, o := range []string{"offset_increment", "zonemode", "zonerange", "zonesize", "zoneskip", "filesize", "file_append"} {
		if v, ok := option(j, global, o); ok && v != "" && v != "0" && v != "none" {
			return 0, fmt.Sprintf("%s=%s", o, v)
		}
	}
	if v, ok := option(j, global, "nrfiles"); ok && v != "1" {
		return 0, "nrfiles=" + v
	}
	if v, ok := option(j, global, "offset"); ok && v != "0" && v != "0%" {
		return 0, "offset=" + v
	}
	size, ok := option(j, global, "size")
	if !ok || size == "100%" {
		return 100, ""
	}
	if p, isPct := strings.CutSuffix(size, "%"); isPct {
		if v, err := strconv.ParseFloat(p, 64); err == nil && v > 0 && v <= 100 {
			return v, ""
		}
	}
	return 0, "size=" + size + " of a target whose capacity fio does not print"
}

// dataPattern says what data a job wrote, in fio's words: its default
// (random buffers, scrambled) or the options that set it otherwise.
func dataPattern(j fio.Job, global map[string]string) string {
	var set []string
	for _, o := range []string{"zero_buffers", "buffer_pattern", "buffer_compress_percentage", "dedupe_percentage", "scramble_buffers"} {
		if v, ok := option(j, global, o); ok {
			set = append(set, o+"="+v)
		}
	}
	if len(set) == 0 {
		return "fio's default buffers (random)"
	}
	return "as fio's " + strings.Join(set, ", ") + " set it"
}

// loadLabel writes a load: "TC2/QD32".
func loadLabel(w engine.Workload) string { return fmt.Sprintf("TC%d/QD%d", w.TC, w.QD) }
