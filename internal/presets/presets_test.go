package presets

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ptsrun/ptsrun/internal/engine"
	"github.com/ptsrun/ptsrun/internal/pts"
)

func TestPresets(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range All(0) {
		assert.False(t, seen[p.Name], "%s twice", p.Name)
		seen[p.Name] = true
		require.NoError(t, p.Workload.Validate(512), p.Name)
		assert.NotEmpty(t, p.About, p.Name)
		assert.Contains(t, []string{groupWSAT, groupArray, groupHCI}, p.Group, p.Name)
		k, err := pts.ParseCellKey(p.Name)
		assert.Error(t, err, "%s would read back as the matrix cell %s", p.Name, k)
	}
	assert.Len(t, seen, 14)

	// The WSAT stimuli are WSAT's own, at the PTS-E load.
	for name, stimulus := range map[string]string{"write-intensive": "write", "oltp": "oltp", "vod": "vod", "metadata": "metadata", "composite": "composite"} {
		p, err := Lookup(name, 0)
		require.NoError(t, err)
		want, _, err := pts.WSATStimulus(stimulus, 0)
		require.NoError(t, err)
		want.TC, want.QD, want.ActiveRange, want.Duration = 4, 32, 100, stimulusTime
		assert.Equal(t, want, p.Workload, name)
	}
	comp, _ := Lookup("composite", 0)
	ecw, _ := pts.CompositeWorkload(0)
	assert.Equal(t, ecw.BlockSplit, comp.Workload.BlockSplit)
	assert.Equal(t, ecw.Zones, comp.Workload.Zones)
	comp4k, _ := Lookup("composite", 4096)
	assert.Equal(t, int64(4096), comp4k.Workload.BlockSplit[0].Bytes, "on 4Kn targets the sizes below 4 KiB are left out")

	dbms, err := Lookup("DBMS", 0)
	require.NoError(t, err)
	assert.Equal(t, engine.Workload{Access: engine.Random, BlockSize: 4096, ReadPct: 70, TC: 16, QD: 32, ActiveRange: 100,
		Duration: 75 * time.Minute, Ramp: 15 * time.Minute}, dbms.Workload)
	assert.Equal(t, time.Hour, dbms.Workload.Measured())
	st, _ := Lookup("streaming", 0)
	assert.Equal(t, "SEQ 4 MiB 100/0 TC1/QD64", st.Workload.String())
	h, _ := Lookup("hci-64k-75/25-rnd80", 0)
	assert.Equal(t, "RND80% 64 KiB 75/25 TC4/QD1", h.Workload.String())
	assert.Equal(t, 10*time.Minute, h.Workload.Measured())

	_, err = Lookup("oltp2", 0)
	assert.EqualError(t, err, `unknown preset "oltp2": known are write-intensive, oltp, vod, metadata, composite, dbms, seq128k-read, `+
		`seq128k-write, streaming, hci-4k-read, hci-4k-70/30, hci-4k-50/50-rnd80, hci-64k-75/25-rnd80, hci-8k-75/25-rnd80 (--preset list shows them)`)
}
