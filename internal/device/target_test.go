package device

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want Spec
	}{
		{"sim", Spec{Kind: KindSim}},
		{"sim:client", Spec{Kind: KindSim, Model: "client"}},
		{"file:/data/a.img:1g", Spec{Kind: KindFile, Path: "/data/a.img", Size: 1 << 30}},
		// A ':' in the name is the name's; only a size after the last one is read.
		{"file:/data/a:b.img:16m", Spec{Kind: KindFile, Path: "/data/a:b.img", Size: 16 << 20}},
		{"file:/data/a:b.img", Spec{Kind: KindFile, Path: "/data/a:b.img"}},
		{"/dev/disk/by-path/pci-0000:00:1f.2-ata-1", Spec{Kind: KindBlock, Path: "/dev/disk/by-path/pci-0000:00:1f.2-ata-1"}},
	} {
		got, err := ParseSpec(tc.spec)
		require.NoError(t, err, tc.spec)
		tc.want.Raw = tc.spec
		assert.Equal(t, tc.want, got)
	}
}

// A relative path is made absolute against the working directory before
// anything inspects it: checked at /+PATH but written relative to the
// working directory, a file target overwrote what nobody named (issue 19).
func TestParseSpecMakesPathsAbsolute(t *testing.T) {
	t.Chdir(t.TempDir())
	cwd, err := os.Getwd()
	require.NoError(t, err)
	for _, tc := range []struct {
		spec string
		want Spec
	}{
		{"file:db.img:64M", Spec{Raw: "file:" + cwd + "/db.img:64M", Kind: KindFile, Path: cwd + "/db.img", Size: 64 << 20}},
		{"file:./a/../db.img", Spec{Raw: "file:" + cwd + "/db.img", Kind: KindFile, Path: cwd + "/db.img"}},
		{"file:../x.img:1m", Spec{Raw: "file:" + filepath.Dir(cwd) + "/x.img:1m", Kind: KindFile, Path: filepath.Dir(cwd) + "/x.img", Size: 1 << 20}},
		{"loop0", Spec{Raw: cwd + "/loop0", Kind: KindBlock, Path: cwd + "/loop0"}},
		// Absolute ones keep their spelling, cleaned in Path only.
		{"file:/data//a.img", Spec{Raw: "file:/data//a.img", Kind: KindFile, Path: "/data/a.img"}},
	} {
		got, err := ParseSpec(tc.spec)
		require.NoError(t, err, tc.spec)
		assert.Equal(t, tc.want, got, tc.spec)
	}
}

// A newline in a path would end an option of a fio job file and start
// another: no target may hold a control character.
func TestParseSpecRefusesControlCharacters(t *testing.T) {
	for _, tc := range []struct{ spec, msg string }{
		{"file:/tmp/xx\nexec_prerun=touch pwned", `target "file:/tmp/xx\nexec_prerun=touch pwned": control character '\n' at byte 12`},
		{"file:/tmp/xx\nexec_prerun=touch pwned:1m", `control character '\n'`},
		{"/dev/sdb\n", `target "/dev/sdb\n": control character '\n' at byte 8`},
		{"file:/tmp/a\tb.img:1m", `control character '\t'`},
		{"file:/tmp/a\rb.img", `control character '\r'`},
		{"file:/tmp/a\x7fb.img", `control character '\x7f'`},
		{"sim:client\x00", `control character '\x00'`},
	} {
		_, err := ParseSpec(tc.spec)
		if assert.Error(t, err, "%q", tc.spec) {
			assert.Contains(t, err.Error(), tc.msg)
			assert.NotContains(t, err.Error(), "\n", "one line")
		}
	}
}
