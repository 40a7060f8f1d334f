package clihelp

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// Commands are the commands that print what the definitions make: the
// completion scripts (a subcommand per shell) and the man page, of the
// program name.
func Commands(name string) []*cli.Command {
	completion := &cli.Command{
		Name:  "completion",
		Usage: "print the shell completion script for " + strings.Join(Shells, ", ") + ", made from the commands' definitions",
		UsageText: name + " completion bash|zsh|fish\n\n" +
			"   source <(" + name + " completion bash)    in this shell; for every one: " + name + " completion bash > /etc/bash_completion.d/" + name + "\n" +
			"   " + name + " completion fish > ~/.config/fish/completions/" + name + ".fish",
		Action: func(c *cli.Context) error { // a shell that is not a subcommand
			if c.Args().Len() == 0 {
				return cli.ShowSubcommandHelp(c)
			}
			_, err := Completion(c.App, c.Args().First())
			return err
		},
	}
	for _, shell := range Shells {
		completion.Subcommands = append(completion.Subcommands, &cli.Command{
			Name:  shell,
			Usage: "print the " + shell + " completion script",
			Action: func(c *cli.Context) error {
				return write(c, func() (string, error) { return Completion(c.App, shell) })
			},
		})
	}
	man := &cli.Command{
		Name:      "man",
		Usage:     "print the man page, made from the commands' definitions (roff: " + name + " man > " + name + ".8; man ./" + name + ".8)",
		UsageText: name + " man",
		Action:    func(c *cli.Context) error { return write(c, c.App.ToMan) },
	}
	return []*cli.Command{completion, man}
}

// write prints the text of text() on the app's output.
func write(c *cli.Context, text func() (string, error)) error {
	s, err := text()
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(c.App.Writer, s)
	return err
}
