package clihelp

import (
	"errors"
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"
)

// Groups come in the order of their first flag, each flag in the order
// defined; the flags of no group come last.
func TestGroups(t *testing.T) {
	a, b, c, d := &cli.StringFlag{Name: "a"}, &cli.IntFlag{Name: "b"}, &cli.BoolFlag{Name: "c"}, &cli.DurationFlag{Name: "d"}
	flags := append(Group("Second", b), Group("First", a)...)
	flags = append(flags, c)
	flags = append(flags, Group("Second", d)...)
	var got []string
	for _, g := range Groups(flags) {
		for _, f := range g.Flags {
			got = append(got, g.Name+":"+f.Names()[0])
		}
	}
	assert.Equal(t, []string{"Second:b", "Second:d", "First:a", ":c"}, got)
	assert.Panics(t, func() { Group("X", &cli.PathFlag{Name: "p"}) }, "a flag type Group does not know")
}

// A value a flag cannot read says what the flag takes; other errors pass.
func TestUsageError(t *testing.T) {
	cmd := &cli.Command{Name: "x", Flags: []cli.Flag{&cli.DurationFlag{Name: "cell-time"}, &cli.IntFlag{Name: "tc"},
		&cli.Float64Flag{Name: "f"}, &cli.StringFlag{Name: "o"}}}
	for _, tc := range []struct{ in, want string }{
		{`invalid value "5" for flag -cell-time: parse error`, `--cell-time "5": a duration needs a unit: 5s, 1m, 2h30m`},
		{`invalid value "5q" for flag -cell-time: parse error`, `--cell-time "5q": not a duration`},
		{`invalid value "x" for flag -tc: parse error`, `--tc "x": not a whole number`},
		{`invalid value "x" for flag -f: parse error`, `-f "x": not a number`},
		{`flag provided but not defined: -cel-time`, `unknown flag --cel-time. Did you mean "--cell-time"?`},
		{`something else`, `something else`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			ctx := cli.NewContext(&cli.App{}, flag.NewFlagSet("x", flag.ContinueOnError), nil)
			ctx.Command = cmd
			assert.Contains(t, UsageError(ctx, errors.New(tc.in)).Error(), tc.want)
		})
	}
}

func TestCompletionShells(t *testing.T) {
	app := &cli.App{Name: "prog", Writer: io.Discard, Commands: []*cli.Command{{Name: "go", Flags: []cli.Flag{&cli.StringFlag{Name: "to"}}}}}
	for _, sh := range Shells {
		s, err := Completion(app, sh)
		require.NoError(t, err, sh)
		assert.Contains(t, s, "go", sh)
		assert.Contains(t, s, "to", sh)
	}
	_, err := Completion(app, "tcsh")
	assert.EqualError(t, err, `completion "tcsh": the shells are bash, zsh, fish`)
}
