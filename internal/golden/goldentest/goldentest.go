// Package goldentest holds what the project's tests share for golden
// files: comparing output with a file under testdata (rewritten with
// -update) and a deterministic run of the whole methodology on the
// simulated drive, with a fixed clock and host, to produce results worth
// freezing.
//
// File compares text byte for byte. JSON and CSV hold numbers at Digits
// significant digits, compare them within their last digit, and summarize
// histograms, so that a golden neither breaks on a float's last bit nor
// hides a change in a blob. On a mismatch each writes the output beside the
// golden as NAME.actual (git ignores it) to be diffed by hand.
package goldentest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine/sim"
	"github.com/ptsrun/ptsrun/internal/matrix"
	"github.com/ptsrun/ptsrun/internal/precondition"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// File compares got with the golden file at path, byte for byte; with
// update it rewrites the file first. On a mismatch it writes got beside the
// golden as path.actual (git ignores it), to be diffed by hand, and the
// failure names the first line that differs and how to update.
func File(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		writeGolden(t, path, got)
	}
	want := readGolden(t, path)
	if bytes.Equal(want, got) {
		removeActual(t, path)
		return
	}
	actual := writeActual(t, path, got)
	line, w, g := firstDiff(want, got)
	t.Errorf("%s differs from the output at line %d:\n  golden: %q\n  now:    %q\n%s", path, line, w, g, howToReview(path, actual))
}

// firstDiff is the first line (from 1) where a and b differ, and that line
// of each.
func firstDiff(a, b []byte) (int, string, string) {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; ; i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y || i >= len(la) || i >= len(lb) {
			return i + 1, x, y
		}
	}
}

func howToReview(path, actual string) string {
	return fmt.Sprintf("The output is in %s: diff -u %s %s\nIf the change is intended, rerun the test with -update and review the golden's diff.",
		actual, path, actual)
}

func writeGolden(t testing.TB, path string, b []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

func readGolden(t testing.TB, path string) []byte {
	t.Helper()
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing: run the test with -update to create %s", path)
	return want
}

// writeActual writes the output beside the golden and returns its path.
func writeActual(t testing.TB, path string, got []byte) string {
	t.Helper()
	actual := path + ".actual"
	require.NoError(t, os.WriteFile(actual, got, 0o644))
	return actual
}

// removeActual removes an output left beside the golden by an earlier
// failure, now that the output agrees with it.
func removeActual(t testing.TB, path string) {
	t.Helper()
	if err := os.Remove(path + ".actual"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("removing %s.actual: %v", path, err)
	}
}

// Start is the fixed start of SimRun's runs: the journal's clock.
var Start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// SimRun runs the methodology on a simulated drive (model enterprise or
// client) in a new run directory with a fixed clock and host, so that
// everything derived from it is reproducible, and returns its results.
//
// The run is made once per test binary for each model and configuration:
// a second call with the same ones gets a copy of the first's run
// directory (run.json, the journal, the simulated drive's state), as
// running again would write it but for the journal's wall times, and its
// own results loaded from that copy. The tests of a package that builds
// the same run for several reports pay for it once; each still has a
// directory and results of its own to change.
func SimRun(t testing.TB, model string, mod func(*pts.Config)) (pts.RunInfo, *matrix.Results, string) {
	t.Helper()
	c := pts.DefaultConfig()
	c.Targets = []string{"sim:" + model}
	if model == "client" {
		c.Profile = "client"
	}
	if mod != nil {
		mod(&c)
	}
	key, err := json.Marshal(c)
	require.NoError(t, err)
	shared.Lock()
	r, ok := shared.runs[model+" "+string(key)]
	if !ok {
		r = &sharedRun{}
		shared.runs[model+" "+string(key)] = r
	}
	shared.Unlock()
	r.once.Do(func() {
		r.by = t.Name()
		src := filepath.Join(t.TempDir(), "shared")
		simRun(t, model, c, src)
		r.files = readTree(t, src)
	})
	require.NotNil(t, r.files, "the shared simulated run failed in %s", r.by)
	dir := t.TempDir()
	writeTree(t, dir, r.files)
	res, ri, err := matrix.Load(dir)
	require.NoError(t, err)
	return ri, res, dir
}

// shared holds SimRun's runs, by model and configuration.
var shared = struct {
	sync.Mutex
	runs map[string]*sharedRun
}{runs: map[string]*sharedRun{}}

// sharedRun is one run's directory: its files by path, and the test that
// made it.
type sharedRun struct {
	once  sync.Once
	by    string
	files map[string][]byte
}

// readTree reads every file under dir, by path relative to it.
func readTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		files[rel] = b
		return err
	}))
	return files
}

// writeTree writes files (readTree's) under dir.
func writeTree(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for rel, b := range files {
		path := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, b, 0o644))
	}
}

// simRun runs c on the simulated model in dir, a new directory, and
// closes the drive after it.
func simRun(t testing.TB, model string, c pts.Config, dir string) {
	t.Helper()
	p, err := c.Resolve()
	require.NoError(t, err)
	m, err := sim.Lookup(model)
	require.NoError(t, err)
	id := sim.IdentityOf(m, 0)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: "0.0.0-test", Created: Start, Config: c, Profile: p,
		Stages: c.Stages(p), Engine: sim.Description,
		Host: device.Host{Hostname: "testhost", OS: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0", Arch: "amd64",
			CPUModel: "Test CPU", CPUs: 2, MemoryBytes: 24 << 30, Ptsrun: "0.0.0-test", Go: "go1.26"},
		Targets: []device.Identity{{Spec: "sim:" + model, Kind: device.KindSim, Vendor: id.Vendor, Model: id.Product,
			Serial: id.Serial, Firmware: id.Firmware, CapacityBytes: id.Capacity, LogicalBlock: id.LogicalBlock,
			PhysicalBlock: 4096, Interface: "simulated NVMe"}}}
	require.NoError(t, pts.WriteRunInfo(dir, ri))
	eng, err := sim.Open([]sim.Target{{Name: "sim:" + model, Model: m, StateDir: filepath.Join(dir, "sim")}})
	require.NoError(t, err)
	closed := false
	defer func() {
		if !closed {
			eng.Close()
		}
	}()
	j, err := pts.OpenJournal(dir)
	require.NoError(t, err)
	defer j.Close()
	clock := Start
	method := c.Purge
	if method == "auto" {
		method = precondition.SimFormat
	}
	r := &pts.Runner{Info: ri, Engine: eng, Journal: j, Cache: eng,
		Purger: &precondition.Purger{Method: method, Engine: eng},
		Now:    func() time.Time { clock = clock.Add(time.Second); return clock }}
	require.NoError(t, r.Run(context.Background(), nil))
	require.NoError(t, j.Close())
	closed = true
	require.NoError(t, eng.Close())
}
