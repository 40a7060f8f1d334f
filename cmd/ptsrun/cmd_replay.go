package main

import (
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/clihelp"
	"github.com/ptsrun/ptsrun/internal/replay"
	"github.com/ptsrun/ptsrun/internal/rundir"
	"github.com/ptsrun/ptsrun/internal/targets"
)

func replayCommand() *cli.Command {
	return &cli.Command{
		Name: "replay", Usage: "issue a capture's I/Os on a target at their captured times, and measure how faithfully (docs/capture.md)",
		UsageText: "ptsrun replay CAPTURE --target T [--engine native|fio] [--speed X] [--depth N] [--device D] [--format F] [--cpu-idle shallow|host|DURATION] [--out DIR] --destroy-data T",
		Flags: slices.Concat(clihelp.Group("Targets and safety", &cli.StringSliceFlag{Name: "target", Usage: "a block device or file:PATH[:SIZE]"},
			destroyDataFlag(), &cli.StringFlag{Name: "engine", Usage: "native or fio", DefaultText: "native"}), clihelp.Group("Replay",
			&cli.Float64Flag{Name: "speed", Value: 1, Usage: "replay this many times as fast as captured"},
			&cli.IntFlag{Name: "depth", Usage: "slots: I/Os in flight at most", DefaultText: "the capture's maximum outstanding I/O, else 32"},
			&cli.StringFlag{Name: "format", Value: string(capture.Auto), Usage: "the capture's format: auto, iolog, blkparse, biosnoop, diskstats"},
			&cli.StringFlag{Name: "event", Value: "Q", Usage: "blkparse's event taken as the I/O: Q or D"},
			&cli.StringFlag{Name: "device", Value: "all", Usage: "the capture's device to replay, or all"},
			cpuIdleFlag(),
			&cli.StringFlag{Name: "out", Usage: "run directory", DefaultText: "./ptsrun-replay-TIME"})),
		Action: func(c *cli.Context) error {
			p, err := replay.Prepare(replay.Options{CPUIdle: c.String("cpu-idle"), Warn: c.App.ErrWriter, Args: c.Args().Slice(), Stdin: c.App.Reader, Device: c.String("device"),
				Format: c.String("format"), Event: c.String("event"), Speed: c.Float64("speed"), Depth: c.Int("depth"),
				Targets: targets.Options{Specs: c.StringSlice("target"), Engine: c.String("engine"), DestroyData: c.StringSlice("destroy-data")}})
			if err != nil {
				return err
			}
			rec, files, err := rundir.Replay(c.Context, p, c.String("out"), version)
			rec.Print(c.App.Writer, files)
			return err
		},
	}
}
