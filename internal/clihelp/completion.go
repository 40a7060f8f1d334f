package clihelp

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/urfave/cli/v2"
)

// Shells are the shells Completion writes a script for.
var Shells = []string{"bash", "zsh", "fish"}

//go:embed completion.bash completion.zsh
var scripts embed.FS

// Completion is app's completion script for shell (Shells), made from its
// definitions: its commands, each command's subcommands and flags.
func Completion(app *cli.App, shell string) (string, error) {
	switch shell {
	case "fish":
		s, err := app.ToFishCompletion()
		// urfave says no file names (-f) for every flag, and nothing of
		// them for commands: a flag's value (-r) may be a file, as bash
		// and zsh offer them, and where a command is typed nothing else is.
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			switch {
			case strings.HasPrefix(l, "complete -r -c "):
				lines[i] = "complete -r -f -c " + strings.TrimPrefix(l, "complete -r -c ")
			case strings.HasPrefix(l, "complete ") && strings.Contains(l, " -r"):
				lines[i] = strings.Replace(l, " -f -l ", " -l ", 1)
			}
		}
		return strings.Join(lines, "\n"), err
	case "bash", "zsh":
		t, err := template.ParseFS(scripts, "completion."+shell)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		err = t.Execute(&b, completionOf(app))
		return b.String(), err
	}
	return "", fmt.Errorf("completion %q: the shells are %s", shell, strings.Join(Shells, ", "))
}

// completion is what a script completes after a command, or after none.
type completion struct {
	Name string // the program
	// Key is the command's words after the program, each after a space
	// (" import fio"); "" for the program itself.
	Key string
	// Subs are the subcommands, Flags the flags, separated by spaces;
	// Described the subcommands with their usage as zsh's _describe takes
	// them, each quoted.
	Subs, Flags, Described string
	Commands               []completion // the program's commands, subcommands included
}

func completionOf(app *cli.App) completion {
	top := describe("", app.VisibleCommands(), app.VisibleFlags())
	top.Name = app.Name
	for _, f := range []cli.Flag{cli.HelpFlag, cli.VersionFlag} {
		if !hasFlag(app.VisibleFlags(), f) && (f != cli.HelpFlag || !app.HideHelp) && (f != cli.VersionFlag || !app.HideVersion) {
			top.Flags = strings.TrimSpace(top.Flags + " " + flagWords(f))
		}
	}
	var walk func(string, []*cli.Command)
	walk = func(key string, cmds []*cli.Command) {
		for _, c := range cmds {
			if key != "" && c.Name == "help" {
				continue // urfave's help of a command's subcommands, not one of them
			}
			k := key + " " + c.Name
			flags := c.VisibleFlags()
			if !c.HideHelp && !hasFlag(flags, cli.HelpFlag) {
				flags = append(flags, cli.HelpFlag)
			}
			top.Commands = append(top.Commands, describe(k, c.VisibleCommands(), flags))
			walk(k, c.VisibleCommands())
		}
	}
	walk("", app.VisibleCommands())
	return top
}

func describe(key string, cmds []*cli.Command, flags []cli.Flag) completion {
	c := completion{Key: key}
	var subs, described, words []string
	for _, s := range cmds {
		if key != "" && s.Name == "help" {
			continue
		}
		subs = append(subs, s.Name)
		described = append(described, quote(s.Name+":"+s.Usage))
	}
	for _, f := range flags {
		words = append(words, flagWords(f))
	}
	c.Subs, c.Described, c.Flags = strings.Join(subs, " "), strings.Join(described, " "), strings.Join(words, " ")
	return c
}

// flagWords are a flag's names as typed: --target, -o.
func flagWords(f cli.Flag) string {
	var out []string
	for _, n := range f.Names() {
		if len(n) == 1 {
			out = append(out, "-"+n)
		} else {
			out = append(out, "--"+n)
		}
	}
	return strings.Join(out, " ")
}

func hasFlag(flags []cli.Flag, f cli.Flag) bool { return slices.Contains(flags, f) }

// quote single-quotes s for a shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
