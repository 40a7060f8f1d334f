package fio

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// Target is one block device or file fio drives, on this host or on the host
// of a fio server: the engines' one target type.
type Target = engine.Target

// Percentiles fio is asked for; 99.999 is the PTS "five nines". The report
// uses the json+ bins; these are fio's own, kept in its output.
const percentileList = "50:90:99:99.9:99.99:99.999"

// jobSpec is what a job file needs besides the workload.
type jobSpec struct {
	IOEngine  string
	LogPrefix string // the series' iops, bw, lat and histogram logs, a ramp's with "ramp." before the file name; "" for none
	NoHistLog bool   // no histogram log (HistLogFits): the series has no percentiles
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
	if w.Ramp > 0 {
		sections(p, w, targets, spec, "r", false, true)
	}
	sections(p, w, targets, spec, "t", w.Ramp > 0, false)
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
		if w.Ramp > 0 {
			sections(sp, w, targets, specs[k], fmt.Sprintf("c%dr", k), k > 0, true)
		}
		sections(sp, w, targets, specs[k], fmt.Sprintf("c%dt", k), k > 0 || w.Ramp > 0, false)
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
	if len(w.Streams) > 0 {
		// rw=randrw with bssplit per direction and percentage_random comes
		// close, and is not it: fio draws random or sequential per I/O
		// apart from the size, continues a sequential I/O from the last
		// I/O of its direction (random ones too, io_u.c
		// get_next_seq_offset), not from its own stream's, and takes
		// shares in whole percentages.
		return fmt.Errorf("%w: a stream mix (%s): fio cannot run it exactly in one job (it cannot choose random or sequential with the size "+
			"of each I/O, nor keep each sequential stream at its own position, and it takes whole percentages): run it with the native engine "+
			"or on a simulated drive", engine.ErrBadWorkload, w.MixLabel())
	}
	if err := w.WholePercentages(); err != nil {
		return fmt.Errorf("%w: fio reads shares as whole percentages (it would run 1.5 %% as 1 %%)", err)
	}
	if w.RandomPct != math.Trunc(w.RandomPct) {
		return fmt.Errorf("%w: a random share of %s %%: fio's percentage_random takes a whole percentage", engine.ErrBadWorkload,
			strconv.FormatFloat(w.RandomPct, 'f', -1, 64))
	}
	if _, _, _, err := rateShares(w); err != nil {
		return err
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
	if w.Access == engine.Random && w.RandomPct > 0 && w.RandomPct < 100 {
		// fio's 0 is all sequential, ptsrun's all random: 0 is never written.
		p("percentage_random=%d", int(w.RandomPct))
	}
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
	switch {
	case w.Duration > 0 && w.Passes <= 0:
		p("time_based=1")
		if w.Ramp <= 0 {
			p("runtime=%dms", w.Duration.Milliseconds())
		} // else each section has its own: the ramp's, the rest's
	case w.Duration > 0 && w.Ramp <= 0:
		// A volume (io_size, below) and a time: not time_based, so fio
		// ends at whichever comes first.
		p("runtime=%dms", w.Duration.Milliseconds())
	}
	if spec.LogPrefix != "" {
		// The series (series.go): counts from the iops and bw logs, the
		// means from the clat and lat logs, percentiles and maximum from
		// the histogram log (within budget: HistLogFits), each over the
		// series' interval.
		iv := w.SeriesInterval().Milliseconds()
		p("write_iops_log=%s", spec.LogPrefix)
		p("write_bw_log=%s", spec.LogPrefix)
		p("write_lat_log=%s", spec.LogPrefix)
		p("log_avg_msec=%d", iv)
		if !spec.NoHistLog {
			p("write_hist_log=%s", spec.LogPrefix)
			p("log_hist_msec=%d", iv)
		}
	}
}

// What fio keeps of histogram logs (write_hist_log): every window of a
// thread's log copies the thread's whole completion-latency histogram
// (iolog.c/stat.c: FIO_IO_U_PLAT_NR counters of 8 bytes, 1856 in fio
// 3.33) per direction, and fio keeps them all in memory until the thread
// ends (backend.c thread_main: td_writeout_logs), writing the log only
// then: 14.8 KB per thread, direction and window. A 1 h 15 min run of 16
// threads of a mix at one-second intervals is about 2 GB. So ptsrun asks
// for histogram logs only within histLogBudget; beyond it the series
// keeps its counts and means, without percentiles or maximum. ptsrun
// reading the logs keeps less: one histogram per target (not thread),
// direction and interval (partSeries).
const (
	histWindowBytes = 29 * platVal * 8
	histLogBudget   = 256 << 20
)

// HistLogFits says whether ptsrun asks fio for histogram logs for w on
// targets targets, which gives its series' per-interval percentiles and
// maximum: whether fio's memory for them, need bytes, is within
// ptsrun's budget of 256 MiB. need is windows × threads × directions ×
// 14.8 KB (1856 counts of 8 bytes): windows the intervals of w's
// duration, its ramp included, threads TC × targets, directions 2 for a
// mix of reads and writes, else 1. minInterval is the shortest interval
// of whole seconds whose need fits (0 when none does). A workload of
// passes (preconditioning: no duration, and hours on a big drive) has no
// estimate and gets none: nothing reads its percentiles per interval;
// nor does one of no I/O (Idle).
func HistLogFits(w engine.Workload, targets int) (ok bool, need int64, minInterval time.Duration) {
	if w.Idle || w.Passes > 0 || w.Duration <= 0 {
		return false, 0, 0
	}
	per := int64(max(w.TC, 1)) * int64(max(targets, 1)) * histWindowBytes
	if w.ReadPct > 0 && w.ReadPct < 100 {
		per *= 2
	}
	windows := func(iv time.Duration) int64 {
		up := func(d time.Duration) int64 { return int64((d + iv - 1) / iv) }
		if w.Ramp > 0 {
			return up(w.Ramp) + up(w.Duration-w.Ramp) // the ramp's sections log apart
		}
		return up(w.Duration)
	}
	need = windows(w.SeriesInterval()) * per
	// The fewest windows are one per section: then longer intervals do not help.
	if maxWin := int64(histLogBudget) / per; maxWin >= windows(w.Duration) {
		k := max(time.Duration(int64(w.Duration)/maxWin), time.Second).Truncate(time.Second)
		for windows(k)*per > histLogBudget {
			k += time.Second
		}
		minInterval = k
	}
	return need <= histLogBudget, need, minInterval
}

// sections writes a workload's job sections: TC per target, named
// <prefix><target>; stonewall makes the first wait for every earlier job.
// ramp writes the sections of the workload's ramp, which run for the ramp
// and log into spec.RampLogPrefix; with a ramp the others run for the rest
// of the duration.
func sections(p func(string, ...any), w engine.Workload, targets []Target, spec jobSpec, prefix string, stonewall, ramp bool) {
	rates, rateRead, rateWrite, _ := rateShares(w) // checkWorkload refused a cap fio cannot take
	for i, t := range targets {
		size, perJob := jobSize(w, t)
		// One section per thread rather than numjobs clones: each thread
		// gets its own part of the range for sequential streams and its own
		// I/O log, and the sections of a target form one reporting group.
		for th := 0; th < w.TC; th++ {
			p("")
			if i == 0 && th == 0 && w.Ramp > 0 {
				if ramp {
					p("; the ramp: in the per-second series only (fio's ramp_time would log none of it)")
				} else {
					p("; after the ramp: the results")
				}
			}
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
			switch {
			case ramp:
				p("runtime=%dms", w.Ramp.Milliseconds())
				if spec.LogPrefix != "" {
					logs := filepath.Join(filepath.Dir(spec.LogPrefix), "ramp."+filepath.Base(spec.LogPrefix))
					for _, o := range []string{"write_iops_log", "write_bw_log", "write_lat_log", "write_hist_log"} {
						if o != "write_hist_log" || !spec.NoHistLog {
							p("%s=%s", o, logs)
						}
					}
				}
			case w.Ramp > 0:
				p("runtime=%dms", (w.Duration - w.Ramp).Milliseconds())
			}
			if rates != "" {
				p("%s", rateValue(rates, w, rateRead[th], rateWrite[th]))
			}
			if spec.IOLog != "" && !ramp {
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

// How fio 3.33 caps a job's rate (options.c rate, rate_iops; backend.c
// __setup_rate; io_u.c rate_ddir), measured on a loop device:
//
//   - rate= is bytes a second, rate_iops= I/Os a second, both per job;
//     one job here is one thread, so each gets its share of the target's
//     cap: the cap ÷ TC, in whole numbers, the remainder going one each to
//     the first threads so that the shares add up to the cap.
//   - One value caps each direction by itself: rate_iops=1000 on a 70/30
//     mix ran 1000 reads and 1000 writes a second, 50/50. A mix gets two
//     values, READ,WRITE, the cap split by the mix.
//   - fio turns rate_iops into bytes at the smallest block size of a
//     split (rate_iops=1000 of 4k/50:64k/50 ran 130 IOPS), so a split's cap
//     is written as rate=, the IOPS cap times the split's mean size; so is
//     a cap in MB/s (decimal, PTS §2.4.1) that binds before the IOPS one.
//   - 0 is no cap at all: a thread whose share rounds to 0 would run
//     unbounded, so such a cap is refused.

// rateShares is the workload's rate cap as fio takes it: the option
// (rate_iops or rate; "" without a cap) and each thread's read and write
// share of it.
func rateShares(w engine.Workload) (option string, read, write []int64, err error) {
	capIOPS := w.RateIOPSCap()
	if capIOPS <= 0 {
		return "", nil, nil, nil
	}
	option, total := "rate_iops", capIOPS
	mbpsBinds := w.RateMBps > 0 && (w.RateIOPS == 0 || w.RateMBps*1e6/w.MeanBlockSize() < w.RateIOPS)
	switch {
	case mbpsBinds:
		option, total = "rate", w.RateMBps*1e6
	case len(w.BlockSplit) > 0:
		option, total = "rate", capIOPS*w.MeanBlockSize()
	}
	r := float64(w.ReadPct) / 100
	spread := func(v float64) []int64 {
		n := int64(math.Round(v))
		out := make([]int64, w.TC)
		for th := range out {
			out[th] = n / int64(w.TC)
			if int64(th) < n%int64(w.TC) {
				out[th]++
			}
		}
		return out
	}
	read, write = spread(total*r), spread(total*(1-r))
	unit := "I/Os"
	if option == "rate" {
		unit = "bytes"
	}
	for th := range w.TC {
		dir := ""
		switch {
		case w.ReadPct > 0 && read[th] == 0:
			dir = "reads"
		case w.ReadPct < 100 && write[th] == 0:
			dir = "writes"
		}
		if dir != "" {
			return "", nil, nil, fmt.Errorf("%w: %s spread over %d threads leaves a thread's %s less than one %s a second, and fio reads %s=0 as no cap",
				engine.ErrBadWorkload, w.RateLabel(), w.TC, dir, strings.TrimSuffix(unit, "s"), option)
		}
	}
	return option, read, write, nil
}

// rateValue writes one thread's cap: one value for a workload of one
// direction, READ,WRITE for a mix.
func rateValue(option string, w engine.Workload, read, write int64) string {
	switch w.ReadPct {
	case 100:
		return fmt.Sprintf("%s=%d", option, read)
	case 0:
		return fmt.Sprintf("%s=%d", option, write)
	}
	return fmt.Sprintf("%s=%d,%d", option, read, write)
}

// How fio 3.33 ramps up (ramp_time), measured: its iops and bw logs hold
// nothing of the ramp, and their clock starts again at its end (time.c
// reset_all_stats resets the epoch). ptsrun keeps a ramp's seconds in the
// series, so a ramp is not ramp_time but a group of its own: the same
// jobs for the ramp (sections r<n>, logging into the ramp's own files),
// then, after a stonewall, the jobs whose results count for the rest of
// the duration (t<n>). Between the two fio ends one set of threads and
// starts the next, a few milliseconds; a sequential stream starts again
// at the start of its region.

// isRampJob says whether a job of fio's output is a ramp's (r<n>, or
// c<k>r<n> in a round's job file).
func isRampJob(name string) bool {
	if i := strings.IndexByte(name, 'r'); i >= 0 {
		head, n := name[:i], name[i+1:]
		if _, err := strconv.Atoi(n); err == nil && (head == "" || head[0] == 'c') {
			return true
		}
	}
	return false
}

// runTime is how long fio's jobs took: a ramp's and the measured jobs',
// one group after the other.
func (o *Output) runTime() time.Duration {
	var ramp, rest time.Duration
	for _, j := range o.Jobs {
		if isRampJob(j.Name) {
			ramp = max(ramp, j.Elapsed())
		} else {
			rest = max(rest, j.Elapsed())
		}
	}
	return ramp + rest
}

// CheckWorkload says whether fio runs w as asked: whole percentages for
// shares, fio's limits on splits and zones, a rate cap every thread's share
// of which is at least one I/O (or byte) a second, since fio reads 0 as no
// cap.
func CheckWorkload(w engine.Workload) error { return checkWorkload(w) }
