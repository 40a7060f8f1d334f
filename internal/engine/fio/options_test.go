package fio

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
)

var update = flag.Bool("update", false, "rewrite docs/fio.md's gate table from the gate's")

// fioNames are the option names a fio help listing prints ("name : help",
// children indented).
func fioNames(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("fio", args...).CombinedOutput()
	if !strings.Contains(string(out), " has no options") {
		require.NoError(t, err, string(out))
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		name, _, ok := strings.Cut(l, ":")
		if ok && strings.TrimSpace(name) != "" && !strings.Contains(name, " has no options") {
			names = append(names, strings.TrimSpace(name))
		}
	}
	return names
}

// cmdhelp is fio's help of one option: its name and its alias, "" when fio
// does not know it.
func cmdhelp(name string) (canonical, alias string) {
	out, err := exec.Command("fio", "--cmdhelp="+name).CombinedOutput()
	if err != nil {
		return "", ""
	}
	for i, l := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(l, ":")
		switch k = strings.TrimSpace(k); {
		case i == 0:
			canonical = k
		case k == "alias":
			alias = strings.TrimSpace(v)
		}
	}
	return canonical, alias
}

// Every option fio 3.33 lists (fio --cmdhelp=all) and every option of the
// engines the gate knows (fio --enghelp=ENGINE) is in a row of the gate's
// table, with its model; every name of the table is fio's, and fio's
// aliases are the table's. A fio that adds an option fails this test, and
// the gate refuses the option (TestUnclassifiedOptionIsRefused).
func TestEveryFioOptionIsClassified(t *testing.T) {
	t.Parallel() // fio processes on targets of its own: beside the others
	enginetest.NeedFio(t)
	listed := fioNames(t, "--cmdhelp=all")
	require.Greater(t, len(listed), 200, "fio --cmdhelp=all")
	var unclassified []string
	for _, n := range listed {
		if ModelOf(n) == OptUnclassified {
			unclassified = append(unclassified, n)
		}
	}
	engineOpts := map[string]bool{}
	for e := range engines {
		for _, n := range fioNames(t, "--enghelp="+e) {
			engineOpts[n] = true
			if ModelOf(n) == OptUnclassified {
				unclassified = append(unclassified, n+" (ioengine="+e+")")
			}
		}
	}
	assert.Empty(t, unclassified, "fio's options the gate's table does not classify: each needs a row (engine/fio/options.go)")

	// Every name of the table is an option of fio's (an engine's, or one
	// --cmdhelp=all leaves out of its tree), and its aliases are fio's.
	var names []string
	for _, r := range modelRows {
		names = append(names, r.names...)
	}
	type help struct{ canonical, alias string }
	helps := make([]help, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if !engineOpts[n] {
				helps[i].canonical, helps[i].alias = cmdhelp(n)
			}
		}()
	}
	wg.Wait()
	fioAliases := map[string]string{}
	for i, n := range names {
		if engineOpts[n] {
			continue
		}
		assert.Equal(t, n, helps[i].canonical, "the table's %s is not an option of fio's", n)
		if helps[i].alias != "" {
			fioAliases[helps[i].alias] = n
		}
	}
	assert.Equal(t, fioAliases, aliases, "fio's aliases")
	for n := range engines {
		assert.Contains(t, fioNames(t, "--enghelp"), "Available IO engines", n)
	}
}

// An option fio knows and the gate's table does not (a later fio's) is
// refused by name: here the table loses bs, as an older table would not
// have it.
func TestUnclassifiedOptionIsRefused(t *testing.T) {
	jf := parseOne(t, "[j]\nrw=read\nbs=8k\n", nil, nil)
	assert.Empty(t, jf.Refusals(false))
	saved := models["bs"]
	delete(models, "bs")
	t.Cleanup(func() { models["bs"] = saved })
	r := jf.Refusals(false)
	require.Len(t, r, 1)
	assert.Equal(t, "job.fio:3: bs=8k: fio's option bs is not one whose effect ptsrun's gate knows, so it refuses it: "+
		"remove it, or run the job file with fio itself", r[0].Error())
	assert.ErrorIs(t, r[0], ErrCannotJudge)
}

// The options the gate refuses, or takes only with some values, and what
// it takes.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		opt    string
		remote bool
		msg    string // "" for taken
	}{
		{opt: "mem=mmapshared:/dev/loop1", msg: "mem=mmapshared:/dev/loop1: the gate takes mem (iomem) only without a file"},
		{opt: "iomem=mmap:/data/file", msg: "iomem=mmap:/data/file: the gate takes mem (iomem) only without a file"},
		{opt: "mem=mmaphuge:/hugepages/x", msg: "with mem=TYPE:FILE fio creates, truncates or overwrites FILE"},
		{opt: "mem=mmapshared"},
		{opt: "iomem=malloc"},
		{opt: "mem=shm"},
		{opt: "ioscheduler=none", msg: "ioscheduler=none: changes the I/O scheduler of the disk under the job's files, which nothing confirms"},
		{opt: "exec_postrun=rm -rf /", msg: "exec_postrun=rm -rf /: runs a command, which no gate can check"},
		{opt: "cgroup=x", msg: "cgroup=x: makes and changes a cgroup of the host"},
		{opt: "cgroup_weight=500", msg: "changes a cgroup of the host"},
		{opt: "read_iolog=trace", msg: "read_iolog=trace: replays I/O from a trace"},
		{opt: "replay_redirect=/dev/sda", msg: "replays a trace's I/O onto a device"},
		{opt: "merge_blktrace_file=m", msg: "replays I/O from merged traces"},
		{opt: "buffer_pattern=0x5b"},
		{opt: "verify_pattern=\"x\""},
		{opt: "verify_dump=1"},
		{opt: "verify_dump=1", remote: true, msg: "a fio server writes the dumps into its own working directory"},
		{opt: "write_iolog=/x", remote: true, msg: "a fio server writes the I/O log on its own host"},
		{opt: "write_bw_log=", msg: "write_bw_log=: an empty value: name the log's prefix"},
		{opt: "write_hist_log=", msg: "an empty value"},
		{opt: "write_lat_log"},
		{opt: "write_iops_log=x"},
		{opt: "size=${SZ}", remote: true, msg: "size=${SZ}: through fio servers, ${VAR}"},
		{opt: "size=${SZ}"},
		{opt: "iodepth=$ncpus", remote: true, msg: "iodepth=$ncpus: through fio servers"},
		{opt: "hipri\nioengine=io_uring"},
	} {
		jf := parseOne(t, "[j]\n"+tc.opt+"\n", nil, map[string]string{"SZ": "1m"})
		r := jf.Refusals(tc.remote)
		if tc.msg == "" {
			assert.Empty(t, r, tc.opt)
			continue
		}
		require.NotEmpty(t, r, tc.opt)
		assert.Contains(t, r[0].Error(), tc.msg, tc.opt)
		assert.Contains(t, r[0].Error(), "job.fio:2: ", tc.opt)
	}
}

// Where a read job's I/O ends in a file of its, as fio computes it, and
// when fio lays the file out again for that.
func TestLaysOut(t *testing.T) {
	t.Parallel() // fio processes on targets of its own: beside the others
	for _, tc := range []struct {
		opts   string
		jobnum int
		files  int
		size   int64
		lays   bool
		why    string
	}{
		{opts: "", size: 14},
		{opts: "size=1m", size: 1 << 20},
		{opts: "size=1m", size: 14, lays: true, why: "size=1m: its I/O ends at byte 1048576, beyond the file's 14 bytes"},
		{opts: "size=2m", files: 2, size: 1 << 20},
		{opts: "size=3m\nbs=64k", files: 2, size: 3 << 19},
		{opts: "size=1m\nbs=64k", files: 3, size: 1<<20/3 + 1, lays: true, why: "its I/O ends at byte 415061"}, // a block more, at most
		{opts: "size=1m\noffset=1m", size: 2 << 20},
		{opts: "size=1m\noffset=1m", size: 2<<20 - 1, lays: true, why: "its I/O ends at byte 2097152 (offset=1m)"},
		{opts: "size=1m\noffset_increment=1m", jobnum: 3, size: 4 << 20},
		{opts: "size=1m\noffset_increment=1m", jobnum: 3, size: 4<<20 - 1, lays: true},
		{opts: "size=1m\noffset=50%", size: 2 << 20},
		{opts: "size=1m\noffset=50%", size: 2<<20 - 8192, lays: true},
		{opts: "size=100%\noffset=50%", size: 14},
		{opts: "filesize=1m", size: 1 << 20},
		{opts: "filesize=1m", size: 1<<20 - 1, lays: true, why: "filesize=1m: the file's 1048575 bytes are fewer"},
		{opts: "filesize=1m-2m", size: 3 << 20},
		{opts: "fill_device=1", size: 1 << 30, lays: true, why: "fill_device=1 lays out every file"},
		{opts: "file_append=1", size: 1 << 30, lays: true},
		{opts: "size=1m\nbssplit=4k/50:64k/50\noffset_align=8k\noffset=1", size: 2 << 20},
		{opts: "size=1m\nbssplit=4k/50:64k/50\noffset=1%", size: 2 << 20, lays: true, why: "ptsrun cannot tell where its I/O ends"},
		// nrfiles= after the files a [global] filename= counted: fio
		// divides by the smaller number.
		{opts: "size=2m\nnrfiles=1", files: 2, size: 1 << 20, lays: true, why: "size=2m: its I/O ends at byte 2097152"},
		{opts: "size=2m\nnrfiles=4", files: 2, size: 1 << 20},
		{opts: "size=2m\nnrfiles=2", files: 2, size: 1 << 20},
		// A percentage offset outlives a later offset in bytes (fio
		// prefers it), and aligns to the furthest of the block sizes.
		{opts: "size=1m\noffset=50%\noffset=0", size: 1 << 20, lays: true, why: "its I/O ends at byte 1572864"},
		{opts: "size=1m\nnumjobs=2\noffset_increment=50%\noffset_increment=0", jobnum: 1, size: 1 << 20, lays: true},
		{opts: "bs=3000\nsize=111500\noffset=5%", size: 120020, lays: true, why: "its I/O ends at byte 120500"},
		{opts: "bs=3000\nsize=111000\noffset=5%", size: 120020},
		// Through a fio server the file is taken as missing.
		{opts: "size=4k", size: 0, lays: true},
		{opts: "", size: 0},
	} {
		// Each case is read by a fio of its own (--parse-only): beside
		// each other.
		t.Run(fmt.Sprintf("%s_on_%d", strings.ReplaceAll(tc.opts, "\n", ","), tc.size), func(t *testing.T) {
			t.Parallel()
			jf := parseOne(t, "[j]\n"+tc.opts+"\n", nil, nil)
			lays, why := jf.Jobs[0].LaysOut(tc.jobnum, max(tc.files, 1), tc.size)
			assert.Equal(t, tc.lays, lays, "%s on %d bytes: %s", tc.opts, tc.size, why)
			assert.Contains(t, why, tc.why, tc.opts)
		})
	}
}

const (
	tableBegin = "<!-- the gate's table: engine/fio GateTable; go test ./internal/engine/fio -run TestGateTableInDocs -update rewrites it -->\n"
	tableEnd   = "<!-- end of the gate's table -->\n"
)

// docs/fio.md's table of what a job file may hold is the gate's own.
func TestGateTableInDocs(t *testing.T) {
	const doc = "../../../docs/fio.md"
	b, err := os.ReadFile(doc)
	require.NoError(t, err)
	text := string(b)
	i, j := strings.Index(text, tableBegin), strings.Index(text, tableEnd)
	require.True(t, i >= 0 && j > i, "docs/fio.md holds the gate's table between %q and %q", tableBegin, tableEnd)
	got := text[:i+len(tableBegin)] + GateTable() + text[j:]
	if *update {
		require.NoError(t, os.WriteFile(doc, []byte(got), 0o644))
		return
	}
	assert.Equal(t, text[i+len(tableBegin):j], GateTable(), "docs/fio.md's gate table is not the gate's: go test ./internal/engine/fio -run TestGateTableInDocs -update")
	assert.True(t, slices.ContainsFunc(modelRows, func(r modelRow) bool { return r.model == OptRefused }))
}

// unlink deletes a job's files whatever its engine: Deletes tells it,
// beside Writes.
func TestAccessDeletes(t *testing.T) {
	for _, tc := range []struct {
		opts            string
		writes, deletes bool
		noIO            bool
	}{
		{opts: "rw=read"},
		{opts: "rw=read\nunlink=1", writes: true, deletes: true},
		{opts: "ioengine=null\nunlink_each_loop=1", writes: true, deletes: true, noIO: true},
		{opts: "ioengine=null\nrw=randwrite", writes: true, noIO: true},
		{opts: "ioengine=cpuio\ncpuload=10\nunlink=0", noIO: true},
	} {
		jf := parseOne(t, "[j]\n"+tc.opts+"\n", nil, nil)
		a := jf.Jobs[0].Access()
		assert.Equal(t, tc.writes, a.Writes, tc.opts)
		assert.Equal(t, tc.deletes, a.Deletes, tc.opts)
		assert.Equal(t, tc.noIO, a.NoIO, tc.opts)
	}
}
