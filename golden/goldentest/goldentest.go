// Package goldentest holds what the project's tests share for golden
// files: comparing output with a file under testdata (rewritten with
// -update) and a deterministic run of the whole methodology on the
// simulated drive, with a fixed clock and host, to produce results worth
// freezing.
package goldentest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/device"
	"github.com/ptsrun/ptsrun/engine/sim"
	"github.com/ptsrun/ptsrun/matrix"
	"github.com/ptsrun/ptsrun/precondition"
	"github.com/ptsrun/ptsrun/pts"
)

// File compares got with the golden file at path; with update it rewrites
// the file first. The failure says how to update.
func File(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing: run the test with -update to create %s", path)
	assert.Equal(t, string(want), string(got),
		"output differs from %s; if the change is intended, rerun the test with -update and review the diff", path)
}

// Start is the fixed start of SimRun's runs: the journal's clock.
var Start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// SimRun runs the methodology on a simulated drive (model enterprise or
// client) in a new run directory with a fixed clock and host, so that
// everything derived from it is reproducible, and returns its results.
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
	p, err := c.Resolve()
	require.NoError(t, err)
	m, err := sim.Lookup(model)
	require.NoError(t, err)
	id := sim.IdentityOf(m, 0)
	dir := t.TempDir()
	ri := pts.RunInfo{Schema: pts.Schema, Tool: "ptsrun", Version: "0.0.0-test", Created: Start, Config: c, Profile: p,
		Stages: c.Stages(p), Engine: "sim (ptsrun simulated SSD model, not hardware)",
		Host: device.Host{Hostname: "testhost", OS: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0", Arch: "amd64",
			CPUModel: "Test CPU", CPUs: 2, MemoryBytes: 24 << 30, Ptsrun: "0.0.0-test", Go: "go1.26"},
		Targets: []device.Identity{{Spec: "sim:" + model, Kind: device.KindSim, Vendor: id.Vendor, Model: id.Product,
			Serial: id.Serial, Firmware: id.Firmware, CapacityBytes: id.Capacity, LogicalBlock: id.LogicalBlock,
			PhysicalBlock: 4096, Interface: "simulated NVMe"}}}
	require.NoError(t, pts.WriteRunInfo(dir, ri))
	eng, err := sim.Open([]sim.Target{{Name: "sim:" + model, Model: m, StateDir: filepath.Join(dir, "sim")}})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	j, err := pts.OpenJournal(dir)
	require.NoError(t, err)
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
	res, ri2, err := matrix.Load(dir)
	require.NoError(t, err)
	return ri2, res, dir
}
