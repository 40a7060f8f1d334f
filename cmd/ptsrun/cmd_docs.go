package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/clihelp"
)

// completionCommand prints a completion script, a subcommand per shell.
func completionCommand() *cli.Command {
	c := &cli.Command{
		Name:  "completion",
		Usage: "print the shell completion script for " + strings.Join(clihelp.Shells, ", ") + ", made from the commands' definitions",
		UsageText: "ptsrun completion bash|zsh|fish\n\n" +
			"   source <(ptsrun completion bash)    in this shell; for every one: ptsrun completion bash > /etc/bash_completion.d/ptsrun\n" +
			"   ptsrun completion fish > ~/.config/fish/completions/ptsrun.fish",
		Action: func(c *cli.Context) error { // a shell that is not a subcommand
			if c.Args().Len() == 0 {
				return cli.ShowSubcommandHelp(c)
			}
			_, err := clihelp.Completion(c.App, c.Args().First())
			return err
		},
	}
	for _, shell := range clihelp.Shells {
		c.Subcommands = append(c.Subcommands, &cli.Command{
			Name:  shell,
			Usage: "print the " + shell + " completion script",
			Action: func(c *cli.Context) error {
				s, err := clihelp.Completion(c.App, shell)
				if err != nil {
					return err
				}
				_, err = fmt.Fprint(c.App.Writer, s)
				return err
			},
		})
	}
	return c
}

func manCommand() *cli.Command {
	return &cli.Command{
		Name:      "man",
		Usage:     "print the man page, made from the commands' definitions (roff: ptsrun man > ptsrun.8; man ./ptsrun.8)",
		UsageText: "ptsrun man",
		Action: func(c *cli.Context) error {
			s, err := c.App.ToMan()
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(c.App.Writer, s)
			return err
		},
	}
}
