package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pdfreport"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// --tested-by, --lab and --dut-note go into run.json, and from there into
// the report's header, on every command that records a run.
func TestOperatorFlagsReachTheReport(t *testing.T) {
	t.Parallel() // a simulated run of its own, CPU-bound: beside the others
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "run")
	code, _, stderr := ptsrun("run", "--target", "sim:client", "--profile", "client", "--tests", "lat", "--cell-time", "10s",
		"--out", dir, "--tested-by", "A. Tester", "--lab", "Lab 1",
		"--dut-note", "NAND=TLC, 176 layers", "--dut-note", "Form factor=U.2")
	require.Contains(t, []int{0, 3}, code, stderr)
	ri, err := pts.LoadRunInfo(dir)
	require.NoError(t, err)
	assert.Equal(t, pts.Operator{TestedBy: "A. Tester", Lab: "Lab 1", DUTNotes: []device.Fact{
		{Key: device.FactNAND, Value: "TLC, 176 layers", Source: device.SourceOperator},
		{Key: device.FactFormFactor, Value: "U.2", Source: device.SourceOperator}}}, ri.Operator, "a comma does not split a note")

	// report rebuilds the header from run.json alone.
	code, _, stderr = ptsrun("report", dir)
	require.Equal(t, 0, code, stderr)
	res, ri, err := matrix.Load(dir)
	require.NoError(t, err)
	text := pdfreport.Build(ri, res, pdfreport.Options{}).Text()
	assert.Contains(t, text, "tested by A. Tester, lab Lab 1\n")
	assert.Contains(t, text, "device NAND type: TLC, 176 layers (stated by the operator)\n")
	assert.Contains(t, text, "device Form factor: U.2 (stated by the operator)\n")
	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", "-l", "1", filepath.Join(dir, "report.pdf"), "-").Output()
		require.NoError(t, err)
		assert.Contains(t, string(out), "Tested by: A. Tester")
		assert.Contains(t, string(out), "Lab: Lab 1")
	}

	// workload and import table record them too.
	wl := filepath.Join(tmp, "wl")
	code, _, stderr = ptsrun("workload", "--target", "sim", "--time", "2s", "--out", wl, "--tested-by", "B. Tester", "--lab", "Lab 2")
	require.Equal(t, 0, code, stderr)
	ri, err = pts.LoadRunInfo(wl)
	require.NoError(t, err)
	assert.Equal(t, "B. Tester", ri.TestedBy)
	assert.Equal(t, "Lab 2", ri.Lab)
	csv := filepath.Join(tmp, "t.csv")
	require.NoError(t, os.WriteFile(csv, []byte("bs,100/0,0/100\n4k,1000,500\n"), 0o644))
	imp := filepath.Join(tmp, "imp")
	code, _, stderr = ptsrun("import", "table", csv, "--out", imp, "--tested-by", "C. Reviewer", "--dut-note", "NAND=QLC")
	require.Equal(t, 0, code, stderr)
	ri, err = pts.LoadRunInfo(imp)
	require.NoError(t, err)
	assert.Equal(t, "C. Reviewer", ri.TestedBy)
	assert.Empty(t, ri.Lab, "not stated, not invented")
	assert.Equal(t, []device.Fact{{Key: device.FactNAND, Value: "QLC", Source: device.SourceOperator}}, ri.DUTNotes)

	// Bad notes are refused before anything is made.
	for _, args := range [][]string{
		{"run", "--target", "sim", "--out", filepath.Join(tmp, "bad1"), "--dut-note", "TLC"},
		{"demo", "--out", filepath.Join(tmp, "bad2"), "--dut-note", "NAND=TLC", "--dut-note", "nand=QLC"},
		{"run", "--target", "sim", "--out", filepath.Join(tmp, "bad3"), "--tested-by", "A\nB"},
		{"import", "table", csv, "--out", filepath.Join(tmp, "bad4"), "--dut-note", "=x"},
		{"plan", "--target", "sim", "--dut-note", "x"},
	} {
		code, _, stderr := ptsrun(args...)
		assert.Equal(t, 1, code, "%v: %s", args, stderr)
		assert.Regexp(t, `--(dut-note|tested-by)`, stderr, "%v", args)
	}
	for _, d := range []string{"bad1", "bad2", "bad3", "bad4"} {
		assert.NoDirExists(t, filepath.Join(tmp, d))
	}
}
