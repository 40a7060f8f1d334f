package clihelp

import (
	"fmt"
	"io"
	"sync"

	"github.com/urfave/cli/v2"
)

// Group puts flags in the help group category, in the order given: a
// command's help shows its groups in the order of their first flag, each
// with its flags in the order the command defines them.
func Group(category string, flags ...cli.Flag) []cli.Flag {
	for _, f := range flags {
		switch f := f.(type) {
		case *cli.StringFlag:
			f.Category = category
		case *cli.StringSliceFlag:
			f.Category = category
		case *cli.BoolFlag:
			f.Category = category
		case *cli.IntFlag:
			f.Category = category
		case *cli.Uint64Flag:
			f.Category = category
		case *cli.Float64Flag:
			f.Category = category
		case *cli.DurationFlag:
			f.Category = category
		case *cli.GenericFlag:
			f.Category = category
		default:
			panic(fmt.Sprintf("clihelp.Group: flag %v of type %T", f.Names(), f))
		}
	}
	return flags
}

// FlagGroup is one group of a command's help: its name ("" for the flags
// of no group, --help) and its flags.
type FlagGroup struct {
	Name  string
	Flags []cli.Flag
}

// Groups are the help groups of flags, in the order of their first flag,
// the flags of no group last.
func Groups(flags []cli.Flag) []FlagGroup {
	var out []FlagGroup
	at := map[string]int{}
	var rest []cli.Flag
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		cat := ""
		if c, ok := f.(cli.CategorizableFlag); ok {
			cat = c.GetCategory()
		}
		if cat == "" {
			rest = append(rest, f)
			continue
		}
		i, ok := at[cat]
		if !ok {
			i, at[cat] = len(out), len(out)
			out = append(out, FlagGroup{Name: cat})
		}
		out[i].Flags = append(out[i].Flags, f)
	}
	if len(rest) > 0 {
		out = append(out, FlagGroup{Flags: rest})
	}
	return out
}

// commandHelp is urfave's command help with the options in their groups.
const commandHelp = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{template "usageTemplate" .}}{{if .Category}}

CATEGORY:
   {{.Category}}{{end}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}{{if .VisibleFlags}}

OPTIONS:{{range $i, $g := flagGroups .VisibleFlags}}{{if .Name}}

   {{.Name}}:{{else if $i}}
{{end}}{{range .Flags}}
   {{wrap .String 6}}{{end}}{{end}}{{end}}
`

var installHelp sync.Once

// Setup finishes app once its commands are made: the help of every
// command without subcommands shows its flags in groups, a switch that
// is off unless given says no default, and a usage error of any command
// is worded by UsageError.
func Setup(app *cli.App) {
	installHelp.Do(func() {
		// urfave's printer with the one function the grouped help needs.
		cli.HelpPrinter = func(w io.Writer, templ string, data any) {
			cli.HelpPrinterCustom(w, templ, data, map[string]any{"flagGroups": Groups})
		}
	})
	app.OnUsageError = onUsageError
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.OnUsageError = onUsageError
			for _, f := range c.Flags {
				if b, ok := f.(*cli.BoolFlag); ok && !b.Value {
					b.DisableDefaultText = true // "(default: false)" says nothing
				}
			}
			if len(c.Subcommands) == 0 && c.CustomHelpTemplate == "" {
				c.CustomHelpTemplate = commandHelp
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}
