package clihelp

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/engine"
)

// invalidValue is how Go's flag package refuses a value it cannot parse.
var invalidValue = regexp.MustCompile(`^invalid value ("(?:[^"\\]|\\.)*") for flag -([^:]+): (.*)$`)

// onUsageError is every command's urfave OnUsageError: the error is one
// line in words, not a help page.
func onUsageError(c *cli.Context, err error, _ bool) error { return UsageError(c, err) }

// UsageError words a usage error of the command of c: a mistyped flag
// gets the nearest of the command's own, a value the flag cannot read
// says what the flag takes (a duration its unit: --cell-time "5": a
// duration needs a unit: 5s, 1m, 2h30m).
func UsageError(c *cli.Context, err error) error {
	var flags []cli.Flag
	switch {
	case c != nil && c.Command != nil:
		flags = c.Command.Flags
	case c != nil && c.App != nil:
		flags = c.App.Flags
	}
	const undefined = "flag provided but not defined: -"
	if name, ok := strings.CutPrefix(err.Error(), undefined); ok {
		// Go's flag package says -tets however it was typed; ptsrun's
		// flags are written --tests.
		name = strings.TrimLeft(name, "-")
		dashes := "--"
		if len(name) == 1 {
			dashes = "-"
		}
		msg := "unknown flag " + dashes + name
		if cli.SuggestFlag != nil {
			if s := cli.SuggestFlag(flags, name, false); s != "" {
				msg += fmt.Sprintf(". Did you mean %q?", s)
			}
		}
		return errors.New(msg)
	}
	m := invalidValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	value, uerr := strconv.Unquote(m[1])
	if uerr != nil {
		return err
	}
	name := strings.TrimLeft(m[2], "-")
	dashes := "--"
	if len(name) == 1 {
		dashes = "-"
	}
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		var takes string
		switch f.(type) {
		case *cli.DurationFlag:
			if _, derr := engine.ParseDuration(value); derr != nil {
				takes = derr.Error()
			}
		case *cli.IntFlag:
			takes = "not a whole number"
		case *cli.Uint64Flag:
			takes = "not a whole number of zero or more"
		case *cli.Float64Flag:
			takes = "not a number"
		}
		if takes != "" {
			return fmt.Errorf("%s%s %q: %s", dashes, name, value, takes)
		}
	}
	return err
}

// UnknownCommand words urfave/cli's "No help topic for 'rn'", which it
// says of a mistyped command too, as what it is when no help was asked
// for (args[1] is not "help"): an unknown command, with its suggestion.
func UnknownCommand(args []string, err error) error {
	const prefix = "No help topic for '"
	if err == nil || len(args) < 2 || args[1] == "help" || args[1] == "h" {
		return err
	}
	rest, ok := strings.CutPrefix(err.Error(), prefix)
	if !ok {
		return err
	}
	name, suggestion, ok := strings.Cut(rest, "'")
	if !ok {
		return err
	}
	return cli.Exit(fmt.Sprintf("unknown command %q%s", name, suggestion), 1)
}
