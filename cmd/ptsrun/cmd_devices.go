package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ptsrun/ptsrun/internal/device"
)

func devicesCommand() *cli.Command {
	return &cli.Command{
		Name:      "devices",
		Usage:     "list the block devices with their identity and whether ptsrun would write to them",
		UsageText: "ptsrun devices [--json] [--all]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the devices with their safety verdicts as one JSON array on stdout"},
			&cli.BoolFlag{Name: "all", Usage: "include empty devices (size 0: unattached loop devices, absent media)"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 0 {
				return fmt.Errorf("unexpected argument %q", c.Args().First())
			}
			return runDevices(c.Context, devicesOptions{FS: device.Live, JSON: c.Bool("json"), All: c.Bool("all")}, c.App.Writer, c.App.ErrWriter)
		},
	}
}

// devicesOptions are devices' options.
type devicesOptions struct {
	FS   device.FS // where the devices are read: device.Live, or a fixture
	JSON bool
	All  bool // include empty devices
}

// deviceEntry is one device of `ptsrun devices`.
type deviceEntry = device.Entry

// runDevices lists the block devices with their safety verdicts.
func runDevices(_ context.Context, opts devicesOptions, w, _ io.Writer) error {
	entries, err := opts.FS.List(opts.All)
	if err != nil {
		return err
	}
	if opts.JSON {
		b, err := json.MarshalIndent(entries, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	fmt.Fprintf(w, "%-12s %10s %-9s %-34s %-20s %s\n", "DEVICE", "SIZE", "TYPE", "MODEL", "SERIAL", "VERDICT")
	for _, e := range entries {
		name := e.Name
		if e.Partition {
			name = " └" + name
		}
		verdict := "usable with --destroy-data " + e.Verdict.Confirm
		if !e.Verdict.Usable {
			verdict = "REFUSED: " + strings.Join(e.Verdict.Refused, "; ")
		} else if len(e.Verdict.Carries) > 0 {
			verdict += " (holds " + strings.Join(e.Verdict.Carries, ", ") + ")"
		}
		typ := e.Interface
		if typ == "" {
			typ = "-"
		}
		fmt.Fprintf(w, "%-12s %10s %-9s %-34s %-20s %s\n", name, device.FormatCapacity(e.CapacityBytes), typ,
			clip(e.Model, 34), clip(e.Serial, 20), verdict)
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n-1] + "…"
	}
	if s == "" {
		return "-"
	}
	return s
}
