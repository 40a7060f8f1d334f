// Package clihelp is how ptsrun's command line presents the definitions
// of its commands and flags (urfave/cli): the help of a command with its
// flags in groups (Group, in the order the command defines them), a
// usage error in words (a mistyped flag gets the nearest one, a bad
// duration the unit it lacks), and, from the same definitions, the shell
// completion scripts (bash, zsh, fish) and the man page. It knows no
// command: cmd/ptsrun defines them and calls Setup once they are made.
package clihelp
