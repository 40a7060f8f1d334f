package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/pts"
)

// command is one command of ptsrun, by its path ("import fio").
type command struct {
	path []string
	cmd  *cli.Command
}

// commands are every command of ptsrun without subcommands.
func commands() []command {
	var out []command
	var walk func([]string, []*cli.Command)
	walk = func(at []string, cs []*cli.Command) {
		for _, c := range cs {
			p := append(slices.Clone(at), c.Name)
			if len(c.Subcommands) > 0 {
				walk(p, c.Subcommands)
				continue
			}
			out = append(out, command{p, c})
		}
	}
	walk(nil, newApp(io.Discard, io.Discard).Commands)
	return out
}

// withAction runs ptsrun's command at path with args (and its required
// flags), its action replaced by act: the flags as the command reads them.
func withAction(path, args []string, act func(*cli.Context) error) error {
	app := newApp(io.Discard, io.Discard)
	cs := app.Commands
	var cmd *cli.Command
	for _, name := range path {
		for _, c := range cs {
			if c.Name == name {
				cmd, cs = c, c.Subcommands
			}
		}
	}
	for _, f := range cmd.Flags {
		if r, ok := f.(cli.RequiredFlag); ok && r.IsRequired() && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--"+f.Names()[0]) }) {
			args = append([]string{"--" + f.Names()[0] + "=required"}, args...)
		}
	}
	cmd.Action = act
	return app.Run(slices.Concat([]string{"ptsrun"}, path, args))
}

// optionReaders read the options of the commands that have a reader of
// their own, with the arguments they need: what a flag's default really
// is, beyond the value urfave holds.
var optionReaders = map[string]struct {
	args []string
	read func(*cli.Context) (any, error)
}{
	"run":      {nil, readRunOptions},
	"plan":     {nil, readRunOptions},
	"workload": {nil, readWorkloadOptions},
	"check":    {[]string{"run"}, func(c *cli.Context) (any, error) { return checkOptionsFrom(c) }},
}

// readRunOptions reads run's options and checks them as plan does, on the
// simulated drive; a parameter given its default reads as one left out.
func readRunOptions(c *cli.Context) (any, error) {
	o, err := runOptionsFrom(c)
	if err != nil {
		return nil, err
	}
	cfg := o.Config
	cfg.Targets = []string{"sim"}
	if _, err := checkRun(context.Background(), cfg, false); err != nil {
		return nil, err
	}
	for _, p := range pts.AllParams() {
		if v, ok := o.Config.Params[p.Flag]; ok && (v == p.Default || p.Switch && v == "false") {
			delete(o.Config.Params, p.Flag)
		}
	}
	if len(o.Config.Params) == 0 {
		o.Config.Params = nil
	}
	return o, nil
}

// readWorkloadOptions reads workload's options; which flags were given
// matters only to presets.
func readWorkloadOptions(c *cli.Context) (any, error) {
	o, err := workloadOptionsFrom(c)
	o.Set = nil
	return o, err
}

var envHint = regexp.MustCompile(` \[\$[A-Z_, $]+\]$`)

// printedDefault is the default a flag's help prints, if any.
func printedDefault(f cli.Flag) (string, bool) {
	s := envHint.ReplaceAllString(f.String(), "")
	i := strings.LastIndex(s, " (default: ")
	if i < 0 {
		return "", false
	}
	d := strings.TrimSuffix(s[i+len(" (default: "):], ")")
	if u, err := unquote(d); err == nil {
		d = u
	}
	return d, true
}

func unquote(s string) (string, error) {
	if len(s) < 2 || s[0] != '"' {
		return "", os.ErrInvalid
	}
	return s[1 : len(s)-1], nil
}

// defaultText is the words a flag's DefaultText says its default in.
func defaultText(f cli.Flag) string {
	v := reflect.ValueOf(f).Elem().FieldByName("DefaultText")
	if !v.IsValid() {
		return ""
	}
	return v.String()
}

// hasZeroValue says the flag's value is its type's zero: unset.
func hasZeroValue(f cli.Flag) bool {
	if g, ok := f.(*cli.GenericFlag); ok {
		return g.Value == nil || g.Value.String() == ""
	}
	return reflect.ValueOf(f).Elem().FieldByName("Value").IsZero()
}

// Every flag of every command prints its default once, and truly: words
// (DefaultText) only for a flag whose value is unset, where the words say
// what unset means; a printed value is what the command reads when the
// flag is left out, so that giving it changes nothing (for the commands
// with an options reader, the options are the same; for every command,
// the flag reads the same value).
func TestFlagDefaultsPrintedOnceAndTrue(t *testing.T) {
	for _, c := range commands() {
		for _, f := range c.cmd.Flags {
			name := f.Names()[0]
			t.Run(strings.Join(c.path, " ")+" --"+name, func(t *testing.T) {
				s := f.String()
				assert.LessOrEqual(t, strings.Count(s, "(default:"), 1, "a default printed twice: %s", s)
				if u, ok := f.(cli.DocGenerationFlag); ok {
					assert.NotContains(t, u.GetUsage(), "default:", "a default in the usage: say it in DefaultText")
				}
				printed, ok := printedDefault(f)
				if !ok {
					return
				}
				words := defaultText(f)
				if words != "" && hasZeroValue(f) {
					return // what the flag left out means, in words
				}
				value := printed
				if words != "" {
					// A value with words after it: "1m, the PTS's".
					value, _, _ = strings.Cut(strings.FieldsFunc(printed, func(r rune) bool { return r == ',' || r == ';' })[0], " ")
				}
				flagArg := "--" + name + "=" + value
				if len(name) == 1 {
					flagArg = "-" + name + "=" + value
				}
				read := func(args []string) any {
					var got any
					require.NoError(t, withAction(c.path, args, func(cc *cli.Context) error {
						got = cc.Value(name)
						return nil
					}), "%s %v", c.path, args)
					return got
				}
				assert.Equal(t, read(nil), read([]string{flagArg}), "the printed default %q is not what %s reads when left out", printed, name)
				r, ok := optionReaders[c.path[0]]
				if !ok {
					return
				}
				if c.path[0] == "run" || c.path[0] == "plan" {
					for _, td := range pts.Tests {
						if slices.ContainsFunc(td.Params, func(p pts.Param) bool { return p.Flag == name }) {
							flagArg += " --tests=" + string(td.ID) // a test's parameter goes with it
							if td.Input == "--capture" {
								flagArg += " --capture=" + rwswCapture // and the input the test needs
							}
						}
					}
				}
				options := func(args []string) any {
					args = slices.Concat(strings.Fields(strings.Join(args, " ")), r.args)
					var got any
					err := withAction(c.path, args, func(cc *cli.Context) error {
						var err error
						got, err = r.read(cc)
						return err
					})
					require.NoError(t, err, "%s %v", c.path, args)
					return got
				}
				assert.Equal(t, options(strings.Fields(flagArg)[1:]), options([]string{flagArg}), "giving --%s its printed default %q changes the options", name, printed)
			})
		}
	}
}

// A numeric flag given 0 is taken, or refused naming the flag: a 0 that
// stands for the profile's in the configuration is not taken silently.
func TestZeroNamesItsFlag(t *testing.T) {
	input := filepath.Join(t.TempDir(), "series")
	require.NoError(t, os.WriteFile(input, []byte("1\n1\n1\n1\n1\n"), 0o644))
	for _, c := range commands() {
		r, ok := optionReaders[c.path[0]]
		if c.path[0] == "ss" {
			r.args = []string{input}
			r.read = func(cc *cli.Context) (any, error) { return nil, cc.Command.Action(cc) }
			ok = true
		}
		if !ok {
			continue
		}
		for _, f := range c.cmd.Flags {
			var zero string
			switch f.(type) {
			case *cli.IntFlag, *cli.Uint64Flag, *cli.Float64Flag:
				zero = "0"
			case *cli.DurationFlag:
				zero = "0s"
			default:
				continue
			}
			name := f.Names()[0]
			t.Run(strings.Join(c.path, " ")+" --"+name, func(t *testing.T) {
				var act func(*cli.Context) error
				if c.path[0] == "ss" {
					act = ssCommand().Action
				}
				err := withAction(c.path, append([]string{"--" + name, zero}, r.args...), func(cc *cli.Context) error {
					if act != nil {
						return act(cc)
					}
					_, err := r.read(cc)
					return err
				})
				if err != nil {
					assert.Regexp(t, "--"+name+"[ :]", err.Error(), "a 0 refused without naming its flag")
				}
			})
		}
	}
}

// Every command with more than a handful of flags shows them in groups,
// every flag in one; run's groups come in the order of a run.
func TestHelpInGroups(t *testing.T) {
	for _, c := range commands() {
		if len(c.cmd.Flags) <= 6 {
			continue
		}
		for _, f := range c.cmd.Flags {
			cf, ok := f.(cli.CategorizableFlag)
			assert.True(t, ok && cf.GetCategory() != "", "%s --%s is in no help group", strings.Join(c.path, " "), f.Names()[0])
		}
	}
	code, stdout, _ := ptsrun("run", "--help")
	require.Equal(t, 0, code)
	at := -1
	for _, g := range []string{"Targets and safety", "Tests", "IOPS/TP/LAT", "Steady state", "WSAT", "HIR", "XSR", "ECW", "DIRTH",
		"Engine", "Report and operator", "Output"} {
		i := strings.Index(stdout, "\n   "+g+":\n")
		if assert.Greater(t, i, at, "group %s after the one before it", g) {
			at = i
		}
	}
	assert.Regexp(t, `Targets and safety:\n   --target value .*\n   --fio-server`, stdout, "a group's flags in the order defined")
	assert.Contains(t, stdout, "--tc value                IOPS test thread count (default: the profile's: E 4, C 2)\n")
}
