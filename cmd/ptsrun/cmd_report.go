package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/matrix"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "rebuild results.json and the CSV tables of a run from its journal",
		UsageText: "ptsrun report DIR",
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("report needs exactly one run directory")
			}
			return reportDir(c.Args().First(), c.App.Writer, c.App.ErrWriter)
		},
	}
}

func reportDir(dir string, stdout, stderr io.Writer) error {
	res, _, err := matrix.Load(dir)
	if err != nil {
		return err
	}
	if err := res.Save(dir); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "ptsrun: wrote %s and %s\n", filepath.Join(dir, "results.json"), filepath.Join(dir, "tables"))
	summarize(stderr, stdout, res, dir, false)
	return nil
}
