package fiojobs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/engine/fio"
)

func abs(cwd, p string) string { return fio.Place(cwd, p) }

// live says the gate looks at this host, not a fixture tree.
func (o gateOptions) live() bool { return o.FS.Root == device.Live.Root }

// real is path p (absolute) as the kernel resolves it: symbolic links
// followed, a dangling one to where fio would create its target, each ".."
// taken after them; the part that does not exist yet (fio makes the
// missing directories) as written. On a fixture tree, p cleaned.
func (o gateOptions) real(p string) string {
	r, _ := o.resolved(p)
	return r
}

// resolved is real(p), and why ptsrun cannot tell where p leads when it
// cannot: a ".." after a directory that does not exist yet. fio makes
// that directory, and the kernel then takes the ".." from wherever the
// rest leads (a link made meanwhile, or one further on), not from the
// text.
func (o gateOptions) resolved(p string) (string, string) {
	switch {
	case p == "":
		return "", ""
	case !o.live():
		return filepath.Clean(p), ""
	}
	return resolve(p, 0)
}

func resolve(p string, depth int) (string, string) {
	if depth > 40 {
		return filepath.Clean(p), "" // the kernel says ELOOP: fio opens nothing
	}
	resolved := "/"
	parts := strings.Split(p, "/")
	for i, c := range parts {
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if err != nil {
			rest := parts[i+1:]
			if slices.Contains(rest, "..") {
				return filepath.Join(append([]string{resolved}, parts[i:]...)...),
					fmt.Sprintf("it goes through %s, which does not exist yet, and then \"..\": fio makes the directory, and where \"..\" then leads is the kernel's, not the text's", next)
			}
			return filepath.Join(append([]string{resolved}, parts[i:]...)...), ""
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(next)
			if err != nil {
				return next, ""
			}
			if !filepath.IsAbs(target) {
				target = resolved + "/" + target
			}
			return resolve(target+"/"+strings.Join(parts[i+1:], "/"), depth+1)
		}
		resolved = next
	}
	return resolved, ""
}

// target places a file fio names and says what it is, on this host or on
// the fio server h.
func (o gateOptions) target(f fio.FileRef, h string) Target {
	if h != "" {
		return Target{Name: f.Name, At: f.At, Path: f.Name, Host: h, Kind: kindRemote, key: h + "=" + f.Name}
	}
	// What the kernel opens: the name as fio has it, in its working
	// directory, links followed (a link in the job's directory to a file
	// elsewhere is that file; a ".." after a link is the target's).
	raw := abs(o.Cwd, f.Name)
	t := Target{Name: f.Name, At: f.At}
	t.Path, t.unresolved = o.resolved(raw)
	t.stat = o.Stat.Stat(raw)
	switch t.stat.Kind {
	case fio.Missing:
		t.Kind = kindNewFile
		if t.Path == "/dev" || strings.HasPrefix(t.Path, "/dev/") {
			t.Kind = kindMissing
		}
	case fio.Regular:
		t.Kind = kindFile
	case fio.Directory:
		t.Kind = kindDir
	case fio.Char:
		t.Kind = kindChar
	case fio.Other:
		t.Kind = kindOther
	case fio.Block:
		t.Kind = kindBlock
		dt, err := o.FS.Inspect(device.Spec{Raw: t.Path, Kind: device.KindBlock, Path: t.Path})
		if err != nil {
			t.inspectErr = err
			t.key = t.Path
			return t
		}
		t.dev = &dt
		t.Path = dt.Block.Path()
	}
	t.key = t.Path
	return t
}

// isDir says path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// inside says whether path is one of dirs or below one.
func inside(path string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if path == d || strings.HasPrefix(path, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}
