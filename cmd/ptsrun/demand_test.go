package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine/enginetest"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// DIRTH and ECW on a loop device with short flags, one with each engine:
// every stage runs, the operating points run at the TC/QD chosen from the
// demand-variation window, and the TC × QD tables are written. ECW is
// killed with SIGKILL between its operating points and resumed.
func TestDemandIntensityOnLoopDevice(t *testing.T) {
	// Mostly waiting on cells of real I/O: beside the other long device tests,
	// each on a loop device of its own.
	t.Parallel()
	for _, tc := range []struct {
		test, engine string
		kill         bool
	}{
		{"dirth", "native", false},
		{"ecw", "fio", true},
	} {
		t.Run(tc.test+"-"+tc.engine, func(t *testing.T) {
			t.Parallel()
			dev := enginetest.LoopDevice(t, 64<<20, "")
			if tc.engine == "fio" {
				enginetest.NeedFio(t)
			}
			p := "--" + tc.test + "-"
			dir := filepath.Join(t.TempDir(), "run")
			args := []string{"run", "--target", dev, "--engine", tc.engine, "--tests", tc.test, "--destroy-data", dev, "--out", dir,
				"--cell-time", "1s", "--ss-window", "2", "--max-rounds", "3",
				p + "tc", "2,1", p + "qd", "2,1", p + "pc-round", "2s", p + "pc-track", "1s",
				p + "round-prewrite", "1s", p + "prewrite", "1s", p + "histogram", "1s"}
			if tc.kill {
				cmd := exec.Command(binary, args...)
				var serr bytes.Buffer
				cmd.Stderr = &serr
				require.NoError(t, cmd.Start())
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				reached := func() bool {
					b, _ := os.ReadFile(filepath.Join(dir, pts.JournalFile))
					return bytes.Contains(b, []byte(`"stage":"`+tc.test+`-mid"`)) || bytes.Contains(b, []byte(`"type":"end"`))
				}
				// Killed once the journal has the middle point (or the end);
				// a run that ends before it is a failure to say, not to wait
				// out.
				ended := false
				for deadline := time.Now().Add(120 * time.Second); !reached() && !ended && time.Now().Before(deadline); {
					select {
					case err := <-exited:
						ended = true
						require.True(t, reached(), "the run ended before the point it is killed at: %v: %s", err, serr.String())
					case <-time.After(20 * time.Millisecond):
					}
				}
				if !ended {
					require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
					<-exited
				}
				code, _, stderr := ptsrun("resume", dir, "--destroy-data", dev) // whoever resumes confirms again
				require.Contains(t, []int{0, 3}, code, "%s\n%s", serr.String(), stderr)
			} else {
				code, _, stderr := ptsrun(args...)
				require.Contains(t, []int{0, 3}, code, stderr)
			}

			res, ri, err := matrix.Load(dir)
			require.NoError(t, err)
			require.True(t, res.Complete)
			tr := res.Find(pts.TestID(tc.test))
			require.NotNil(t, tr)
			require.Len(t, tr.Stages, 5)
			require.Len(t, tr.OperatingPoints, 3)
			dv := tr.Stages[1]
			require.Len(t, dv.Cells, 5, "the pre-write and 2 × 2 TC/QD cells")
			for i, pt := range tr.OperatingPoints {
				st := tr.Stages[2+i]
				require.NotNil(t, st.Point, st.ID)
				assert.Equal(t, pt, *st.Point)
				assert.True(t, st.Complete, st.ID)
				assert.Len(t, st.Samples, 2, "%s: a 1 s pre-write and a 1 s histogram run, a sample each", st.ID)
				require.NotNil(t, st.TailHist, st.ID)
				assert.Positive(t, st.TailHist.Count())
				assert.Contains(t, []int{1, 2}, pt.TC)
				assert.Contains(t, []int{1, 2}, pt.QD)
			}
			assert.Equal(t, [2]int{1, 1}, [2]int{tr.OperatingPoints[2].TC, tr.OperatingPoints[2].QD}, "MinIOPS is TC1/QD1")
			// The journal's samples of each point ran at its TC/QD.
			recs, _, err := pts.LoadJournal(dir)
			require.NoError(t, err)
			for _, r := range recs {
				if r.Type != pts.RecSample || r.Workload == nil {
					continue
				}
				for i, pt := range tr.OperatingPoints {
					if r.Stage == ri.Stages[2+i].ID {
						assert.Equal(t, [2]int{pt.TC, pt.QD}, [2]int{r.Workload.TC, r.Workload.QD}, r.Stage)
					}
				}
			}
			// tables/<test>_iops.csv: rows TC, columns QD, in loop order.
			f, err := os.Open(filepath.Join(dir, "tables", tc.test+"_iops.csv"))
			require.NoError(t, err)
			rows, err := csv.NewReader(f).ReadAll()
			f.Close()
			require.NoError(t, err)
			require.Len(t, rows, 3)
			assert.Equal(t, []string{"2", "1"}, rows[0][1:])
			for _, r := range rows[1:] {
				for _, v := range r[1:] {
					x, err := strconv.ParseFloat(v, 64)
					require.NoError(t, err)
					assert.Positive(t, x)
				}
			}
			assert.FileExists(t, filepath.Join(dir, "tables", tc.test+"_points.csv"))
			if tc.test == "ecw" {
				w := ri.Stages[1].Cells[1].Workload
				assert.Len(t, w.BlockSplit, 12, "a 512 B loop device takes every size of the composite split")
				assert.Len(t, w.Zones, 3)
			}
			if tc.kill {
				var resumed bool
				for _, d := range res.Deviations {
					resumed = resumed || d.Code == "resumed"
				}
				assert.True(t, resumed, "the report says the run was resumed")
			}
			out, err := exec.Command("pdftotext", filepath.Join(dir, "report.pdf"), "-").Output()
			if err == nil {
				assert.Contains(t, string(out), strings.ToUpper(tc.test))
			}
		})
	}
}
