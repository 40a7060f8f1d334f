package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/capture"
	"github.com/ptsrun/ptsrun/internal/device"
	"github.com/ptsrun/ptsrun/internal/replay"
	"github.com/ptsrun/ptsrun/internal/rundir"
	"github.com/ptsrun/ptsrun/internal/targets"
)

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:  "replay",
		Usage: "issue a capture's I/Os on a target at their captured times, and measure how faithfully (docs/capture.md)",
		UsageText: "ptsrun replay CAPTURE --target T [--engine native|fio] [--speed X] [--depth N] [--device D] [--format F]\n" +
			"   [--out DIR] --destroy-data SERIAL-OR-PATH (when the capture writes)",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "target", Usage: "a block device or file:PATH[:SIZE]"},
			destroyDataFlag(),
			&cli.StringFlag{Name: "engine", Usage: "native or fio", DefaultText: "native"},
			&cli.Float64Flag{Name: "speed", Value: 1, Usage: "replay this many times as fast as captured"},
			&cli.IntFlag{Name: "depth", Usage: "slots (I/Os in flight at most)", DefaultText: "the capture's maximum outstanding I/O, else 32"},
			&cli.StringFlag{Name: "format", Value: string(capture.Auto), Usage: "the capture's format: auto, iolog, blkparse, biosnoop"},
			&cli.StringFlag{Name: "event", Value: "Q", Usage: "blkparse's event taken as the I/O: Q or D"},
			&cli.StringFlag{Name: "device", Value: "all", Usage: "the capture's device to replay, or all"},
			&cli.StringFlag{Name: "out", Usage: "run directory", DefaultText: "./ptsrun-replay-TIME"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 {
				return fmt.Errorf("replay needs one capture: a file, or - for standard input")
			}
			dir, err := outPath(c, "out")
			if err == nil && dir == "" {
				dir, err = device.AbsPath("ptsrun-replay-" + time.Now().Format("20060102-150405"))
			}
			if err != nil {
				return err
			}
			p, err := replay.Prepare(replay.Options{Capture: c.Args().First(), Stdin: c.App.Reader, Device: c.String("device"),
				Parse: capture.Options{Format: capture.Format(c.String("format")), Event: strings.ToUpper(c.String("event") + " ")[0]},
				Speed: c.Float64("speed"), Depth: c.Int("depth"),
				Targets: targets.Options{Specs: c.StringSlice("target"), Engine: c.String("engine"), DestroyData: c.StringSlice("destroy-data")}})
			if err != nil {
				return err
			}
			rec, files, err := rundir.Replay(c.Context, p, dir, version)
			if rec != nil {
				rec.Print(c.App.Writer, files)
			}
			return err
		},
	}
}
