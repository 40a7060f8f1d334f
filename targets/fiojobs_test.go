package targets

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/engine/fio"
)

// gateStat is the host the gate's tests see: the fixture tree's devices
// (device/testdata/sysfs) and a few files.
type gateStat map[string]fio.FileKind

func (g gateStat) Kind(p string) fio.FileKind { return g[p] }
func (g gateStat) List(d string) ([]string, error) {
	var out []string
	for p, k := range g {
		if k == fio.Regular && strings.HasPrefix(p, d+"/") {
			out = append(out, p)
		}
	}
	return out, nil
}

var gateHost = gateStat{
	"/dev/nvme0n1": fio.Block, "/dev/nvme0n1p1": fio.Block, "/dev/sda": fio.Block, "/dev/sdb": fio.Block, "/dev/vda": fio.Block,
	"/dev/loop7": fio.Block, "/dev/dm-0": fio.Block, "/dev/sg0": fio.Char, "/dev/null": fio.Char,
	"/home/u/data.bin": fio.Regular, "/work/jobs/own.dat": fio.Regular, "/srv/scratch/x.dat": fio.Regular,
	"/work/jobs": fio.Directory,
}

// gate checks one job file, /work/jobs/job.fio, on the fixture host.
func gate(t *testing.T, text string, destroy []string, servers ...string) (*FioJobsPlan, error) {
	t.Helper()
	files := map[string]string{"/work/jobs/job.fio": text, "/work/jobs/inc.fio": "rw=write\n"}
	opt := fio.ParseOptions{
		ReadFile: func(n string) ([]byte, error) { return []byte(files[n]), nil },
		Exists:   func(n string) bool { _, ok := files[n]; return ok },
		Getenv:   func(n string) (string, bool) { return map[string]string{"DEV": "/dev/nvme0n1"}[n], n == "DEV" },
		Host:     fio.Host{PageSize: 4096, MemMB: 1024, NCPUs: 2},
	}
	jfs, err := fio.ParseJobFiles([]string{"/work/jobs/job.fio"}, opt)
	require.NoError(t, err)
	return CheckFioJobs(FioJobsOptions{Files: jfs, Cwd: "/work/jobs", RunDir: "/work/run", FioServers: servers,
		DestroyData: destroy, Gate: true, FS: device.FS{Root: "../device/testdata/sysfs"}, Stat: gateHost})
}

func TestFioGate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		job      string
		destroy  []string
		refused  []string // each must be in the error; none: accepted
		readOnly bool
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
		{name: "root filesystem, confirmed or not", job: "[w]\nrw=randrw\nfilename=/dev/vda\n", destroy: []string{"/dev/vda"},
			refused: []string{"refusing to write to it: it holds the root filesystem (/)"}},
		{name: "active swap", job: "[w]\nrw=write\nfilename=/dev/sdb\n", destroy: []string{"/dev/sdb"}, refused: []string{"/dev/sdb is active swap"}},
		{name: "held by dm", job: "[w]\nrw=write\nfilename=/dev/sda\n", destroy: []string{"/dev/sda"}, refused: []string{"in use by md127, dm-0"}},
		{name: "a global's file is written by a job that writes", job: "[global]\nfilename=/dev/nvme0n1\n[r]\n[w]\nrw=write\nfilename=/dev/loop7\n",
			destroy: []string{"/dev/loop7"}, refused: []string{"/dev/nvme0n1 is a block device, written by job w"}},
		{name: "numjobs and two devices", job: "[global]\nrw=randwrite\nnumjobs=2\n[a]\nfilename=/dev/loop7\n[b]\nfilename=/dev/nvme0n1\n",
			destroy: []string{"/dev/loop7", "S64HNE0T123456"}},
		{name: "the environment names the device", job: "[w]\nrw=write\nfilename=${DEV}\n", refused: []string{"--destroy-data S64HNE0T123456"}},
		{name: "an unset variable in a written file name", job: "[w]\nrw=write\nfilename=/dev/${NOPE}\n",
			refused: []string{"/work/jobs/job.fio:3: filename=/dev/${NOPE}: ${NOPE} is not set: fio would put nothing in its place (job w writes: rw=write (/work/jobs/job.fio:2))"}},
		{name: "an unset variable in rw", job: "[w]\nrw=${RW}\nfilename=/dev/loop7\n", refused: []string{"written by job w: cannot tell: rw=${RW} (/work/jobs/job.fio:2)"}},
		{name: "an unset variable in a read file name", job: "[r]\nrw=read\nfilename=/dev/${NOPE}null\n", readOnly: true},
		{name: "a keyword in a written file name", job: "[w]\nrw=write\nfilename=/srv/f.$ncpus\n", refused: []string{"fio replaces $ncpus"}},
		{name: "a command", job: "[r]\nexec_prerun=wipefs -a /dev/sda\n", refused: []string{"/work/jobs/job.fio:2: exec_prerun=wipefs -a /dev/sda: runs a command, which no gate can check"}},
		{name: "a missing device", job: "[w]\nrw=read\nfilename=/dev/sdz\n", refused: []string{"/dev/sdz is a missing device, read by job w: rw=read (/work/jobs/job.fio:2): there is no such device"}},
		{name: "a character device written", job: "[w]\nrw=write\nioengine=sg\nfilename=/dev/sg0\n", refused: []string{"/dev/sg0 is a character device"}},
		{name: "a character device read", job: "[r]\nfilename=/dev/null\n", readOnly: true},
		{name: "an existing file elsewhere", job: "[w]\nrw=write\nfilename=/home/u/data.bin\n", refused: []string{"writing overwrites it: confirm with --destroy-data /home/u/data.bin (or a directory above it)"}},
		{name: "an existing file, its directory confirmed", job: "[w]\nrw=write\nfilename=/home/u/data.bin\n", destroy: []string{"/home/u"}},
		{name: "the job's own file", job: "[w]\nrw=write\nfilename=own.dat\n"},
		{name: "a new file", job: "[w]\nrw=read\nfilename=/srv/scratch/new.dat\n"},
		{name: "a job named after a device", job: "[/dev/nvme0n1]\nrw=write\n", refused: []string{"--destroy-data S64HNE0T123456"}},
		{name: "a write through an include", job: "[w]\nfilename=/dev/loop7\ninclude inc.fio\n", refused: []string{"written by job w: rw=write (/work/jobs/inc.fio:1)"}},
		{name: "a network engine writing", job: "[w]\nioengine=rbd\nrw=write\n", refused: []string{"/work/jobs/job.fio:1: job w: rw=write (/work/jobs/job.fio:3): ptsrun cannot check what it writes to"}},
		{name: "a network engine reading", job: "[r]\nioengine=http\nrw=read\n", readOnly: true},
		{name: "an engine ptsrun does not know", job: "[r]\nioengine=fancy\nrw=read\n", refused: []string{"cannot tell: ioengine=fancy does I/O ptsrun cannot follow"}},
		{name: "the null engine", job: "[w]\nioengine=null\nrw=write\nfilename=/dev/vda\n"},
		{name: "a trace", job: "[t]\nread_iolog=trace.log\nfilename=/dev/loop7\n", refused: []string{"read_iolog=trace.log: replays I/O from a trace"}},
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
			assert.ErrorIs(t, err, device.ErrUnsafe)
			for _, r := range tc.refused {
				assert.Contains(t, err.Error(), r)
			}
		})
	}
}

func TestFioGatePlan(t *testing.T) {
	p, err := gate(t, "[global]\nrw=randwrite\nnumjobs=2\n[a]\nfilename=/dev/loop7\n[b]\nrw=read\nfilename=/dev/nvme0n1:/srv/scratch/new.dat\n", []string{"/dev/loop7"})
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
	assert.Contains(t, p.Notes, "new file /srv/scratch/new.dat is outside the job file's directory and the run directory")
	assert.False(t, p.ReadOnly, "fio lays out a new file: it writes it")
	require.Len(t, p.Threads, 4)
	assert.Equal(t, []int{1, 2, 3, 4}, []int{p.Threads[0].Number, p.Threads[1].Number, p.Threads[2].Number, p.Threads[3].Number})
	assert.Equal(t, []int{0}, p.Threads[1].Targets)
	assert.Equal(t, []int{1, 2}, p.Threads[3].Targets)
	require.Len(t, p.Identities, 3)
	assert.Equal(t, "/dev/loop7", p.Identities[0].Spec)
	assert.Equal(t, "S64HNE0T123456", p.Identities[1].Serial)

	// A plan reports what the gate would refuse, and refuses nothing.
	files := map[string]string{"/work/jobs/job.fio": "[w]\nrw=write\nfilename=/dev/vda\n"}
	opt := fio.ParseOptions{ReadFile: func(n string) ([]byte, error) { return []byte(files[n]), nil }, Host: fio.Host{NCPUs: 1}}
	jfs, err := fio.ParseJobFiles([]string{"/work/jobs/job.fio"}, opt)
	require.NoError(t, err)
	p, err = CheckFioJobs(FioJobsOptions{Files: jfs, Cwd: "/work/jobs", FS: device.FS{Root: "../device/testdata/sysfs"}, Stat: gateHost})
	require.NoError(t, err)
	require.Len(t, p.Refusals, 1)
	assert.Contains(t, p.Refusals[0], "root filesystem")
}

// Through fio servers nothing of the servers' hosts is seen: every path
// written needs HOST:PORT=PATH, and what a server reads on its own host
// (include files, ${VAR}) is refused.
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
	assert.ErrorContains(t, err, "/work/jobs/inc.fio: an include file: a fio server reads it on its own host")
	_, err = gate(t, "[r]\nrw=read\nfilename=${DEV}\n", nil, "h1:8765")
	assert.ErrorContains(t, err, "a fio server puts its own environment's values for ${VAR}")
	_, err = gate(t, "[/dev/nvme9n1]\nrw=write\n", nil, "h1:8765")
	assert.ErrorContains(t, err, "--destroy-data h1:8765=/dev/nvme9n1", "a job named like a path may name a device there")
}

// Each job file runs in a fio of its own: its threads are numbered from 1.
func TestFioGateThreadsPerJobFile(t *testing.T) {
	files := map[string]string{"/work/jobs/a.fio": "[a]\nnumjobs=2\nfilename=/dev/loop7\n", "/work/jobs/b.fio": "[b]\nfilename=/dev/loop7\n"}
	opt := fio.ParseOptions{ReadFile: func(n string) ([]byte, error) { return []byte(files[n]), nil }, Host: fio.Host{NCPUs: 1}}
	jfs, err := fio.ParseJobFiles([]string{"/work/jobs/a.fio", "/work/jobs/b.fio"}, opt)
	require.NoError(t, err)
	p, err := CheckFioJobs(FioJobsOptions{Files: jfs, Cwd: "/work/jobs", Gate: true, FS: device.FS{Root: "../device/testdata/sysfs"}, Stat: gateHost})
	require.NoError(t, err)
	require.Len(t, p.Threads, 3)
	assert.Equal(t, []int{1, 2, 1}, []int{p.Threads[0].Number, p.Threads[1].Number, p.Threads[2].Number})
	assert.Equal(t, []int{0, 0, 1}, []int{p.Threads[0].File, p.Threads[1].File, p.Threads[2].File})
	assert.True(t, p.ReadOnly)
	require.Len(t, p.Targets, 1, "one device, named by both")
	assert.Equal(t, []string{"a", "b"}, p.Targets[0].Jobs)
}
