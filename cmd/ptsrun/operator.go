package main

import (
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/clihelp"
	"github.com/ptsrun/ptsrun/internal/pts"
)

// operatorFlags are the flags of every command that records a run: who
// ran it, where, and what the device does not report of itself.
func operatorFlags() []cli.Flag {
	return clihelp.Group("Report and operator",
		&cli.StringFlag{Name: "tested-by", EnvVars: []string{"PTSRUN_TESTED_BY"}, DefaultText: "not stated", Usage: "the test operator, for the report header's Tested By"},
		&cli.StringFlag{Name: "lab", EnvVars: []string{"PTSRUN_LAB"}, DefaultText: "not stated", Usage: "the laboratory the test is run in"},
		// Not a StringSliceFlag: that splits at commas, and "NAND=TLC, 176 layers" is one note.
		&cli.GenericFlag{Name: "dut-note", Value: &noteList{}, Usage: "KEY=VALUE the device does not report of itself, such as " +
			`"NAND=TLC 176L" or "Form factor=U.2" (repeatable; PTSRUN_DUT_NOTE holds more, separated by ";"); the report shows it as stated by the operator`},
	)
}

// noteList collects a repeated flag's values as given.
type noteList []string

func (n *noteList) Set(s string) error { *n = append(*n, s); return nil }
func (n *noteList) String() string     { return strings.Join(*n, "; ") }

// operatorFromFlags reads and checks --tested-by, --lab and --dut-note.
func operatorFromFlags(c *cli.Context) (pts.Operator, error) {
	var notes []string
	// The environment's notes first (a lab's standing ones), then the
	// command line's.
	for _, n := range strings.Split(os.Getenv("PTSRUN_DUT_NOTE"), ";") {
		if n = strings.TrimSpace(n); n != "" {
			notes = append(notes, n)
		}
	}
	if n, ok := c.Generic("dut-note").(*noteList); ok && n != nil {
		notes = append(notes, *n...)
	}
	return pts.NewOperator(c.String("tested-by"), c.String("lab"), notes)
}
