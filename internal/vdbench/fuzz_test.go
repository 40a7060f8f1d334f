package vdbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sample files translate.
func TestSamples(t *testing.T) {
	for _, c := range []struct {
		file  string
		runs  int
		first string
	}{
		{"hci.parm", 6, "run1 [/dev/sda /dev/sdb] RND 64 KiB 75/25 TC1/QD4 random 80% 6m0s ramp 1m0s"},
		{"loops.parm", 5 * 2 * 3 * 2, "sweep-xfersize=4k-rdpct=0-seekpct=0-threads=1 [file:/tmp/ptsrun-vdbench.img:1073741824] SEQ 4 KiB 0/100 TC1/QD1 2m0s ramp 1s"},
		{"include.parm", 1, "rd1 [/dev/nvme0n1] RND 4 KiB 100/0 TC32/QD1 10s ramp 1s"},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := ParseFile(filepath.Join("testdata", c.file), os.ReadFile)
			require.NoError(t, err)
			p, err := Translate(f)
			require.NoError(t, err)
			require.Len(t, p.Runs, c.runs)
			assert.Equal(t, c.first, brief(p.Runs[0]))
		})
	}
}

// FuzzParse: any input parses and translates or is refused with an
// *Error naming a line, in one line; what translates is a valid workload.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.parm"))
	for _, n := range files {
		b, err := os.ReadFile(n)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte("sd=sd1,lun=\"/dev/a b\",openflags=o_direct\nwd=w,sd=(sd1-sd3),xf=(4k,50,8k,50\n,)\nrd=r,wd=w*,io=(1-4,d),el=2"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("parm", data, Options{})
		var p *Plan
		if err == nil {
			p, err = Translate(file)
		}
		if err != nil {
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("not an *Error: %v", err)
			}
			if e.Pos.Line < 1 || strings.Contains(err.Error(), "\n") {
				t.Fatalf("bad error: %q", err)
			}
			return
		}
		for _, r := range p.Runs {
			if err := r.Workload.Validate(512); err != nil {
				t.Fatalf("run %s: %v", r.Name, err)
			}
			if len(r.Targets) == 0 || r.Name == "" {
				t.Fatalf("run %+v", r)
			}
		}
	})
}
