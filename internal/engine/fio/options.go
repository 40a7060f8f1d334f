package fio

import (
	"fmt"
	"slices"
	"strings"
)

// The gate's allow-list: every option of a user's job file is one whose
// effect the gate models, or it is refused by name. The models:
//
//   - OptNames: the option names the job's files and devices (Threads makes
//     them, the gate judges each).
//   - OptWrites: it decides whether the job writes its files (Access).
//   - OptExtent: how far into its files the job goes: a file a job only reads
//     that is smaller than that is laid out again by fio, which writes it.
//   - OptThreads: threads and reporting groups, which ptsrun matches fio's
//     output to.
//   - OptLogs: it names a file fio writes besides the job's I/O (LogFiles).
//   - OptEngine: ioengine, one of the engines the gate knows.
//   - OptChecked: allowed with the values the gate checks (mem without a file).
//   - OptHarmless: how the job does its I/O or reports it, not what it touches.
//   - OptRefused: what no gate can check (a command, a trace), or changes the
//     host beyond the job's files (the disk's scheduler, a cgroup).
//
// An option fio knows that is in no row (a later fio's) is refused: the
// table fails closed. TestEveryFioOptionIsClassified holds it to fio's
// own list (fio --cmdhelp=all, --enghelp).

// Model is what the gate knows of an option's effect.
type Model int

// The models of options.
const (
	OptUnclassified Model = iota
	OptNames
	OptWrites
	OptEngine
	OptExtent
	OptThreads
	OptLogs
	OptChecked
	OptHarmless
	OptRefused
)

// modelRow is a row of the allow-list: options of one model, and what the
// gate does with them in words for people (docs/fio.md's table).
type modelRow struct {
	model Model
	names []string
	does  string
	// label and shown stand for a long row's names in docs/fio.md: how
	// many, and a few of them.
	label string
	shown []string
}

var modelRows = []modelRow{
	{OptNames, strings.Fields("filename directory filename_format nrfiles opendir unique_filename"),
		"name the job's files and devices: each is a target, judged as the table below says (through fio servers, `directory` needs `unique_filename=0`)", "", nil},
	{OptWrites, strings.Fields("rw unlink unlink_each_loop fill_device trim_percentage zonemode"),
		"decide whether the job writes its files: writes, trims or a mix (a `rw` ptsrun does not know counts as one), deleting them, `fill_device` (all its files), `trim_percentage` above 0, `zonemode=zbd` (zone resets)", "", nil},
	{OptEngine, []string{"ioengine"}, "one of " + engineList() + "; any other is refused", "", nil},
	{OptExtent, strings.Fields("size filesize offset offset_increment offset_align"),
		"a file a job only reads that is smaller than where its I/O ends is laid out again by fio: it counts as written", "", nil},
	{OptThreads, strings.Fields("numjobs stonewall new_group group_reporting stats name"),
		"threads and reporting groups, as ptsrun matches fio's output to the jobs", "", nil},
	{OptLogs, strings.Fields("write_bw_log write_lat_log write_iops_log write_hist_log write_iolog"),
		"name files fio writes: only inside DIR (ptsrun logs every job's seconds itself)", "", nil},
	{OptChecked, strings.Fields("mem buffer_pattern verify_pattern verify_dump"),
		"`mem`/`iomem` without a file only (`malloc`, `shm`, `mmap`, …; with `:FILE` fio creates, truncates or overwrites it); a pattern written out, not read from a file (`'FILE'`); `verify_dump` not through fio servers (its dumps go into DIR/fio/aux here)", "", nil},
	{OptRefused, strings.Fields("exec_prerun exec_postrun read_iolog replay_redirect merge_blktrace_file ioscheduler cgroup cgroup_weight profile"),
		"refused: they run commands, replay traces whose targets ptsrun cannot follow, change the disk's scheduler or a cgroup, or run a profile's jobs", "", nil},
	{OptHarmless, strings.Fields(`description wait_for lockfile bs ba bsrange bssplit bs_unaligned bs_is_seq_rand randrepeat randseed
		norandommap softrandommap ignore_error rw_sequencer iodepth iodepth_batch iodepth_batch_complete_min iodepth_batch_complete_max
		iodepth_low serialize_overlap io_submit_mode io_size file_append number_ios random_generator random_distribution
		percentage_random allrandrepeat file_service_type openfiles fallocate fadvise_hint fsync fdatasync write_barrier
		sync_file_range direct atomic buffered overwrite loops startdelay runtime time_based verify_only ramp_time clocksource
		iomem_align verify do_verify verify_interval verify_offset verify_fatal verify_async verify_async_cpus verify_backlog
		verify_backlog_batch experimental_verify verify_state_load verify_state_save trim_verify_zero
		trim_backlog trim_backlog_batch read_iolog_chunked replay_no_stall replay_scale replay_align replay_time_scale
		replay_skip merge_blktrace_scalars merge_blktrace_iters zonesize zonecapacity zonerange zoneskip read_beyond_wp
		max_open_zones job_max_open_zones ignore_zone_limits zone_reset_threshold zone_reset_frequency lockmem rwmixread
		rwmixwrite nice prio prioclass thinktime thinktime_spin thinktime_blocks thinktime_blocks_type thinktime_iotime
		rate rate_min rate_process rate_cycle rate_ignore_thinktime rate_iops rate_iops_min max_latency latency_target
		latency_window latency_percentile latency_run invalidate sync write_hint create_serialize create_fsync
		create_on_open create_only allow_file_create allow_mounted_write pre_read cpumask cpus_allowed cpus_allowed_policy
		numa_cpu_nodes numa_mem_policy end_fsync fsync_on_close exitall exit_what exitall_on_error thread per_job_logs
		bwavgtime iopsavgtime log_entries log_avg_msec log_hist_msec log_hist_coarseness log_max_value log_offset
		log_prio log_compression log_compression_cpus log_store_compressed log_unix_epoch log_alternate_epoch
		log_alternate_epoch_clock_id block_error_percentiles zero_buffers refill_buffers scramble_buffers
		buffer_compress_percentage buffer_compress_chunk dedupe_percentage dedupe_mode dedupe_working_set_percentage
		dedupe_global clat_percentiles lat_percentiles slat_percentiles percentile_list significant_figures disk_util
		gtod_reduce disable_lat disable_clat disable_slat disable_bw_measurement gtod_cpu unified_rw_reporting
		continue_on_error error_dump cgroup_nodelete uid gid kb_base unit_base hugepage-size flow_id flow flow_sleep
		steadystate steadystate_duration steadystate_ramp_time`),
		"change how the job does its I/O or reports it, not what it touches: allowed",
		"the other %d", strings.Fields("bs iodepth runtime time_based direct rate verify")},
	{OptHarmless, engineOptions, "the engines' own: how they submit and complete I/O; allowed", "%d of the engines", strings.Fields("hipri sqthread_poll fixedbufs userspace_reap")},
}

// engineOptions are the allowed engines' own options (fio --enghelp=ENGINE).
var engineOptions = strings.Fields(`hipri hipri_percentage uncached nowait userspace_reap cmdprio_percentage cmdprio_class
	cmdprio cmdprio_bssplit fixedbufs registerfiles sqthread_poll sqthread_poll_cpu nonvectored force_async cmd_type thp
	readfua writefua sg_write_mode stream_id cpuload cpuchunks cpumode exit_on_io_done stat_type`)

// aliases are fio's other names for options (options.c .alias).
var aliases = map[string]string{
	"readwrite": "rw", "iodepth_batch_submit": "iodepth_batch", "iodepth_batch_complete": "iodepth_batch_complete_min",
	"io_limit": "io_size", "fill_fs": "fill_device", "fileoffset": "offset", "blocksize": "bs", "blockalign": "ba",
	"blocksize_range": "bsrange", "blocksize_unaligned": "bs_unaligned", "nr_files": "nrfiles", "timeout": "runtime",
	"iomem": "mem", "mem_align": "iomem_align", "ratemin": "rate_min", "ratecycle": "rate_cycle",
	"wait_for_previous": "stonewall", "disable_bw": "disable_bw_measurement", "ss": "steadystate",
	"ss_dur": "steadystate_duration", "ss_ramp": "steadystate_ramp_time",
}

// canonical is fio's name of an option written as name.
func canonical(name string) string {
	if a, ok := aliases[name]; ok {
		return a
	}
	return name
}

// models is modelRows by option name.
var models = func() map[string]Model {
	m := map[string]Model{}
	for _, r := range modelRows {
		for _, n := range r.names {
			if _, dup := m[n]; dup {
				panic("fio option " + n + " in two rows of the gate's table")
			}
			m[n] = r.model
		}
	}
	return m
}()

// ModelOf is the gate's model of fio's option name (OptUnclassified: refused).
func ModelOf(name string) Model { return models[name] }

// engine is what an engine the gate knows does to the files it is given.
type ioEngine struct {
	changes string // a verb when it writes, truncates or deletes them whatever rw says
	noIO    bool   // it does no I/O on files at all
}

// engines are the engines the gate knows: they do I/O on this host's files
// and devices as rw says, or change them (changes), or do none.
var engines = map[string]ioEngine{
	"sync": {}, "psync": {}, "vsync": {}, "pvsync": {}, "pvsync2": {}, "libaio": {}, "io_uring": {}, "io_uring_cmd": {},
	"posixaio": {}, "mmap": {}, "splice": {}, "sg": {}, "filestat": {},
	"falloc": {changes: "allocates"}, "ftruncate": {changes: "truncates"}, "filecreate": {changes: "creates"},
	"filedelete": {changes: "deletes"},
	"null":       {noIO: true}, "cpuio": {noIO: true},
}

func engineList() string {
	var names, changing, none []string
	for n, e := range engines {
		names = append(names, n)
		switch {
		case e.changes != "":
			changing = append(changing, n)
		case e.noIO:
			none = append(none, n)
		}
	}
	q := func(ns []string) string {
		slices.Sort(ns)
		return "`" + strings.Join(ns, "`, `") + "`"
	}
	return q(names) + " (" + q(changing) + " count as writing; " + q(none) + " do no I/O)"
}

func engineRefusal(v string) string {
	var names []string
	for n := range engines {
		names = append(names, n)
	}
	slices.Sort(names)
	return fmt.Sprintf("ioengine=%s: ptsrun's gate knows only the engines that do I/O on this host's files and devices (%s); "+
		"run a job with another engine with fio itself", v, strings.Join(names, ", "))
}

// memTypes are the mem= values without a file.
var memTypes = []string{"malloc", "shm", "shmhuge", "mmap", "mmaphuge", "mmapshared"}

// refusedWhy says why each refused option is refused, and what to do
// instead.
var refusedWhy = map[string]string{
	"exec_prerun":         "runs a command, which no gate can check: run it yourself before or after ptsrun fio",
	"exec_postrun":        "runs a command, which no gate can check: run it yourself before or after ptsrun fio",
	"read_iolog":          "replays I/O from a trace, whose files and writes ptsrun cannot follow: replay it with fio itself",
	"replay_redirect":     "replays a trace's I/O onto a device, which ptsrun cannot follow: replay it with fio itself",
	"merge_blktrace_file": "replays I/O from merged traces, whose files and writes ptsrun cannot follow: replay them with fio itself",
	"ioscheduler":         "changes the I/O scheduler of the disk under the job's files, which nothing confirms: set it before the run (echo NAME > /sys/block/DEV/queue/scheduler)",
	"cgroup":              "makes and changes a cgroup of the host: run ptsrun in the cgroup you want (systemd-run --scope -p …)",
	"cgroup_weight":       "changes a cgroup of the host: run ptsrun in the cgroup you want (systemd-run --scope -p …)",
	"profile":             "runs one of fio's built-in profiles, whose jobs ptsrun does not read: write the jobs out",
}

// keywords fio replaces in every option (options.c fio_keywords).
var keywords = []string{"$pagesize", "$mb_memory", "$ncpus"}

// Refusals are the options of jf the gate refuses, each naming its line:
// an option whose effect the gate does not model, a value it does not,
// and, through fio servers (remote), what a server reads on its own host.
func (jf *UserJobFile) Refusals(remote bool) []*JobFileError {
	var out []*JobFileError
	add := func(o Option, format string, a ...any) {
		out = append(out, &JobFileError{At: o.At, Msg: o.Raw + ": " + fmt.Sprintf(format, a...), Refused: true})
	}
	for _, s := range jf.Sections {
		for _, o := range s.Options {
			if msg := optionRefusal(o, remote); msg != "" {
				add(o, "%s", msg)
			}
		}
	}
	if !remote {
		return out
	}
	for _, j := range jf.Jobs {
		if d, ok := j.Get("directory"); ok {
			if _, set := j.Get("unique_filename"); !set || j.Flag("unique_filename") {
				add(d, "through fio servers fio puts the client's address in the name of every file under directory= (unique_filename): set unique_filename=0")
			}
		}
	}
	return out
}

// optionRefusal is why the gate refuses option o, "" when it does not.
func optionRefusal(o Option, remote bool) string {
	if remote && (strings.Contains(o.Raw, "${") || slices.ContainsFunc(keywords, func(k string) bool { return strings.Contains(o.Raw, k) })) {
		return "through fio servers, ${VAR} and $ncpus, $pagesize and $mb_memory take the server's values, which ptsrun cannot see: write the value"
	}
	switch ModelOf(o.Name) {
	case OptUnclassified:
		return fmt.Sprintf("fio's option %s is not one whose effect ptsrun's gate knows, so it refuses it: remove it, or run the job file with fio itself", o.Name)
	case OptRefused:
		return refusedWhy[o.Name]
	case OptEngine:
		if _, ok := engines[o.Value]; !ok {
			return engineRefusal(o.Value)
		}
	case OptChecked, OptLogs:
		switch o.Name {
		case "mem":
			if !slices.Contains(memTypes, o.Value) {
				return fmt.Sprintf("the gate takes mem (iomem) only without a file (%s): with mem=TYPE:FILE fio creates, truncates or overwrites FILE", strings.Join(memTypes, ", "))
			}
		case "buffer_pattern", "verify_pattern":
			if strings.Contains(o.Value, "'") {
				return "fio reads a pattern in quotes ('…') from that file: write the pattern itself (0x…, \"text\")"
			}
		case "write_iops_log", "write_bw_log", "write_lat_log", "write_hist_log":
			if o.HasValue && o.Value == "" {
				// fio takes "" for the file's prefix (not the job's name, as
				// bare): the gate does not guess where that lands.
				return "an empty value: name the log's prefix, or give the option bare (the job's name, or the file an earlier value named)"
			}
		case "write_iolog":
			if remote {
				return "a fio server writes the I/O log on its own host, where ptsrun cannot check it: drop it"
			}
		case "verify_dump":
			if remote && (len(o.Nums) == 0 || o.Nums[0] != 0) {
				return "a fio server writes the dumps into its own working directory, which ptsrun cannot see: set verify_dump=0"
			}
		}
	}
	return ""
}

// Access is what a job does to the files it names, as far as its options
// tell.
type Access struct {
	// Writes says the job may change data: it writes, trims, deletes,
	// truncates, allocates or fills, or what it does cannot be told (then
	// Why says so).
	Writes bool
	Why    string // the options that decide it: "rw=randwrite (job.fio:7)"
	Engine string // the ioengine (psync when not set)
	NoIO   bool   // the engine does no I/O on files at all (null, cpuio)
	// Fills says fill_device: fio writes each file up to the end of its
	// device or filesystem, and lays out any file a job reads.
	Fills bool
	// Deletes says unlink or unlink_each_loop: fio deletes the job's
	// files at the end, whatever its engine (filesetup.c
	// close_and_free_files unlinks the files of an engine that does no
	// I/O too).
	Deletes bool
	// Unsure says what the job does cannot be told (an engine or rw
	// ptsrun does not know): taken as the worst.
	Unsure bool
}

// rw values (options.c posval of rw) that only read, and the others.
var (
	readOnlyRW = []string{"read", "randread"}
	writingRW  = []string{"write", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite", "randtrimwrite"}
)

// Access reads what j does: its rw, its ioengine, and the options that
// write besides (OptWrites).
func (j JobDef) Access() Access {
	a := Access{Engine: "psync"}
	engAt := j.At
	if o, ok := j.Get("ioengine"); ok {
		a.Engine, engAt = o.Value, o.At
	}
	eng, known := engines[a.Engine]
	a.NoIO = eng.noIO
	set := func(why string, at Pos) {
		if !a.Writes {
			a.Writes, a.Why = true, fmt.Sprintf("%s (%s)", why, at)
		}
	}
	if !known {
		a.Unsure = true
		set("cannot tell: ioengine="+a.Engine+" is not an engine ptsrun knows", engAt)
	}
	rwAt, rwRaw := j.At, "rw=read (fio's default)"
	// The job's own rw replaces an inherited one. Given twice in one
	// section, the last fio handles counts: any that writes counts here.
	var rws []Option
	for _, o := range j.Own {
		if o.Name == "rw" {
			rws = append(rws, o)
		}
	}
	if o, ok := j.Get("rw"); ok && len(rws) == 0 {
		rws = []Option{o}
	}
	for _, o := range rws {
		rwAt, rwRaw = o.At, o.Raw
		// fio compares the value up to its first ',' or ':' (parse.c
		// opt_len) with the names it knows.
		v := o.Value
		if i := strings.IndexAny(v, ",:"); i >= 0 {
			v = v[:i]
		}
		switch {
		case slices.Contains(writingRW, v):
			set(o.Raw, o.At)
		case !slices.Contains(readOnlyRW, v):
			a.Unsure = true
			set("cannot tell: "+o.Raw, o.At)
		}
	}
	if eng.changes != "" {
		set(fmt.Sprintf("ioengine=%s %s files", a.Engine, eng.changes), engAt)
	}
	for _, name := range []string{"unlink", "unlink_each_loop"} {
		if o, ok := j.Get(name); ok && j.Flag(name) {
			a.Deletes = true
			set(o.Raw+" deletes the files", o.At)
		}
	}
	if o, ok := j.Get("fill_device"); ok && j.Flag("fill_device") {
		a.Fills = true
		set(o.Raw+" fills the files up to the end of their devices", o.At)
	}
	if o, ok := j.Get("trim_percentage"); ok && (len(o.Nums) == 0 || o.Nums[0] != 0) {
		set(o.Raw+" trims", o.At)
	}
	if o, ok := j.Get("zonemode"); ok && o.Value != "none" && o.Value != "strided" && o.Value != "implicit" {
		set(o.Raw+" resets zones", o.At)
	}
	if !a.Writes {
		a.Why = fmt.Sprintf("%s (%s)", rwRaw, rwAt)
		if rwAt == j.At {
			a.Why = rwRaw
		}
	}
	return a
}

// GateTable is docs/fio.md's table of what a user's job file may hold,
// made from the gate's own (TestGateTableInDocs keeps it current).
func GateTable() string {
	var b strings.Builder
	b.WriteString("| Options | What the gate does with them |\n|---|---|\n")
	for _, r := range modelRows {
		var quoted []string
		names := r.names
		if r.label != "" {
			names = r.shown
		}
		for _, n := range names {
			if n == "mem" {
				n = "mem`/`iomem"
			}
			quoted = append(quoted, "`"+n+"`")
		}
		list := strings.Join(quoted, ", ")
		if r.label != "" {
			list = fmt.Sprintf(r.label, len(r.names)) + ": " + list + ", … (`internal/engine/fio/options.go` lists them)"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", list, r.does)
	}
	b.WriteString("| any other option | refused by name: an option a later fio adds fails closed |\n")
	return b.String()
}

// LaysOut says whether fio lays out again (truncates and rewrites) a
// regular file of size bytes that a thread of j with $jobnum jobnum reads,
// one of the thread's nfiles files, and why: its I/O would end beyond the
// file's end (filesetup.c setup_files, get_start_offset, extend_file), or
// fill_device, file_append, or a size ptsrun cannot follow. What fio
// would refuse (an offset beyond the file) is not a layout.
func (j JobDef) LaysOut(jobnum, nfiles int, size int64) (bool, string) {
	if o, ok := j.Get("fill_device"); ok && j.Flag("fill_device") {
		return true, o.Raw + " lays out every file"
	}
	if o, ok := j.Get("file_append"); ok && j.Flag("file_append") {
		return true, o.Raw + " starts the I/O at the file's end"
	}
	real := uint64(max(size, 0))
	bytes := func(name string) (n uint64, pct int, o Option, ok bool, known bool) {
		o, ok = j.Get(name)
		if name != "size" {
			// A size's last value is the larger end: it stands.
			o, ok = j.lastPercentOr(name)
		}
		switch {
		case !ok:
			return 0, -1, o, false, true
		case o.Percent >= 0:
			return 0, o.Percent, o, true, o.Percent <= 100
		case len(o.Nums) >= 1:
			return o.Nums[len(o.Nums)-1], -1, o, true, o.Nums[len(o.Nums)-1] < 1<<62
		}
		return 0, -1, o, true, false // zones (size=10z), or what fio made no number of
	}
	unknown := func(o Option) (bool, string) { return true, "ptsrun cannot tell where its I/O ends (" + o.Raw + ")" }
	off, offPct, offO, offSet, ok := bytes("offset")
	if !ok {
		return unknown(offO)
	}
	inc, incPct, incO, _, ok := bytes("offset_increment")
	if !ok {
		return unknown(incO)
	}
	aligned := false
	if incPct >= 0 {
		inc, aligned = real*uint64(incPct)/100, true
	}
	if offPct >= 0 {
		off, aligned = real*uint64(offPct)/100, true
	}
	off += uint64(jobnum) * inc
	if aligned {
		// fio aligns a percentage's offset up to offset_align, else to the
		// job's smallest block size (filesetup.c get_start_offset,
		// td_min_bs). Rounded up to each block size the job names, the
		// furthest is where fio's may be: a multiple of a larger block is
		// not always further than one of a smaller (bs=3000: 6 001 goes to
		// 9 000, not 8 192).
		var aligns []uint64
		if a, ok := j.Get("offset_align"); ok {
			if len(a.Nums) != 1 {
				return unknown(a)
			}
			aligns = []uint64{a.Nums[0]}
		} else if bs, ok := blockSizes(j); ok {
			aligns = bs
		} else {
			return unknown(offO)
		}
		raw, furthest := off, off
		for _, align := range aligns {
			if align > 0 {
				furthest = max(furthest, (raw+align-1)/align*align)
			}
		}
		off = furthest
	}
	why := func(end uint64) string {
		what := fmt.Sprintf("its I/O ends at byte %d", end)
		if offSet {
			what += " (" + offO.Raw + ")"
		}
		return fmt.Sprintf("%s, beyond the file's %d bytes", what, size)
	}
	if o, ok := j.Get("filesize"); ok {
		if len(o.Nums) == 0 || o.Percent >= 0 {
			return unknown(o)
		}
		if low := o.Nums[0]; real < low {
			return true, fmt.Sprintf("%s: the file's %d bytes are fewer", o.Raw, size)
		}
		return false, ""
	}
	sz, pct, so, set, ok := bytes("size")
	if !ok {
		return unknown(so)
	}
	if !set || pct >= 0 || sz == 0 {
		return false, "" // the file's own size, or a part of it
	}
	// fio divides size by its nr_files, which files named in filename=
	// count up and a later nrfiles= sets (a job's nrfiles=1 after a
	// [global] filename=a:b leaves two files of size= each): the smaller
	// divisor, the larger share, is what fio may use.
	if o, ok := j.Get("nrfiles"); ok {
		if len(o.Nums) != 1 || o.Percent >= 0 {
			return unknown(o)
		}
		if n := o.Nums[0]; n >= 1 && n < uint64(max(nfiles, 1)) {
			nfiles = int(n)
		}
	}
	per := sz / uint64(max(nfiles, 1))
	if sz%uint64(max(nfiles, 1)) != 0 {
		bs, ok := maxBlockSize(j)
		if !ok {
			return unknown(so)
		}
		per += bs // fio makes the first files a block bigger
	}
	if end := off + per; end > real {
		return true, so.Raw + ": " + why(end)
	}
	return false, ""
}

// maxBlockSize is the largest block size j's options name (4 KiB, fio's
// default, without one); false when fio made no number of one.
func maxBlockSize(j JobDef) (uint64, bool) {
	sizes, ok := blockSizes(j)
	if !ok {
		return 0, false
	}
	return slices.Max(sizes), true
}

// blockSizes are every block size j's options name, and 4 KiB (fio's
// default: a direction the options leave out keeps it); false when fio
// made no number of one. fio's smallest block size is one of them.
func blockSizes(j JobDef) ([]uint64, bool) {
	bs := []uint64{4096}
	for _, name := range []string{"bs", "bsrange", "bssplit"} {
		o, ok := j.Get(name)
		if !ok {
			continue
		}
		if len(o.Nums) == 0 {
			return nil, false
		}
		bs = append(bs, o.Nums...)
	}
	return bs, true
}

// lastPercentOr is the option that counts for name when fio keeps a
// percentage once given: a later value in bytes sets the bytes and leaves
// the percentage, which fio then prefers (options.c str_offset_cb,
// str_offset_increments_cb; filesetup.c get_start_offset).
// The last percentage given, inherited or earlier in the section, else
// the last value.
func (j JobDef) lastPercentOr(name string) (Option, bool) {
	all := j.All(name)
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Percent >= 0 {
			return all[i], true
		}
	}
	return j.Get(name)
}
