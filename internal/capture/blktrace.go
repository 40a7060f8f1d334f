package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// blktraceMagic is the first word of every blk_io_trace record, its low
// byte the format's version (linux/blktrace_api.h: BLK_IO_TRACE_MAGIC).
const blktraceMagic = 0x65617400

// IsBlktrace reports whether head begins with a blktrace binary record,
// in either byte order (blktrace writes the host's).
func IsBlktrace(head []byte) bool {
	if len(head) < 4 {
		return false
	}
	return binary.LittleEndian.Uint32(head)&0xffffff00 == blktraceMagic ||
		binary.BigEndian.Uint32(head)&0xffffff00 == blktraceMagic
}

// cpuFile is a blktrace output file's name: DEVICE.blktrace.CPU.
var cpuFile = regexp.MustCompile(`^(.+)\.blktrace\.[0-9]+$`)

// BlktraceText turns the blktrace binary file path into blkparse's default
// text output, which Parse reads, with blkparse (Debian: blktrace). A
// file DEVICE.blktrace.N is one CPU's part of a trace: every part beside
// it is read with it (blkparse -i DEVICE), as blktrace wrote them. It
// returns the text and what it read, for the capture's name.
func BlktraceText(ctx context.Context, path string) (text []byte, read string, err error) {
	bin, err := exec.LookPath("blkparse")
	if err != nil {
		return nil, "", fmt.Errorf("%s is a blktrace binary file: blkparse reads it, and is not installed (Debian: apt-get install blktrace); "+
			"or give its text output (blkparse -i DEVICE > FILE)", path)
	}
	dir, base := filepath.Split(path)
	input, read := base, path
	if m := cpuFile.FindStringSubmatch(base); m != nil {
		// blkparse -i DEVICE reads DEVICE.blktrace.0, .1, … to the first
		// CPU number without a file, as blktrace writes one per CPU.
		parts, _ := filepath.Glob(filepath.Join(dir, globEscape(m[1])+".blktrace.*"))
		input, read = m[1], fmt.Sprintf("%s (%d CPU files)", filepath.Join(dir, m[1]+".blktrace.*"), len(parts))
	}
	if dir == "" {
		dir = "."
	}
	// -D: the files are looked for there, not in the working directory;
	// -q: no per-CPU summary after the events; stdout is the text.
	args := []string{"-q", "-D", dir, "-i", input}
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, read, fmt.Errorf("%s: blkparse: %v: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	// blkparse says which files it read on stdout too: those lines are not
	// events.
	var keep []byte
	for l := range bytes.Lines(out) {
		if !bytes.HasPrefix(l, []byte("Input file ")) {
			keep = append(keep, l...)
		}
	}
	out = keep
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, read, fmt.Errorf("%s: blkparse read no events from it", path)
	}
	return out, read, nil
}

// globEscape escapes the pattern characters of a file name for Glob.
func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
	return r.Replace(s)
}

// blktraceHead reads the first bytes of path, to tell a binary trace.
func blktraceHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, err := io.ReadFull(f, head)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil // shorter than a record: not a binary trace
	}
	return head[:n], err
}
