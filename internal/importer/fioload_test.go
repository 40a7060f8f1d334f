package importer

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pdfreport"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// importedRun imports fio outputs as `ptsrun import fio` does and builds
// the run's results and report text.
func importedRun(t *testing.T, files []string, opt FioOptions) (pts.RunInfo, *matrix.Results, string, []string) {
	t.Helper()
	ri, rounds, warnings, err := ImportFio(files, opt)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, pts.WriteImported(dir, ri, rounds))
	res, ri, err := matrix.Load(dir)
	require.NoError(t, err)
	return ri, res, pdfreport.Build(ri, res, pdfreport.Options{}).Text(), warnings
}

func deviationTexts(res *matrix.Results) string {
	var s []string
	for _, d := range res.Deviations {
		s = append(s, d.Text)
	}
	return strings.Join(s, "\n")
}

// TestImportFioLoad reads the load of real fio 3.33 outputs (the job file
// of each is in the test's table; libaio, direct I/O on a 32 MiB file):
// TC is the threads per target whatever group_reporting did, QD is
// iodepth, and entries whose load fio's output does not show are left out
// by name.
func TestImportFioLoad(t *testing.T) {
	fixtures := filepath.Join("..", "engine", "fio", "testdata")
	for _, c := range []struct {
		name, file string
		tc, qd     int
		targets    int
		refused    string // the whole output is left out, saying this
	}{
		// [cell] rw=randrw rwmixread=65 bs=4k numjobs=2 iodepth=32: two entries.
		{name: "numjobs=2 without group_reporting: an entry per thread", file: "testdata/fio-tc2qd32-3.33.json", tc: 2, qd: 32, targets: 1},
		// The same with [global] group_reporting=1: one entry of two threads.
		{name: "numjobs=2 with group_reporting: one entry of numjobs threads", file: "testdata/fio-tc2qd32-grouped-3.33.json", tc: 2, qd: 32, targets: 1},
		// fio --group_reporting (not in the output), numjobs=2 iodepth=4: one entry.
		{name: "--group_reporting on fio's command line", file: filepath.Join(fixtures, "local-3.33.json"), tc: 2, qd: 4, targets: 1},
		// Two fio servers, a job each on its own loop device.
		{name: "client/server: threads per target, hosts loaded at once", file: filepath.Join(fixtures, "clients-3.33.json"), tc: 1, qd: 4, targets: 2},
		// fio --group_reporting: [a] and [b], both randread numjobs=1.
		{name: "group_reporting hides a job's options", file: "testdata/fio-hidden-3.33.json",
			refused: "group_reporting merged about 2 threads into it, but it prints the options of one job (numjobs=1)"},
		// [read] rw=randread and [write] rw=randwrite, no stonewall.
		{name: "two workloads at once", file: "testdata/fio-together-3.33.json",
			refused: "jobs read and write ran different workloads at the same time"},
		// [a] and [b] new_group=1: two reporting groups that ran at once.
		{name: "new_group without stonewall", file: "testdata/fio-newgroup-3.33.json",
			refused: "new_group without stonewall: its reporting group and the one before it ran at the same time"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ri, rounds, _, err := ImportFio([]string{c.file}, FioOptions{Version: "test"})
			if c.refused != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "no results to import")
				assert.Contains(t, err.Error(), c.refused)
				assert.Contains(t, err.Error(), c.file, "the error names the file")
				return
			}
			require.NoError(t, err)
			require.Len(t, ri.Stages, 1)
			require.Len(t, ri.Stages[0].Cells, 1)
			w := ri.Stages[0].Cells[0].Workload
			assert.Equal(t, c.tc, w.TC)
			assert.Equal(t, c.qd, w.QD)
			require.Len(t, rounds[ri.Stages[0].ID], 1, "one output, one round")
			assert.Equal(t, c.tc, rounds[ri.Stages[0].ID][0][0].Workload.TC)
			assert.Len(t, ri.Config.Targets, c.targets)
		})
	}
}

// TestImportFioNotRecorded is the import: three outputs of
// numjobs=2 iodepth=32 become the PTS-E IOPS cell at TC2/QD32, which is a
// deviation from the profile's TC4/QD32; the header prints that load
// everywhere, and "not recorded" for the purge, the preconditioning, its
// active range and the seed, never ptsrun's defaults.
func TestImportFioNotRecorded(t *testing.T) {
	f := filepath.Join("testdata", "fio-tc2qd32-3.33.json")
	ri, res, text, warnings := importedRun(t, []string{f, f, f}, FioOptions{Version: "test"})
	for _, w := range warnings {
		assert.NotContains(t, w, "left out")
	}
	devs := deviationTexts(res)
	assert.Contains(t, devs, "IOPS: the imported cells ran at TC2/QD32 (TOIO 64); the PTS-E profile's load is TC4/QD32 (TOIO 128).")
	assert.Contains(t, devs, "IOPS: the active range is not recorded (size=32m of a target whose capacity fio does not print).")
	assert.Equal(t, 2, ri.Config.TC)
	assert.Equal(t, 32, ri.Config.QD)
	for _, want := range []string{
		"param IOPS TC/QD: 2/32", "param TOIO – TC/QD: 64 – TC 2/QD 32",
		"setup Pre-condition: not recorded", "setup PC AR: not recorded", "setup Purge: not recorded", "setup Seed: not recorded",
		"device Purge: not recorded", "param AR & amount: not recorded", "param AR: IOPS not recorded, PC not recorded",
		"setup Data pattern: fio's default buffers (random)",
		"platform Test software: fio 3.33 (imported by ptsrun test)",
	} {
		assert.Contains(t, text, want)
	}
	for _, never := range []string{"TC/QD: 4/32", "(WDPC)", "PC AR: 100 %", "incompressible", "Seed: 1\n", "IOPS 100 %", "0–100 %",
		"its rounds of the test's own workload precondition it"} {
		assert.NotContains(t, text, never)
	}
	assert.Contains(t, text, "IOPS — purge and preconditioning: not recorded")

	// Filed under the client profile: its load, and no placeholder range
	// printed or held against the profile's 75 %.
	_, res, text, _ = importedRun(t, []string{f}, FioOptions{Profile: "client", Version: "test"})
	devs = deviationTexts(res)
	assert.Contains(t, devs, "IOPS: the imported cells ran at TC2/QD32 (TOIO 64); the PTS-C profile's load is TC2/QD16 (TOIO 32).")
	assert.NotContains(t, devs, "the active range was")
	assert.NotContains(t, text, "AR 100")
}

// fioJob is a job entry for a synthetic fio output.
type fioJob struct {
	Name    string            `json:"jobname"`
	Group   int               `json:"groupid"`
	Options map[string]string `json:"job options"`
	Read    map[string]any    `json:"read"`
	Write   map[string]any    `json:"write"`
	Runtime int               `json:"job_runtime"`
}

// fioOutput writes a fio 3.x JSON output of jobs to dir/name, every job
// reading 4 KiB for a second.
func fioOutput(t *testing.T, dir, name string, ts int64, jobs ...fioJob) string {
	t.Helper()
	for i := range jobs {
		jobs[i].Read = map[string]any{"io_bytes": 4096 * 1000, "iops": 1000, "runtime": 1000, "total_ios": 1000,
			"lat_ns": map[string]any{"min": 1000, "max": 100000, "mean": 50000, "N": 1000}}
		jobs[i].Write = map[string]any{"io_bytes": 0, "iops": 0, "runtime": 0, "total_ios": 0}
		if jobs[i].Runtime == 0 {
			jobs[i].Runtime = 1000
		}
	}
	b, err := json.Marshal(map[string]any{"fio version": "fio-3.33", "timestamp": ts, "jobs": jobs})
	require.NoError(t, err)
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

func randread(extra ...string) map[string]string {
	o := map[string]string{"rw": "randread", "bs": "4k", "filename": "/dev/x"}
	for i := 0; i+1 < len(extra); i += 2 {
		o[extra[i]] = extra[i+1]
	}
	return o
}

// TestImportFioStageLoad: a stage runs its cells at one load, the one most
// of its results ran at; a result at another is a custom workload, with
// its reason. The active range is what fio's size says, when it says.
func TestImportFioStageLoad(t *testing.T) {
	dir := t.TempDir()
	at := func(ts int64, tc, qd int, extra ...string) string {
		return fioOutput(t, dir, fmt.Sprintf("r%d.json", ts), ts, fioJob{Name: "c", Options: randread(append([]string{
			"numjobs", fmt.Sprint(tc), "iodepth", fmt.Sprint(qd), "group_reporting", "1"}, extra...)...), Runtime: 1000 * tc})
	}
	files := []string{at(1, 8, 16), at(2, 4, 32), at(3, 8, 16)}
	ri, res, text, warnings := importedRun(t, files, FioOptions{Version: "test"})
	require.Len(t, ri.Stages, 2)
	assert.Equal(t, "TC8/QD16", loadLabel(ri.Stages[0].Cells[0].Workload))
	assert.Equal(t, "custom", ri.Stages[1].ID)
	assert.Contains(t, strings.Join(warnings, "\n"), "RND 4 KiB 100/0 TC4/QD32: not a PTS cell (its stage (iops) runs every cell at one load, TC8/QD16 here")
	assert.Contains(t, deviationTexts(res), "IOPS: the imported cells ran at TC8/QD16 (TOIO 128); the PTS-E profile's load is TC4/QD32 (TOIO 128).")
	assert.Contains(t, text, "param IOPS TC/QD: 8/16")
	assert.Equal(t, 2, res.Tests[0].Stages[0].Rounds, "the two results at the stage's load are its rounds")

	// A tie goes to the profile's load; fio's size in per cent is the
	// active range, and the profile's is no deviation.
	ri, res, text, _ = importedRun(t, []string{at(4, 8, 16, "size", "100%"), at(5, 4, 32, "size", "100%")}, FioOptions{Version: "test"})
	assert.Equal(t, "TC4/QD32", loadLabel(ri.Stages[0].Cells[0].Workload))
	assert.NotContains(t, deviationTexts(res), "the imported cells ran at")
	assert.NotContains(t, deviationTexts(res), "active range")
	assert.Contains(t, text, "param AR & amount: 100 % (unknown)")

	_, res, _, _ = importedRun(t, []string{at(6, 4, 32, "size", "50%")}, FioOptions{Version: "test"})
	assert.Contains(t, deviationTexts(res), "IOPS: the active range was 50 %, below the PTS-E profile's 100 %.")

	// fio's data options are the data pattern, and a departure.
	_, res, text, _ = importedRun(t, []string{at(7, 4, 32, "zero_buffers", "1")}, FioOptions{Version: "test"})
	assert.Contains(t, text, "setup Data pattern: as fio's zero_buffers=1 set it")
	assert.Contains(t, deviationTexts(res), "The data written was not only fio's default random buffers: as fio's zero_buffers=1 set it.")

	// Two stonewalled groups of one workload in one output are two rounds,
	// not one cell added up; a job whose threads on two targets differ has
	// no one TC.
	two := fioOutput(t, dir, "two.json", 8,
		fioJob{Name: "a", Group: 0, Options: randread("iodepth", "32")}, fioJob{Name: "b", Group: 1, Options: randread("iodepth", "32")})
	ri, _, _, _ = importedRun(t, []string{two}, FioOptions{})
	assert.Len(t, ri.Stages, 1)
	_, rounds, _, err := ImportFio([]string{two}, FioOptions{})
	require.NoError(t, err)
	assert.Len(t, rounds["iops"], 2)
	uneven := fioOutput(t, dir, "uneven.json", 9,
		fioJob{Name: "a", Options: randread("iodepth", "32", "filename", "/dev/x")},
		fioJob{Name: "a", Options: randread("iodepth", "32", "filename", "/dev/y", "numjobs", "2", "group_reporting", "1"), Runtime: 2000})
	_, _, _, err = ImportFio([]string{uneven}, FioOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "its targets ran different thread counts (1 on /dev/x, 2 on /dev/y)")

	// Skewed random access is no PTS cell.
	skewed := fioOutput(t, dir, "zipf.json", 10, fioJob{Name: "z", Options: randread("random_distribution", "zipf:1.2")})
	_, _, warnings, err = ImportFio([]string{skewed}, FioOptions{})
	require.NoError(t, err)
	assert.Contains(t, strings.Join(warnings, "\n"), "random_distribution=zipf:1.2 is not uniform random access")
}

// TestImportRealFioLoad runs fio 3.x (when installed) as the issue did:
// numjobs=2 iodepth=32 on a file, three times, with and without
// group_reporting, and imports the outputs: the IOPS cell at TC2/QD32, a
// deviation from the profile's load, and "not recorded" for what fio
// does not record.
func TestImportRealFioLoad(t *testing.T) {
	enginetest.NeedFio(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	job := "[cell]\nfilename=" + data + "\nsize=16m\nrw=randrw\nrwmixread=65\nbs=4k\nnumjobs=2\niodepth=32\n" +
		"ioengine=psync\ntime_based=1\nruntime=1\n"
	jobFile := filepath.Join(dir, "tc2qd32.fio")
	require.NoError(t, os.WriteFile(jobFile, []byte(job), 0o644))
	for _, c := range []struct {
		name string
		args []string
	}{{"an entry per thread", nil}, {"group_reporting on the command line", []string{"--group_reporting"}}} {
		t.Run(c.name, func(t *testing.T) {
			var files []string
			for r := 1; r <= 3; r++ {
				out := filepath.Join(dir, fmt.Sprintf("%s-%d.json", strings.ReplaceAll(c.name, " ", "-"), r))
				args := append(append([]string{}, c.args...), "--output-format=json", "--output="+out, jobFile)
				b, err := exec.Command("fio", args...).CombinedOutput()
				require.NoError(t, err, "%s", b)
				files = append(files, out)
			}
			ri, res, text, warnings := importedRun(t, files, FioOptions{Version: "test"})
			for _, w := range warnings {
				assert.NotContains(t, w, "left out")
			}
			require.Len(t, ri.Stages, 1)
			assert.Equal(t, "iops", ri.Stages[0].ID)
			assert.Equal(t, "rnd-4k-65/35", ri.Stages[0].Cells[0].Key.String())
			assert.Equal(t, 3, res.Tests[0].Stages[0].Rounds)
			assert.Contains(t, deviationTexts(res), "IOPS: the imported cells ran at TC2/QD32 (TOIO 64); the PTS-E profile's load is TC4/QD32 (TOIO 128).")
			assert.Contains(t, text, "setup Pre-condition: not recorded")
			assert.Contains(t, text, "param IOPS TC/QD: 2/32")
			assert.NotContains(t, text, "(WDPC)")
		})
	}
}

// FuzzImportFio feeds ImportFio what a fio output file might hold: it
// refuses or imports, never panics, and what it imports has a load.
func FuzzImportFio(f *testing.F) {
	for _, p := range []string{"testdata/fio-tc2qd32-3.33.json", "testdata/fio-tc2qd32-grouped-3.33.json", "testdata/fio-hidden-3.33.json",
		"testdata/fio-together-3.33.json", "../engine/fio/testdata/clients-3.33.json"} {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(`{"fio version": "fio-3.33", "jobs": [{"jobname": "a", "groupid": 0, "job options": {"rw": "randread", "numjobs": "3"}, ` +
		`"read": {"io_bytes": 4096, "iops": 1, "runtime": 1000, "total_ios": 1}, "job_runtime": 0}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "out.json")
		require.NoError(t, os.WriteFile(p, data, 0o644))
		ri, rounds, _, err := ImportFio([]string{p}, FioOptions{Version: "fuzz"})
		if err != nil {
			assert.Contains(t, err.Error(), p, "an error names the file")
			return
		}
		for _, s := range ri.Stages {
			for _, c := range s.Cells {
				assert.GreaterOrEqual(t, c.Workload.TC, 1)
				assert.GreaterOrEqual(t, c.Workload.QD, 1)
			}
			for _, r := range rounds[s.ID] {
				assert.Len(t, r, len(s.Cells))
			}
		}
	})
}
