package pts

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run.json's stage IDs reach fio job files and globs: one that is not a
// plain name is refused by every reader (issue 19: a stage ID holding
// "\nexec_prerun=" made resume run a command).
func TestRunInfoStageIDs(t *testing.T) {
	cfg := DefaultConfig()
	p, err := cfg.Resolve()
	require.NoError(t, err)
	stages := cfg.Stages(p)
	for _, tc := range []struct {
		id  string
		err string // "" accepted
	}{
		{"iops", ""},
		{"tp-1024k", ""},
		{"dirth-max", ""},
		{"iops\nexec_prerun=touch PWNED\n", `stage 1 has the ID "iops\nexec_prerun=touch PWNED\n"`},
		{"../../etc/x", "a stage ID is a plain name"},
		{".hidden", "a stage ID is a plain name"},
		{"", "a stage ID is a plain name"},
		{"a b", "a stage ID is a plain name"},
	} {
		dir := t.TempDir()
		ri := RunInfo{Schema: Schema, Tool: "ptsrun", Config: cfg, Profile: p, Stages: append([]Stage(nil), stages...)}
		ri.Stages[0].ID = tc.id
		require.NoError(t, WriteRunInfo(dir, ri))
		_, err := LoadRunInfo(dir)
		if tc.err == "" {
			assert.NoError(t, err, "%q", tc.id)
			continue
		}
		assert.ErrorContains(t, err, tc.err, "%q", tc.id)
	}
	dir := t.TempDir()
	bad := cfg
	bad.Targets = []string{"file:/tmp/x\nexec_prerun=touch PWNED"}
	require.NoError(t, WriteRunInfo(dir, RunInfo{Schema: Schema, Tool: "ptsrun", Config: bad, Profile: p, Stages: stages}))
	_, err = LoadRunInfo(dir)
	assert.ErrorContains(t, err, `control character '\n'`)
}

// Resume runs the stages the configuration builds, and refuses a run.json
// whose recorded stages are otherwise.
func TestCheckStages(t *testing.T) {
	cfg := DefaultConfig()
	p, err := cfg.Resolve()
	require.NoError(t, err)
	built := cfg.Stages(p)
	require.NoError(t, CheckStages(cfg.Stages(p), built))

	edited := cfg.Stages(p)
	edited[1].Cells[0].Workload.BlockSize *= 2
	assert.ErrorContains(t, CheckStages(edited, built), `stage 2 as run.json records it ("tp-1024k") is not the stage "tp-1024k" its configuration makes`)
	edited = cfg.Stages(p)
	edited[0].ID = "lat"
	assert.ErrorContains(t, CheckStages(edited, built), `stage 1 as run.json records it ("lat") is not the stage "iops"`)
	assert.ErrorContains(t, CheckStages(built[:1], built), "run.json records 1 stages; its configuration makes")
}
