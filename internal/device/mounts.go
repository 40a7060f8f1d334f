package device

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// Mount is one line of /proc/self/mountinfo.
type Mount struct {
	Dev        string // major:minor of the mounted filesystem's device
	MountPoint string
	FSType     string
	Source     string
}

// parseMountInfo reads proc(5) mountinfo: fields 3 (major:minor) and 5
// (mount point), then after the " - " separator the type and the source.
func parseMountInfo(r io.Reader) ([]Mount, error) {
	var out []Mount
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		pre, post, ok := strings.Cut(line, " - ")
		f := strings.Fields(pre)
		g := strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 2 {
			return nil, fmt.Errorf("mountinfo line %d: %q is not a mount", n, line)
		}
		out = append(out, Mount{Dev: f[2], MountPoint: unescape(f[4]), FSType: g[0], Source: unescape(g[1])})
	}
	return out, sc.Err()
}

// unescape undoes the octal escapes of mountinfo (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%3o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Mounts reads the mount table.
func (fs FS) Mounts() ([]Mount, error) {
	f, err := os.Open(fs.path("proc/self/mountinfo"))
	if err != nil {
		return nil, fmt.Errorf("reading the mount table: %w", err)
	}
	defer f.Close()
	return parseMountInfo(f)
}

// Swaps lists the device or file paths of active swap (/proc/swaps).
func (fs FS) Swaps() []string {
	var out []string
	for i, line := range strings.Split(fs.read("proc/swaps"), "\n") {
		if i == 0 || strings.TrimSpace(line) == "" {
			continue
		}
		out = append(out, unescape(strings.Fields(line)[0]))
	}
	return out
}
