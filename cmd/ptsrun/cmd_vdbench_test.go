package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

func writeParm(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "test.parm")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// Done when: a vdbench parameter file with two sds and four rds runs and
// reports, on two loop devices, a cell per run in one run directory that
// check takes.
func TestVdbenchOnLoopDevices(t *testing.T) {
	t.Parallel() // real I/O of fixed times on devices of its own: beside the other device tests
	a := enginetest.LoopDevice(t, 64<<20, "")
	b := enginetest.LoopDevice(t, 64<<20, "")
	parm := writeParm(t, fmt.Sprintf(`* two sds, four rds
messagescan=no
sd=default,openflags=o_direct,threads=2
sd=sd1,lun=%s
sd=sd2,lun=%s
wd=oltp,sd=(sd1,sd2),xfersize=4k,rdpct=70
wd=stream,sd=sd*,xfersize=128k,rdpct=0,seekpct=seq
wd=mixed,sd=sd1,xfersize=(4k,50,64k,50),rdpct=50,seekpct=50,range=(0,50)
rd=default,iorate=max,elapsed=2
rd=rd1,wd=oltp
rd=rd2,wd=stream
rd=rd3,wd=mixed,threads=4
rd=rd4,wd=oltp,iorate=1000
`, a, b))
	dir := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := ptsrun("workload", "--vdbench", parm, "--destroy-data", a, "--destroy-data", b, "--out", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "run 1/4 rd1 ("+parm+":10): RND 4 KiB 70/30 TC2/QD1, the first 1s a ramp on "+a+", "+b+" for 2s (1s warm-up)")
	assert.Contains(t, stderr, "run 2/4 rd2 ("+parm+":11): SEQ 128 KiB 0/100 TC1/QD2")
	assert.Contains(t, stderr, "run 3/4 rd3 ("+parm+":12): RND50% composite 50/50 TC1/QD4 AR 50% — block sizes 4 KiB 50 %, 64 KiB 50 %, the first 1s a ramp, 50 % of the I/Os random on "+a+"")
	assert.Contains(t, stderr, "run 4/4 rd4 ("+parm+":13): RND 4 KiB 70/30 TC2/QD1, at most 500 IOPS per target, the first 1s a ramp on "+a+", "+b+" for 2s (1s warm-up), iorate=1000: at most 500 IOPS per target")
	assert.Contains(t, stderr, parm+":2: messagescan=no: accepted:")
	for _, name := range []string{"rd1", "rd2", "rd3", "rd4"} {
		assert.Contains(t, stdout, name+":\n")
	}

	res, ri, err := matrix.Load(dir)
	require.NoError(t, err)
	assert.True(t, ri.Workload)
	assert.Equal(t, []string{a, b}, ri.Config.Targets, "the run directory's targets: every sd's")
	cells := res.Tests[0].Stages[0].Cells
	require.Len(t, cells, 4)
	for i, name := range []string{"rd1", "rd2", "rd3", "rd4"} {
		assert.Equal(t, pts.Named(name), cells[i].Key)
		assert.Positive(t, cells[i].IOPS, name)
	}
	assert.Zero(t, cells[1].ReadIOPS, "rd2 writes only")
	w := ri.Stages[0].Cells[2].Workload
	assert.Equal(t, engine.Workload{Access: engine.Random, RandomPct: 50, ReadPct: 50, TC: 1, QD: 4, ActiveRange: 50,
		BlockSplit: []engine.BlockShare{{Bytes: 4096, Percent: 50}, {Bytes: 65536, Percent: 50}},
		Duration:   2 * time.Second, Ramp: time.Second, Seed: 1}, w, "run.json keeps the translation")
	assert.Equal(t, 500.0, ri.Stages[0].Cells[3].Workload.RateIOPS)
	for _, f := range []string{"report.pdf", "tables/custom.csv", "vdbench.json", "vdbench/test.parm"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
	kept, err := os.ReadFile(filepath.Join(dir, "vdbench", "test.parm"))
	require.NoError(t, err)
	assert.Contains(t, string(kept), "rd=rd4,wd=oltp,iorate=1000")
	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", filepath.Join(dir, "report.pdf"), "-").Output()
		require.NoError(t, err)
		for _, name := range []string{"rd1", "rd2", "rd3", "rd4"} {
			assert.Contains(t, string(out), name)
		}
	}
	code, stdout, stderr = ptsrun("check", "--golden", dir, dir)
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "PASS")

	// Writing without --destroy-data for a device is refused before any
	// I/O, naming the run and its line, and nothing is made.
	out := filepath.Join(t.TempDir(), "refused")
	code, _, stderr = ptsrun("workload", "--vdbench", parm, "--destroy-data", a, "--out", out)
	assert.Equal(t, 4, code)
	assert.Contains(t, stderr, parm+":10: run rd1: unsafe target")
	assert.Contains(t, stderr, "--destroy-data "+b)
	_, err = os.Stat(out)
	assert.True(t, os.IsNotExist(err), "nothing made")
}

// Bad input is one line naming the file, the line and the parameter, exit
// 1, before any I/O: no directory is made.
func TestVdbenchBadInput(t *testing.T) {
	const good = "sd=sd1,lun=sim,openflags=o_direct\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=2\n"
	for _, c := range []struct {
		name, text string
		args       []string
		want       string
	}{
		{"an unknown parameter", "sd=sd1,lun=sim,openflags=o_direct\nwd=wd1,sd=sd1,seqpct=100\nrd=rd1,wd=wd1,iorate=max\n", nil,
			":2: seqpct=100: vdbench knows no such workload definition (wd) parameter"},
		{"an unsupported parameter", "compratio=2\n" + good, nil,
			":1: compratio=2: not supported: ptsrun writes incompressible data: only compratio=1 is what it does"},
		{"an interval of a fraction of a second", good + "rd=rd2,wd=wd1,iorate=max,elapsed=10,interval=0.5\n", nil,
			":4: interval=0.5: whole seconds of 1 or more"},
		{"a parse error", "sd=sd1,lun=sim,openflags=o_direct\nwd=wd1,sd=(sd1\n", nil, ":2: \"sd=(sd1\": a parenthesis left open"},
		{"a workload flag", good, []string{"--bs", "8k"}, "--bs: the vdbench file gives the targets and the workload"},
		{"a target flag", good, []string{"--target", "sim"}, "--target: the vdbench file gives the targets and the workload"},
		{"a block size the target cannot take", "sd=sd1,lun=sim,openflags=o_direct\nwd=wd1,sd=sd1,xfersize=512\nrd=rd1,wd=wd1,iorate=max\n",
			[]string{"--engine", "native"}, "engine native cannot drive a simulated drive"},
		{"runs on different simulated drives", "sd=sd1,lun=sim,openflags=o_direct\nsd=sd2,lun=sim:client,openflags=o_direct\nwd=wd1,sd=sd1\nwd=wd2,sd=sd2\n" +
			"rd=rd1,wd=wd1,iorate=max,elapsed=2\nrd=rd2,wd=wd2,iorate=max,elapsed=2\n", nil,
			":6: run rd2: the simulated drives keep their state per target set: every run of a file loads the same ones"},
	} {
		t.Run(c.name, func(t *testing.T) {
			parm := writeParm(t, c.text)
			dir := filepath.Join(t.TempDir(), "out")
			code, stdout, stderr := ptsrun(append([]string{"workload", "--vdbench", parm, "--out", dir}, c.args...)...)
			assert.Equal(t, 1, code, stderr)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, c.want)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)
			if !strings.HasPrefix(c.want, "--") {
				assert.Contains(t, stderr, "ptsrun: "+parm+":", "the file and line first")
			}
			_, err := os.Stat(dir)
			assert.True(t, os.IsNotExist(err), "nothing made")
		})
	}
	code, _, stderr := ptsrun("workload", "--dry-run")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--dry-run goes with --vdbench FILE")
}

// --dry-run prints the translation and runs nothing; with --json, the
// plan.
func TestVdbenchDryRun(t *testing.T) {
	parm := writeParm(t, "sd=sd1,lun=/dev/nonexistent,openflags=o_direct,threads=4\nwd=wd1,sd=sd1,xfersize=64k,rdpct=75,seekpct=80\n"+
		"rd=run1,wd=wd1,iorate=(1000,2000),elapsed=300,warmup=60\n")
	code, stdout, stderr := ptsrun("workload", "--vdbench", parm, "--dry-run")
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{
		"vdbench " + parm + ": 2 run(s) on 1 target(s)",
		"  sd=sd1 lun=/dev/nonexistent → /dev/nonexistent (" + parm + ":1)",
		"run1-iorate=1000 (rd=run1, " + parm + ":3) on sd sd1:",
		"  RND80% 64 KiB 75/25 TC1/QD4, at most 1000 IOPS per target, the first 1m0s a ramp, 80 % of the I/Os random; vdbench threads=4 per sd",
		"  6m0s: elapsed=5m0s after a 1m0s warm-up (warmup=1m0s), left out of the results",
		"  iorate=2000 over 1 sd(s): at most 2000 IOPS per target",
		"  = ptsrun workload --target /dev/nonexistent --access random --read 75 --bs 64k --tc 1 --qd 4 --time 6m0s --ramp 1m0s --random-pct 80 --rate-iops 1000",
	} {
		assert.Contains(t, stdout, want+"\n")
	}
	code, stdout, stderr = ptsrun("workload", "--vdbench", parm, "--dry-run", "--json")
	require.Equal(t, 0, code, stderr)
	var plan struct {
		Runs []struct {
			Name     string          `json:"name"`
			Workload engine.Workload `json:"workload"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &plan))
	require.Len(t, plan.Runs, 2)
	assert.Equal(t, "run1-iorate=2000", plan.Runs[1].Name)
	assert.Equal(t, 2000.0, plan.Runs[1].Workload.RateIOPS)
}

// On the simulated drive: --json gives every run's measurement, and a stop
// records the runs done (exit 130).
func TestVdbenchSimulated(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	const runs = "sd=sd1,lun=sim,openflags=o_direct\nwd=wd1,sd=sd1,rdpct=70\nrd=rd1,wd=wd1,iorate=max,elapsed=3,forxfersize=(4k,16k)\n"
	parm := writeParm(t, runs+"rd=rd2,wd=wd1,iorate=max,elapsed=3\n")
	code, stdout, stderr := ptsrun("workload", "--vdbench", parm, "--json", "--out", filepath.Join(t.TempDir(), "json"))
	require.Equal(t, 0, code, stderr)
	var out struct {
		Runs []vdbenchResult `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	require.Len(t, out.Runs, 3)
	assert.Equal(t, "rd1-xfersize=16k", out.Runs[1].Name)
	assert.Positive(t, out.Runs[1].Total.IOPS)

	// Stopped in rd2's pause: rd1's two runs are recorded.
	parm = writeParm(t, runs+"rd=rd2,wd=wd1,iorate=max,elapsed=3,pause=1m\n")
	dir := filepath.Join(t.TempDir(), "stopped")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := runVdbench(ctx, vdbenchOptions{File: parm, Dir: dir, Seed: 1, Poll: "auto"}, io.Discard, io.Discard)
	require.ErrorIs(t, err, pts.ErrInterrupted)
	assert.Contains(t, err.Error(), "the 2 run(s) done are recorded in "+dir)
	res, _, err := matrix.Load(dir)
	require.NoError(t, err)
	cells := res.Tests[0].Stages[0].Cells
	require.Len(t, cells, 2)
	assert.Equal(t, "rd1-xfersize=16k", cells[1].Key.String())
}
