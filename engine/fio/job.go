package fio

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ptsrun/ptsrun/engine"
)

// Target is one block device or file fio drives, on this host or on the host
// of a fio server.
type Target struct {
	Name         string
	Path         string // file name on the host that does the I/O
	Size         int64  // bytes; 0 when unknown (a remote target)
	LogicalBlock int64
	Server       string // "host:port" of a fio server; "" for this host
}

// Percentiles fio is asked for; 99.999 is the PTS "five nines". The report
// uses the json+ bins; these are fio's own, kept in its output.
const percentileList = "50:90:99:99.9:99.99:99.999"

// jobSpec is what a job file needs besides the workload.
type jobSpec struct {
	IOEngine  string
	LogPrefix string // per-second iops/bw logs; "" for none
	IOLog     string // write_iolog prefix, one file per target; "" for none
	Prerun    string // exec_prerun command (holds a cell started ahead of its turn)
	Comment   string
}

// filenameValue is path as fio's filename= reads it: fio splits the value
// into several files at every ':' not preceded by a backslash, and drops
// that backslash (options.c get_next_str). Only the character before a ':'
// is looked at, so a backslash elsewhere, or one already before a ':' in
// the name, needs nothing more. The log options (write_iops_log,
// write_bw_log, write_lat_log, write_iolog) take their value as it is: an
// escape there would end up in the file name.
func filenameValue(path string) string {
	return strings.ReplaceAll(path, ":", `\:`)
}

// CheckPath says whether path can go into a fio job file or onto fio's
// command line and still name the same file. fio's job file parser offers
// no escape for what it refuses here (init.c __parse_jobs_ini, parse.c
// strip_blank_end, options.c fio_option_dup_subs), so a path holding it
// would make fio load or write some other file, or run what follows a
// newline as an option (exec_prerun runs a command).
func CheckPath(path string) error {
	if path == "" {
		return errors.New("empty path")
	}
	for i, r := range path {
		switch {
		case r < 0x20 || r == 0x7f:
			return fmt.Errorf("control character %q at byte %d: in a fio job file it would end or change the option", r, i)
		case r == ';' || r == '#':
			return fmt.Errorf("%q at byte %d: fio reads the rest of a job file line as a comment", r, i)
		case r == '$':
			return fmt.Errorf("%q at byte %d: fio replaces ${VAR} and $ncpus-style keywords in job options", r, i)
		}
	}
	if path[0] == ' ' || path[len(path)-1] == ' ' {
		return errors.New("a blank at the start or end: fio strips it from job options")
	}
	return nil
}

// shellQuote quotes s for sh, which runs exec_prerun.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func rwOption(w engine.Workload) string {
	seq := w.Access == engine.Sequential
	switch {
	case w.ReadPct == 100 && seq:
		return "read"
	case w.ReadPct == 100:
		return "randread"
	case w.ReadPct == 0 && seq:
		return "write"
	case w.ReadPct == 0:
		return "randwrite"
	case seq:
		return "rw"
	}
	return "randrw"
}

// JobFile writes the fio job file of a workload on targets of one host: one
// job section per target, each its own reporting group, TC clones of QD each.
func JobFile(w engine.Workload, targets []Target, spec jobSpec) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	comment(p, spec.Comment)
	p("[global]")
	globalOptions(p, spec)
	workloadOptions(p, w, spec)
	sections(p, w, targets, spec, "t", false)
	return b.String()
}

// RoundJobFile writes one job file for several cells of a round on targets of
// one host: each cell's sections run after the previous cell's have ended
// (stonewall), with the cell's options in its own sections; cell k's job for
// target n is named c<k>t<n>. Through a fio server one connection then
// carries the whole round.
func RoundJobFile(ws []engine.Workload, targets []Target, specs []jobSpec, comment0 string) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	comment(p, comment0)
	p("[global]")
	globalOptions(p, specs[0])
	for k, w := range ws {
		var cell strings.Builder
		q := func(format string, a ...any) { fmt.Fprintf(&cell, format+"\n", a...) }
		workloadOptions(q, w, specs[k])
		opts := strings.TrimRight(cell.String(), "\n")
		var secs strings.Builder
		sp := func(format string, a ...any) { fmt.Fprintf(&secs, format+"\n", a...) }
		sections(sp, w, targets, specs[k], fmt.Sprintf("c%dt", k), k > 0)
		// Every section of the cell carries the cell's options.
		for _, line := range strings.Split(strings.TrimRight(secs.String(), "\n"), "\n") {
			p("%s", line)
			if strings.HasPrefix(line, "[c") {
				p("%s", opts)
			}
		}
	}
	return b.String()
}

func comment(p func(string, ...any), c string) {
	if c != "" {
		for _, l := range strings.Split(c, "\n") {
			p("; %s", l)
		}
	}
}

// globalOptions are the options every job of ptsrun shares.
func globalOptions(p func(string, ...any), spec jobSpec) {
	p("ioengine=%s", spec.IOEngine)
	p("direct=1")
	p("thread")
	p("group_reporting=1")
	// No clock calibration and no disk statistics thread: both cost time
	// at every start and stop of fio, that is between every two cells.
	p("clocksource=clock_gettime")
	p("disk_util=0")
	p("lat_percentiles=1")
	p("percentile_list=%s", percentileList)
	if spec.Prerun != "" {
		p("exec_prerun=%s", spec.Prerun)
	}
}

// How fio 3.33 reads a block-size split and zones (options.c
// split_parse_ddir, bssplit_ddir, zone_split_ddir; io_u.c get_next_buflen,
// __get_next_rand_offset_zoned; zone-dist.c), and what the job file does
// about it:
//
//   - A share is read with atoi (bssplit) or strtoll (a zone's I/O share):
//     "1.5" runs as 1 %, without a word. Shares are whole percentages, and
//     the engine refuses others (checkWorkload) rather than run something
//     else.
//   - A bssplit share of 0 means "not given": that size gets an equal part of
//     what the others leave, not nothing. Sizes with no share are left out.
//   - Each drawn size is rounded down to a multiple of the smallest size of
//     the split: with 8k/50:12k/50 every I/O is 8 KiB. bs_unaligned=1 stops
//     that where a size is not such a multiple (fio then warns that
//     bs_unaligned "may not work with raw io": it does, since every size is
//     a multiple of the logical block size).
//   - Random offsets are aligned to blockalign, which defaults to the
//     smallest size of the split (init.c fixup_options), not to each I/O's
//     own size: a 64 KiB I/O of the PTS ECW split starts on any 512-byte
//     boundary, and only one 4 KiB I/O in eight starts on a 4 KiB one. The
//     native engine and the simulated drive align each I/O to its own size.
//   - Zones take whole percentages of the I/O (1…100 drawn per I/O) and of
//     the range, measured in blockalign units of the job's size=; a zone's
//     last I/O may reach a few blocks into the next zone.

// bssplitValue writes a split for bssplit=: bytes/percent pairs of the sizes
// with a share, and whether a size is not a multiple of the smallest one
// (bs_unaligned=1 is then needed to run it as it is).
func bssplitValue(split []engine.BlockShare) (string, bool) {
	var parts []string
	var smallest int64
	for _, s := range split {
		if s.Percent > 0 && (smallest == 0 || s.Bytes < smallest) {
			smallest = s.Bytes
		}
	}
	unaligned := false
	for _, s := range split {
		if s.Percent <= 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%d/%s", s.Bytes, strconv.FormatFloat(s.Percent, 'f', -1, 64)))
		if s.Bytes%smallest != 0 {
			unaligned = true
		}
	}
	return strings.Join(parts, ":"), unaligned
}

// zonedValue writes zones for random_distribution=zoned:.
func zonedValue(zones []engine.Zone) string {
	var parts []string
	for _, z := range zones {
		parts = append(parts, strconv.FormatFloat(z.IOPercent, 'f', -1, 64)+"/"+strconv.FormatFloat(z.RangePercent, 'f', -1, 64))
	}
	return strings.Join(parts, ":")
}

// checkWorkload refuses what fio would run otherwise than asked.
func checkWorkload(w engine.Workload) error {
	if err := w.WholePercentages(); err != nil {
		return fmt.Errorf("%w: fio reads shares as whole percentages (it would run 1.5 %% as 1 %%)", err)
	}
	n := 0
	for _, s := range w.BlockSplit {
		if s.Percent > 0 {
			n++
		}
	}
	if n > bssplitMax {
		return fmt.Errorf("%w: a block-size split of %d sizes; fio takes at most %d", engine.ErrBadWorkload, n, bssplitMax)
	}
	if len(w.Zones) > zonesMax {
		return fmt.Errorf("%w: %d zones; fio takes at most %d", engine.ErrBadWorkload, len(w.Zones), zonesMax)
	}
	// A zone's range share of 0 would also mean "not given" to fio; Validate
	// refuses it already. A zone's I/O share of 0 is read as 0: no I/O there.
	return nil
}

// fio's limits (thread_options.h BSSPLIT_MAX, ZONESPLIT_MAX).
const (
	bssplitMax = 64
	zonesMax   = 256
)

// workloadOptions are the options that make the workload.
func workloadOptions(p func(string, ...any), w engine.Workload, spec jobSpec) {
	p("rw=%s", rwOption(w))
	if w.ReadPct > 0 && w.ReadPct < 100 {
		p("rwmixread=%d", w.ReadPct)
	}
	if len(w.BlockSplit) > 0 {
		split, unaligned := bssplitValue(w.BlockSplit)
		p("bssplit=%s", split)
		if unaligned {
			p("bs_unaligned=1")
		}
	} else {
		p("bs=%d", w.BlockSize)
	}
	p("iodepth=%d", w.QD)
	p("norandommap=1")
	p("randrepeat=1")
	p("randseed=%d", w.Seed&(1<<62-1)) // fio reads a signed 64-bit number
	p("random_generator=tausworthe64")
	if len(w.Zones) > 0 {
		p("random_distribution=zoned:%s", zonedValue(w.Zones))
	}
	if w.ReadPct < 100 {
		// PTS: random, incompressible data. fio's default is one buffer per
		// I/O slot with a few bytes scrambled per write, which compresses.
		p("refill_buffers=1")
	}
	if w.Duration > 0 && w.Passes <= 0 {
		p("time_based=1")
		p("runtime=%dms", w.Duration.Milliseconds())
	}
	if spec.LogPrefix != "" {
		p("write_iops_log=%s", spec.LogPrefix)
		p("write_bw_log=%s", spec.LogPrefix)
		p("log_avg_msec=1000")
	}
}

// sections writes a workload's job sections: TC per target, named
// <prefix><target>; stonewall makes the first wait for every earlier job.
func sections(p func(string, ...any), w engine.Workload, targets []Target, spec jobSpec, prefix string, stonewall bool) {
	for i, t := range targets {
		size, perJob := jobSize(w, t)
		// One section per thread rather than numjobs clones: each thread
		// gets its own part of the range for sequential streams and its own
		// I/O log, and the sections of a target form one reporting group.
		for th := 0; th < w.TC; th++ {
			p("")
			p("[%s%d]", prefix, i)
			if th == 0 {
				if stonewall && i == 0 {
					p("stonewall")
				}
				p("new_group")
			}
			p("filename=%s", filenameValue(t.Path))
			if size != "" {
				p("size=%s", size)
			}
			if off := jobOffset(w, t, th); off != "" {
				p("offset=%s", off)
			}
			if spec.IOLog != "" {
				p("write_iolog=%s.t%d.%d", spec.IOLog, i, th)
			}
			if w.Passes > 0 && perJob > 0 {
				vol := int64(w.Passes * float64(perJob))
				if w.Access == engine.Random {
					vol = int64(w.Passes*float64(w.RangeBytes(t.Size))) / int64(w.TC)
				}
				p("io_size=%d", vol)
			} else if w.Passes > 0 {
				p("loops=%d", int(w.Passes+0.5))
			}
		}
	}
}

// jobSize is the size= of a target's job and the bytes each clone covers.
// With a known capacity sizes are exact bytes aligned to the block size;
// without one (a remote target) they are percentages of the device.
func jobSize(w engine.Workload, t Target) (string, int64) {
	if t.Size <= 0 {
		if w.ActiveRange >= 100 && w.RangeStart == 0 && w.Access != engine.Sequential {
			return "", 0
		}
		pct := w.ActiveRange - w.RangeStart
		if w.Access == engine.Sequential && w.TC > 1 {
			pct /= float64(w.TC)
		}
		return strconv.FormatFloat(pct, 'f', -1, 64) + "%", 0
	}
	ar := w.RangeBytes(t.Size)
	if w.Access == engine.Sequential && w.TC > 1 {
		bs := max(w.BlockSize, 512)
		per := ar / int64(w.TC) / bs * bs
		return strconv.FormatInt(per, 10), per
	}
	return strconv.FormatInt(ar, 10), ar
}

// jobOffset is where thread th works from: the start of the active range,
// plus, for sequential streams, the thread's part of it; "" for offset 0.
func jobOffset(w engine.Workload, t Target, th int) string {
	seq := w.Access == engine.Sequential && w.TC > 1
	if t.Size <= 0 {
		pct := w.RangeStart
		if seq {
			pct += (w.ActiveRange - w.RangeStart) * float64(th) / float64(w.TC)
		}
		if pct == 0 {
			return ""
		}
		return strconv.FormatFloat(pct, 'f', -1, 64) + "%"
	}
	off := w.RangeStartBytes(t.Size)
	if seq {
		_, per := jobSize(w, t)
		off += per * int64(th)
	}
	if off == 0 {
		return ""
	}
	return strconv.FormatInt(off, 10)
}
