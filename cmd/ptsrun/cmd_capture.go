package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/diskstats"
)

func captureCommand() *cli.Command {
	return &cli.Command{
		Name: "capture", Usage: "sample a block device's /proc/diskstats into a coarse capture that streams reads (unprivileged; docs/capture.md)",
		UsageText: "ptsrun capture --diskstats DEV [--interval 1s] --duration D --out FILE [--force]",
		Flags: []cli.Flag{&cli.StringFlag{Name: "diskstats", Usage: "the block device to sample"},
			&cli.DurationFlag{Name: "interval", Value: diskstats.DefaultInterval, Usage: "one step per interval"},
			&cli.DurationFlag{Name: "duration", Usage: "how long to sample"},
			&cli.StringFlag{Name: "out", Usage: "the capture file"},
			&cli.BoolFlag{Name: "force", Usage: "replace a file ptsrun did not write"}},
		Action: func(c *cli.Context) error {
			out, err := outPath(c, "out")
			if err != nil {
				return err
			}
			return diskstats.Capture(c.Context, diskstats.Options{Device: c.String("diskstats"), Interval: c.Duration("interval"),
				Duration: c.Duration("duration"), Out: out, Force: c.Bool("force")}, c.App.Writer)
		},
	}
}
