package targets

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/cpuidle"
	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/sim"
	"github.com/ptsrun/ptsrun/internal/precondition"
)

// Each kind of target set gets its engine, by default or as asked, and
// refuses the engines that cannot drive it.
func TestCheckKindsAndEngines(t *testing.T) {
	file := "file:" + filepath.Join(t.TempDir(), "t.img") + ":64M"
	for _, c := range []struct {
		name   string
		o      Options
		kind   Kind
		engine EngineName
		err    string
	}{
		{"sim", Options{Specs: []string{"sim"}}, Simulated, Sim, ""},
		{"two sims", Options{Specs: []string{"sim:enterprise", "sim:client"}, Engine: "sim"}, Simulated, Sim, ""},
		{"sim with native", Options{Specs: []string{"sim"}, Engine: "native"}, 0, "",
			"engine native cannot drive a simulated drive; use --engine sim"},
		{"sim unknown engine", Options{Specs: []string{"sim"}, Engine: "spdk"}, 0, "", `unknown engine "spdk": want sim, native or fio`},
		{"file", Options{Specs: []string{file}}, Local, Native, ""},
		{"file with sim", Options{Specs: []string{file}, Engine: "sim"}, 0, "",
			"engine sim drives only simulated drives (--target sim:MODEL)"},
		{"mixed", Options{Specs: []string{"sim", file}}, 0, "", "simulated drives and real targets cannot be one target set"},
		{"no target", Options{}, 0, "", "no target: name one with --target"},
		{"named twice", Options{Specs: []string{file, file}}, 0, "", "is named twice"},
		{"fio servers", Options{FioServers: []string{"h1:8765=/dev/nvme0n1", "h2:8765=/dev/nvme0n1"}}, Remote, Fio, ""},
		{"fio servers, one target", Options{Specs: []string{"/dev/sdb"}, FioServers: []string{"h1:8765"}}, Remote, Fio, ""},
		{"fio servers with native", Options{FioServers: []string{"h1:8765=/dev/sdb"}, Engine: "native"}, 0, "",
			"--fio-server drives targets through fio; engine native cannot"},
		{"fio server without target", Options{FioServers: []string{"h1:8765"}}, 0, "", `fio server "h1:8765" has no target`},
		{"fio server gated", Options{FioServers: []string{"h1:8765=/dev/sdb"}, Gate: true}, 0, "",
			"cannot check /dev/sdb on h1:8765: confirm that its data may be destroyed with --destroy-data h1:8765=/dev/sdb"},
		{"fio server confirmed", Options{FioServers: []string{"h1:8765=/dev/sdb"}, Gate: true, DestroyData: []string{"h1:8765=/dev/sdb"}},
			Remote, Fio, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Check(c.o)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.kind, p.Kind)
			assert.Equal(t, c.engine, p.Engine)
			assert.Len(t, p.Identities, max(len(c.o.Specs), len(c.o.FioServers)))
		})
	}
	_, err := Check(Options{FioServers: []string{"h1:8765=/dev/sdb"}, Gate: true})
	assert.ErrorIs(t, err, device.ErrUnsafe)
}

// A simulated drive is described, purged and its write cache set by the
// sim engine; its identity is the drive's once opened.
func TestSimulatedSet(t *testing.T) {
	p, err := Check(Options{Specs: []string{"sim:client"}})
	require.NoError(t, err)
	assert.Equal(t, sim.Description, p.Describe(device.Host{Fio: "fio-3.36"}))
	assert.Empty(t, p.Devs())
	assert.Zero(t, p.MinBlock())
	assert.Equal(t, []string{"sim:client"}, p.Names())
	method, err := p.ChoosePurge("")
	require.NoError(t, err)
	_, err = p.ChoosePurge("nvme-format")
	assert.ErrorContains(t, err, "does not apply to a simulated drive")
	assert.Nil(t, p.JobFiles(engine.Workload{}), "no fio, no job files")

	set, err := p.Open("", OpenOptions{})
	require.NoError(t, err)
	defer set.Engine.Close()
	pg, err := set.Purger(method, nil, nil)
	require.NoError(t, err)
	assert.NotNil(t, pg.Engine, "the engine purges a simulated drive")
	assert.NotNil(t, set.WriteCache())
	assert.Equal(t, device.KindSim, p.Identities[0].Kind)
	assert.Equal(t, sim.Description, set.Engine.Describe())
	assert.Positive(t, p.SeqWriteMBps(context.Background(), engine.Workload{Access: engine.Sequential, BlockSize: 128 << 10,
		TC: 1, QD: 32, ActiveRange: 100, Duration: time.Second}))
	m, _ := sim.Lookup("client")
	assert.Equal(t, []int64{m.UserBytes}, p.Capacities())
	perRound, perCell := p.Overheads()
	assert.Zero(t, perRound+perCell, "a simulated drive's rounds cost their cells' time")
	verdicts, err := p.Verdicts(nil)
	require.NoError(t, err)
	assert.Empty(t, verdicts, "only local targets are judged")
	assert.Nil(t, set.CPUIdle, "a simulated drive's run sets nothing of the host")
}

// A set of local targets holds the host's idle CPUs as asked while it is
// open: a PM QoS request where the kernel lets this process make one, and
// otherwise a State that says why not; "host" asks nothing.
func TestLocalSetHoldsCPUIdle(t *testing.T) {
	img := filepath.Join(t.TempDir(), "t.img")
	p, err := Check(Options{Specs: []string{"file:" + img + ":16M"}, Engine: "native"})
	require.NoError(t, err)
	f, perr := os.OpenFile(cpuidle.QoSPath, os.O_WRONLY, 0)
	if perr == nil {
		f.Close()
	}
	set, err := p.Open("", OpenOptions{ReadOnly: true})
	require.NoError(t, err)
	require.NotNil(t, set.CPUIdle)
	assert.Equal(t, "shallow", set.CPUIdle.Asked)
	if perr != nil {
		assert.False(t, set.CPUIdle.Held)
		assert.Contains(t, set.CPUIdle.Note, cpuidle.QoSPath)
	} else {
		assert.True(t, set.CPUIdle.Held, set.CPUIdle.Note)
		now, err := cpuidle.Current(cpuidle.QoSPath)
		require.NoError(t, err)
		assert.Zero(t, now, "idle CPUs poll while the set is open")
	}
	require.NoError(t, set.Close())

	set, err = p.Open("", OpenOptions{ReadOnly: true, CPUIdle: cpuidle.Setting{Host: true}})
	require.NoError(t, err)
	defer set.Close()
	assert.Equal(t, "host", set.CPUIdle.Asked)
	assert.False(t, set.CPUIdle.Held)
	assert.Empty(t, set.CPUIdle.Note)
}

// A local target's verdict is what the gate would make of it: a new file,
// an existing one that needs its confirmation, or one confirmed.
func TestVerdicts(t *testing.T) {
	dir := t.TempDir()
	made := filepath.Join(dir, "made.img")
	p, err := Check(Options{Specs: []string{"file:" + made + ":64M"}})
	require.NoError(t, err)
	verdicts, err := p.Verdicts(nil)
	require.NoError(t, err)
	assert.Equal(t, []Verdict{{Target: "file:" + made + ":64M", Verdict: "a new file of 65536 KiB"}}, verdicts)

	old := filepath.Join(dir, "old.img")
	require.NoError(t, os.WriteFile(old, make([]byte, 1<<20), 0o600))
	p, err = Check(Options{Specs: []string{"file:" + old}})
	require.NoError(t, err)
	verdicts, err = p.Verdicts(nil)
	require.NoError(t, err)
	require.Len(t, verdicts, 1)
	assert.Contains(t, verdicts[0].Verdict, "1048576 bytes; needs --destroy-data "+old)
	assert.Empty(t, verdicts[0].Refused)
	verdicts, err = p.Verdicts([]string{old})
	require.NoError(t, err)
	assert.Contains(t, verdicts[0].Verdict, "its data will be destroyed (confirmed)")
	_, err = os.Stat(made)
	assert.True(t, os.IsNotExist(err), "judging changes nothing")
}

// Targets on fio servers: fio names the engine by its version, prints job
// files per server, and purges only when the engine can.
func TestRemoteSet(t *testing.T) {
	p, err := Check(Options{FioServers: []string{"h2:8765=/dev/sdc", "h1:8765=/dev/sdb"}})
	require.NoError(t, err)
	assert.Equal(t, "fio 3.36", p.Describe(device.Host{Fio: "fio-3.36"}))
	assert.Equal(t, "fio", p.Describe(device.Host{}), "no fio here: the engine's name")
	method, err := p.ChoosePurge("none")
	require.NoError(t, err)
	assert.Equal(t, precondition.None, method)
	jobs := p.JobFiles(engine.Workload{Access: engine.Random, ReadPct: 100, BlockSize: 4096, TC: 1, QD: 1, ActiveRange: 100, Duration: time.Second})
	require.Len(t, jobs, 2)
	assert.Equal(t, "h2:8765", jobs[0].Host, "in the order the servers were named")
	assert.Contains(t, jobs[0].Text, "/dev/sdc")
	assert.Equal(t, "h1:8765", jobs[1].Host)
	assert.Contains(t, jobs[1].Text, "/dev/sdb")
	perRound, perCell := p.Overheads()
	assert.Equal(t, [2]time.Duration{remoteRoundOverhead, remoteCellOverhead}, [2]time.Duration{perRound, perCell},
		"a round through fio servers waits for the server, and fio pauses between cells")
	assert.Empty(t, p.Capacities(), "known only when the servers run")
}

func TestCheckRunDir(t *testing.T) {
	sims, err := Check(Options{Specs: []string{"sim"}})
	require.NoError(t, err)
	assert.NoError(t, sims.CheckRunDir(filepath.Join(t.TempDir(), "run")))
	assert.ErrorContains(t, sims.CheckRunDir("run\x1b[2J"), "run directory")
}

// A workload whose histogram windows fio could not hold gets no
// per-interval percentiles, and the user is told why and what would do.
func TestSeriesNote(t *testing.T) {
	w := engine.Workload{Access: engine.Random, ReadPct: 70, BlockSize: 4096, TC: 16, QD: 32, ActiveRange: 100, Duration: 75 * time.Minute}
	p := &Plan{Engine: Fio, Identities: []device.Identity{{Spec: "/dev/sda"}}}
	assert.Equal(t, "no per-interval percentiles or maximum: fio keeps each histogram window in memory until it ends, "+
		"about 2039 MiB for this run at 1s intervals (ptsrun allows 256 MiB); --interval 8s or longer has them", p.SeriesNote(w))
	w.Interval = 8 * time.Second
	assert.Empty(t, p.SeriesNote(w))
	w.Interval = 0
	assert.Empty(t, (&Plan{Engine: Native, Identities: p.Identities}).SeriesNote(w), "the native engine keeps only the open intervals")
}
