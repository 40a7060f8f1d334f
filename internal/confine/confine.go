package confine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
)

// Rule grants writing at Path: everything below it, for a directory given
// with Dir (writing, truncating, making and removing files and
// directories); the file or device node itself otherwise (writing and
// truncating it, not replacing it).
type Rule struct {
	Path string `json:"path"`
	Dir  bool   `json:"dir,omitempty"`
	// FD is the descriptor the confined process finds the file or
	// directory on, opened by Pin: the rule holds what Path named then,
	// not what it names when the command starts.
	FD int `json:"fd,omitempty"`
}

// arg is the hidden first argument that makes ptsrun confine itself and
// exec the command.
const arg = "__ptsrun-confine"

// hooked says Init ran: this binary can confine what it runs.
var hooked bool

// Init is the first call of main. Started by a Pinned's Command, it
// confines the process to the rules and execs the command, and never
// returns (exit 126, saying why, when it cannot). Otherwise it only notes
// that this binary can confine.
func Init() {
	if len(os.Args) < 2 || os.Args[1] != arg {
		hooked = true
		return
	}
	err := confineAndExec(os.Args[2:])
	fmt.Fprintf(os.Stderr, "ptsrun: cannot confine the command: %v\n", err)
	os.Exit(126)
}

// Pinned are rules whose files and directories are held open (O_PATH):
// what each path named when Pin opened it is what its rule grants, even
// when the name is swapped later.
type Pinned struct {
	rules []Rule
	files []*os.File
}

// Pin opens every rule's path (links followed), and /dev/null, which is
// everyone's to write.
func Pin(rules []Rule) (*Pinned, error) {
	p := &Pinned{}
	for _, r := range append([]Rule{{Path: os.DevNull}}, rules...) {
		f, err := openPath(r.Path)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.files = append(p.files, f)
		p.rules = append(p.rules, r)
	}
	return p, nil
}

// Rules are the rules pinned, /dev/null's first.
func (p *Pinned) Rules() []Rule { return p.rules }

// Check says whether every path still names what was pinned: the same
// file, device or directory (device and inode numbers).
func (p *Pinned) Check() error {
	for i, f := range p.files {
		held, err := f.Stat()
		if err != nil {
			return fmt.Errorf("%s: %w", p.rules[i].Path, err)
		}
		now, err := os.Stat(p.rules[i].Path)
		if err != nil {
			return fmt.Errorf("%s: %w", p.rules[i].Path, err)
		}
		if !os.SameFile(held, now) {
			return fmt.Errorf("%s names another file than the one judged", p.rules[i].Path)
		}
	}
	return nil
}

// Close lets the pinned files go.
func (p *Pinned) Close() {
	for _, f := range p.files {
		f.Close()
	}
	p.files = nil
}

// Unavailable says why what ptsrun runs cannot be confined here; "" when
// it can.
func Unavailable() string {
	switch {
	case !hooked:
		return "this binary does not confine what it runs"
	case ABI() == 0:
		return "the kernel has no Landlock"
	}
	if _, err := os.Executable(); err != nil {
		return "ptsrun cannot find its own binary: " + err.Error()
	}
	return ""
}

// Command is the command that runs name with args, confined to the
// pinned rules when it can be; why it is not, otherwise ("" when it is).
func (p *Pinned) Command(ctx context.Context, name string, args ...string) (*exec.Cmd, string) {
	why := Unavailable()
	self, _ := os.Executable()
	if why != "" {
		return exec.CommandContext(ctx, name, args...), why
	}
	rules := make([]Rule, len(p.rules))
	for i, r := range p.rules {
		r.FD = 3 + i // ExtraFiles are the child's 3, 4, …
		rules[i] = r
	}
	spec, _ := json.Marshal(rules)
	cmd := exec.CommandContext(ctx, self, append([]string{arg, string(spec), "--", name}, args...)...)
	cmd.ExtraFiles = p.files
	return cmd, ""
}

// confineAndExec is Init's work: args are the rules (JSON), "--", the
// command and its arguments.
func confineAndExec(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return fmt.Errorf("usage: %s RULES -- COMMAND [ARG...]", arg)
	}
	var rules []Rule
	if err := json.Unmarshal([]byte(args[0]), &rules); err != nil {
		return fmt.Errorf("the rules: %w", err)
	}
	for _, r := range rules {
		if r.FD < 3 {
			return fmt.Errorf("the rule for %s has no descriptor", r.Path)
		}
	}
	path, err := exec.LookPath(args[2])
	if err != nil {
		return err
	}
	return restrictAndExec(rules, path, args[2:])
}
