package confine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test binary confines what it runs as ptsrun does: Init first.
func TestMain(m *testing.M) {
	Init()
	os.Exit(m.Run())
}

func needLandlock(t *testing.T) {
	t.Helper()
	if ABI() == 0 {
		t.Skip("needs a kernel with Landlock (ABI() == 0 here)")
	}
}

// sh runs a shell script confined to rules and returns its exit status.
func sh(t *testing.T, rules []Rule, script string) int {
	t.Helper()
	p, err := Pin(rules)
	if err != nil {
		t.Log(err)
		return 126
	}
	defer p.Close()
	return shPinned(t, p, script)
}

func shPinned(t *testing.T, p *Pinned, script string) int {
	t.Helper()
	cmd, why := p.Command(context.Background(), "sh", "-c", script)
	require.Empty(t, why)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		var ee interface{ ExitCode() int }
		require.ErrorAs(t, err, &ee)
		return ee.ExitCode()
	}
	return 0
}

// Below a directory of the rules everything may be written; elsewhere
// nothing, and reading stays free.
func TestConfinedToItsDirectories(t *testing.T) {
	needLandlock(t)
	allowed, denied := t.TempDir(), t.TempDir()
	other := filepath.Join(denied, "other.dat")
	require.NoError(t, os.WriteFile(other, []byte("keep"), 0o644))
	rules := []Rule{{Path: allowed, Dir: true}}
	assert.Equal(t, 0, sh(t, rules, "mkdir "+allowed+"/d && echo x > "+allowed+"/d/f && rm "+allowed+"/d/f && cat "+other+" >/dev/null"))
	assert.NotEqual(t, 0, sh(t, rules, "echo x > "+denied+"/new"))
	assert.NoFileExists(t, filepath.Join(denied, "new"))
	assert.NotEqual(t, 0, sh(t, rules, "echo x > "+other))
	assert.NotEqual(t, 0, sh(t, rules, "rm -f "+other))
	assert.NotEqual(t, 0, sh(t, rules, "truncate -s 0 "+other))
	got, err := os.ReadFile(other)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(got))
}

// A rule on a file holds that file: the name swapped for a link to
// another file leads outside the rules, and the write is refused.
func TestAFileSwappedForALinkIsNotWritten(t *testing.T) {
	needLandlock(t)
	dir, elsewhere := t.TempDir(), t.TempDir()
	own := filepath.Join(dir, "scratch.dat")
	require.NoError(t, os.WriteFile(own, []byte("scratch"), 0o644))
	victim := filepath.Join(elsewhere, "important.dat")
	require.NoError(t, os.WriteFile(victim, []byte("keep"), 0o644))
	p, err := Pin([]Rule{{Path: own}})
	require.NoError(t, err)
	defer p.Close()
	assert.Equal(t, 0, shPinned(t, p, "echo x >> "+own))
	require.NoError(t, p.Check())
	require.NoError(t, os.Rename(own, own+".old"))
	require.NoError(t, os.Symlink(victim, own))
	assert.ErrorContains(t, p.Check(), "names another file than the one judged")
	assert.NotEqual(t, 0, shPinned(t, p, "echo x >> "+own))
	got, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(got))
}

// A rule naming what is not there, or a file as a directory, stops the
// command before it runs (exit 126), rather than running it less
// confined.
func TestBadRulesRunNothing(t *testing.T) {
	needLandlock(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	file := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err := Pin([]Rule{{Path: filepath.Join(dir, "missing"), Dir: true}})
	assert.ErrorContains(t, err, "missing: no such file or directory")
	assert.Equal(t, 126, sh(t, []Rule{{Path: file, Dir: true}, {Path: dir, Dir: true}}, "touch "+marker))
	assert.NoFileExists(t, marker)
}
