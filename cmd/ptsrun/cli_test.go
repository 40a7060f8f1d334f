package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/pts"
)

// A value a flag cannot take is refused in one line that names the flag,
// the value and what the flag takes; a duration says the unit it lacks.
func TestFlagValueErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"cell time without unit", []string{"plan", "--target", "sim", "--cell-time", "5"}, `--cell-time "5": a duration needs a unit: 5s, 1m, 2h30m`},
		{"cell time not a duration", []string{"plan", "--target", "sim", "--cell-time", "5x"}, `--cell-time "5x": not a duration`},
		{"workload time without unit", []string{"workload", "--target", "sim", "--time", "30"}, `--time "30": a duration needs a unit`},
		{"workload ramp without unit", []string{"workload", "--target", "sim", "--ramp=10"}, `--ramp "10": a duration needs a unit`},
		{"test parameter without unit", []string{"plan", "--target", "sim", "--tests", "wsat", "--wsat-time", "24"}, `--wsat-time 24: a duration needs a unit: 5s, 1m, 2h30m`},
		{"xsr group without unit", []string{"plan", "--target", "sim", "--tests", "xsr", "--xsr-groups", "8h,6,8h"}, `--xsr-groups 8h,6,8h: "6": a duration needs a unit`},
		{"whole number", []string{"plan", "--target", "sim", "--tc", "four"}, `--tc "four": not a whole number`},
		{"number", []string{"ss", "--max-range", "a fifth", "-"}, `--max-range "a fifth": not a number`},
		{"mistyped flag", []string{"plan", "--targt", "sim"}, `Did you mean "--target"?`},
		{"mistyped flag of a subcommand", []string{"import", "fio", "--ot", "x", "f.json"}, `Did you mean "--out"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := ptsrun(tc.args...)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, tc.msg)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %q", stderr)
			assert.Empty(t, stdout)
		})
	}
}

// run.json records the build of the binary that wrote it, as --version
// names it; a run.json written before it had one still makes its report.
func TestRunJSONRecordsTheBuild(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, _, stderr := ptsrun("run", "--target", "sim", "--tests", "lat", "--out", dir)
	require.Equal(t, 0, code, stderr)
	path := filepath.Join(dir, "run.json")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var ri map[string]any
	require.NoError(t, json.Unmarshal(raw, &ri))
	build, ok := ri["build"].(map[string]any)
	require.True(t, ok, "run.json has a build: %s", raw)
	assert.Equal(t, version, build["version"])
	assert.Equal(t, runtime.Version(), build["go"])
	_, stdout, _ := ptsrun("--version")
	assert.Equal(t, "ptsrun version "+pts.ThisBuild(version).String()+"\n", stdout, "the build --version names")

	delete(ri, "build") // as ptsrun wrote it before
	old, err := json.Marshal(ri)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, old, 0o644))
	code, _, stderr = ptsrun("report", dir)
	assert.Equal(t, 0, code, stderr)
}

// commandWords are every command's words after "ptsrun" ("import fio")
// and its flags as typed, from the definitions.
func commandWords() map[string][]string {
	out := map[string][]string{}
	for _, c := range commands() {
		var flags []string
		for _, f := range c.cmd.Flags {
			if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
				continue // hidden: for tests, not for people
			}
			for _, n := range f.Names() {
				if len(n) == 1 {
					flags = append(flags, "-"+n)
				} else {
					flags = append(flags, "--"+n)
				}
			}
		}
		out[strings.Join(c.path, " ")] = flags
	}
	return out
}

// Each shell's completion script names every command and flag; bash's
// parses, and completes commands, subcommands and flags as typed.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			code, script, stderr := ptsrun("completion", shell)
			require.Equal(t, 0, code, stderr)
			for cmd, flags := range commandWords() {
				for _, w := range strings.Fields(cmd) {
					assert.Contains(t, script, w, "a command")
				}
				for _, f := range flags {
					if shell == "fish" { // -l target, -l o: a flag's first name is long to fish
						f = "-l " + strings.TrimLeft(f, "-")
					}
					assert.True(t, strings.Contains(script, f+" "), "%s: no flag %s of %s", shell, f, cmd)
				}
			}
		})
	}
	code, _, stderr := ptsrun("completion", "tcsh")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `completion "tcsh": the shells are bash, zsh, fish`)

	// Each shell, where it is installed: the script parses (-n), and
	// completes as typed. bash's and zsh's completion functions run with
	// the words of the line; zsh's builtins that offer words print them.
	probes := map[string]string{
		"bash": `source "$1"; read -ra COMP_WORDS <<< "$2"; [[ $2 == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ptsrun; echo "${COMPREPLY[*]}"`,
		"zsh": `offered=(); offer() { local w; for w in "$@"; do [[ $w == ${words[CURRENT]}* ]] && offered+=($w); done; }; ` +
			`compdef() { :; }; compadd() { shift; offer "$@"; }; _describe() { offer "${(@)${(P)2}%%:*}"; }; _files() { :; }; ` +
			`source "$1"; words=(${(z)2}); [[ $2 == *" " ]] && words+=(""); CURRENT=${#words}; _ptsrun; print -r -- $offered`,
		"fish": `source $argv[1]; complete -C $argv[2] | string replace -r '\t.*' '' | string join ' '; true`,
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell+" runs it", func(t *testing.T) {
			sh, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("no %s here", shell)
			}
			_, script, _ := ptsrun("completion", shell)
			path := filepath.Join(t.TempDir(), "ptsrun."+shell)
			require.NoError(t, os.WriteFile(path, []byte(script), 0o644))
			out, err := exec.Command(sh, "-n", path).CombinedOutput()
			require.NoError(t, err, "%s -n: %s", shell, out)
			for _, tc := range []struct{ line, want string }{
				{"ptsrun ru", "run"},
				{"ptsrun im", "import"},
				{"ptsrun import t", "table"},
				{"ptsrun import fio --pro", "--profile"},
				{"ptsrun run --target sim --ss-w", "--ss-window"},
				{"ptsrun report --fo", "--force"},
				{"ptsrun completion f", "fish"},
				{"ptsrun report zz", ""}, // an argument: the shell's file names (none here)
			} {
				args := []string{"-c", probes[shell], shell, path, tc.line} // $0, $1, $2
				if shell == "fish" {
					args = []string{"-c", probes[shell], path, tc.line} // $argv
				}
				cmd := exec.Command(sh, args...)
				cmd.Dir = t.TempDir() // no file names to offer
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s", out)
				assert.Equal(t, tc.want, strings.TrimSpace(string(out)), "%s: %s", shell, tc.line)
			}
		})
	}
}

// The man page is made from the same definitions: it names every command,
// each in its section, and every flag of it there.
func TestManPage(t *testing.T) {
	code, man, stderr := ptsrun("man")
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(man, ".nh\n.TH ptsrun 8"), "roff, section 8: %.40q", man)
	heading := regexp.MustCompile(`(?m)^\.S[HS] `)
	for cmd, flags := range commandWords() {
		words := strings.Fields(cmd)
		// The command's section, and its subcommand's within it.
		at := strings.Index(man, "\n.SH "+words[0]+"\n")
		require.GreaterOrEqual(t, at, 0, "no section of %s", words[0])
		section := man[at+1:]
		for _, w := range words[1:] {
			i := strings.Index(section, "\n.SS "+w+"\n")
			require.GreaterOrEqual(t, i, 0, "no section of %s", cmd)
			section = section[i+1:]
		}
		if next := heading.FindStringIndex(section[1:]); next != nil {
			section = section[:next[0]+1]
		}
		for _, f := range flags {
			assert.Regexp(t, `\\fB([^\\\n]*, )?`+regexp.QuoteMeta(f)+`(, [^\\\n]*)?\\fP`, section, "%s: no flag %s", cmd, f)
		}
	}
}
