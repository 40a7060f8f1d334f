package fiojobs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/engine/fio"
)

// gateStat is the host the gate's tests see: the fixture tree's devices
// (device/testdata/sysfs) and a few files.
type gateStat map[string]fio.FileStat

func (g gateStat) Stat(p string) fio.FileStat { return g[p] }
func (g gateStat) List(d string) ([]string, error) {
	var out []string
	for p, s := range g {
		if s.Kind == fio.Regular && strings.HasPrefix(p, d+"/") {
			out = append(out, p)
		}
	}
	return out, nil
}

func file(size int64) fio.FileStat { return fio.FileStat{Kind: fio.Regular, Size: size, Links: 1} }
func node(k fio.FileKind) fio.FileStat {
	return fio.FileStat{Kind: k, NotRegular: true}
}

var gateHost = gateStat{
	"/dev/nvme0n1": node(fio.Block), "/dev/nvme0n1p1": node(fio.Block), "/dev/sda": node(fio.Block), "/dev/sdb": node(fio.Block),
	"/dev/vda": node(fio.Block), "/dev/loop7": node(fio.Block), "/dev/dm-0": node(fio.Block), "/dev/sg0": node(fio.Char),
	"/dev/null": node(fio.Char), "/home/u/data.bin": file(1 << 30), "/work/jobs/own.dat": file(1 << 20),
	"/srv/scratch/x.dat": file(1 << 20), "/work/jobs": node(fio.Directory), "/work/jobs/small.dat": file(14),
	"/srv/small.dat": file(14), "/work/jobs/x/victims/important.dat": file(1 << 20),
	"/work/jobs/linked.dat": {Kind: fio.Regular, Size: 1 << 20, Links: 2}, "/work/jobs/job.fio": file(100),
	"/work/jobs/inc.fio": file(9), "/srv/oldrun/run.json": file(100), "/srv/oldrun/fio/logs/01/ptsrun_lat.1.log": file(100),
}

// runDirFiles are the names of a run directory (cmd's list).
var runDirFiles = []string{"run.json", "journal.jsonl", "results.json", "report.pdf", "tables", "fio-run.json", "fio"}

// gate checks one job file, /work/jobs/job.fio, on the fixture host, as
// fio reads it.
func gate(t *testing.T, text string, destroy []string, servers ...string) (*Plan, error) {
	t.Helper()
	return gateIn(t, text, "/work/run", destroy, servers...)
}

func gateIn(t *testing.T, text, runDir string, destroy []string, servers ...string) (*Plan, error) {
	t.Helper()
	enginetest.NeedFio(t)
	t.Setenv("DEV", "/dev/nvme0n1")
	files := map[string]string{"/work/jobs/job.fio": text, "/work/jobs/inc.fio": "rw=write\n"}
	jf, err := fio.ReadJobFile("/work/jobs/job.fio", fio.ReadOptions{
		ReadFile: func(n string) ([]byte, error) { return []byte(files[n]), nil },
		Kind: func(n string) fio.FileKind {
			if _, ok := files[n]; ok {
				return fio.Regular
			}
			return fio.Missing
		},
	})
	require.NoError(t, err)
	if err := (fio.FioReading{}).Read(context.Background(), jf); err != nil {
		return nil, refusedIf(err)
	}
	return check(gateOptions{Files: []*fio.UserJobFile{jf}, Cwd: "/work/jobs", RunDir: runDir, RunDirFiles: runDirFiles,
		FioServers: servers, DestroyData: destroy, Gate: true, FS: device.FS{Root: "../device/testdata/sysfs"}, Stat: gateHost})
}

func TestFioGate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		job      string
		destroy  []string
		refused  []string // each must be in the error; none: accepted
		readOnly bool
		rejects  bool // fio rejects the job file (exit 1), rather than the gate (exit 4)
	}{
		{name: "reads need nothing", job: "[r]\nrw=randread\nfilename=/dev/nvme0n1:/dev/vda\n", readOnly: true},
		{name: "a write needs --destroy-data", job: "[w]\nrw=randwrite\nfilename=/dev/nvme0n1\n",
			refused: []string{"/work/jobs/job.fio:3: /dev/nvme0n1 is a block device, written by job w: rw=randwrite (/work/jobs/job.fio:2): " +
				"writing destroys partitions nvme0n1p1: confirm with --destroy-data S64HNE0T123456"}},
		{name: "confirmed by serial", job: "[w]\nrw=randwrite\nfilename=/dev/nvme0n1\n", destroy: []string{"S64HNE0T123456"}},
		{name: "confirmed by path", job: "[w]\nrw=write\nfilename=/dev/nvme0n1\n", destroy: []string{"/dev/nvme0n1"}},
		{name: "another device's confirmation", job: "[w]\nrw=write\nfilename=/dev/nvme0n1\n", destroy: []string{"/dev/loop7"},
			refused: []string{"confirm with --destroy-data S64HNE0T123456"}},
		{name: "trim destroys too", job: "[w]\nrw=randtrim\nfilename=/dev/loop7\n", refused: []string{"rw=randtrim", "--destroy-data /dev/loop7"}},
		{name: "fill_device destroys too", job: "[w]\nfill_device=1\nfilename=/dev/loop7\n", refused: []string{"fill_device=1", "--destroy-data /dev/loop7"}},
		{name: "root filesystem, confirmed or not", job: "[w]\nrw=randrw\nfilename=/dev/vda\n", destroy: []string{"/dev/vda"},
			refused: []string{"refusing to write to it: it holds the root filesystem (/)"}},
		{name: "active swap", job: "[w]\nrw=write\nfilename=/dev/sdb\n", destroy: []string{"/dev/sdb"}, refused: []string{"/dev/sdb is active swap"}},
		{name: "held by dm", job: "[w]\nrw=write\nfilename=/dev/sda\n", destroy: []string{"/dev/sda"}, refused: []string{"in use by md127, dm-0"}},
		{name: "a global's file is written by a job that writes", job: "[global]\nfilename=/dev/nvme0n1\n[r]\n[w]\nrw=write\nfilename=/dev/loop7\n",
			destroy: []string{"/dev/loop7"}, refused: []string{"/dev/nvme0n1 is a block device, written by job w"}},
		{name: "numjobs and two devices", job: "[global]\nrw=randwrite\nnumjobs=2\n[a]\nfilename=/dev/loop7\n[b]\nfilename=/dev/nvme0n1\n",
			destroy: []string{"/dev/loop7", "S64HNE0T123456"}},
		{name: "the environment names the device", job: "[w]\nrw=write\nfilename=${DEV}\n", refused: []string{"--destroy-data S64HNE0T123456"}},
		{name: "an unset variable in a written file name: fio's name", job: "[w]\nrw=write\nfilename=/dev/${NOPE}\n",
			refused: []string{"/work/jobs/job.fio:3: /dev/ is a missing device, written by job w: rw=write (/work/jobs/job.fio:2)"}},
		{name: "a keyword in a written file name", job: "[w]\nrw=write\ndirectory=/srv\nfilename=f.$pagesize\n",
			refused: []string{"/srv/f.4096 is a new file", "confirm with --destroy-data /srv (or a directory above it)"}},
		{name: "an unset variable in a read file name", job: "[r]\nrw=read\nfilename=/dev/${NOPE}null\n", readOnly: true},
		{name: "a command", job: "[r]\nexec_prerun=wipefs -a /dev/sda\n", refused: []string{"/work/jobs/job.fio:2: exec_prerun=wipefs -a /dev/sda: runs a command, which no gate can check"}},
		{name: "a missing device", job: "[w]\nrw=read\nfilename=/dev/sdz\n", refused: []string{"/dev/sdz is a missing device, read by job w: rw=read (/work/jobs/job.fio:2): there is no such device"}},
		{name: "a character device written", job: "[w]\nrw=write\nioengine=sg\nfilename=/dev/sg0\n", refused: []string{"/dev/sg0 is a character device"}},
		{name: "a character device read", job: "[r]\nfilename=/dev/null\n", readOnly: true},
		{name: "an existing file elsewhere", job: "[w]\nrw=write\nfilename=/home/u/data.bin\n", refused: []string{"writing overwrites it: confirm with --destroy-data /home/u/data.bin (or a directory above it)"}},
		{name: "an existing file, its directory confirmed", job: "[w]\nrw=write\nfilename=/home/u/data.bin\n", destroy: []string{"/home/u"}},
		{name: "the job's own file", job: "[w]\nrw=write\nfilename=own.dat\n"},
		{name: "a file below the job file's directory is not its own", job: "[w]\nrw=write\nfilename=x/victims/important.dat\n",
			refused: []string{"x/victims/important.dat is a file, written by job w", "confirm with --destroy-data /work/jobs/x/victims/important.dat"}},
		{name: "a file with two hard links", job: "[w]\nrw=write\nfilename=linked.dat\n", destroy: []string{"/work/jobs"},
			refused: []string{"linked.dat is a file, written by job w: rw=write (/work/jobs/job.fio:2): it has 2 hard links"}},
		{name: "a new file outside", job: "[w]\nrw=read\nfilename=/srv/scratch/new.dat\n",
			refused: []string{"/srv/scratch/new.dat is a new file, read by job w: rw=read (/work/jobs/job.fio:2): fio would make it",
				"confirm with --destroy-data /srv/scratch (or a directory above it)"}},
		{name: "a new file, confirmed", job: "[w]\nrw=write\nfilename=/srv/scratch/new.dat\n", destroy: []string{"/srv/scratch"}},
		{name: "a new file confirmed by its name alone: fio needs its directory", job: "[w]\nrw=write\nfilename=/srv/scratch/new.dat\n",
			destroy: []string{"/srv/scratch/new.dat"}, refused: []string{"confirm the directory it goes in (--destroy-data /srv/scratch: everything in it may be written)"}},
		{name: "a new file beside the job file", job: "[w]\nrw=write\nfilename=new.dat\n"},
		{name: "a new file below the job file's directory", job: "[w]\nrw=write\nfilename=/work/jobs/cron.d/x\n",
			refused: []string{"confirm with --destroy-data /work/jobs/cron.d (or a directory above it)"}},
		{name: "a new file in the run directory", job: "[w]\nrw=write\nfilename=/work/run/scratch.dat\n"},
		{name: "ptsrun's own file of the run directory", job: "[w]\nrw=write\nfilename=/work/run/run.json\n",
			refused: []string{"it is ptsrun's own file of the run directory /work/run: a job may not write it"}},
		{name: "a file of another run directory", job: "[w]\nrw=write\nfilename=/srv/oldrun/fio/logs/01/ptsrun_lat.1.log\n", destroy: []string{"/srv"},
			refused: []string{"it is a file of the run directory /srv/oldrun: a job may not write it"}},
		{name: "its own job file", job: "[w]\nrw=write\nfilename=job.fio\nbuffer_pattern=0x5b775d\n",
			refused: []string{"it is a job file or include file of this run: a job may not write what the gate reads"}},
		{name: "its include file", job: "[w]\ninclude inc.fio\nfilename=/work/jobs/inc.fio\n", destroy: []string{"/work"},
			refused: []string{"it is a job file or include file of this run"}},
		{name: "a read job's file smaller than its size is laid out", job: "[r]\nrw=read\nsize=1m\nfilename=/srv/small.dat\n",
			refused: []string{"/srv/small.dat is a file, written by job r: fio lays it out again: size=1m: its I/O ends at byte 1048576, beyond the file's 14 bytes",
				"confirm with --destroy-data /srv/small.dat"}},
		{name: "a read job's file large enough is read", job: "[r]\nrw=read\nsize=1m\nfilename=/srv/scratch/x.dat\n", readOnly: true},
		{name: "a read job's offset beyond", job: "[r]\nrw=read\nsize=512k\noffset=768k\nfilename=/srv/scratch/x.dat\n",
			refused: []string{"its I/O ends at byte 1310720 (offset=768k)"}},
		{name: "a read job's clones' offsets", job: "[r]\nrw=read\nsize=256k\noffset_increment=256k\nnumjobs=5\nfilename=/srv/scratch/x.dat\n",
			refused: []string{"its I/O ends at byte 1310720"}},
		{name: "a read job's percentages stay in the file", job: "[r]\nrw=read\nsize=50%\noffset=50%\nfilename=/srv/scratch/x.dat\n", readOnly: true},
		{name: "a read job under fill_device", job: "[r]\nrw=read\nfill_device=1\nfilename=/srv/scratch/x.dat\n",
			refused: []string{"confirm with --destroy-data /srv/scratch/x.dat"}},
		{name: "a small file beside the job file is its own", job: "[r]\nrw=read\nsize=1m\nfilename=small.dat\n"},
		{name: "a job named after a device", job: "[/dev/nvme0n1]\nrw=write\n", refused: []string{"--destroy-data S64HNE0T123456"}},
		{name: "a write through an include", job: "[w]\nfilename=/dev/loop7\ninclude inc.fio\n", refused: []string{"written by job w: rw=write (/work/jobs/inc.fio:1)"}},
		{name: "a network engine", job: "[w]\nioengine=rbd\nrw=write\n", refused: []string{"/work/jobs/job.fio:2: ioengine=rbd: ptsrun's gate knows only the engines"}},
		{name: "a network engine reading", job: "[r]\nioengine=http\nrw=read\n", refused: []string{"ioengine=http"}},
		{name: "an engine ptsrun does not know", job: "[r]\nioengine=fancy\nrw=read\n", refused: []string{"ioengine=fancy"}},
		{name: "the null engine", job: "[w]\nioengine=null\nrw=write\nfilename=/dev/vda\n"},
		{name: "bc fails on a keyword in a path: fio rejects it", job: "[w]\nrw=write\nfilename=/srv/f.$pagesize\n",
			refused: []string{"fio: failed parsing filename=/srv/f.$pagesize"}, rejects: true},
		{name: "a trace", job: "[t]\nread_iolog=trace.log\nfilename=/dev/loop7\n", refused: []string{"read_iolog=trace.log: replays I/O from a trace"}},
		{name: "a mapped file as I/O memory", job: "[r]\nrw=read\nfilename=/dev/nvme0n1\nmem=mmapshared:/dev/loop7\n",
			refused: []string{"/work/jobs/job.fio:4: mem=mmapshared:/dev/loop7: the gate takes mem (iomem) only without a file"}},
		{name: "I/O memory without a file", job: "[r]\nrw=read\nfilename=/dev/nvme0n1\niomem=mmapshared\n", readOnly: true},
		{name: "a scheduler", job: "[r]\nrw=read\nfilename=/dev/nvme0n1\nioscheduler=none\n", refused: []string{"ioscheduler=none: changes the I/O scheduler"}},
		{name: "a log in the run directory", job: "[r]\nrw=read\nfilename=/dev/nvme0n1\nwrite_lat_log=/work/run/mine\n", readOnly: true},
		{name: "a log elsewhere", job: "[r]\nrw=read\nfilename=/dev/nvme0n1\nwrite_lat_log=/srv/oldrun/fio/logs/01/ptsrun\n",
			refused: []string{"/srv/oldrun/fio/logs/01/ptsrun_lat.1.log is a log the job writes (file): a job's logs go only into the run directory /work/run"}},
		{name: "a log named after the job, in fio's working directory", job: "[r]\nrw=read\nfilename=/dev/nvme0n1\nwrite_bw_log\n",
			refused: []string{"/work/jobs/r_bw.1.log is a log the job writes"}},
		{name: "a log among ptsrun's", job: "[r]\nrw=read\nfilename=/dev/nvme0n1\nwrite_iops_log=/work/run/fio/logs/01/ptsrun\n",
			refused: []string{"it is ptsrun's own file of the run directory /work/run: name another path in DIR"}},
		{name: "an I/O log elsewhere", job: "[r]\nrw=read\nfilename=/dev/nvme0n1\nwrite_iolog=/etc/cron.d/x\n",
			refused: []string{"/etc/cron.d/x is a log the job writes"}},
		{name: "every refusal at once", job: "[a]\nrw=write\nfilename=/dev/loop7\n[b]\nrw=write\nfilename=/dev/vda\n",
			refused: []string{"--destroy-data /dev/loop7", "root filesystem"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := gate(t, tc.job, tc.destroy)
			if len(tc.refused) == 0 {
				require.NoError(t, err)
				assert.Equal(t, tc.readOnly, p.ReadOnly)
				return
			}
			require.Error(t, err)
			if tc.rejects {
				assert.ErrorIs(t, err, fio.ErrFioRejects)
			} else {
				assert.ErrorIs(t, err, device.ErrUnsafe)
			}
			for _, r := range tc.refused {
				assert.Contains(t, err.Error(), r)
			}
		})
	}
}

// Without a run directory (a plan without --out) a job's own log has
// nowhere to go.
func TestFioGateLogWithoutRunDir(t *testing.T) {
	_, err := gateIn(t, "[r]\nrw=read\nfilename=/dev/nvme0n1\nwrite_lat_log=/work/run/mine\n", "", nil)
	assert.ErrorContains(t, err, "a job's logs go only into the run directory, and there is none (--out)")
}

func TestFioGatePlan(t *testing.T) {
	p, err := gate(t, "[global]\nrw=randwrite\nnumjobs=2\n[a]\nfilename=/dev/loop7\n[b]\nrw=read\nfilename=/dev/nvme0n1:/srv/scratch/new.dat\n",
		[]string{"/dev/loop7", "/srv/scratch"})
	require.NoError(t, err)
	require.Len(t, p.Targets, 3)
	assert.Equal(t, "/dev/loop7", p.Targets[0].Path)
	assert.True(t, p.Targets[0].Written)
	assert.Equal(t, "confirmed by --destroy-data", p.Targets[0].Verdict)
	assert.Equal(t, []string{"a"}, p.Targets[0].Jobs)
	assert.False(t, p.Targets[1].Written)
	assert.Equal(t, "read only: nothing to confirm", p.Targets[1].Verdict)
	assert.Equal(t, "new file", p.Targets[2].Kind)
	assert.True(t, p.Targets[2].Outside)
	assert.True(t, p.Targets[2].Written, "fio makes it")
	assert.Equal(t, "made by fio; confirmed by --destroy-data", p.Targets[2].Verdict)
	assert.False(t, p.ReadOnly, "fio lays out a new file: it writes it")
	require.Len(t, p.Threads, 4)
	assert.Equal(t, []int{1, 2, 3, 4}, []int{p.Threads[0].Number, p.Threads[1].Number, p.Threads[2].Number, p.Threads[3].Number})
	assert.Equal(t, []int{0}, p.Threads[1].Targets)
	assert.Equal(t, []int{1, 2}, p.Threads[3].Targets)
	require.Len(t, p.Identities, 3)
	assert.Equal(t, "/dev/loop7", p.Identities[0].Spec)
	assert.Equal(t, "S64HNE0T123456", p.Identities[1].Serial)

	// A plan reports what the gate would refuse, and refuses nothing.
	jf := readJob(t, "/work/jobs/job.fio", "[w]\nrw=write\nfilename=/dev/vda\n")
	p, err = check(gateOptions{Files: []*fio.UserJobFile{jf}, Cwd: "/work/jobs", FS: device.FS{Root: "../device/testdata/sysfs"}, Stat: gateHost})
	require.NoError(t, err)
	require.Len(t, p.Refusals, 1)
	assert.Contains(t, p.Refusals[0], "root filesystem")
}

// readJob reads one job file held in memory, with fio.
func readJob(t *testing.T, path, text string) *fio.UserJobFile {
	t.Helper()
	enginetest.NeedFio(t)
	jf, err := fio.ReadJobFile(path, fio.ReadOptions{ReadFile: func(string) ([]byte, error) { return []byte(text), nil },
		Kind: func(string) fio.FileKind { return fio.Regular }})
	require.NoError(t, err)
	require.NoError(t, fio.FioReading{}.Read(context.Background(), jf))
	return jf
}

// Through fio servers nothing of the servers' hosts is seen: every path
// written needs HOST:PORT=PATH, and what a server reads on its own host
// (${VAR}, keywords) is refused. Include files are inlined in the copy:
// the servers never read them.
func TestFioGateRemote(t *testing.T) {
	job := "[w]\nrw=write\nfilename=/dev/sdb\n"
	_, err := gate(t, job, nil, "h1:8765", "h2:8765")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "confirm that its data may be destroyed with --destroy-data h1:8765=/dev/sdb")
	assert.Contains(t, err.Error(), "--destroy-data h2:8765=/dev/sdb")
	p, err := gate(t, job, []string{"h1:8765=/dev/sdb", "h2:8765=/dev/sdb"}, "h1:8765", "h2:8765")
	require.NoError(t, err)
	assert.Len(t, p.Identities, 2)
	_, err = gate(t, "[r]\nrw=read\nfilename=/dev/sdb\n", nil, "h1:8765")
	assert.NoError(t, err, "reading needs nothing")
	_, err = gate(t, "[r]\nfilename=/dev/sdb\ninclude inc.fio\n", []string{"h1:8765=/dev/sdb"}, "h1:8765")
	assert.NoError(t, err, "the include file is in the copy the server gets")
	_, err = gate(t, "[r]\nrw=read\nfilename=${DEV}\n", nil, "h1:8765")
	assert.ErrorContains(t, err, "through fio servers, ${VAR} and $ncpus, $pagesize and $mb_memory take the server's values")
	_, err = gate(t, "[r]\nrw=read\nnumjobs=$ncpus\nfilename=/dev/sdb\n", nil, "h1:8765")
	assert.ErrorContains(t, err, "numjobs=$ncpus: through fio servers")
	_, err = gate(t, "[/dev/nvme9n1]\nrw=write\n", nil, "h1:8765")
	assert.ErrorContains(t, err, "--destroy-data h1:8765=/dev/nvme9n1", "a job named like a path may name a device there")
	_, err = gate(t, "[r]\nrw=read\ndirectory=/data\n", nil, "h1:8765")
	assert.ErrorContains(t, err, "directory=/data: through fio servers fio puts the client's address in the name of every file")
	_, err = gate(t, "[r]\nrw=read\ndirectory=/data\nunique_filename=0\n", nil, "h1:8765")
	assert.NoError(t, err)
	_, err = gate(t, "[r]\nrw=read\nfilename=/dev/sdb\nwrite_iolog=/work/run/io.log\n", nil, "h1:8765")
	assert.ErrorContains(t, err, "a fio server writes the I/O log on its own host")
	_, err = gate(t, "[r]\nrw=read\nfilename=/dev/sdb\nverify=md5\nverify_dump=1\n", nil, "h1:8765")
	assert.ErrorContains(t, err, "a fio server writes the dumps into its own working directory")
	_, err = gate(t, "[r]\nrw=read\nfilename=/dev/sdb\nmem=mmapshared:/dev/sdc\n", nil, "h1:8765")
	assert.ErrorContains(t, err, "mem=mmapshared:/dev/sdc: the gate takes mem (iomem) only without a file")
	// The client writes a server's logs here, named after it.
	p, err = gate(t, "[r]\nrw=read\nfilename=/dev/sdb\nwrite_bw_log=/work/run/mine\n", nil, "h1:8765")
	require.NoError(t, err)
	assert.Equal(t, "/work/run/mine_bw.1.log.h1", p.Targets[0].Path)
	_, err = gate(t, "[r]\nrw=read\nfilename=/dev/sdb\nwrite_bw_log=/srv/mine\n", nil, "h1:8765")
	assert.ErrorContains(t, err, "/srv/mine_bw.1.log.h1 is a log the job writes")
}

// Each job file runs in a fio of its own: its threads are numbered from 1.
func TestFioGateThreadsPerJobFile(t *testing.T) {
	a := readJob(t, "/work/jobs/a.fio", "[a]\nnumjobs=2\nfilename=/dev/loop7\n")
	b := readJob(t, "/work/jobs/b.fio", "[b]\nfilename=/dev/loop7\n")
	jfs := []*fio.UserJobFile{a, b}
	fio.NumberGroups(jfs)
	p, err := check(gateOptions{Files: jfs, Cwd: "/work/jobs", Gate: true, FS: device.FS{Root: "../device/testdata/sysfs"}, Stat: gateHost})
	require.NoError(t, err)
	require.Len(t, p.Threads, 3)
	assert.Equal(t, []int{1, 2, 1}, []int{p.Threads[0].Number, p.Threads[1].Number, p.Threads[2].Number})
	assert.Equal(t, []int{0, 0, 1}, []int{p.Threads[0].File, p.Threads[1].File, p.Threads[2].File})
	assert.True(t, p.ReadOnly)
	require.Len(t, p.Targets, 1, "one device, named by both")
	assert.Equal(t, []string{"a", "b"}, p.Targets[0].Jobs)
}

// On the live host a new file's path is where it will be made: links in
// the directories above it followed, those missing taken as written.
func TestFioGateRealPath(t *testing.T) {
	dir := t.TempDir()
	elsewhere := t.TempDir()
	require.NoError(t, os.Symlink(elsewhere, dir+"/link"))
	require.NoError(t, os.Symlink("nowhere/x", dir+"/dangling"))
	o := gateOptions{FS: device.Live}
	assert.Equal(t, elsewhere+"/a/b/c", o.real(dir+"/link/a/b/c"))
	assert.Equal(t, elsewhere, o.real(dir+"/link"))
	assert.Equal(t, dir+"/x", o.real(dir+"/link/../"+filepath.Base(dir)+"/x"), "a .. after a link is the target's")
	assert.Equal(t, filepath.Dir(elsewhere)+"/y", o.real(dir+"/link/../y"))
	assert.Equal(t, dir+"/nowhere/x", o.real(dir+"/dangling"), "a dangling link: where fio would create its target")
	assert.Equal(t, dir+"/new/z", o.real(dir+"/new/sub/../z"), "directories fio makes as written")
	assert.Equal(t, "", o.real(""))
	// A ".." after a directory fio makes is the kernel's to resolve then,
	// not the text's: the gate cannot tell where it leads.
	for _, p := range []string{dir + "/new/sub/../z", dir + "/new/../link/../x", dir + "/link/new/../y"} {
		_, why := o.resolved(p)
		assert.Contains(t, why, "does not exist yet", p)
	}
	for _, p := range []string{dir + "/link/../y", dir + "/new/a/b"} {
		_, why := o.resolved(p)
		assert.Empty(t, why, p)
	}
}
