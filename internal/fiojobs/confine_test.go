package fiojobs

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ptsrun/ptsrun/internal/confine"
	"github.com/ptsrun/ptsrun/internal/device"
)

// fio may write the run directory and what each verdict let it, and no
// more: a file --destroy-data names alone is the file, not its directory.
func TestConfineRules(t *testing.T) {
	f := &Jobs{dir: "/run", gate: gateOptions{FS: device.FS{Root: t.TempDir()}, DestroyData: []string{"/srv/scratch", "/home/u/data.bin", "/dev/loop7"}},
		Plan: &Plan{
			Targets: []Target{
				{Path: "/dev/loop7", Kind: kindBlock, Written: true},
				{Path: "/work/jobs/own.dat", Kind: kindFile, Written: true, replaced: true},
				{Path: "/work/jobs/inplace.dat", Kind: kindFile, Written: true},
				{Path: "/srv/scratch/a/b.dat", Kind: kindFile, Written: true, Outside: true, replaced: true},
				{Path: "/srv/scratch/c.dat", Kind: kindFile, Written: true, Outside: true},
				{Path: "/home/u/data.bin", Kind: kindFile, Written: true, Outside: true},
				{Path: "/work/jobs/new.dat", Kind: kindNewFile, Written: true},
				{Path: "/srv/scratch/new/sub/x.dat", Kind: kindNewFile, Written: true, Outside: true},
				{Path: "/home/u/new.dat", Kind: kindNewFile, Written: true, Outside: true}, // refused by the gate: no rule
				{Path: "/data/read.dat", Kind: kindFile},
				{Path: "/run/fio/logs/x.log", Kind: kindFile, Written: true, Log: true},
				{Path: "/remote.dat", Kind: kindRemote, Host: "h:8765", Written: true},
			},
			Threads: []Thread{{File: 0, Targets: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}, {File: 1, Targets: []int{1}}},
		}}
	assert.Equal(t, []confine.Rule{
		{Path: "/run", Dir: true},
		{Path: "/dev/loop7"},
		{Path: "/work/jobs/own.dat"}, {Path: "/work/jobs", Dir: true},
		{Path: "/work/jobs/inplace.dat"},
		{Path: "/srv/scratch/a/b.dat"}, {Path: "/srv/scratch", Dir: true},
		{Path: "/srv/scratch/c.dat"},
		{Path: "/home/u/data.bin"},
	}, f.confineRules(0))
	assert.Equal(t, []confine.Rule{{Path: "/run", Dir: true}, {Path: "/work/jobs/own.dat"}, {Path: "/work/jobs", Dir: true}}, f.confineRules(1))
}
