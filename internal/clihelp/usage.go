package clihelp

import (
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
	if name, ok := strings.CutPrefix(err.Error(), undefined); ok && cli.SuggestFlag != nil {
		if s := cli.SuggestFlag(flags, strings.TrimLeft(name, "-"), false); s != "" {
			return fmt.Errorf("%w. Did you mean %q?", err, s)
		}
		return err
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
